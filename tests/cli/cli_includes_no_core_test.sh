#!/usr/bin/env bash
# The CLI speaks to hnowd only through daemon/api: .ci/layers fails a copy of
# the sources in which a file of daemon/cli includes hnowd's core, or in
# which daemon/core includes one of daemon/api's codecs (it fills in the
# plain values and never sees the wire); the copy as it is passes.
#   cli_includes_no_core_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the product folders' sources, outside any git clone: .ci/layers reads the files on disk.
(cd "$src" && find base planner conf transport daemon agent \( -name '*.h' -o -name '*.cc' \) -print0 |
  tar --null -cf - -T -) | tar -xf - -C "$work"

fail() { echo "FAIL: $*"; exit 1; }
bash "$src/.ci/layers" "$work" >/dev/null || fail "the unchanged copy breaks the layering"

# Plants `include` at the end of `file` and expects .ci/layers to name that file.
expect_refused() {
  local file=$1 include=$2
  cp "$work/$file" "$work/$file.kept"
  printf '#include "%s"\n' "$include" >>"$work/$file"
  local out
  if out=$(bash "$src/.ci/layers" "$work"); then fail "$file including $include passed"; fi
  grep -q "^$file:[0-9]*: includes $include" <<<"$out" || fail "the complaint does not name $file: $out"
  mv "$work/$file.kept" "$work/$file"
}
expect_refused daemon/cli/send_command.h core/send/send_operation.h
expect_refused daemon/cli/status_json.cc core/trust/relay_suspects.h
expect_refused daemon/core/send/send_service.h api/send_request_wire.h
echo "ok: .ci/layers refuses core/ in daemon/cli and api's codecs in daemon/core"
