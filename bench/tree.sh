#!/usr/bin/env bash
# A directory tree sent by `hnow send DIR` against the same bytes as one file
# and against rsync (docs/bench-tree.md). One deterministic tree (seeded):
# FILES files of TOTAL MiB in all, most small and a handful large (log sizes
# skewed from 8 bytes to min(64 MiB, TOTAL/8): 8·(U/8)^(u^k), u uniform and k
# fitted so the sizes add up to TOTAL), over ~200 nested directories (depth
# up to 4), half the bytes compressible text, half random. Rep by rep in turn:
#   tree       hnow send DIR --dest t-REP --json (the report's actual_s);
#   onefile    hnow send of a tar of the tree (tar -cf, made once and timed
#              apart), read in place by hnowd;
#   stdin      tar -cf - | hnow send - (the tar streamed to hnowd, then sent);
#   laptop     hnow send DIR from "a laptop": a private mount namespace where
#              the tree appears at a path hnowd does not see, so the client
#              uploads it (hnowd's kept copy and the client's digests removed
#              first); time: the whole command, upload included;
#   rsync-par  rsync to every agent at once;
#   rsync-seq  rsync to one agent after another.
# Then a second send after 1% of the files changed and 10 were deleted:
# hnow send DIR --delete again (only what changed moves) against rsync-par
# --delete into the first rep's copies; time and bytes moved; and laptop's
# second upload (only the files hnowd's kept copy lacks) into l-0.
# Medians of REPS; each time against the Kumar-Ross bound of the lab's rates
# for the bundle's size, max(F/u_s, F/d_min, N·F/(u_s + Σu_i)), and tree's.
#   --links netns: shaped namespaces (tests/netns/lab.sh, tc), root only; an
#                  rsync daemon in each agent's namespace, pushed to from
#                  hnowd's, so rsync's bytes cross the same shaped links;
#   --links local: `hnow local up`, links paced by the agents themselves;
#                  rsync copies locally, its links emulated by --bwlimit.
#   bench/tree.sh [--links netns|local] [--agents N] [--files N] [--total-mib M]
#                 [--reps R] [--labs demo,uplink,volunteer,slow,wide] [--seed S]
#                 [--compress auto|zstd|none] [--methods tree,tree-auto,onefile,...]
# --methods picks and orders the methods (default: tree onefile stdin
# rsync-par rsync-seq); tree-auto is tree with --compress auto, beside a
# tree of --compress none to weigh what auto gains or costs in one run.
# --compress is passed to every hnow send (unset: hnow's default); `none`
# shows what the index and the queries cost the second send, which zstd
# would otherwise hide inside the compressed changed files.
#   bench/tree.sh --links local --labs demo --files 300 --total-mib 16 --reps 1
# Writes markdown to stdout, progress to stderr. Needs jq, python3, tar, rsync.
set -euo pipefail
cd "$(dirname "$0")/.."
export HNOW_BUILD_DIR=${HNOW_BUILD_DIR:-$PWD/build}
FILES=20000 TOTAL_MIB=1024 REPS=3 LABS=demo,volunteer AGENTS=8 LINKS=netns SEED=1 COMPRESS= METHODS=()
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
    --methods) IFS=, read -r -a METHODS <<<"$2"; shift 2 ;;
    *) echo "usage: bench/tree.sh [--links netns|local] [--agents N] [--files N] [--total-mib M] [--reps R] [--labs L,..] [--seed S] [--compress auto|zstd|none]" >&2
       exit 2 ;;
  esac
done
case "$LINKS" in
  netns) [ "$(id -u)" = 0 ] || { echo "bench/tree.sh: --links netns needs root (network namespaces)" >&2; exit 77; } ;;
  local) ;;
  *) echo "bench/tree.sh: --links is netns or local, not '$LINKS'" >&2; exit 2 ;;
esac
[[ "$FILES" =~ ^[0-9]+$ ]] && [ "$FILES" -ge 20 ] || { echo "bench/tree.sh: --files must be at least 20" >&2; exit 2; }
[[ "$TOTAL_MIB" =~ ^[0-9]+$ ]] && [ "$TOTAL_MIB" -ge 1 ] || { echo "bench/tree.sh: --total-mib must be a whole number of MiB" >&2; exit 2; }
[[ "$REPS" =~ ^[0-9]+$ ]] && [ "$REPS" -ge 1 ] || { echo "bench/tree.sh: --reps must be at least 1" >&2; exit 2; }
for tool in jq python3 tar rsync; do
  command -v "$tool" >/dev/null || { echo "bench/tree.sh needs $tool" >&2; exit 2; }
