#!/usr/bin/env bash
# Two measurements of hnow's bulk-byte paths (docs/tree-send.md, "An upload
# goes over the data plane"; docs/jobs.md):
#  1. the same file sent to a local lab from inside hnowd's [send] roots
#     (read in place) and from outside them (the client uploads it over
#     hnowd's data port first): whole commands, wall clock, REPS of each,
#     interleaved; the median of each and their ratio;
#  2. hnowd's peak resident memory (VmHWM) over a job (`hnow run`) on an
#     input of JOB_SIZE bytes.
#   bench/upload.sh                           1 GiB to 8 agents; a 4 GiB job input
#   SIZE=268435456 JOB_SIZE=536870912 bench/upload.sh
#   HNOW_BUILD_DIR=dir bench/upload.sh
#   JOB_ONLY=1 bench/upload.sh                the job's measurement alone
#   SEND_ONLY=1 bench/upload.sh               the sends' measurement alone
#   FRESH=1 bench/upload.sh                   new bytes for each pair of sends (else
#                                             the agents hold the file after the first
#                                             pair and copy it locally: no bytes move,
#                                             and hnowd kept the first upload, so the
#                                             outside sends after it upload nothing:
#                                             docs/tree-send.md, "Kept files")
# Every agent and hnowd are paced at RATE_MBPS (default 2000) up and down on
# 127.0.0.1, so the lab, not the pacing, is what is measured; the machine's
# CPUs are shared by hnowd, the client and the agents: run it on a quiet
# machine if you can (the load average is printed before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
SIZE=${SIZE:-$((1 << 30))}
JOB_SIZE=${JOB_SIZE:-$((4 << 30))}
AGENTS=${AGENTS:-8}
JOB_ONLY=${JOB_ONLY:-0}
SEND_ONLY=${SEND_ONLY:-0}
FRESH=${FRESH:-0}
REPS=${REPS:-3}
RATE_MBPS=${RATE_MBPS:-2000}
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-upload-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/roots/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rates=()
for ((i = 0; i < AGENTS; i++)); do rates+=("$RATE_MBPS"); done
join() { local IFS=,; echo "$*"; }
mkdir -p "$DIR/roots" "$DIR/outside"
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr)"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# From $DIR/roots: the lab lists the directory `local up` ran in among
# hnowd's [send] and [run] roots; $DIR/outside is in neither.
(cd "$DIR/roots" && "$HNOW" local up --dir "$DIR/roots/cluster" --agents "$AGENTS" \
  --source-uplink-mbps "$RATE_MBPS" --uplink-mbps "$(join "${rates[@]}")" >/dev/null)
CLIENT=(--config "$DIR/roots/cluster/client.toml")
if [ "$JOB_ONLY" != 1 ]; then
  echo
  echo "# hnow send: $SIZE bytes to $AGENTS agents from inside [send] roots and uploaded from outside"
  head -c "$SIZE" /dev/urandom >"$DIR/roots/file"
  cp "$DIR/roots/file" "$DIR/outside/file"

  # Seconds of one whole `hnow send` (upload included), or "failed".
  timed() {
    local start end
    start=$(date +%s.%N)
    if ! "$HNOW" "${CLIENT[@]}" send "$1" --dest "$2" >"$DIR/send.out" 2>&1; then
      echo failed
      return
    fi
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
  }
  median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  inside=() outside=()
  for rep in $(seq 1 "$REPS"); do
    if [ "$FRESH" = 1 ] && [ "$rep" -gt 1 ]; then
      head -c "$SIZE" /dev/urandom >"$DIR/roots/file"
      cp "$DIR/roots/file" "$DIR/outside/file"
    fi
    inside+=("$(timed "$DIR/roots/file" "in-$rep.bin")")
    outside+=("$(timed "$DIR/outside/file" "up-$rep.bin")")
  done
  mi=$(median "${inside[@]}")
  mo=$(median "${outside[@]}")
  echo
  echo "| from | runs, s | median s |"
  echo "|---|---|---|"
  echo "| inside [send] roots (read in place) | ${inside[*]} | $mi |"
  echo "| outside (uploaded over the data plane) | ${outside[*]} | $mo |"
  echo
  echo "- Uploaded / in place: $(echo "$mo / $mi" | bc -l | cut -c1-5)"
  rm -f "$DIR/roots/file" "$DIR/outside/file"
fi

if [ "$SEND_ONLY" = 1 ]; then
  echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
echo
echo "# hnowd's peak resident memory over a job on a $JOB_SIZE-byte input"
echo
# Lines of 100 bytes; `wc -l` on each share, the counts concatenated.
head -c "$((JOB_SIZE / 100 * 75))" /dev/urandom | base64 -w 99 >"$DIR/roots/input.txt"
PID=$(cat "$DIR/roots/cluster/pids/hnowd.pid")
before=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID/status")
start=$(date +%s.%N)
"$HNOW" "${CLIENT[@]}" run --input "$DIR/roots/input.txt" --cmd "wc -l" --concat \
  --output "$DIR/roots/counts.txt" >"$DIR/run.out" 2>&1 || { echo "the job failed:"; tail -5 "$DIR/run.out"; }
end=$(date +%s.%N)
after=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID/status")
echo "- Input: $(stat -c %s "$DIR/roots/input.txt") bytes; the job took $(echo "$end - $start" | bc -l | cut -c1-6) s"
echo "- hnowd's VmHWM before the job: $((before / 1024)) MiB; after it: $((after / 1024)) MiB"
echo "- Lines counted by the shares: $(awk '{ n += $1 } END { print n + 0 }' "$DIR/roots/counts.txt" 2>/dev/null) of $(wc -l <"$DIR/roots/input.txt")"
echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
