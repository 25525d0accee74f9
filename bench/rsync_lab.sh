# rsync as the benches' peer on a lab (bench/tree.sh, bench/tree_groups.sh):
# a daemon in each agent's namespace with netns links, local copies paced
# by --bwlimit with local links. Sourced; uses the caller's LINKS, AGENTS,
# DIR, SRC, RSYNC_PORT, lab, bw_par and bw_seq, now and since; RSYNC_TO
# (agent numbers, default all) picks whom rsync_all sends to.
DAEMONS=() CLIENTS=()
stop_rsync() {
  local pid
  for pid in "${CLIENTS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${CLIENTS[@]}"; do wait "$pid" 2>/dev/null || true; done
  for pid in "${DAEMONS[@]}"; do
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${DAEMONS[@]}"; do wait "$pid" 2>/dev/null || true; done
  CLIENTS=() DAEMONS=()
}

# The lab's rsync targets: with netns links a daemon in every agent's
# namespace (module `mod` = that agent's files directory), pushed to from
# hnowd's namespace; with local links the agents' files directories.
PREFIX="" NET=""
rsync_daemons() {
  PREFIX=$(sed -n 's/^PREFIX=//p' "$DIR/lab.env") NET=$(sed -n 's/^NET=//p' "$DIR/lab.env")
  local k ip
  mkdir -p "$DIR/rsyncd"
  for ((k = 1; k <= AGENTS; k++)); do
    ip="$NET.$((k + 1))"
    cat >"$DIR/rsyncd/agent-$k.conf" <<EOF
use chroot = no
read only = no
uid = root
gid = root
log file = $DIR/rsyncd/agent-$k.log
[mod]
path = $DIR/agents/agent-$k/files
EOF
    ip netns exec "${PREFIX}a$k" rsync --daemon --no-detach --config="$DIR/rsyncd/agent-$k.conf" \
      --address="$ip" --port=$RSYNC_PORT >>"$DIR/rsyncd/agent-$k.out" 2>&1 </dev/null &
    DAEMONS+=($!)
  done
  for ((k = 1; k <= AGENTS; k++)); do
    ip="$NET.$((k + 1))"
    for _ in $(seq 100); do
      ip netns exec "${PREFIX}d" rsync "rsync://$ip:$RSYNC_PORT/" >/dev/null 2>&1 && continue 2
      sleep 0.1
    done
    echo "$(basename "$0"): the rsync daemon of agent-$k did not answer: $(cat "$DIR/rsyncd/agent-$k.out")" >&2
    exit 1
  done
}

# rsync_cmd K NAME BWLIMIT [OPTIONS..]: sets CMD to rsync SRC to agent K's NAME.
rsync_cmd() {
  local k=$1 name=$2 bw=$3
  shift 3
  if [ "$LINKS" = netns ]; then
    CMD=(ip netns exec "${PREFIX}d" rsync -a --stats "$@" "$SRC/" "rsync://$NET.$((k + 1)):$RSYNC_PORT/mod/$name/")
  else
    CMD=(rsync -a --stats --bwlimit="$bw" "$@" "$SRC/" "$DIR/agents/agent-$k/files/$name/")
  fi
}

rsync_targets() { if [ -n "${RSYNC_TO:-}" ]; then tr , "\n" <<<"$RSYNC_TO"; else seq 1 "$AGENTS"; fi; }

# rsync_all par|seq NAME [OPTIONS..]: to every agent, at once or in turn;
# sets RS_T (seconds, the whole of it) and RS_BYTES (what rsync sent, summed).
rsync_all() {
  local mode=$1 name=$2 start k pid failed=0 b
  shift 2
  rm -rf "$DIR/rsync-out"
  mkdir -p "$DIR/rsync-out"
  start=$(now)
  if [ "$mode" = par ]; then
    CLIENTS=()
    for k in $(rsync_targets); do
      rsync_cmd $k "$name" "${bw_par[k]}" "$@"
      "${CMD[@]}" >"$DIR/rsync-out/agent-$k" 2>&1 &
      CLIENTS+=($!)
    done
    for pid in "${CLIENTS[@]}"; do wait "$pid" || failed=1; done
    CLIENTS=()
  else
    for k in $(rsync_targets); do
      rsync_cmd $k "$name" "${bw_seq[k]}" "$@"
      "${CMD[@]}" >"$DIR/rsync-out/agent-$k" 2>&1 || { failed=1; break; }
    done
  fi
  RS_T=$(since "$start")
  if [ $failed = 1 ]; then
    echo "$(basename "$0"): rsync-$mode to $name failed on $lab:" >&2
    tail -n 5 "$DIR"/rsync-out/* >&2
    exit 1
  fi
  RS_BYTES=0
  for k in $(rsync_targets); do
    b=$(sed -n 's/^Total bytes sent: *//p' "$DIR/rsync-out/agent-$k" | tr -d ',')
    RS_BYTES=$((RS_BYTES + ${b:-0}))
  done
}

