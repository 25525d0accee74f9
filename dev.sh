#!/usr/bin/env bash
# hnow's set-up on a fresh Debian 12 machine: installs what is missing,
# builds, then runs the demo or the tests.
#   ./dev.sh demo    install, build, run `hnow demo` (a local lab, a 64 MiB file)
#   ./dev.sh test    install, build, run the whole test suite
#   ./dev.sh build   install and build only
#   ./dev.sh package install, build, make the Debian packages hnow, hnowd,
#                    hnow-agent (and their -dbgsym) in build/packages
#                    (docs/packages.md)
#   ./dev.sh fuzz [SECONDS]  build the libFuzzer targets with clang and run
#                    each for SECONDS (default 300); docs/fuzzing.md
set -euo pipefail
cd "$(dirname "$0")"

# What building hnow needs; the tests and the fuzz targets need more.
BUILD_PACKAGES=(cmake ninja-build g++ pkg-config libuv1-dev capnproto libcapnp-dev libssl-dev
  libtomlplusplus-dev doctest-dev libsodium-dev libxxhash-dev libcli11-dev libspdlog-dev
  nlohmann-json3-dev libsqlite3-dev libsystemd-dev libzstd-dev)
TEST_PACKAGES=(jq iproute2 iperf3 nftables)  # the namespace tests (tests/netns/: other traffic, firewalls) and bench scripts
TEST_PACKAGES+=(chromium)  # the web view's test in a headless browser (tests/process/web_view_test.cc)
PACKAGE_PACKAGES=(help2man dpkg-dev)  # ./dev.sh package: man pages from --help; dpkg-shlibdeps for Depends
FUZZ_PACKAGES=(clang libclang-rt-14-dev)  # the fuzz targets (fuzz/): clang, libFuzzer, ASan, UBSan
BUILD_DIR=${HNOW_BUILD_DIR:-build}
FUZZ_BUILD_DIR=${HNOW_FUZZ_BUILD_DIR:-build-fuzz}  # ./dev.sh fuzz
FUZZ_TEST_BUILD_DIR=${HNOW_FUZZ_TEST_BUILD_DIR:-build-fuzz-test}  # ./dev.sh test
# Seconds each fuzz target runs in `./dev.sh test` (after its corpus).
FUZZ_TEST_SECONDS=${HNOW_FUZZ_TEST_SECONDS:-5}

# A -dev package at the version of its library already installed, when
# the archive still has it: libsystemd-dev's newest would upgrade the
# host's libsystemd0, and with it systemd itself.
at_installed_version() {
  local dev=$1 lib=$2 version
  version=$(dpkg-query -W -f='${Version}' "$lib" 2>/dev/null) || { echo "$dev"; return; }
  if apt-cache madison "$dev" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$version"; then
    echo "$dev=$version"
  else
    echo "$dev"
  fi
}

# Installs those of the packages named that are missing, saying first
# which they are and what else apt will install or upgrade for them.
install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "dev.sh: ${missing[*]} missing; asking apt for them"
  $sudo apt-get update -qq
  local wanted=()
  for p in "${missing[@]}"; do
    if [ "$p" = libsystemd-dev ]; then wanted+=("$(at_installed_version libsystemd-dev libsystemd0)"); else wanted+=("$p"); fi
  done
  local plan
  plan=$(apt-get -s install -y --no-install-recommends "${wanted[@]}" | awk '/^Inst /{print $2 ($3 ~ /^\[/ ? " (upgraded from " substr($3, 2, length($3) - 2) ")" : "")}') || true
  echo "dev.sh: installing $(echo "$plan" | grep -c .) packages with apt:"
  echo "$plan" | sed 's/^/  /'
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${wanted[@]}"
}

# Every target, or only those named (the demo needs the three binaries).
build() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  if [ $# -gt 0 ]; then cmake --build "$BUILD_DIR" -j "$(nproc)" --target "$@"; else cmake --build "$BUILD_DIR" -j "$(nproc)"; fi
}

# The fuzz targets in $FUZZ_BUILD_DIR: clang, only the libraries they need,
# ASan + UBSan. `./dev.sh test` builds them -O0 -g0 in their own directory
# (a fresh build is about half as long on CI's 2 cores; a failure is then
# reproduced with `./dev.sh fuzz`, -O1 with line numbers).
build_fuzz() {
  local flags=$1
  cmake -S . -B "$FUZZ_BUILD_DIR" -G Ninja -DHNOW_FUZZ=ON -DHNOW_FUZZ_FLAGS="$flags" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  cmake --build "$FUZZ_BUILD_DIR" -j "$(nproc)"
}

fuzz_targets() { sed -n 's/^hnow_fuzz_target(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt; }

# Runs one target on its corpus, then fuzzes for $2 seconds. New inputs go
# to $FUZZ_BUILD_DIR/corpus/<target>, not into the repo; a crash, a leak, a
# sanitizer report or a slow input (> 10 s) fails it, the input kept in
# $FUZZ_BUILD_DIR/crashes/<target>/.
fuzz_one() {
  local target=$1 seconds=$2
  local work="$FUZZ_BUILD_DIR/corpus/$target" crashes="$FUZZ_BUILD_DIR/crashes/$target"
  local log="$FUZZ_BUILD_DIR/fuzz-$target.log"
  mkdir -p "$work" "$crashes"
  if "$FUZZ_BUILD_DIR/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "fuzz/corpus/$target" >"$log" 2>&1; then
    echo "fuzz $target: $(grep -m1 -o 'DONE .*' "$log" || tail -n1 "$log")"
  else
    echo "fuzz $target FAILED (docs/fuzzing.md: reproduce with $FUZZ_BUILD_DIR/fuzz/$target $crashes/<input>):"
    grep -E -A30 '^==[0-9]+==ERROR|runtime error|broken promise|ERROR: libFuzzer' "$log" | head -n 60
    return 1
  fi
}

# Every target, as many at once as there are cores.
run_fuzz() {
  export -f fuzz_one
  export FUZZ_BUILD_DIR
  fuzz_targets | xargs -P "$(nproc)" -I{} bash -c 'fuzz_one "$@"' _ {} "$1"
}

case "${1:-}" in
  demo)
    install_missing "${BUILD_PACKAGES[@]}"
    build hnow hnowd hnow-agent
    # hnow's main job: a file onto every PC of a local emulated lab, along the
    # planned tree and along the baselines. 64 MiB takes about a minute on 2
    # cores (hnow demo alone sends 256 MiB).
    "$BUILD_DIR"/daemon/hnow demo --size $((64 << 20)) --svg "$BUILD_DIR"/demo.svg
    ;;
  test)
    install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${FUZZ_PACKAGES[@]}"
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
    FUZZ_BUILD_DIR=$FUZZ_TEST_BUILD_DIR
    build_fuzz "-O0 -g0"
    run_fuzz "$FUZZ_TEST_SECONDS"
    ;;
  fuzz)
    install_missing "${BUILD_PACKAGES[@]}" "${FUZZ_PACKAGES[@]}"
    build_fuzz "-O1 -gline-tables-only"
    run_fuzz "${2:-300}"
    ;;
  build)
    install_missing "${BUILD_PACKAGES[@]}"
    build
    ;;
  package)
    install_missing "${BUILD_PACKAGES[@]}" "${PACKAGE_PACKAGES[@]}"
    build hnow_packages
    ls -l "$BUILD_DIR"/packages/*.deb "$BUILD_DIR"/packages/*.ddeb
    ;;
  *)
    echo "usage: ./dev.sh demo | test | build | package | fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
