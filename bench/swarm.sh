#!/usr/bin/env bash
# hnow's best peer on the same links: a BitTorrent swarm (Debian's aria2c and
# opentracker) in a lab of tests/netns/lab.sh. The tracker and a seeder run in
# hnowd's namespace, one leecher in each agent's; leechers keep seeding after
# they finish, as a swarm does, until every one holds the whole file. Also
# other traffic for a while (iperf3), for benches that need a busy lab.
#
#   bench/swarm.sh run --dir LAB --file FILE [--timeout S] [--seeders K,..] [--leechers K,..]
#       prints "swarm: N agents, S seconds" (leechers started to the last
#       complete copy), checks every copy's SHA-256, removes them.
#       --seeders: agents (numbers) that hold FILE already and seed it with
#       hnowd; --leechers: the agents that fetch it (default: every agent
#       not seeding)
#   bench/swarm.sh traffic --dir LAB --from NODE --to NODE --seconds S [--mbps M]
#       iperf3 (one TCP stream) from NODE to NODE for S seconds in the
#       background, at most M Mbit/s (default: as fast as the links allow);
#       prints the file holding its pids
#   bench/swarm.sh stop-traffic --dir LAB
# NODE: hnowd or agent-K. Root only (the lab's namespaces). Every process it
# starts is stopped on the way out, also on failure or Ctrl-C.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
die() { echo "swarm.sh: $*" >&2; exit 2; }

cmd=${1:-}
shift || true
DIR="" FILE="" TIMEOUT=300 FROM="" TO="" SECONDS_=10 MBPS="" SEEDERS="" LEECHERS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --file) FILE=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --from) FROM=$2; shift 2 ;;
    --to) TO=$2; shift 2 ;;
    --seconds) SECONDS_=$2; shift 2 ;;
    --mbps) MBPS=$2; shift 2 ;;
    --seeders) SEEDERS=$2; shift 2 ;;
    --leechers) LEECHERS=$2; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -n "$DIR" ] && [ -f "$DIR/lab.env" ] || die "--dir must name a lab brought up by tests/netns/lab.sh"
# shellcheck disable=SC1091
. "$DIR/lab.env"

