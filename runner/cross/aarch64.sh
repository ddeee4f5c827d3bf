#!/bin/sh
# The runner for 64-bit Arm Linux, built with Debian's cross compiler against the aarch64
# ai-edge-litert wheel's libLiteRt.so, and run under qemu-user.
#
#   runner/cross/aarch64.sh build            # -> runner/build/aarch64/runner
#   runner/cross/aarch64.sh run RUNNER-ARGS  # the built runner under qemu-aarch64
#
# Needs: apt-get install g++-aarch64-linux-gnu qemu-user cmake; a Python with pip (PYTHON,
# default python3) to download the wheel. `run` needs root: XNNPACK's cpuinfo crashes on the
# host's x86 /proc/cpuinfo, so an aarch64 one (cpuinfo-aarch64.txt, a Neoverse N1 pair) is
# bind-mounted over it in a private mount namespace (unshare -m) for the runner alone.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE=$(dirname "$HERE")
OUT=${RUNNER_AARCH64_BUILD:-$SOURCE/build/aarch64}
PYTHON=${PYTHON:-python3}
SYSROOT=/usr/aarch64-linux-gnu

fail() { echo "error: $*" >&2; exit 1; }

litert() {
  lib=$OUT/litert/ai_edge_litert/libLiteRt.so
  [ -f "$lib" ] && return 0
  version=$("$PYTHON" -c \
    "from importlib.metadata import version; print(version('ai-edge-litert'))") ||
    fail "$PYTHON has no ai-edge-litert (set PYTHON=)"
  mkdir -p "$OUT/wheel" "$OUT/litert"
  "$PYTHON" -m pip download -q "ai-edge-litert==$version" --platform manylinux_2_27_aarch64 \
    --python-version 3.11 --only-binary=:all: --no-deps -d "$OUT/wheel" ||
    fail "cannot download the aarch64 ai-edge-litert $version wheel"
  "$PYTHON" -m zipfile -e "$OUT"/wheel/ai_edge_litert-*aarch64.whl "$OUT/litert"
  [ -f "$lib" ] || fail "the aarch64 wheel has no ai_edge_litert/libLiteRt.so"
}

build() {
  command -v aarch64-linux-gnu-g++ >/dev/null ||
    fail "aarch64-linux-gnu-g++ missing (apt-get install g++-aarch64-linux-gnu)"
  litert
  cmake -S "$SOURCE" -B "$OUT/cmake" -DCMAKE_TOOLCHAIN_FILE="$HERE/aarch64-linux-gnu.cmake" \
    -DLITERT_LIB="$OUT/litert/ai_edge_litert/libLiteRt.so" >/dev/null
  cmake --build "$OUT/cmake" -j "$(nproc)" >/dev/null
  cp "$OUT/cmake/runner" "$OUT/runner"
  echo "$OUT/runner"
}

run() {
  command -v qemu-aarch64 >/dev/null || fail "qemu-aarch64 missing (apt-get install qemu-user)"
  [ -x "$OUT/runner" ] || fail "no $OUT/runner: run '$0 build' first"
  [ "$(id -u)" = 0 ] ||
    fail "running under qemu needs root (a private mount namespace for /proc/cpuinfo)"
  exec unshare -m sh -c 'mount --bind "$0" /proc/cpuinfo && exec qemu-aarch64 -L "$@"' \
    "$HERE/cpuinfo-aarch64.txt" "$SYSROOT" "$OUT/runner" "$@"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) fail "usage: $0 build | run RUNNER-ARGS" ;;
esac
