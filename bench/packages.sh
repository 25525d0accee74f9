#!/usr/bin/env bash
# The Debian packages as an administrator meets them (docs/packages.md):
# installed with dpkg on this machine, their files, users and modes; hnowd
# and hnow-agent started by their units' ExecStart as the units' users (PID
# 1 here need not be systemd); an agent enrolled with `hnow-agent enroll`
# (a missing, unreadable, damaged and an expired token first, each refused
# saying why); a file sent with the installed `hnow`; then dpkg --purge
# leaves nothing behind. Root only; skips (77) without root or dpkg, or
# when hnow's packages or users are already on this machine.
# Not in the CTest suite: making the packages (stripping and splitting
# about 380 MB of binaries, help2man and the completion running the
# binaries) takes minutes on 2 cores, and the run itself 45-75 s.
#   bench/packages.sh [BUILD_DIR]   (default build; the packages in
#                                    BUILD_DIR/packages, made by the
#                                    hnow_packages target when missing or
#                                    older than the binaries)
set -euo pipefail
build=$(cd "${1:-$(dirname "$0")/../build}" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "installing packages needs root"
command -v dpkg >/dev/null || skip "no dpkg on this machine"
for p in hnow hnowd hnow-agent; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
    skip "package $p is installed on this machine already; the test would replace it"
  fi
done
for u in hnow hnow-agent; do ! getent passwd "$u" >/dev/null || skip "user $u exists on this machine already"; done
[ ! -e /etc/hnow ] && [ ! -e /srv/hnow ] || skip "/etc/hnow or /srv/hnow exists on this machine already"

# The packages of these binaries: made now if missing or older than a binary.
debs=("$build"/packages/hnow_*.deb "$build"/packages/hnowd_*.deb "$build"/packages/hnow-agent_*.deb)
stale=0
for d in "${debs[@]}"; do
  [ -f "$d" ] || { stale=1; break; }
  for b in "$build/daemon/hnow" "$build/daemon/hnowd" "$build/agent/hnow-agent"; do
    [ "$b" -nt "$d" ] && stale=1
  done
done
if [ $stale -eq 1 ]; then
  rm -f "$build"/packages/*.deb "$build"/packages/*.ddeb
  cmake --build "$build" --target hnow_packages >/dev/null || fail "cmake --build $build --target hnow_packages failed"
  debs=("$build"/packages/hnow_*.deb "$build"/packages/hnowd_*.deb "$build"/packages/hnow-agent_*.deb)
fi
for d in "${debs[@]}"; do [ -f "$d" ] || fail "no package $d"; done
for p in hnow hnowd hnow-agent; do
  ls "$build"/packages/${p}-dbgsym_*.ddeb >/dev/null 2>&1 || fail "no ${p}-dbgsym package in $build/packages"
done

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  dpkg --purge hnow-agent hnowd hnow >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

step() { echo "--- $*"; }
# mode, owner and group of a path, as stat prints them: "700 hnow hnow".
owned() { stat -c '%a %U %G' "$1"; }
expect_owned() { [ "$(owned "$1")" = "$2" ] || fail "$1 is $(owned "$1"), not $2"; }
# Waits up to $2 seconds for the command $1 to succeed.
wait_for() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do eval "$1" && return 0; sleep 0.1; done
  return 1
}
# A unit's ExecStart, run as its User= with its UMask= (as systemd would).
start_unit() {
  local unit=/lib/systemd/system/$1.service log=$2 user command mask
  user=$(sed -n 's/^User=//p' "$unit")
  command=$(sed -n 's/^ExecStart=//p' "$unit")
  mask=$(sed -n 's/^UMask=//p' "$unit")
  [ -n "$user" ] && [ -n "$command" ] && [ -n "$mask" ] || fail "$unit has no User=, ExecStart= or UMask="
  # shellcheck disable=SC2086  # ExecStart is split into words, as systemd does
  (umask "$mask" && exec setpriv --reuid="$user" --regid="$user" --init-groups -- $command) >"$log" 2>&1 &
  pids+=($!)
}

step "install"
dpkg -i "${debs[@]}" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i failed"; }
for f in /usr/bin/hnow /usr/bin/hnowd /usr/bin/hnow-agent /etc/hnow/client.toml /etc/hnow/hnowd.toml \
  /etc/hnow/hnow-agent.toml /lib/systemd/system/hnowd.service /lib/systemd/system/hnow-agent.service \
  /usr/share/man/man1/hnow.1.gz /usr/share/man/man8/hnowd.8.gz /usr/share/man/man8/hnow-agent.8.gz \
  /usr/share/bash-completion/completions/hnow /usr/share/doc/hnow/packages.md; do
  [ -f "$f" ] || fail "$f is not installed"
done
for b in hnow hnowd hnow-agent; do
  ! readelf -S "/usr/bin/$b" | grep -q '\.debug_info' || fail "/usr/bin/$b is not stripped"
  /usr/bin/$b --version | grep -q "^$b " || fail "$b --version: $(/usr/bin/$b --version 2>&1)"
done
grep -q 'hnow-agent enroll' <(zcat /usr/share/man/man8/hnow-agent.8.gz) || fail "hnow-agent(8) does not tell how to enroll"
# The completion offers the subcommands of `hnow agent`.
completed=$(bash -c 'source /usr/share/bash-completion/completions/hnow; COMP_WORDS=(hnow agent to); COMP_CWORD=2; _hnow; echo "${COMPREPLY[*]}"')
[ "$completed" = token ] || fail "completing 'hnow agent to' gave '$completed', not 'token'"
for u in hnow hnow-agent; do
  getent passwd "$u" >/dev/null || fail "no system user $u"
  [ "$(getent passwd "$u" | cut -d: -f3)" -lt 1000 ] || fail "$u is not a system user"
  [ "$(getent passwd "$u" | cut -d: -f7)" = /usr/sbin/nologin ] || fail "$u can log in"
done
expect_owned /etc/hnow "755 root root"
expect_owned /etc/hnow/hnowd.toml "644 root root"
expect_owned /var/lib/hnow "700 hnow hnow"
expect_owned /var/lib/hnow-agent "700 hnow-agent hnow-agent"
expect_owned /srv/hnow "755 hnow-agent hnow-agent"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify /lib/systemd/system/hnowd.service /lib/systemd/system/hnow-agent.service \
    >"$work/verify.log" 2>&1 || { cat "$work/verify.log"; fail "systemd-analyze verify refuses the units"; }
  [ ! -s "$work/verify.log" ] || { cat "$work/verify.log"; fail "systemd-analyze verify warns about the units"; }
else
  echo "(no systemd-analyze: the units are not verified)"
fi

step "hnowd from its unit"
# Loopback and ports the OS chooses, so the test never meets another hnowd.
sed -i 's/^listen = .*/listen = "127.0.0.1:0"/; s/^data_port = .*/data_port = 0/' /etc/hnow/hnowd.toml
start_unit hnowd "$work/hnowd.log"
wait_for '[ -s /var/lib/hnow/hnowd.address ]' 15 || { cat "$work/hnowd.log"; fail "hnowd did not start"; }
expect_owned /var/lib/hnow/hnowd.key "600 hnow hnow"
expect_owned /var/lib/hnow/admin.key "600 hnow hnow"
address=$(cat /var/lib/hnow/hnowd.address)
# The installed /etc/hnow/client.toml as it is (the local administrator's
# key and hnowd.pub, both made on hnowd's first start), with only the port
# this test's hnowd was given.
sed -i "s/^coordinator = .*/coordinator = \"$address\"/" /etc/hnow/client.toml
hnow() { /usr/bin/hnow "$@"; }
hnow status >"$work/status.log" 2>&1 || { cat "$work/status.log"; fail "hnow status as root with the installed client.toml failed"; }

step "hnow-agent enroll refuses a missing, unreadable, damaged token"
sed -i 's/^data_port = .*/data_port = 0/' /etc/hnow/hnow-agent.toml
refused() {  # refused STATUS WORDS -- COMMAND...: exits STATUS, stderr says WORDS
  local status=$1 words=$2 got=0
  shift 3
  "$@" >"$work/out" 2>"$work/err" || got=$?
  [ "$got" -eq "$status" ] || fail "$* exited $got, not $status: $(cat "$work/err")"
  grep -q "$words" "$work/err" || fail "$* said '$(cat "$work/err")', not '$words'"
}
refused 2 "there is no token file $work/none.token" -- hnow-agent enroll "$work/none.token"
hnow agent token >"$work/root-only.token" 2>/dev/null
chmod 600 "$work/root-only.token"
chmod 711 "$work"
refused 2 "Permission denied" -- setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  /usr/bin/hnow-agent enroll --config /etc/hnow/hnow-agent.toml "$work/root-only.token"
echo "hnow-enroll-shortened" >"$work/damaged.token"
refused 2 "damaged or cut short" -- hnow-agent enroll "$work/damaged.token"
[ ! -e /var/lib/hnow-agent/enroll.token ] || fail "a refused token was placed"

step "an expired token: the agent's log says so and names the file to replace"
hnow agent token --ttl-s 1 >"$work/expired.token" 2>/dev/null
sleep 1.2
hnow-agent enroll "$work/expired.token" --coordinator "$address" >/dev/null
grep -q "^coordinator = \"$address\"" /etc/hnow/hnow-agent.toml || fail "enroll did not set the coordinator"
expect_owned /etc/hnow/hnow-agent.toml "644 root root"
start_unit hnow-agent "$work/agent-expired.log"
wait_for 'grep -q "expired" "$work/agent-expired.log"' 15 || { cat "$work/agent-expired.log"; fail "no word of the expired token"; }
grep -q "hnow-agent enroll TOKEN_FILE" "$work/agent-expired.log" || fail "the log does not say to place a new token"
kill "${pids[-1]}"; wait "${pids[-1]}" || true; unset 'pids[-1]'

step "enroll with a good token, start the agent"
hnow agent token --count 1 --out "$work/room" >/dev/null 2>&1
hnow-agent enroll "$work/room/token-01.token" >"$work/enroll.out"
expect_owned /var/lib/hnow-agent/enroll.token "600 hnow-agent hnow-agent"
expect_owned /var/lib/hnow-agent/agent.key "600 hnow-agent hnow-agent"
start_unit hnow-agent "$work/agent.log"
wait_for '[ ! -e /var/lib/hnow-agent/enroll.token ]' 15 || { cat "$work/agent.log"; fail "the agent did not enroll"; }
expect_owned /var/lib/hnow-agent/hnowd.pub "600 hnow-agent hnow-agent"
cmp -s /var/lib/hnow-agent/hnowd.pub /var/lib/hnow/hnowd.pub || fail "the agent keeps another hnowd key"

step "send a file with the installed hnow"
head -c 3000000 /dev/urandom >"$work/file.bin"
# At once, as an administrator would: a send to an agent whose links hnowd
# has not measured yet waits for that measurement.
hnow send "$work/file.bin" --dest received.bin --to all >"$work/send.log" 2>&1 || { cat "$work/send.log"; fail "hnow send failed"; }
cmp "$work/file.bin" /srv/hnow/received.bin || fail "the agent's copy differs"
[ "$(stat -c %U /srv/hnow/received.bin)" = hnow-agent ] || fail "the received file is not the agent user's"

step "purge"
for pid in "${pids[@]}"; do kill "$pid"; done
for pid in "${pids[@]}"; do wait "$pid" || true; done
pids=()
rm /srv/hnow/received.bin  # the administrator's data: purge keeps a root that holds any
dpkg --purge hnow-agent hnowd hnow >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge failed"; }
for f in /usr/bin/hnow /usr/bin/hnowd /usr/bin/hnow-agent /etc/hnow /var/lib/hnow /var/lib/hnow-agent /srv/hnow \
  /lib/systemd/system/hnowd.service /lib/systemd/system/hnow-agent.service /usr/share/doc/hnow \
  /usr/share/bash-completion/completions/hnow /usr/share/man/man8/hnowd.8.gz; do
  [ ! -e "$f" ] || fail "$f is left after the purge"
done
for u in hnow hnow-agent; do
  ! getent passwd "$u" >/dev/null || fail "user $u is left after the purge"
  ! getent group "$u" >/dev/null || fail "group $u is left after the purge"
done
! dpkg-query -W hnow hnowd hnow-agent >/dev/null 2>&1 || fail "dpkg still lists a package"
echo "PASS"