ns_of() { case "$1" in hnowd) echo "${PREFIX}d" ;; agent-*) echo "${PREFIX}a${1#agent-}" ;; *) die "unknown node '$1'" ;; esac; }
# A lab with rooms lists every node's address (tests/netns/rooms.sh); hnowd
# is $NET.1 in either.
ip_of() {
  local k=0
  [ "$1" = hnowd ] || k=${1#agent-}
  if [ -n "${ADDRS:-}" ]; then
    local -a addrs
    read -r -a addrs <<<"$ADDRS"
    echo "${addrs[k]}"
  else
    echo "$NET.$((k + 1))"
  fi
}

run_swarm() {
  [ -f "$FILE" ] || die "--file must name a file"
  command -v aria2c >/dev/null && command -v opentracker >/dev/null ||
    die "needs aria2c and opentracker (apt-get install aria2 opentracker)"
  # Globals: the EXIT trap runs after this function has returned.
  work="$DIR/swarm" pids=() keep=""
  local want
  rm -rf "$work"
  mkdir -p "$work"
  # aria2c tells the tracker it stops, and waits for it: it is killed.
  stop() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "${keep:-}" ]; then
      rm -rf "$keep" && mkdir -p "$keep" && cp "$work"/*.log "$keep"/ 2>/dev/null || true
    fi
    rm -rf "$work"
  }
  local keep=
  trap stop EXIT
  trap 'exit 130' INT TERM
  local tracker="http://$NET.1:6969/announce"
  local hash
  hash=$(python3 "$HERE/make_torrent.py" "$FILE" "$tracker" "$work/file.torrent")
  echo "$hash" >"$work/whitelist"
  # opentracker chroots to -d, drops to user nobody and reads the whitelist there.
  chmod 755 "$work"
  ip netns exec "${PREFIX}d" opentracker -i "$NET.1" -p 6969 -P 6969 -d "$work" -w whitelist \
    >"$work/tracker.log" 2>&1 &
  pids+=($!)
  # What every peer runs: no DHT, no local discovery (only the lab's tracker),
  # announces every 2 s so early peers learn of later ones, no ratio or time
  # limit on seeding, nothing preallocated.
  local common=(--enable-dht=false --enable-dht6=false --bt-enable-lpd=false --enable-peer-exchange=true
    --bt-tracker-interval=2 --seed-ratio=0.0 --file-allocation=none --summary-interval=0
    --console-log-level=warn --check-certificate=false --bt-max-peers=64 --max-overall-upload-limit=0
    --bt-request-peer-speed-limit=100M)
  ip netns exec "${PREFIX}d" aria2c "${common[@]}" --dir "$(dirname "$FILE")" --check-integrity=false \
    --bt-seed-unverified=true --listen-port=6881 "$work/file.torrent" >"$work/seeder.log" 2>&1 &
  pids+=($!)
  sleep 1
  # aria2c keeps its control file while it seeds: completion is marked by a
  # hook (its third argument is the file's path).
  printf '#!/bin/sh\ntouch "$3.complete"\n' >"$work/complete.sh"
  chmod +x "$work/complete.sh"
  local k start
  local -a seeders=() leechers=()
  [ -z "$SEEDERS" ] || IFS=, read -r -a seeders <<<"$SEEDERS"
  if [ -n "$LEECHERS" ]; then
    IFS=, read -r -a leechers <<<"$LEECHERS"
  else
    for ((k = 1; k <= AGENTS; k++)); do
      [[ ",$SEEDERS," == *",$k,"* ]] || leechers+=("$k")
    done
  fi
  # Seeders hold the file already: a hard link of it in their own directory.
  for k in "${seeders[@]}"; do
    mkdir -p "$work/seed-$k"
    ln "$FILE" "$work/seed-$k/$(basename "$FILE")" 2>/dev/null || cp "$FILE" "$work/seed-$k/"
    ip netns exec "${PREFIX}a$k" aria2c "${common[@]}" --dir "$work/seed-$k" --check-integrity=false \
      --bt-seed-unverified=true --listen-port=6881 "$work/file.torrent" >"$work/seed-$k.log" 2>&1 &
    pids+=($!)
  done
  [ ${#seeders[@]} = 0 ] || sleep 1
  start=$(date +%s.%N)
  for k in "${leechers[@]}"; do
    mkdir -p "$work/agent-$k"
    ip netns exec "${PREFIX}a$k" aria2c "${common[@]}" --dir "$work/agent-$k" --listen-port=6881 \
      --on-bt-download-complete="$work/complete.sh" "$work/file.torrent" >"$work/agent-$k.log" 2>&1 &
    pids+=($!)
  done
  local done=0 elapsed
  while :; do
    done=0
    for k in "${leechers[@]}"; do
      [ -f "$work/agent-$k/$(basename "$FILE").complete" ] && done=$((done + 1))
    done
    elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    [ $done = "${#leechers[@]}" ] && break
    if awk -v e="$elapsed" -v t="$TIMEOUT" 'BEGIN { exit !(e > t) }'; then
      keep="$DIR/swarm-logs"
      echo "swarm.sh: only $done of ${#leechers[@]} copies after $TIMEOUT s; logs in $keep" >&2
      exit 1
    fi
    sleep 0.05
  done
  want=$(sha256sum <"$FILE" | cut -d' ' -f1)
  for k in "${leechers[@]}"; do
    [ "$(sha256sum <"$work/agent-$k/$(basename "$FILE")" | cut -d' ' -f1)" = "$want" ] ||
      { echo "swarm.sh: agent-$k's copy differs" >&2; exit 1; }
  done
  echo "swarm: ${#leechers[@]} agents, $elapsed seconds"
}

traffic() {
  [ -n "$FROM" ] && [ -n "$TO" ] || die "traffic needs --from and --to"
  local rate=()
  if [ -n "$MBPS" ]; then
    [[ "$MBPS" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--mbps must be a number of Mbit/s"
    rate=(-b "${MBPS}M")
  fi
  local port=$((5201 + RANDOM % 1000))
  ip netns exec "$(ns_of "$TO")" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  echo $! >>"$DIR/traffic.pids"
  sleep 0.3
  ip netns exec "$(ns_of "$FROM")" iperf3 -c "$(ip_of "$TO")" -p "$port" -t "$SECONDS_" "${rate[@]}" >/dev/null 2>&1 &
  echo $! >>"$DIR/traffic.pids"
  echo "$DIR/traffic.pids"
}

case "$cmd" in
  run) run_swarm ;;
  traffic) traffic ;;
  stop-traffic)
    [ -f "$DIR/traffic.pids" ] && { xargs -r kill <"$DIR/traffic.pids" 2>/dev/null || true; }
    rm -f "$DIR/traffic.pids" ;;
  *) die "usage: swarm.sh run|traffic|stop-traffic --dir LAB ..." ;;
esac
