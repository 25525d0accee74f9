#!/usr/bin/env bash
# hnow run on a three-class lab, side by side in one run:
# the default plan (rounds on ready times, --rounds auto) and the one-shot
# worksharing plan (seed 002, --rounds 1) against an equal split and against
# self-scheduling of fixed 1 MiB blocks (GNU parallel --pipe style); actual
# against predicted. Medians over REPS repetitions, the strategies interleaved
# in each so load drifts hit them alike; the load average is printed.
# Then DRIFT_REPS runs where agent-1 (x1) is slowed to x4 (hnow agent set-rate
# --compute-factor) DRIFT_AFTER seconds into the job: rounds against --rounds 1.
#   bench/run_job.sh                      6 agents, 60000 lines of 200 bytes, 3 repetitions
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
DRIFT_REPS=${DRIFT_REPS:-3}
DRIFT_AFTER=${DRIFT_AFTER:-1.5}
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
# From $DIR: the lab lists the directory `local up` ran in among hnowd's
# [run] roots, where the input and outputs below live.
(cd "$DIR" && "$HNOW" local up --dir "$DIR/cluster" --agents "$AGENTS" --drift-dwell-s 0.5 >/dev/null)
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
for rep in $(seq 1 "$REPS"); do
  for strategy in plan oneshot equal self; do
    case $strategy in
      oneshot) OPTS=(--strategy plan --rounds 1) ;;
      *) OPTS=(--strategy "$strategy") ;;
    esac
    "${RUN[@]}" "${OPTS[@]}" --output "$DIR/out.txt" > "$DIR/$strategy-$rep.json"
    cmp -s "$DIR/out.txt" "$DIR/expected.txt" || { echo "$strategy: wrong result" >&2; exit 1; }
  done
done
# Drift: agent-1 slowed x4 mid-job, then back to x1 for the next run.
SET_RATE=("$HNOW" --config "$DIR/cluster/client.toml" agent set-rate agent-1 --compute-factor)
for rep in $(seq 1 "$DRIFT_REPS"); do
  for strategy in driftrounds driftoneshot; do
    case $strategy in
      driftoneshot) OPTS=(--rounds 1) ;;
      *) OPTS=() ;;
    esac
    "${RUN[@]}" "${OPTS[@]}" --output "$DIR/out.txt" > "$DIR/$strategy-$rep.json" &
    job=$!
    sleep "$DRIFT_AFTER"
    "${SET_RATE[@]}" 4 >/dev/null
    wait "$job"
    cmp -s "$DIR/out.txt" "$DIR/expected.txt" || { echo "$strategy: wrong result" >&2; exit 1; }
    "${SET_RATE[@]}" 1 >/dev/null
    sleep 2  # the probe and drift event back to x1 settle before the next run
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DIR" "$REPS" "$DRIFT_REPS" <<'PY'
import json, statistics, sys
d, reps, dreps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {s: [json.load(open(f"{d}/{s}-{r}.json")) for r in range(1, reps + 1)] for s in ("plan", "oneshot", "equal", "self")}
runs.update({s: [json.load(open(f"{d}/{s}-{r}.json")) for r in range(1, dreps + 1)] for s in ("driftrounds", "driftoneshot")})
med = {s: statistics.median(r["actual_s"] for r in runs[s]) for s in runs}
pmed = {s: statistics.median(r["predicted_s"] for r in runs[s]) for s in runs}
print(f"| strategy | actual s (median) | runs | predicted s | reissued |")
print("|---|---|---|---|---|")
names = {"plan": f"default: rounds on ready times ({runs['plan'][0]['rounds']} rounds)",
         "oneshot": "one-shot worksharing plan (--rounds 1, " + runs["oneshot"][0]["plan"] + ")",
         "equal": "equal split", "self": "self-scheduling, 1 MiB blocks",
         "driftrounds": "drift: default rounds, agent-1 x1 -> x4", "driftoneshot": "drift: --rounds 1, agent-1 x1 -> x4"}
for s in runs:
    print(f"| {names[s]} | {med[s]:.2f} | {', '.join('%.2f' % r['actual_s'] for r in runs[s])} | {pmed[s]:.2f} | {sum(r['reissued'] for r in runs[s])} |")
print()
print(f"actual/predicted: rounds {med['plan']/pmed['plan']:.3f}, one-shot {med['oneshot']/pmed['oneshot']:.3f}")
print(f"equal split / rounds: {med['equal']/med['plan']:.2f}x; self-scheduling / rounds: {med['self']/med['plan']:.2f}x; "
      f"one-shot / rounds: {med['oneshot']/med['plan']:.2f}x")
print(f"drift: --rounds 1 / rounds: {med['driftoneshot']/med['driftrounds']:.2f}x")
print()
print("| agent | units (rounds) | shares | compute s | idle s | units (drift, rounds) | shares (drift) |")
print("|---|---|---|---|---|---|---|")
last, drift = runs["plan"][-1], runs["driftrounds"][-1]
for a, b in zip(last["agents"], drift["agents"]):
    print(f"| {a['name']} | {a['units']} | {a['share_units']} | {a['compute_s']:.2f} | {a['idle_s']:.2f} | {b['units']} | {b['share_units']} |")
PY
