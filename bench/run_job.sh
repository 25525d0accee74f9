#!/usr/bin/env bash
# hnow run on a three-class lab (issue 8's targets), side by side in one run:
# the worksharing plan (seed 002) against an equal split and against
# self-scheduling of fixed 1 MiB blocks (GNU parallel --pipe style); actual
# against predicted. Medians over REPS rounds, the strategies interleaved in
# each round so load drifts hit them alike; the load average is printed.
#   bench/run_job.sh                      6 agents, 60000 lines of 200 bytes, 3 rounds
#   REPS=5 LINES=120000 bench/run_job.sh
#   HNOW_BUILD_DIR=dir bench/run_job.sh
# The lab is `hnow local up`'s default: agents round-robin room-a 400 Mbit/s
# compute x1, room-b 100 Mbit/s x2, room-c 25 Mbit/s x4, paced on 127.0.0.1;
# hnowd serves at the fastest agent's uplink (400 Mbit/s).
# The job upper-cases each line after 0.2 ms of waiting (perl's select), so
# a unit's cost is time rather than CPU: six agents sharing two cores would
# otherwise measure each other, not the lab. The agents' compute factor then
# stretches it as on slower machines (agent/job_runner.h).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HNOW_BUILD_DIR:-build}
REPS=${REPS:-3}
LINES=${LINES:-60000}
AGENTS=${AGENTS:-6}
HNOW=$(realpath "$BUILD_DIR/daemon/hnow")
command -v perl >/dev/null || { echo "bench/run_job.sh needs perl" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-run-XXXXXX")
cleanup() {
  "$HNOW" local down --dir "$DIR/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" >/dev/null
python3 - "$DIR/input.txt" "$LINES" <<'PY'
import random, sys
random.seed(8)
with open(sys.argv[1], "w") as f:
    for _ in range(int(sys.argv[2])):
        f.write("".join(random.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(199)) + "\n")
PY
tr a-z A-Z < "$DIR/input.txt" > "$DIR/expected.txt"
CMD="perl -ne 'select(undef, undef, undef, 0.0002); print uc'"
RUN=("$HNOW" --config "$DIR/cluster/client.toml" run --input "$DIR/input.txt" --cmd "$CMD" --concat --json)
# One warm-up run calibrates the command (reused for 5 minutes, so every
# timed run plans from the same calibration).
"${RUN[@]}" --output "$DIR/warm.txt" > "$DIR/warm.json"
for round in $(seq 1 "$REPS"); do
  for strategy in plan rounds equal self; do
    case $strategy in
      rounds) OPTS=(--strategy plan --rounds 3) ;;
      *) OPTS=(--strategy "$strategy") ;;
    esac
    "${RUN[@]}" "${OPTS[@]}" --output "$DIR/out.txt" > "$DIR/$strategy-$round.json"
    cmp -s "$DIR/out.txt" "$DIR/expected.txt" || { echo "$strategy: wrong result" >&2; exit 1; }
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DIR" "$REPS" <<'PY'
import json, statistics, sys
d, reps = sys.argv[1], int(sys.argv[2])
runs = {s: [json.load(open(f"{d}/{s}-{r}.json")) for r in range(1, reps + 1)] for s in ("plan", "rounds", "equal", "self")}
med = {s: statistics.median(r["actual_s"] for r in runs[s]) for s in runs}
pred = statistics.median(r["predicted_s"] for r in runs["plan"])
print(f"| strategy | actual s (median of {reps}) | runs | reissued |")
print("|---|---|---|---|")
names = {"plan": "worksharing plan (" + runs["plan"][0]["plan"] + ")", "rounds": "worksharing plan, --rounds 3",
         "equal": "equal split", "self": "self-scheduling, 1 MiB blocks"}
for s in runs:
    print(f"| {names[s]} | {med[s]:.2f} | {', '.join('%.2f' % r['actual_s'] for r in runs[s])} | {sum(r['reissued'] for r in runs[s])} |")
print()
print(f"predicted (plan): {pred:.2f} s; actual/predicted {med['plan']/pred:.3f}")
print(f"equal split / plan: {med['equal']/med['plan']:.2f}x; self-scheduling / plan: {med['self']/med['plan']:.2f}x; "
      f"rounds 3 / plan: {med['rounds']/med['plan']:.2f}x")
print()
print("| agent | units (plan) | compute s | idle s |")
print("|---|---|---|---|")
last = runs["plan"][-1]
for a in last["agents"]:
    print(f"| {a['name']} | {a['units']} | {a['compute_s']:.2f} | {a['idle_s']:.2f} |")
PY
