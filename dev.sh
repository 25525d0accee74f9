#!/usr/bin/env bash
# hnow's set-up on a fresh Debian 12 machine: installs what is missing,
# builds, then runs the demo or the tests.
#   ./dev.sh demo    install, build, run `hnow demo` (a local lab, a 64 MiB file)
#   ./dev.sh test    install, build, run the whole test suite
#   ./dev.sh build   install and build only
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake ninja-build g++ pkg-config libuv1-dev capnproto libcapnp-dev libssl-dev
  libtomlplusplus-dev doctest-dev libsodium-dev libxxhash-dev libcli11-dev libspdlog-dev
  nlohmann-json3-dev libsqlite3-dev libsystemd-dev
  jq iproute2)  # the namespace tests (tests/netns/) and bench scripts
BUILD_DIR=${HNOW_BUILD_DIR:-build}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)"
}

case "${1:-}" in
  demo)
    install_missing
    build
    # hnow's main job: a file onto every PC of a local emulated lab, along the
    # planned tree and along the baselines. 64 MiB takes about a minute on 2
    # cores (hnow demo alone sends 256 MiB).
    "$BUILD_DIR"/daemon/hnow demo --size $((64 << 20)) --gantt "$BUILD_DIR"/demo.svg
    ;;
  test)
    install_missing
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
    ;;
  build)
    install_missing
    build
    ;;
  *)
    echo "usage: ./dev.sh demo | test | build" >&2
    exit 2
    ;;
esac