done
LAB=tests/netns/lab.sh
has() { [[ " ${METHODS[*]} " == *" $1 "* ]]; }
HNOW="$HNOW_BUILD_DIR/daemon/hnow"
RSYNC_PORT=8873
DIR=""

# shellcheck source=bench/labs.sh
. bench/labs.sh
# shellcheck source=bench/rsync_lab.sh
. bench/rsync_lab.sh
cleanup() { stop_rsync; [ -z "$DIR" ] || { lab_down; rm -rf "$DIR"; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The tree comes from bench/tree_gen.py: `gen ROOT FILES TOTAL_BYTES
# SEED` writes it and prints key=value lines; `mutate ROOT SEED` rewrites
# 1% of its files (new content, the old size plus 1-16 bytes) and deletes
# 10 others, and prints what it changed. Everything follows from SEED.

# hnow_checked FILE DEST COUNT: one hnow send, checked (COUNT files on every
# agent unless empty); prints the report.
# hnow send as the client: on hnowd's host, or with LAPTOP=1 on "a laptop":
# a private mount namespace where WHAT appears as /mnt/course, a path hnowd
# does not see, so the client uploads it (its digests kept in DIR/client-cache).
send_as_client() {
  local what=$1
  shift
  if [ "${LAPTOP:-}" != 1 ]; then hnow_send "$what" "$@"; return; fi
  local -a client
  if [ "$LINKS" = netns ]; then client=("$LAB" hnow --dir "$DIR"); else client=("$HNOW" --config "$DIR/client.toml"); fi
  XDG_CACHE_HOME="$DIR/client-cache" unshare --mount sh -c \
    'mount -t tmpfs none /mnt && mkdir /mnt/course && mount --bind "$0" /mnt/course && exec "$@"' \
    "$what" "${client[@]}" send /mnt/course "$@"
}

# Only KEEP of rep 0's copies (t-0, r-0, l-0; "all": every one) under the
# agents' roots, the others aside: a second send must not find the changed
# files in another method's copy, which the agent would copy instead.
root_holds_only() {
  local keep=$1 a d
  for a in "$DIR"/agents/agent-*/; do
    a=${a%/}
    for d in t-0 r-0 l-0; do
      if [ "$keep" = all ] || [ "$d" = "$keep" ]; then
        [ ! -e "$a/aside/$d" ] || mv "$a/aside/$d" "$a/files/"
      else
        [ ! -e "$a/files/$d" ] || mv "$a/files/$d" "$a/aside/"
      fi
    done
  done
}

hnow_checked() {
  local what=$1 dest=$2 count=$3 report
  shift 3
  report=$(send_as_client "$what" --dest "$dest" --json ${COMPRESS:+--compress "$COMPRESS"} "$@" 2>"$DIR/send.err") || {
    echo "bench/tree.sh: hnow send $what --dest $dest --json failed on $lab (exit $?):" >&2
    cat "$DIR/send.err" >&2
    [ -z "$report" ] || jq -c '{failed, skipped, tree}' <<<"$report" >&2 || true
    exit 1
  }
  [ "$(jq '.failed | length' <<<"$report")" = 0 ] && [ "$(jq '.copies | length' <<<"$report")" = "$AGENTS" ] ||
    { echo "bench/tree.sh: hnow send to $dest lost copies on $lab: $(jq -c '{failed, skipped}' <<<"$report")" >&2; exit 1; }
  if [ -n "$count" ]; then
    [ "$(jq --argjson n "$count" '[.copies[] | select(.tree.files != $n or .tree.failed_count != 0)] | length' <<<"$report")" = 0 ] &&
      [ "$(jq '.tree.refused_count' <<<"$report")" = 0 ] ||
      { echo "bench/tree.sh: hnow send to $dest: not $count files on every agent on $lab: $(jq -c '[.tree, (.copies[] | {node, tree})]' <<<"$report")" >&2; exit 1; }
  fi
  echo "$report"
}

[ ${#METHODS[@]} -gt 0 ] || METHODS=(tree onefile stdin rsync-par rsync-seq)
TOTAL=$((TOTAL_MIB << 20))
echo "# A directory tree against one file and rsync: $FILES files, $TOTAL_MIB MiB to $AGENTS agents, $LINKS links${COMPRESS:+, hnow send --compress $COMPRESS}"
echo
echo "- Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uname -sr); $(rsync --version | head -1 | sed 's/  */ /g')"
echo "- Commit: $(git rev-parse --short HEAD), run $(date -u '+%Y-%m-%d %H:%M UTC'); medians of $REPS"
if [ "$LINKS" = netns ]; then
  echo "- Links: tests/netns/lab.sh (tc tbf per uplink and downlink); rsync: a daemon in each agent's namespace, pushed to from hnowd's, over the same shaped links"
  echo "- Bound: Kumar-Ross over the tc rates, F = hnow's bundle"
else
  echo "- Links: hnow local up on 127.0.0.1, each agent pacing its own uplink and downlink; rates as configured"
  echo "- rsync (local copies, no shaped links) emulates the links with --bwlimit: to all at once each gets min(source uplink / N, its downlink), one after another min(source uplink, its downlink)"
  echo "- Bound: Kumar-Ross over the configured rates, F = hnow's bundle"
fi
echo "- onefile sends a tar of the tree made beforehand (its time apart); stdin streams \`tar -cf -\` into \`hnow send -\`"
echo "- Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a labs <<<"$LABS"
for lab in "${labs[@]}"; do
  options=$(lab_options "$lab")
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/hnow-bench-tree-XXXXXX")
  SRC="$DIR/src"
  echo "bench/tree.sh: lab $lab: generating $FILES files, $TOTAL_MIB MiB (seed $SEED)" >&2
  start=$(now)
  gen=$(python3 bench/tree_gen.py gen "$SRC" "$FILES" "$TOTAL" "$SEED")
  gen_s=$(since "$start")
  start=$(now)
  tar -cf "$DIR/tree.tar" -C "$SRC" .
  tar_s=$(since "$start")
  tar_bytes=$(stat -c %s "$DIR/tree.tar")
  echo "bench/tree.sh: lab $lab: $options" >&2
  lab_up "$options"
  [ "$LINKS" = local ] || rsync_daemons
  ups=$(sed 's/.*--uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  downs=$(sed 's/.*--downlink-mbps \([^ ]*\).*/\1/' <<<"$options")
  source_up=$(sed 's/.*--source-uplink-mbps \([^ ]*\).*/\1/' <<<"$options")
  # --bwlimit (KiB/s) of each agent's rsync with local links.
  declare -a bw_par=() bw_seq=()
  for ((k = 1; k <= AGENTS; k++)); do
    d=$(pick "$downs" $((k - 1)))
    bw_par[k]=$(awk -v u="$source_up" -v n="$AGENTS" -v d="$d" 'BEGIN { r = u / n < d ? u / n : d; printf "%d", r * 1e6 / 8 / 1024 }')
    bw_seq[k]=$(awk -v u="$source_up" -v d="$d" 'BEGIN { r = u < d ? u : d; printf "%d", r * 1e6 / 8 / 1024 }')
  done
  declare -A times=() predicted=() wall=()
  bundle="" copies=""
  for ((r = 0; r < REPS; r++)); do
    for m in "${METHODS[@]}"; do
      case "$m" in
        tree)
          start=$(now)
          report=$(hnow_checked "$SRC" "t-$r" "$FILES")
          wall[$m]="${wall[$m]:-} $(since "$start")"
          t=$(jq .actual_s <<<"$report")
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")"
          bundle=$(jq .size <<<"$report") copies=$(jq '.copies | length' <<<"$report") ;;
        tree-auto)
          start=$(now)
          report=$(COMPRESS=auto hnow_checked "$SRC" "z-$r" "$FILES")
          wall[$m]="${wall[$m]:-} $(since "$start")"
          t=$(jq .actual_s <<<"$report")
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")"
          echo "bench/tree.sh: $lab tree-auto rep $r: $(jq -c '.compression' <<<"$report")" >&2 ;;
        laptop)
          # A first upload each rep: hnowd's kept copy and the client's digests gone.
          rm -rf "$DIR/hnowd/trees/kept" "$DIR/client-cache"
          start=$(now)
          report=$(LAPTOP=1 hnow_checked "$SRC" "l-$r" "$FILES")
          t=$(since "$start")
          wall[$m]="${wall[$m]:-} $t"
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")"
          laptop_first=$(sed -n 's/^uploading .* (\(.*\)) to hnowd.*/\1/p' "$DIR/send.err" | tail -1) ;;
        onefile)
          start=$(now)
          report=$(hnow_checked "$DIR/tree.tar" "f-$r.tar" "")
          wall[$m]="${wall[$m]:-} $(since "$start")"
          t=$(jq .actual_s <<<"$report")
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")" ;;
        stdin)
          # The baseline as a user types it: tar streamed into hnow send -.
          start=$(now)
          report=$(tar -cf - -C "$SRC" . | hnow_checked - "p-$r.tar" "")
          wall[$m]="${wall[$m]:-} $(since "$start")"
          t=$(jq .actual_s <<<"$report")
          predicted[$m]="${predicted[$m]:-} $(jq .predicted_s <<<"$report")" ;;
        rsync-par) rsync_all par "r-$r"; t=$RS_T ;;
        rsync-seq) rsync_all seq "s-$r"; t=$RS_T ;;
      esac
      times[$m]="${times[$m]:-} $t"
      echo "bench/tree.sh: $lab $m rep $r: $t s" >&2
      # An agent copies the files it holds anywhere under its root instead of
      # receiving them (docs/tree-send.md): each method's copy leaves the
      # root before the next method runs. Rep 0's tree, laptop and rsync-par
      # copies come back for the second send.
      for a in "$DIR"/agents/agent-*/; do  # the agents' directories, not their configs
        a=${a%/}
        mkdir -p "$a/aside"
        for d in "t-$r" "z-$r" "l-$r" "r-$r" "s-$r" "f-$r.tar" "p-$r.tar"; do
          [ ! -e "$a/files/$d" ] || mv "$a/files/$d" "$a/aside/"
        done
      done
    done
    for a in "$DIR"/agents/agent-*/aside; do
      rm -rf "$a/f-$r.tar" "$a/p-$r.tar" "$a/s-$r" "$a/z-$r"
      [ "$r" = 0 ] || rm -rf "$a/t-$r" "$a/r-$r" "$a/l-$r"
    done
  done

  # The second send: 1% changed, 10 deleted.
  mut=$(python3 bench/tree_gen.py mutate "$SRC" "$SEED")
  changed=$(kv changed "$mut") changed_bytes=$(kv changed_bytes "$mut") deleted=$(kv deleted "$mut")
  echo "bench/tree.sh: $lab second send: $changed files changed ($changed_bytes bytes), $deleted deleted" >&2
  root_holds_only t-0
  start=$(now)
  # Not checked for LEFT files per copy: a build that sends only what changed
  # may count only what it published; agent-1's copy is compared below.
  report=$(hnow_checked "$SRC" t-0 "" --delete)
  again_wall=$(since "$start")
  again_t=$(jq .actual_s <<<"$report")
  # What hnowd moved: the bundle to every agent, and the indexes it sent
  # asking them what they hold (absent from builds before the count: 0).
  again_query=$(jq '.tree.query_bytes // 0' <<<"$report")
  again_bytes=$(jq "$TREE_MOVED" <<<"$report")
  again_size=$(jq .size <<<"$report")
  again_replaced=$(jq '[.copies[].tree.replaced] | add' <<<"$report")
  again_files=$(jq '[.copies[].tree.files] | add' <<<"$report")
  echo "bench/tree.sh: $lab second send tree: $again_t s" >&2
  # The laptop's second send: only what hnowd's kept copy lacks is uploaded.
  lap_t="" lap_up=""
  if has laptop; then
    root_holds_only l-0
    start=$(now)
    report=$(LAPTOP=1 hnow_checked "$SRC" l-0 "" --delete)
    lap_t=$(since "$start")
    lap_up=$(sed -n 's/^uploading .* (\(.*\)) to hnowd.*/\1/p' "$DIR/send.err" | tail -1)
    lap_bytes=$(jq "$TREE_MOVED" <<<"$report")
    echo "bench/tree.sh: $lab second send laptop: $lap_t s, uploaded $lap_up" >&2
  fi
  # rsync's second send updates rsync-par's copies: only when it made them.
  rs_t="" rs_bytes=""
  if has rsync-par; then
    root_holds_only r-0
    rsync_all par r-0 --delete
    rs_t=$RS_T rs_bytes=$RS_BYTES
    echo "bench/tree.sh: $lab second send rsync-par: $rs_t s, $rs_bytes bytes" >&2
  fi
  # What each agent's unpack took after the bundle's last byte, first sends
  # of the tree (and tree-auto): from the agents' logs.
  tails=$(cat "$DIR"/logs/agent-*.log 2>/dev/null |
    sed -n 's|.*unpacked .*/t-[0-9]* in \([0-9.]*\) s after its last byte.*: \([0-9]*\) files (.*0 held already.*|\1|p' || true)
  root_holds_only all
  # What agent-1 holds now against the source.
  src_files=$(find "$SRC" -type f | wc -l)
  t0_files=$(find "$DIR/agents/agent-1/files/t-0" -type f | wc -l)
  r0_files=$({ find "$DIR/agents/agent-1/files/r-0" -type f 2>/dev/null || true; } | wc -l)
  t0_diff=$(diff -rq "$SRC" "$DIR/agents/agent-1/files/t-0" | grep -vc "^Only in $DIR/agents/agent-1/files/t-0" || true)
  r0_diff=$(has rsync-par && diff -rq "$SRC" "$DIR/agents/agent-1/files/r-0" | wc -l || echo "-")

  SIZE=$bundle
  bound=$(kumar_ross "$ups" "$downs" "$source_up")
  tree_med=$(tr ' ' '\n' <<<"${times[tree]}" | grep . | median)
  echo
  echo "## Lab: $lab ($options), $LINKS links"
  echo
  echo "- Tree: $(kv files "$gen") files in $(kv dirs "$gen") directories (depth up to 4), $(kv bytes "$gen") bytes; largest $(kv largest "$gen") bytes ($(kv largest_path "$gen")); $(kv over_1mib "$gen") files of 1 MiB or more, $(kv under_4kib "$gen") under 4 KiB; $(kv text_bytes "$gen") bytes of text, $(kv random_bytes "$gen") random (generated in $gen_s s, seed $SEED)"
  echo "- hnow's bundle: $bundle bytes ($((bundle - $(kv bytes "$gen"))) more than the files); the tar: $tar_bytes bytes, \`tar -cf\` took $tar_s s (not in onefile's time)"
  if [ "$LINKS" = local ]; then
    echo "- rsync's --bwlimit (KiB/s) per agent: at once $(IFS=,; echo "${bw_par[*]}"); in turn $(IFS=,; echo "${bw_seq[*]}")"
  fi
  printf -- '- Kumar-Ross bound over the %s rates for the bundle: %.2f s\n\n' "$([ "$LINKS" = netns ] && echo tc || echo configured)" "$bound"
  echo "| method | median s | per rep | / bound | / tree |"
  echo "|---|---:|---|---:|---:|"
  for m in "${METHODS[@]}"; do
    a=$(tr ' ' '\n' <<<"${times[$m]}" | grep . | median)
    per=$(for x in ${times[$m]}; do printf '%.2f ' "$x"; done | sed 's/ $//')
    awk -v m="$m" -v a="$a" -v per="$per" -v b="$bound" -v t="$tree_med" \
      'BEGIN { printf "| %s | %.2f | %s | %.2f | %.2f |\n", m, a, per, a / b, a / t }'
  done
  echo
  if has onefile && has stdin && has rsync-par; then
    ptree=$(tr ' ' '\n' <<<"${predicted[tree]}" | grep . | median)
    pone=$(tr ' ' '\n' <<<"${predicted[onefile]}" | grep . | median)
    one_med=$(tr ' ' '\n' <<<"${times[onefile]}" | grep . | median)
    par_med=$(tr ' ' '\n' <<<"${times[rsync-par]}" | grep . | median)
    wtree=$(tr ' ' '\n' <<<"${wall[tree]}" | grep . | median)
    wone=$(tr ' ' '\n' <<<"${wall[onefile]}" | grep . | median)
    wstdin=$(tr ' ' '\n' <<<"${wall[stdin]}" | grep . | median)
    printf 'hnow predicted (median): tree %.2f s, onefile %.2f s. Whole commands from start to report (median; a tree is scanned, the agents asked and the bundle packed before actual_s starts; stdin includes tar and the upload to hnowd): tree %.2f s, onefile %.2f s, stdin %.2f s.\n\n' "$ptree" "$pone" "$wtree" "$wone" "$wstdin"
    awk -v t="$tree_med" -v o="$one_med" -v wt="$wtree" -v ws="$wstdin" 'BEGIN { printf "tree / onefile = %.2f (target ≤ 1.2); whole commands, tree / (tar | hnow send -) = %.2f\n\n", t / o, wt / ws }'
    awk -v t="$tree_med" -v p="$par_med" 'BEGIN { printf "rsync-par / tree = %.2f (target ≥ 3 on the demo lab)\n", p / t }'
    echo
  fi
  if [ -n "$tails" ]; then
    printf 'Unpack after the last byte (each agent, every first send of the tree): median %.2f s, max %.2f s over %d copies.\n\n' \
      "$(median <<<"$tails")" "$(sort -g <<<"$tails" | tail -1)" "$(grep -c . <<<"$tails")"
  fi
  if has tree-auto; then
    auto_med=$(tr ' ' '\n' <<<"${times[tree-auto]}" | grep . | median)
    awk -v t="$tree_med" -v a="$auto_med" 'BEGIN { printf "tree-auto / tree = %.3f (--compress auto against the tree of this run; target: never above 1.05)\n\n", a / t }'
  fi
  echo "### Second send: $changed files changed ($changed_bytes bytes), $deleted deleted"
  echo
  if [ "$again_size" -ge $((bundle / 2)) ]; then
    echo "hnow: \`hnow send DIR --dest t-0\` again, file by file; its bundle ($again_size bytes) carried the whole tree: only-what-changed is not in this build."
  else
    echo "hnow: \`hnow send DIR --dest t-0 --delete\` again, file by file; its bundle carried $again_size bytes of the first's $bundle, and asking the agents what they hold took $again_query bytes (all agents)."
  fi
  has rsync-par && echo "rsync-par --delete updates rep 0's copies (r-0)."
  echo "Changed bytes are counted once: each agent getting exactly them would be $copies."
  echo
  echo "| method | s | / first send | bytes moved | / (changed bytes × agents) |"
  echo "|---|---:|---:|---:|---:|"
  awk -v t="$again_t" -v b="$again_bytes" -v c="$changed_bytes" -v n="$copies" -v f="$tree_med" \
    'BEGIN { printf "| tree --delete (bundle × %d agents + queries) | %.2f | %.3f | %d | %.2f |\n", n, t, t / f, b, b / (c * n) }'
  if [ -n "$lap_t" ]; then
    lap_med=$(tr ' ' '\n' <<<"${times[laptop]}" | grep . | median)
    awk -v t="$lap_t" -v b="$lap_bytes" -v c="$changed_bytes" -v n="$copies" -v f="$lap_med" \
      'BEGIN { printf "| laptop --delete (whole command, upload included; to the agents: bundle × %d + queries) | %.2f | %.3f (of laptop'"'"'s) | %d | %.2f |\n", n, t, t / f, b, b / (c * n) }'
  fi
  [ -z "$rs_t" ] || awk -v t="$rs_t" -v b="$rs_bytes" -v c="$changed_bytes" -v n="$copies" -v f="$tree_med" \
    'BEGIN { printf "| rsync-par --delete (Total bytes sent, summed) | %.2f | %.3f | %d | %.2f |\n", t, t / f, b, b / (c * n) }'
  echo
  echo "Targets: bytes moved at most 1.1x the changed bytes per agent; the second send under 10% of the first's time."
  [ -z "$lap_t" ] || echo "laptop: the first upload carried ${laptop_first:-?}; the second ${lap_up:-?}."
  echo
  printf 'hnow (time: actual_s) took %.2f s for the whole command. ' "$again_wall"
  echo "hnow's report: $again_files files published and $again_replaced replaced over all agents. After it, agent-1's t-0 holds $t0_files files, r-0 $r0_files, the source $src_files (--delete removed what the tree no longer names); differences from the source besides files only in t-0: t-0 $t0_diff, r-0 $r0_diff."
  echo
  echo "Times per rep (s): $(for m in "${METHODS[@]}"; do printf '%s:%s; ' "$m" "${times[$m]}"; done)"
  unset times predicted wall
  stop_rsync
  lab_down
  rm -rf "$DIR"
  DIR=""
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
