#!/usr/bin/env bash
# Bandwidth caps on a local cluster (docs/bandwidth-limits.md, "Measured"):
# is a capped send's prediction right, and does the pacing keep the cap?
# `hnow local up` (127.0.0.1, each agent pacing its emulated links; uplinks
# and downlinks of LINK Mbit/s, hnowd's uplink the same), a random file of
# SIZE bytes sent to every agent (--compress none, so what moves is the
# file), rep by rep in each of two setups:
#   max-rate  hnow send --max-rate RATE: every link the send uses at most RATE;
#   agent-cap every agent's [limits] max_uplink_mbps = CAP (hnow local up
#             --max-uplink-mbps), hnowd's uplink not capped.
# Per run: the report's predicted_s and actual_s, and the highest bytes per
# second over any 1 s window on every capped link, against the cap. The
# bytes a link carried are read from the copies as they grow: every 0.25 s
# a sampler reads each agent's destination (its .part file, then the file)
# and the byte ranges written so far (SEEK_DATA/SEEK_HOLE: a striped copy
# is written stripe by stripe at their offsets), and the report says who
# fed each copy or stripe; a node's uplink carried what its children got
# from it. A window is the shortest span of samples of at least 1 s.
# Medians of REPS.
#   bench/caps.sh [--agents N] [--size BYTES] [--reps R] [--link-mbps L]
#                 [--rate RATE] [--cap-mbps CAP] [--algo auto|tree|striped|binomial]
#                 [--setups max-rate,agent-cap]
#   bench/caps.sh --agents 6 --size 100663296 --rate 80M --cap-mbps 80
# Writes markdown to stdout, progress to stderr. Needs jq and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
AGENTS=6 SIZE=$((96 << 20)) REPS=3 LINK=400 RATE=80M CAP=80 ALGO=auto SETUPS=max-rate,agent-cap
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --link-mbps) LINK=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --cap-mbps) CAP=$2; shift 2 ;;
    --algo) ALGO=$2; shift 2 ;;
    --setups) SETUPS=$2; shift 2 ;;
    *) echo "usage: bench/caps.sh [--agents N] [--size BYTES] [--reps R] [--link-mbps L] [--rate RATE] [--cap-mbps CAP] [--algo A] [--setups S,..]" >&2
       exit 2 ;;
  esac
done
[[ "$REPS" =~ ^[0-9]+$ ]] && [ "$REPS" -ge 1 ] || { echo "bench/caps.sh: --reps must be at least 1" >&2; exit 2; }
for tool in jq python3; do
  command -v "$tool" >/dev/null || { echo "bench/caps.sh needs $tool" >&2; exit 2; }
