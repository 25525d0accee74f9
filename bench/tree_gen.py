#!/usr/bin/env python3
"""The trees of bench/tree.sh and bench/tree_groups.sh, deterministic by seed.

  tree_gen.py gen ROOT FILES TOTAL_BYTES SEED   a tree (docs/bench-tree.md)
  tree_gen.py mutate ROOT SEED                  1% of its files changed, 10 deleted
Each prints key=value lines about what it made.
"""
import os, random, sys

L = 8                      # the smallest size drawn
MTIME = 1700000000         # every generated file's mtime

def text_pool(seed):
    """~4 MiB of lines made of a few hundred words, a few thousand distinct lines repeated."""
    r = random.Random(f"{seed}-text")
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(r.choice(letters) for _ in range(r.randint(2, 10))) for _ in range(400)]
    lines = [" ".join(r.choice(words) for _ in range(r.randint(4, 14))) + "\n" for _ in range(3000)]
    out, n = [], 0
    while n < (4 << 20):
        line = r.choice(lines)
        out.append(line)
        n += len(line)
    pool = "".join(out).encode()
    return pool + pool

def text_bytes(pool, r, size):
    half = len(pool) // 2
    out, off = [], r.randrange(half)
    while size > 0:
        take = min(size, half)
        out.append(pool[off:off + take])
        size -= take
        off = 0
    return b"".join(out)

def write(path, data_size, kind, r, pool):
    with open(path, "wb") as f:
        if kind == "text":
            f.write(text_bytes(pool, r, data_size))
        else:
            left = data_size
            while left > 0:
                take = min(left, 1 << 20)
                f.write(r.randbytes(take))
                left -= take

def sizes_for(n, total, seed):
    """A handful of large files, log-uniform in [U/8, U] with U = min(64 MiB,
    total/8); the rest log-uniform from L bytes to a top fitted so the sizes
    add up to total."""
    u_max = max(64 * L, min(64 << 20, total // 8))
    if n * u_max < total:
        sys.exit(f"cannot make {total} bytes from {n} files of at most {u_max}")
    r = random.Random(f"{seed}-sizes")
    handful = max(2, round(n / 2500))
    large = [int(u_max / 8 * 8 ** r.random()) for _ in range(handful)]
    large[0] = u_max
    while sum(large) > total // 4 and len(large) > 1:
        large.pop()
    rest = total - sum(large)
    us = [r.random() for _ in range(n - len(large))]
    draw = lambda top: [L * (top / L) ** u for u in us]
    lo, hi = 2.0 * L, float(u_max)
    for _ in range(100):
        mid = (lo * hi) ** 0.5
        if sum(draw(mid)) > rest:
            hi = mid
        else:
            lo = mid
    s = draw(hi)
    scale = rest / sum(s)
    small = [max(1, min(u_max, int(x * scale))) for x in s]
    sizes = large + small
    r.shuffle(sizes)
    diff = total - sum(sizes)
    order = sorted(range(n), key=lambda i: -sizes[i])
    while diff != 0:
        for i in order:
            if diff == 0:
                break
            step = min(diff, u_max - sizes[i]) if diff > 0 else max(diff, 1 - sizes[i])
            sizes[i] += step
            diff -= step
    return sizes, u_max

def gen(root, n, total, seed):
    r = random.Random(f"{seed}-layout")
    ndirs = min(200, max(1, n // 20))
    dirs = [("", 0)]
    for j in range(ndirs):
        parent, depth = r.choice([d for d in dirs if d[1] < 4])
        dirs.append((os.path.join(parent, f"d{j:03d}"), depth + 1))
    for d, _ in dirs:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    sizes, u_max = sizes_for(n, total, seed)
    pool = text_pool(seed)
    text = rand = 0
    largest, largest_path = -1, ""
    for i, size in enumerate(sizes):
        kind = "text" if text <= rand else "random"
        if kind == "text":
            text += size
        else:
            rand += size
        d = r.choice(dirs)[0]
        rel = os.path.join(d, f"f{i:05d}." + ("txt" if kind == "text" else "bin"))
        path = os.path.join(root, rel)
        write(path, size, kind, random.Random(f"{seed}-file-{i}"), pool)
        os.utime(path, (MTIME, MTIME))
        if size > largest:
            largest, largest_path = size, rel
    for d, _ in sorted(dirs, key=lambda d: -d[1]):
        os.utime(os.path.join(root, d), (MTIME, MTIME))
    over_1m = sum(1 for s in sizes if s >= (1 << 20))
    under_4k = sum(1 for s in sizes if s < 4096)
    print(f"files={n}\ndirs={ndirs}\nbytes={sum(sizes)}\nlargest={largest}\nlargest_path={largest_path}")
    print(f"max_draw={u_max}\ntext_bytes={text}\nrandom_bytes={rand}\nover_1mib={over_1m}\nunder_4kib={under_4k}")

def mutate(root, seed):
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.relpath(os.path.join(d, f), root) for f in names]
    files.sort()
    r = random.Random(f"{seed}-mutate")
    nchange = max(1, round(len(files) * 0.01))
    picks = r.sample(files, nchange + 10)
    pool = text_pool(seed)
    changed_bytes = 0
    for k, rel in enumerate(picks[:nchange]):
        path = os.path.join(root, rel)
        size = os.path.getsize(path) + r.randint(1, 16)
        kind = "text" if rel.endswith(".txt") else "random"
        write(path, size, kind, random.Random(f"{seed}-change-{k}"), pool)
        changed_bytes += size
    for rel in picks[nchange:]:
        os.unlink(os.path.join(root, rel))
    print(f"changed={nchange}\nchanged_bytes={changed_bytes}\ndeleted={len(picks) - nchange}")

if sys.argv[1] == "gen":
    gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
else:
    mutate(sys.argv[2], sys.argv[3])
