#!/usr/bin/env bash
# Soak: a local cluster of 16 agents, a warm-up, then 200
# back-to-back sends and 50 concurrent small sends (each its own `hnow send`
# client). Prints, per process (hnowd and every agent), the open file
# descriptors (/proc/PID/fd) and resident memory (VmRSS) after the warm-up,
# after the 200 and after the 50, and the durations. A leak shows as fds
# that do not come back or RSS that climbs phase after phase.
#   bench/soak.sh                          the full soak (about a minute)
#   bench/soak.sh --sequential 50 --concurrent 20 --agents 8
#   HNOW_BUILD_DIR=dir bench/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
AGENTS=16
SEQUENTIAL=200
CONCURRENT=50
WARMUP=40
SIZE=$((256 * 1024))
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS=$2; shift 2 ;;
    --sequential) SEQUENTIAL=$2; shift 2 ;;
    --concurrent) CONCURRENT=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    *) echo "usage: bench/soak.sh [--agents N] [--sequential N] [--concurrent N] [--warmup N] [--size BYTES]" >&2
       exit 2 ;;
  esac
done
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-soak-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }
fds() { ls "/proc/$1/fd" | wc -l; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
CLIENT="$DIR/cluster/client.toml"
# A send's table goes to stderr: kept only when it failed.
send() {
  local err
  err=$("$HNOW" --config "$CLIENT" send "$DIR/cluster/file.bin" --dest "$1" 2>&1 >/dev/null) || {
    echo "$err" | tail -1 >>"$DIR/errors"
    return 1
  }
}

echo "# hnow soak: $AGENTS agents, a warm-up, $SEQUENTIAL back-to-back and $CONCURRENT concurrent sends of $SIZE bytes"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" --uplink-mbps 400 >/dev/null
head -c "$SIZE" /dev/urandom >"$DIR/cluster/file.bin"
names=(hnowd)
for ((i = 1; i <= AGENTS; i++)); do names+=("agent-$i"); done
declare -A pid
for n in "${names[@]}"; do pid[$n]=$(cat "$DIR/cluster/pids/$n.pid"); done

# fds may close a moment after a send returns (connections end on their own
# loops): a snapshot waits until two readings 200 ms apart agree.
snapshot() {  # $1 = phase name
  local prev="" cur=""
  for ((k = 0; k < 25; k++)); do
    cur=""
    for n in "${names[@]}"; do cur+="$(fds "${pid[$n]}") "; done
    [ "$cur" = "$prev" ] && break
    prev=$cur
    sleep 0.2
  done
  for n in "${names[@]}"; do
    echo "$1 $n $(fds "${pid[$n]}") $(rss "${pid[$n]}")" >>"$DIR/snapshots"
  done
}

failures=0
concurrently() {  # $1 = count, $2 = dest prefix
  local pids=()
  for ((i = 0; i < $1; i++)); do send "$2-$i.bin" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || failures=$((failures + 1)); done
}
# The warm-up ends with a burst as large as the measured one: the allocator
# keeps its high-water mark (freed memory stays in the heap), and that is
# not a leak; growth after it is.
t0=$(now)
# An agent that holds the file's bytes at --dest, or anywhere under its root,
# is sent nothing (docs/send.md): every copy is removed before each send,
# and before each burst, so each moves it.
unsend() { rm -f "$DIR"/cluster/agents/*/files/*.bin; }
for ((i = 0; i < WARMUP; i++)); do unsend; send warm.bin || failures=$((failures + 1)); done
unsend; concurrently "$CONCURRENT" warm
t1=$(now)
snapshot warm
for ((i = 0; i < SEQUENTIAL; i++)); do unsend; send seq.bin || failures=$((failures + 1)); done
t2=$(now)
snapshot sequential
unsend; concurrently "$CONCURRENT" concurrent
t3=$(now)
snapshot concurrent

echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- Warm-up: $WARMUP back-to-back and $CONCURRENT concurrent sends in $(printf %.1f "$(elapsed "$t0" "$t1")") s"
echo "- Back-to-back: $SEQUENTIAL sends in $(printf %.1f "$(elapsed "$t1" "$t2")") s" \
     "($(printf %.0f "$(echo "($t2 - $t1) * 1000 / $SEQUENTIAL" | bc -l)") ms each)"
echo "- Concurrent: $CONCURRENT sends started at once, all done in $(printf %.1f "$(elapsed "$t2" "$t3")") s"
echo "- Failed sends: $failures$( [ -s "$DIR/errors" ] && echo " (first error: $(head -1 "$DIR/errors"))")"
ok=0
for ((i = 0; i < CONCURRENT; i++)); do
  for ((a = 1; a <= AGENTS; a++)); do
    cmp -s "$DIR/cluster/file.bin" "$DIR/cluster/agents/agent-$a/files/concurrent-$i.bin" && ok=$((ok + 1))
  done
done
echo "- Concurrent copies byte-identical: $ok of $((CONCURRENT * AGENTS))"
echo
echo "| process | fds warm | fds after $SEQUENTIAL | fds after $CONCURRENT | RSS warm (KiB) | RSS after $SEQUENTIAL | RSS after $CONCURRENT | RSS growth (KiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for n in "${names[@]}"; do
  read -r fw rw < <(awk -v n="$n" '$1=="warm" && $2==n {print $3, $4}' "$DIR/snapshots")
  read -r fs rs < <(awk -v n="$n" '$1=="sequential" && $2==n {print $3, $4}' "$DIR/snapshots")
  read -r fc rc < <(awk -v n="$n" '$1=="concurrent" && $2==n {print $3, $4}' "$DIR/snapshots")
  echo "| $n | $fw | $fs | $fc | $rw | $rs | $rc | $((rc - rw)) |"
done
