#!/usr/bin/env python3
"""Writes a single-file .torrent for FILE announcing to TRACKER_URL and prints
its info-hash (40 hex digits): what Debian's opentracker must find in its
whitelist (-w) before it serves the swarm (bench/swarm.sh).

    make_torrent.py FILE TRACKER_URL OUT.torrent [--piece-bytes N]
"""
import argparse
import hashlib
import os
import sys


def bencode(value):
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, str):
        return bencode(value.encode())
    if isinstance(value, list):
        return b"l" + b"".join(bencode(v) for v in value) + b"e"
    if isinstance(value, dict):
        # Keys sorted as raw strings, as the format requires.
        items = sorted((k.encode() if isinstance(k, str) else k, v) for k, v in value.items())
        return b"d" + b"".join(bencode(k) + bencode(v) for k, v in items) + b"e"
    raise TypeError(type(value))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("tracker")
    parser.add_argument("out")
    parser.add_argument("--piece-bytes", type=int, default=1 << 20)
    args = parser.parse_args()
    if args.piece_bytes <= 0 or args.piece_bytes & (args.piece_bytes - 1):
        sys.exit("make_torrent.py: --piece-bytes must be a power of two")
    pieces = []
    with open(args.file, "rb") as f:
        while True:
            block = f.read(args.piece_bytes)
            if not block:
                break
            pieces.append(hashlib.sha1(block).digest())
    info = {
        "name": os.path.basename(args.file),
        "length": os.path.getsize(args.file),
        "piece length": args.piece_bytes,
        "pieces": b"".join(pieces),
    }
    with open(args.out, "wb") as f:
        f.write(bencode({"announce": args.tracker, "info": info}))
    print(hashlib.sha1(bencode(info)).hexdigest())


if __name__ == "__main__":
    main()
