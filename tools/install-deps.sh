#!/usr/bin/env bash
# Installs the Debian packages EdgeMT needs to build, test and convert, when
# they are missing. Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libflatbuffers-dev flatbuffers-compiler python3-flatbuffers
  libsentencepiece-dev python3-sentencepiece
  doctest-dev valgrind
  # Benchmarks: peak memory of child processes.
  time
  python3-torch python3-numpy python3-tqdm
  # Cross builds (toolchains/): compilers, qemu-user to run the ARM tests.
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
  # Fuzzing (libFuzzer) and a second compiler.
  clang-14 libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
