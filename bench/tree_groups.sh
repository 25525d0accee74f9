#!/usr/bin/env bash
# Agents that lack different files (docs/tree-send.md, "Agents that lack
# different files"): a weekly update that one machine missed. One tree
# (bench/tree_gen.py) is sent to every agent by hnow (t) and by rsync to
# every agent at once (r). Then, rep by rep:
#   week A  1% of the files change and 10 go; both send to every agent but
#           the last (it was off);
#   week B  1% more change and 10 more go; both send to every agent with
#           --delete. The last agent lacks A's and B's files, the others B's.
# Week B is what this bench times: hnow's actual_s and bytes moved (each
# group's bundle times its agents, plus the queries), against rsync-par's
# time and its Total bytes sent, against what each agent lacked (the bytes
# its unpack published, summed: the least any tool can move), against one
# bundle for all (the union of what they lacked, to every agent), and
# against Kumar & Ross's bound where agents lack different amounts (the
# report's kumar_ross_bound_s: max(U/u_s, max L_a/d_a, ΣL_a/(u_s+Σu_a))).
# hnow sends with --compress none unless told otherwise, so its bytes, the
# union's and rsync's (no -z) count the same plain bytes.
#   bench/tree_groups.sh [--links netns|local] [--agents N] [--files N]
#                        [--total-mib M] [--reps R] [--labs demo,volunteer] [--seed S]
#                        [--compress none|auto|zstd]
# Writes markdown to stdout, progress to stderr. Needs jq, python3, rsync.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
FILES=5000 TOTAL_MIB=256 REPS=3 LABS=demo,volunteer AGENTS=8 LINKS=netns SEED=1 COMPRESS=none
while [ $# -gt 0 ]; do
  case "$1" in
    --links) LINKS=$2; shift 2 ;;
    --agents) AGENTS=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --total-mib) TOTAL_MIB=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --labs) LABS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --compress) COMPRESS=$2; shift 2 ;;
    *) echo "usage: bench/tree_groups.sh [--links netns|local] [--agents N] [--files N] [--total-mib M] [--reps R] [--labs L,..] [--seed S] [--compress none|auto|zstd]" >&2
       exit 2 ;;
  esac
done
case "$LINKS" in
  netns) [ "$(id -u)" = 0 ] || { echo "bench/tree_groups.sh: --links netns needs root (network namespaces)" >&2; exit 77; } ;;
  local) ;;
  *) echo "bench/tree_groups.sh: --links is netns or local, not '$LINKS'" >&2; exit 2 ;;
esac
[[ "$AGENTS" =~ ^[0-9]+$ ]] && [ "$AGENTS" -ge 2 ] || { echo "bench/tree_groups.sh: --agents must be at least 2" >&2; exit 2; }
[[ "$FILES" =~ ^[0-9]+$ ]] && [ "$FILES" -ge 200 ] || { echo "bench/tree_groups.sh: --files must be at least 200" >&2; exit 2; }
[[ "$REPS" =~ ^[0-9]+$ ]] && [ "$REPS" -ge 1 ] || { echo "bench/tree_groups.sh: --reps must be at least 1" >&2; exit 2; }
for tool in jq python3 rsync; do
  command -v "$tool" >/dev/null || { echo "bench/tree_groups.sh needs $tool" >&2; exit 2; }
