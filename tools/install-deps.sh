#!/usr/bin/env bash
# Installs the Debian packages EdgeMT needs to build, test and convert, when
# they are missing (root or sudo only then), and builds the kernel libraries
# for x86-64, arm64 and armhf into the cache (tools/kernel-deps.sh; about
# 13 CPU-minutes the first time, nothing afterwards).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  # fxdiv: a header XNNPACK and pthreadpool are built with (tools/kernel-deps.sh).
  libfxdiv-dev xz-utils
  libflatbuffers-dev flatbuffers-compiler python3-flatbuffers
  libsentencepiece-dev python3-sentencepiece
  doctest-dev valgrind
  # Benchmarks: peak memory of child processes.
  time
  python3-torch python3-numpy python3-tqdm
  # The Python module (python/): pybind11, the headers, pip for its offline install test.
  python3-pybind11 pybind11-dev python3-dev python3-pip python3-setuptools
  # Cross builds (toolchains/): compilers, qemu-user to run the ARM tests.
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
  # Fuzzing (libFuzzer) and a second compiler.
  clang-14 libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# XNNPACK, pthreadpool and cpuinfo, built from Debian's sources for this
# machine and both ARM targets (once; later calls find them in the cache).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for target in host arm64 armhf; do
  "$here/kernel-deps.sh" "$target" >/dev/null
done