done
# Read by bench/labs.sh.
# shellcheck disable=SC2034
HNOW="$HNOW_BUILD_DIR/daemon/hnow" LINKS=local
DIR="" SAMPLER_PID=""
# shellcheck source=bench/labs.sh
. bench/labs.sh
stop_sampler() {
  [ -z "$SAMPLER_PID" ] || { kill -TERM "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; }
  SAMPLER_PID=""
}
cleanup() { stop_sampler; [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every 0.25 s until killed: one line per sample, the time and, per agent,
# the byte ranges its copy of NAME holds so far.
sampler() {
  python3 - "$@" <<'PY'
import json, os, signal, sys, time
root, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
agents = sorted(os.listdir(os.path.join(root, "agents")))
stop = False
def halt(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, halt)
def ranges(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        end, at, out = os.fstat(fd).st_size, 0, []
        while at < end:
            try:
                start = os.lseek(fd, at, os.SEEK_DATA)
            except OSError:
                break
            hole = os.lseek(fd, start, os.SEEK_HOLE)
            out.append([start, hole])
            at = hole
        return out
    finally:
        os.close(fd)
def copy(agent):
    d = os.path.join(root, "agents", agent, "files", "in")
    final = os.path.join(d, name)
    try:
        parts = [f for f in os.listdir(d) if f.startswith("." + name + ".hnow-") and f.endswith(".part")]
    except OSError:
        parts = []
    for f in parts:
        r = ranges(os.path.join(d, f))
        if r is not None:
            return r
    return ranges(final) or []
with open(out, "w") as o:
    while not stop:
        t = time.monotonic()
        o.write(json.dumps({"t": t, "copies": {a: copy(a) for a in agents}}) + "\n")
        o.flush()
        time.sleep(max(0.0, 0.25 - (time.monotonic() - t)))
PY
}

# The highest 1 s window of every link that carried the send, in bytes/s:
# "node up|down bytes_per_s" lines, from the samples and the report.
windows() {
  python3 - "$1" "$2" <<'PY'
import json, sys
samples = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
report = json.load(open(sys.argv[2]))
size = report["size"]
stripes = [(s["offset"], s["offset"] + s["length"]) for s in report["stripes"]] or [(0, size)]
feeds = []  # (child, stripe range, parent)
for c in report["copies"]:
    for k, r in enumerate(stripes):
        parent = c["stripe_parents"][k] if c.get("stripe_parents") else c["parent"]
        feeds.append((c["node"], r, parent))
def held(ranges, lo, hi):
    return sum(max(0, min(b, hi) - max(a, lo)) for a, b in ranges)
links = {}
for child, (lo, hi), parent in feeds:
    series = [held(s["copies"].get(child, []), lo, hi) for s in samples]
    for key in ((child, "down"), (parent, "up")):
        total = links.setdefault(key, [0] * len(samples))
        for i, v in enumerate(series):
            total[i] += v
times = [s["t"] for s in samples]
for (node, direction), series in sorted(links.items()):
    best, j = 0.0, 0
    for i in range(len(times)):
        while j < len(times) and times[j] - times[i] < 1.0:
            j += 1
        if j == len(times):
            break
        best = max(best, (series[j] - series[i]) / (times[j] - times[i]))
    print(node, direction, "%.0f" % best)
PY
}

rate_bytes=$(awk -v r="$RATE" 'BEGIN { n = r + 0; u = tolower(substr(r, length(n "") + 1, 1));
  s = u == "k" ? 1e3 : u == "m" ? 1e6 : u == "g" ? 1e9 : 0; print n * s / 8 }')
[ "$(awk -v b="$rate_bytes" 'BEGIN { print (b > 0) }')" = 1 ] || { echo "bench/caps.sh: --rate is N with k, M or G (bits/s), not '$RATE'" >&2; exit 2; }
cap_bytes=$(awk -v c="$CAP" 'BEGIN { print c * 1e6 / 8 }')

echo "# Bandwidth caps: $SIZE bytes to $AGENTS agents on a local cluster, links of $LINK Mbit/s"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS, --algo $ALGO"
echo "- Links: hnow local up on 127.0.0.1, each agent pacing its own uplink and downlink at $LINK Mbit/s, hnowd's uplink $LINK"
echo "- Per-second bytes: each copy's written ranges sampled every 0.25 s, a link's bytes from who fed whom (the report)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a setups <<<"$SETUPS"
for setup in "${setups[@]}"; do
  case "$setup" in
    max-rate) extra="" send_extra="--max-rate $RATE" cap=$rate_bytes capped="every link" ;;
    agent-cap) extra="--max-uplink-mbps $CAP" send_extra="" cap=$cap_bytes capped="agents' uplinks" ;;
    *) echo "bench/caps.sh: unknown setup '$setup' (max-rate, agent-cap)" >&2; exit 2 ;;
  esac
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-caps-XXXXXX")
  echo "bench/caps.sh: setup $setup: local up $extra" >&2
  # shellcheck disable=SC2086
  lab_up "--uplink-mbps $LINK --downlink-mbps $LINK --source-uplink-mbps $LINK $extra"
  head -c "$SIZE" /dev/urandom >"$DIR/file.bin"
  preds=() actuals=() ratios=() peaks=() rows=()
  for ((r = 0; r < REPS; r++)); do
    name="caps-$r.bin"
    empty_agent_roots
    sampler "$DIR" "$name" "$DIR/samples-$r.jsonl" &
    SAMPLER_PID=$!
    # shellcheck disable=SC2086
    report=$(hnow_send "$DIR/file.bin" --dest "in/$name" --algo "$ALGO" --compress none $send_extra --json 2>/dev/null) ||
      { echo "bench/caps.sh: $setup run $r failed" >&2; exit 1; }
    sleep 0.5
    stop_sampler
    [ "$(jq '.failed | length' <<<"$report")" = 0 ] || { echo "bench/caps.sh: $setup run $r lost copies" >&2; exit 1; }
    echo "$report" >"$DIR/report-$r.json"
    p=$(jq .predicted_s <<<"$report") a=$(jq .actual_s <<<"$report")
    ratio=$(awk -v a="$a" -v p="$p" 'BEGIN { printf "%.3f", a / p }')
    links=$(windows "$DIR/samples-$r.jsonl" "$DIR/report-$r.json")
    # The capped links: every link for --max-rate, the agents' uplinks for their cap.
    if [ "$setup" = max-rate ]; then worst=$(awk '{ print $3 }' <<<"$links" | sort -g | tail -1)
    else worst=$(awk '$1 != "hnowd" && $2 == "up" { print $3 }' <<<"$links" | sort -g | tail -1); fi
    p=$(awk -v x="$p" 'BEGIN { printf "%.2f", x }') a=$(awk -v x="$a" 'BEGIN { printf "%.2f", x }')
    preds+=("$p") actuals+=("$a")
    ratios+=("$ratio")
    peaks+=("$(awk -v w="${worst:-0}" -v c="$cap" 'BEGIN { printf "%.3f", w / c }')")
    rows+=("$(jq -r '.algo + (if (.stripes | length) > 0 then " (\(.stripes | length) stripes)" else "" end) + ", replans \(.replans)"' <<<"$report")")
    echo "bench/caps.sh: $setup rep $r: predicted $p s, actual $a s, peak 1 s window $(awk -v w="${worst:-0}" 'BEGIN { printf "%.2f", w * 8 / 1e6 }') Mbit/s of $(awk -v c="$cap" 'BEGIN { printf "%.1f", c * 8 / 1e6 }')" >&2
    echo "$links" | sed "s/^/bench\/caps.sh:   /" >&2
    rm -f "$DIR"/agents/*/files/in/"$name"
  done
  med() { printf '%s\n' "$@" | median; }
  echo
  echo "## $setup: $([ "$setup" = max-rate ] && echo "hnow send --max-rate $RATE" || echo "agents' [limits] max_uplink_mbps = $CAP"), cap on $capped"
  echo
  echo "| predicted s | actual s | actual / predicted | highest 1 s window / cap (capped links) |"
  echo "|---:|---:|---:|---:|"
  printf '| %.2f | %.2f | %.3f | %.3f |\n' "$(med "${preds[@]}")" "$(med "${actuals[@]}")" "$(med "${ratios[@]}")" "$(med "${peaks[@]}")"
  echo
  echo "Per rep: predicted ${preds[*]} s; actual ${actuals[*]} s; actual/predicted ${ratios[*]}; highest window/cap ${peaks[*]}; plans: $(printf '%s; ' "${rows[@]}")"
  lab_down
  rm -rf "$DIR"
  DIR=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