done
LAB=tests/netns/lab.sh
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
RSYNC_PORT=8874
DIR=""
# shellcheck source=bench/labs.sh
. bench/labs.sh
# shellcheck source=bench/rsync_lab.sh
. bench/rsync_lab.sh
cleanup() { stop_rsync; [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# hnow_sent DEST [OPTIONS..]: hnow send of the tree, every copy checked; prints the report.
hnow_sent() {
  local dest=$1 report
  shift
  report=$(hnow_send "$SRC" --dest "$dest" --json --compress "$COMPRESS" "$@" 2>"$DIR/send.err") || {
    echo "bench/tree_groups.sh: hnow send --dest $dest failed on $lab: $(cat "$DIR/send.err")" >&2
    exit 1
  }
  [ "$(jq '.failed | length' <<<"$report")" = 0 ] ||
    { echo "bench/tree_groups.sh: hnow send to $dest lost copies on $lab: $(jq -c .failed <<<"$report")" >&2; exit 1; }
  echo "$report"
}

# hnow's copies (t) and rsync's (r) under the agents' roots: an agent copies
# a file it holds anywhere under its root, so rsync's copies are moved
# aside for hnow's turn ("turn hnow") and back for rsync's ("turn rsync").
turn() {
  local a
  for a in "$DIR"/agents/agent-*/; do
    a=${a%/}
    mkdir -p "$a/aside"
    if [ "$1" = hnow ]; then [ ! -e "$a/files/r" ] || mv "$a/files/r" "$a/aside/"
    else [ ! -e "$a/aside/r" ] || mv "$a/aside/r" "$a/files/"; fi
  done
}

TOTAL=$((TOTAL_MIB << 20))
all_but_last=$(seq 1 $((AGENTS - 1)) | sed 's/^/agent-/' | paste -sd, -)
echo "# Agents that lack different files: $FILES files, $TOTAL_MIB MiB to $AGENTS agents, the last off for one update; $LINKS links; hnow send --compress $COMPRESS"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr); $(rsync --version | head -1 | sed 's/  */ /g')"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  options=$(lab_options "$lab")
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-groups-XXXXXX")
  SRC="$DIR/src"
  echo "bench/tree_groups.sh: lab $lab: generating $FILES files, $TOTAL_MIB MiB" >&2
  gen=$(python3 bench/tree_gen.py gen "$SRC" "$FILES" "$TOTAL" "$SEED")
  lab_up "$options"
  [ "$LINKS" = local ] || rsync_daemons
  source_up=$(sed 's/.*--source-uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  downs=$(sed 's/.*--downlink-mbps \([^ ]*\).*/\1/' <<<"$options")
  declare -a bw_par=() bw_seq=()  # rsync_lab.sh reads both; only at once here
  for ((k = 1; k <= AGENTS; k++)); do
    d=$(pick "$downs" $((k - 1)))
    bw_par[k]=$(awk -v u="$source_up" -v n="$AGENTS" -v d="$d" 'BEGIN { r = u / n < d ? u / n : d; printf "%d", r * 1e6 / 8 / 1024 }')
  done
  turn hnow
  first=$(hnow_sent t)
  echo "bench/tree_groups.sh: $lab first send: $(jq .actual_s <<<"$first") s" >&2
  turn rsync
  rsync_all par r
  echo "bench/tree_groups.sh: $lab first rsync-par: $RS_T s" >&2
  T=() TB=() RT=() RB=() LACKED=() UNION=() BOUND=() GROUPS_SEEN=() APART=()
  for ((r = 0; r < REPS; r++)); do
    python3 bench/tree_gen.py mutate "$SRC" "$SEED-A-$r" >/dev/null
    turn hnow
    hnow_sent t --delete --to "$all_but_last" >/dev/null
    turn rsync
    RSYNC_TO=$(seq 1 $((AGENTS - 1)) | paste -sd, -) rsync_all par r --delete
    mut=$(python3 bench/tree_gen.py mutate "$SRC" "$SEED-B-$r")
    turn hnow
    report=$(hnow_sent t --delete)
    T+=("$(jq .actual_s <<<"$report")")
    TB+=("$(jq "$TREE_MOVED" <<<"$report")")
    LACKED+=("$(jq '[.copies[].tree.bytes] | add' <<<"$report")")
    UNION+=("$(jq '.tree.sent_bytes * (.copies | length)' <<<"$report")")
    BOUND+=("$(jq '.kumar_ross_bound_s // 0' <<<"$report")")
    GROUPS_SEEN+=("$(jq '.tree.groups | length' <<<"$report")")
    APART+=("$(jq -r '[.tree.groups[] | "\(.agents | length) agents: \(.sent_files) files, \(.size) B"] | join("; ")' <<<"$report")")
    turn rsync
    rsync_all par r --delete
    RT+=("$RS_T") RB+=("$RS_BYTES")
    echo "bench/tree_groups.sh: $lab rep $r week B ($(kv changed "$mut") files, $(kv changed_bytes "$mut") B): hnow ${T[-1]} s ${TB[-1]} B (${GROUPS_SEEN[-1]} groups: ${APART[-1]}), rsync-par $RS_T s $RS_BYTES B, lacked ${LACKED[-1]} B" >&2
  done
  turn hnow
  diffs=$(diff -rq "$SRC" "$DIR/agents/agent-$AGENTS/files/t" | wc -l || true)
  med() { printf '%s\n' "$@" | median; }
  t=$(med "${T[@]}") tb=$(med "${TB[@]}") rt=$(med "${RT[@]}") rb=$(med "${RB[@]}")
  lacked=$(med "${LACKED[@]}") union=$(med "${UNION[@]}") bound=$(med "${BOUND[@]}")
  echo
  echo "## Lab: $lab ($options), $LINKS links"
  echo
  printf -- '- Tree: %s files, %s bytes; first send: hnow %.2f s\n' "$(kv files "$gen")" "$(kv bytes "$gen")" "$(jq .actual_s <<<"$first")"
  echo "- Week B's hnow sends went as $(IFS=,; echo "${GROUPS_SEEN[*]}") bundles in reps 1-$REPS; rep 1's: ${APART[0]}"
  echo "- After the last rep, agent-$AGENTS's copy differs from the source in $diffs entries"
  echo
  echo "| method (week B) | median s | per rep | / bound | bytes moved | / lacked |"
  echo "|---|---:|---|---:|---:|---:|"
  awk -v t="$t" -v b="$bound" -v m="$tb" -v l="$lacked" -v per="$(printf '%.2f ' "${T[@]}")" \
    'BEGIN { printf "| hnow send --delete (bundles × their agents + queries) | %.2f | %s | %.2f | %d | %.2f |\n", t, per, (b > 0 ? t / b : 0), m, m / l }'
  awk -v t="$rt" -v b="$bound" -v m="$rb" -v l="$lacked" -v per="$(printf '%.2f ' "${RT[@]}")" \
    'BEGIN { printf "| rsync-par --delete (Total bytes sent) | %.2f | %s | %.2f | %d | %.2f |\n", t, per, (b > 0 ? t / b : 0), m, m / l }'
  awk -v u="$union" -v l="$lacked" \
    'BEGIN { printf "| one bundle for all (the union to every agent; computed) | | | | %d | %.2f |\n", u, u / l }'
  echo
  awk -v b="$bound" -v l="$lacked" -v t="$t" -v rt="$rt" \
    'BEGIN { printf "Kumar-Ross where agents lack different amounts: %.2f s; lacked (the bytes the agents published, summed): %d. rsync-par / hnow = %.2f.\n", b, l, rt / t }'
  stop_rsync
  lab_down
  rm -rf "$DIR"
  DIR=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
