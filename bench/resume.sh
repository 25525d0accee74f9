#!/usr/bin/env bash
# hnowd killed (SIGKILL) halfway through a job, started again, the job
# resumed (docs/jobs.md, "A running job outlives hnowd"), side by side with
# the same job uninterrupted, in one run: wall-clock seconds as a user sees
# them, the time hnowd took to be back with its agents, and the work kept
# and done again.
#   bench/resume.sh                     4 agents, 120000 lines, 2 repetitions
#   REPS=3 LINES=240000 bench/resume.sh
#   HNOW_BUILD_DIR=dir bench/resume.sh
# The lab is `hnow local up`'s default (rooms of compute x1, x2, x4). The job
# upper-cases each line after 1 ms of waiting (perl's select): a unit costs
# time rather than CPU, as in bench/run_job.sh. Each command run adds the
# lines it finished to a file, so the units computed to the end are counted
# (a command killed half-way adds nothing: what it did is lost, not counted).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
REPS=${REPS:-2}
LINES=${LINES:-120000}
AGENTS=${AGENTS:-4}
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")
HNOWD=$(realpath "$BUILD_DIR/daemon/hnowd")
command -v perl >/dev/null || { echo "bench/resume.sh needs perl" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-resume-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  [ -f "$DIR/hnowd.pid" ] && kill "$(cat "$DIR/hnowd.pid")" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$DIR" && "$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" >/dev/null)
python3 - "$DIR/input.txt" "$LINES" <<'PY'
import random, sys
random.seed(9)
with open(sys.argv[1], "w") as f:
    for _ in range(int(sys.argv[2])):
        f.write("".join(random.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(99)) + "\n")
PY
tr a-z A-Z < "$DIR/input.txt" > "$DIR/expected.txt"
HNOWC=("$HNOW" --config "$DIR/cluster/client.toml")
CMD="perl -ne 'select(undef, undef, undef, 0.001); print uc; END { open(my \$f, \">>\", \"$DIR/units\"); print \$f \"\$.\\n\" }'"
RUN=("${HNOWC[@]}" run --input "$DIR/input.txt" --shell --cmd "$CMD" --concat)
units() { [ -f "$DIR/units" ] && awk '{s += $1} END {print s + 0}' "$DIR/units" || echo 0; }
ready() {  # every agent alive again
  "${HNOWC[@]}" status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if s["agents"] and all(a["state"] == "alive" for a in s["agents"]) else 1)' 2>/dev/null
}

"${RUN[@]}" --output "$DIR/warm.txt" >/dev/null  # calibrations cached for the timed runs
printf '| rep | uninterrupted s | killed at s | back after s | resumed total s | ratio to uninterrupted + back | units kept | units held by agents | units computed to the end (of %d) |\n' "$LINES"
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for rep in $(seq 1 "$REPS"); do
  rm -f "$DIR/units"
  t0=$(now)
  "${RUN[@]}" --output "$DIR/out.txt" >/dev/null
  plain=$(echo "$(now) - $t0" | bc)
  cmp -s "$DIR/out.txt" "$DIR/expected.txt" || { echo "uninterrupted: wrong result" >&2; exit 1; }

  rm -f "$DIR/units" "$DIR/out.txt"
  t0=$(now)
  id=$("${RUN[@]}" --output "$DIR/out.txt" --detach 2>/dev/null)
  sleep "$(echo "$plain / 2" | bc -l)"
  killedAt=$(echo "$(now) - $t0" | bc)
  pid=$(cat "$DIR/cluster/pids/hnowd.pid")
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  tk=$(now)
  "$HNOWD" --config "$DIR/cluster/hnowd.toml" >>"$DIR/cluster/logs/hnowd.log" 2>&1 &
  echo $! > "$DIR/cluster/pids/hnowd.pid"
  echo $! > "$DIR/hnowd.pid"
  until ready; do sleep 0.1; done
  back=$(echo "$(now) - $tk" | bc)
  "${HNOWC[@]}" ops wait "$id" >/dev/null 2>&1
  total=$(echo "$(now) - $t0" | bc)
  cmp -s "$DIR/out.txt" "$DIR/expected.txt" || { echo "resumed: wrong result" >&2; exit 1; }
  kept=$(grep -o "[0-9]* units accepted before hnowd restarted" "$DIR/cluster/logs/hnowd.log" | tail -1 | cut -d' ' -f1)
  held=$(grep -o "[0-9]* held by its agents" "$DIR/cluster/logs/hnowd.log" | tail -1 | cut -d' ' -f1)
  ratio=$(echo "$total / ($plain + $back)" | bc -l)
  printf '| %d | %.1f | %.1f | %.1f | %.1f | %.3f | %s | %s | %s |\n' "$rep" "$plain" "$killedAt" "$back" "$total" "$ratio" \
    "${kept:-0}" "${held:-0}" "$(units)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
