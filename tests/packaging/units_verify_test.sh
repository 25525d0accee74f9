#!/usr/bin/env bash
# The units in dist/ pass `systemd-analyze verify` (with ExecStart pointed at
# the binaries just built) and keep the hardening Debian's redis unit has.
# Skips (77) without systemd-analyze.
#   units_verify_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build=$2
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze on this machine"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/bin/hnowd|$build/daemon/hnowd|" "$source_dir/dist/hnowd.service" >"$work/hnowd.service"
sed "s|/usr/bin/hnow-agent|$build/agent/hnow-agent|" "$source_dir/dist/hnow-agent.service" >"$work/hnow-agent.service"
status=0
# --man=no: the man pages are made at packaging and checked by packages_test.sh.
systemd-analyze verify --man=no "$work/hnowd.service" "$work/hnow-agent.service" >"$work/verify.log" 2>&1 || status=$?
if [ $status -ne 0 ] || [ -s "$work/verify.log" ]; then
  cat "$work/verify.log"
  echo "FAIL: systemd-analyze verify refuses or warns about dist/'s units"
  exit 1
fi
for unit in hnowd hnow-agent; do
  for line in Type=notify ProtectSystem=strict NoNewPrivileges=yes SystemCallFilter=@system-service \
    "User=$([ $unit = hnowd ] && echo hnow || echo hnow-agent)" "StateDirectory=$([ $unit = hnowd ] && echo hnow || echo hnow-agent)" \
    CapabilityBoundingSet= UMask=0077; do
    grep -qx -- "$line" "$work/$unit.service" || { echo "FAIL: $unit.service has no line $line"; exit 1; }
  done
done
echo PASS
