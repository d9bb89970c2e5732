#!/usr/bin/env bash
# Usage: tools/install-deps.sh [build] [convert] [test]     (default: all three)
#
# Installs the Debian packages EdgeMT needs, when they are missing (root or
# sudo only then):
#   build    the runtime and the CLI for this machine (examples/demo.sh)
#   convert  the converter (converter/edgemt-convert)
#   test     the test suite (tests/run.sh): the Python module, cross
#            compilers and qemu, sanitizers, fuzzing, valgrind
# The native libraries (XNNPACK, pthreadpool, cpuinfo, SentencePiece) are no
# packages: the first CMake configure for a target builds them from Debian's
# source tarballs (tools/kernel-deps.sh), only for that target.
set -euo pipefail
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build convert test)
packages=()
for group in "${groups[@]}"; do
  case "$group" in
    build) packages+=(
      build-essential cmake pkg-config
      # tools/kernel-deps.sh: unpacking and patching the tarballs; fxdiv, a
      # header XNNPACK and pthreadpool are built with; XNNPACK's build runs Python.
      xz-utils patch libfxdiv-dev python3
      # The model file's schema (headers, flatc).
      libflatbuffers-dev flatbuffers-compiler
      # edgemt-serve's JSON (nlohmann-json; its HTTP library comes as a
      # source tarball, tools/header-deps.sh).
      nlohmann-json3-dev) ;;
    convert) packages+=(
      python3-torch python3-numpy python3-flatbuffers python3-sentencepiece python3-tqdm python3-yaml
      flatbuffers-compiler) ;;
    test) packages+=(
      git doctest-dev valgrind
      # Benchmarks: peak memory of child processes; edgemt-serve's load (wrk).
      time wrk
      # The Python module (python/): pybind11, the headers, pip for its offline install test.
      python3-pybind11 pybind11-dev python3-dev python3-pip python3-setuptools
      # Cross builds (toolchains/): compilers, qemu-user to run the ARM tests.
      g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
      # Fuzzing (libFuzzer) and a second compiler.
      clang-14 libclang-rt-14-dev
      # tests/tools/kernel_sources_test.sh signs its own test archive.
      gnupg
      # The WebAssembly build (toolchains/wasm32-emscripten.cmake) and its
      # tests in Node.js and headless Chromium; wabt assembles its relaxed
      # SIMD kernels.
      emscripten wabt nodejs chromium) ;;
    *) echo "usage: $0 [build] [convert] [test]" >&2; exit 2 ;;
  esac
done
# npm (the npm package's test): Debian's own package, unless a Node.js from
# elsewhere (NodeSource's includes npm, and conflicts with Debian's) has it.
if [[ " ${packages[*]} " == *" nodejs "* ]] && ! command -v npm >/dev/null; then packages+=(npm); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
