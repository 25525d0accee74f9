#!/usr/bin/env python3
"""Idle connections that never log in or say hello (docs/security.md): keeps
COUNT of them open from SOURCE to each TARGET, opening a new one for each the
daemon closes, until killed. Prints how many it opened in all when it stops.

  bench/flood.py --source 127.0.0.2 --count 500 HOST:PORT [HOST:PORT ...]
"""
import argparse
import selectors
import signal
import socket
import sys


def connect(source, target):
    host, port = target.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((source, 0))
    try:
        s.connect((host, int(port)))
    except BlockingIOError:
        pass
    return s


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", default="127.0.0.2")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("targets", nargs="+")
    args = parser.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    selector = selectors.DefaultSelector()
    opened = 0
    for target in args.targets:
        for _ in range(args.count):
            selector.register(connect(args.source, target), selectors.EVENT_READ, target)
            opened += 1
    while not stop:
        for key, _ in selector.select(timeout=0.2):
            # Readable: closed by the daemon (or data, never sent here): open another.
            try:
                data = key.fileobj.recv(4096)
            except OSError:
                data = b""
            if data:
                continue
            selector.unregister(key.fileobj)
            key.fileobj.close()
            selector.register(connect(args.source, key.data), selectors.EVENT_READ, key.data)
            opened += 1
    print(f"flood: opened {opened} connections", file=sys.stderr)


if __name__ == "__main__":
    main()
