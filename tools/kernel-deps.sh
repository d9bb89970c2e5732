#!/usr/bin/env bash
# Usage: tools/kernel-deps.sh TARGET        (TARGET: host | arm64 | armhf | wasm32 | wasm32-threads
#                                           | sentencepiece-fuzz)
#
# Builds the native libraries EdgeMT links, from Debian's source tarballs, as
# static, position-independent libraries for TARGET, and prints the install
# prefix (lib/*.a, include/*.h) on its last line. The CMake build links them
# from there (cmake/EdgeMTDependencies.cmake); nothing is installed
# system-wide. The libraries end up inside EdgeMT's programs and libedgemt,
# so a device needs no other file.
#
#   XNNPACK 2024-11     the kernels (matrix products, int8/int4)
#   pthreadpool, cpuinfo  what XNNPACK is built against: its thread pool and
#                       the CPU features it picks kernels by
#   SentencePiece       the tokenizer (Debian ships no static library of it)
#   CLD2                language detection (Debian ships only a shared one)
#
# sentencepiece-fuzz: SentencePiece alone, built by clang-14 with the fuzz
# configuration's instrumentation (tests/fuzz/run.sh), so that libFuzzer
# sees coverage in its parser of the model bytes a model file carries.
#
# The versions and SHA-256 are pinned in tools/kernel-sources.pins;
# tools/kernel-sources.sh fetches and verifies the tarballs (or takes them
# from $EDGEMT_KERNEL_SOURCES=DIR, offline).
#
# Cache: $EDGEMT_DEPS_CACHE (default ~/.cache/edgemt/kernel-deps), outside the
# clone: src/ holds the verified tarballs and their MANIFEST, TARGET-KEY/ a
# finished build, KEY a hash of the format below, the versions used, the
# flags and the compilers, so a change to any of them builds anew. A finished
# build is reused by every later configure and CI run on the machine.
set -euo pipefail

# Bump when the way the libraries are built changes (options, layout): the
# cache key includes it, so existing builds are not reused.
format=3
usage() { echo "usage: $0 host|arm64|armhf|wasm32|wasm32-threads|sentencepiece-fuzz" >&2; exit 2; }
[ $# -eq 1 ] || usage
target="$1"
flags="-O2 -fPIC -DNDEBUG"
pic=ON processor="" toolchain_args=() pthreadpool_args=()
# Every target: pthreadpool must fail, not hang, when a thread cannot start.
patches=(pthreadpool:pthreadpool-thread-start.patch)
case "$target" in
  host) cc=gcc cxx=g++
        # A few rows (beam search) through a kernel of their size, not the
        # largest (the patch says why; x86 AVX-512 VNNI gains kernels of 2-5 rows).
        patches+=(xnnpack:xnnpack-small-batch-kernels.patch)
        # Weights read further ahead by the AVX-512 VNNI int8 and int4
        # kernels, for weights beyond the caches (the patch says how much).
        patches+=(xnnpack:xnnpack-weight-prefetch.patch)
        # The int4 kernels of x86 CPUs without AVX2 load their column sums
        # unaligned: aligned, they faulted (the patch says where).
        patches+=(xnnpack:xnnpack-qb4w-unaligned-sums.patch)
        # x86: loops on 32-byte boundaries (functions on 64), so that where
        # a function lands in our binaries does not decide how fast it runs.
        # Without it, XNNPACK's weight packing took 1.6x as long in one link
        # of the same code as in another (its 20-byte inner loop crossed a
        # 64-byte line): tests/bench/ANALYSIS.md, History, issue 26's refactor.
        case "$(uname -m)" in x86_64|i?86) flags="$flags -falign-functions=64 -falign-loops=32" ;; esac ;;
  # The flags of tests/fuzz/run.sh's build (without vptr: its code is built without RTTI).
  sentencepiece-fuzz) cc=clang-14 cxx=clang++-14
        flags="-O1 -fPIC -DNDEBUG -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all" ;;
  arm64) cc=aarch64-linux-gnu-gcc cxx=aarch64-linux-gnu-g++ processor=aarch64 ;;
  # armhf: ARMv7-A with NEON (every 32-bit ARM board XNNPACK targets); the
  # kernels are chosen at run time from what cpuinfo finds.
  armhf) cc=arm-linux-gnueabihf-gcc cxx=arm-linux-gnueabihf-g++ processor=armv7l
         flags="$flags -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard" ;;
  # wasm32: WebAssembly with SIMD128 (every browser since 2021, Node 16+),
  # single-threaded (pthreadpool's Emscripten shim); Emscripten links
  # statically, so no -fPIC. XNNPACK needs a patch to build with CMake.
  wasm32|wasm32-threads) cc=emcc cxx=em++ flags="-O2 -DNDEBUG -msimd128" pic=OFF
          # XNNPACK finds the cpuinfo built here by its path: outside
          # Emscripten's root, so find_library must look there too.
          toolchain_args=(-DCMAKE_TOOLCHAIN_FILE=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
                          -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=BOTH)
          patches+=(xnnpack:xnnpack-wasm.patch)
          # emcc's JavaScript tools need Debian's node-acorn, which a Node.js
          # from elsewhere (NodeSource's) does not look for in /usr/share/nodejs.
          export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
          # wasm32-threads: the same with -pthread (shared memory: every
          # object of the link needs atomics) and pthreadpool's real pool,
          # for cross-origin-isolated pages.
          if [ "$target" = wasm32-threads ]; then
            flags="$flags -pthread"
            patches+=(pthreadpool:pthreadpool-wasm-threads.patch)
            pthreadpool_args=(-DPTHREADPOOL_EMSCRIPTEN_PTHREADS=ON)
          fi ;;
  *) usage ;;
esac
command -v "$cc" >/dev/null || { echo "kernel-deps: $cc not found (tools/install-deps.sh installs it)" >&2; exit 1; }
if [ -n "$processor" ]; then
  toolchain_args=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$processor")
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${EDGEMT_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgemt/kernel-deps}"
log() { echo "kernel-deps: $*" >&2; }

# One run per cache at a time (two configures at once wait for each
# other); the second finds the first one's result.
mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
  log "waiting for another kernel-deps.sh to finish with $cache"
  flock 9
fi

# The verified tarballs (shared by all targets; no network when they are there).
"$here/kernel-sources.sh" "$cache/src" || { log "the source tarballs are missing (see above)"; exit 1; }
declare -A version=() tarball=()
while read -r package _ used file _; do
  version[$package]=$used tarball[$package]=$file
done <"$cache/src/MANIFEST"

key="$( { echo "$format $flags"; cut -d' ' -f1,3,5 "$cache/src/MANIFEST"
          for patch in "${patches[@]}"; do sha256sum <"$here/patches/${patch#*:}"; done  # content, not path
          "$cc" --version | head -n 1; "$cxx" --version | head -n 1; cmake --version | head -n 1; } |
        sha256sum | cut -c1-16)"
prefix="$cache/$target-$key"
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

work="$prefix.partial"
rm -rf "$work"
mkdir -p "$work/src" "$work/build" "$work/include" "$work/lib"
for package in "${!tarball[@]}"; do
  mkdir -p "$work/src/$package"
  tar -xf "$cache/src/${tarball[$package]}" -C "$work/src/$package"
done
# Each tarball holds one directory, except XNNPACK's (its files at the top).
source_dir() {
  local dir="$work/src/$1"
  [ -f "$dir/CMakeLists.txt" ] || dir="$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  echo "$dir"
}
for patch in "${patches[@]}"; do
  log "$target: applying tools/patches/${patch#*:}"
  patch -s -p1 -d "$(source_dir "${patch%%:*}")" <"$here/patches/${patch#*:}" || { log "the patch does not apply"; exit 1; }
done
jobs="${EDGEMT_DEPS_JOBS:-$(nproc)}"

cmake_build() {  # name [cmake options...] [-- build target]
  local name="$1" source
  source="$(source_dir "$1")"
  shift
  local options=() build_target=()
  while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then build_target=(--target "$2"); break; fi
    options+=("$1")
    shift
  done
  log "$target: building $name"
  if ! { cmake -S "$source" -B "$work/build/$name" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
           -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_ASM_FLAGS="$flags" \
           -DCMAKE_POSITION_INDEPENDENT_CODE=$pic -DCMAKE_INSTALL_PREFIX="$work" -DCMAKE_INSTALL_LIBDIR=lib \
           "${toolchain_args[@]}" "${options[@]}" &&
         cmake --build "$work/build/$name" -j "$jobs" "${build_target[@]}" &&
         { [ ${#build_target[@]} -gt 0 ] || cmake --install "$work/build/$name"; }; } >"$work/build/$name.log" 2>&1; then
    tail -n 40 "$work/build/$name.log" >&2
    log "$target: building $name failed (log: $work/build/$name.log)"
    exit 1
  fi
}

libraries=(libsentencepiece.a)
if [ "$target" != sentencepiece-fuzz ]; then
libraries+=(libXNNPACK.a libmicrokernels-prod.a libpthreadpool.a libcpuinfo.a)
cmake_build cpuinfo -DCPUINFO_LIBRARY_TYPE=static -DCPUINFO_RUNTIME_TYPE=static \
  -DCPUINFO_BUILD_TOOLS=OFF -DCPUINFO_BUILD_UNIT_TESTS=OFF -DCPUINFO_BUILD_MOCK_TESTS=OFF \
  -DCPUINFO_BUILD_BENCHMARKS=OFF -DCPUINFO_BUILD_PKG_CONFIG=OFF -DCPUINFO_LOG_LEVEL=error
# fxdiv is header-only (Debian's libfxdiv-dev): a source tree of its own
# that pthreadpool adds as a subdirectory, and that keeps a cross build from
# putting the host's /usr/include on its include path.
fxdiv="$work/src/fxdiv"
mkdir -p "$fxdiv/include"
cp /usr/include/fxdiv.h "$fxdiv/include/"
printf '%s\n' 'add_library(fxdiv INTERFACE)' \
  'target_include_directories(fxdiv INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include")' >"$fxdiv/CMakeLists.txt"
cmake_build pthreadpool -DPTHREADPOOL_LIBRARY_TYPE=static \
  -DPTHREADPOOL_BUILD_TESTS=OFF -DPTHREADPOOL_BUILD_BENCHMARKS=OFF -DFXDIV_SOURCE_DIR="$fxdiv" "${pthreadpool_args[@]}"
cmake_build xnnpack -DXNNPACK_LIBRARY_TYPE=static -DXNNPACK_USE_SYSTEM_LIBS=ON \
  -DXNNPACK_BUILD_TESTS=OFF -DXNNPACK_BUILD_BENCHMARKS=OFF -DXNNPACK_BUILD_ALL_MICROKERNELS=OFF \
  -DXNNPACK_ENABLE_KLEIDIAI=OFF \
  -DCPUINFO_SOURCE_DIR="$work" -DPTHREADPOOL_SOURCE_DIR="$work" -DFXDIV_SOURCE_DIR="$fxdiv" \
  -DFXDIV_HDR="$fxdiv/include/fxdiv.h" -DPython_EXECUTABLE=/usr/bin/python3
fi

# SentencePiece: only the static library (its bundled protobuf-lite inside)
# and its one public header; no tcmalloc, no tools.
cmake_build sentencepiece -DSPM_ENABLE_SHARED=OFF -DSPM_ENABLE_TCMALLOC=OFF -DSPM_BUILD_TEST=OFF \
  -DSPM_USE_BUILTIN_PROTOBUF=ON -- sentencepiece-static
cp "$work/build/sentencepiece/src/libsentencepiece.a" "$work/lib/"
cp "$(source_dir sentencepiece)/src/sentencepiece_processor.h" "$work/include/"

# CLD2: no build system of its own (a shell script of g++ lines); the
# files of its standard library (compile_libs.sh's libcld2.so, the smaller
# of its two tables), compiled here into one archive. Its tables narrow
# ints into chars, which C++11 refuses unless told.
if [ "$target" != sentencepiece-fuzz ]; then
  log "$target: building cld2"
  cld2="$(source_dir cld2)"
  mkdir -p "$work/build/cld2" "$work/include/cld2/public" "$work/include/cld2/internal"
  cld2_sources=(cldutil cldutil_shared compact_lang_det compact_lang_det_hint_code compact_lang_det_impl
                debug fixunicodevalue generated_entities generated_language generated_ulscript
                getonescriptspan lang_script offsetmap scoreonescriptspan tote utf8statetable
                cld_generated_cjk_uni_prop_80 cld2_generated_cjk_compatible cld_generated_cjk_delta_bi_4
                generated_distinct_bi_0 cld2_generated_quadchrome_2 cld2_generated_deltaoctachrome
                cld2_generated_distinctoctachrome cld_generated_score_quad_octa_2)
  pic_flag=""
  [ "$pic" = OFF ] || pic_flag=-fPIC
  if ! printf '%s\n' "${cld2_sources[@]}" |
       xargs -P "$jobs" -I{} "$cxx" $flags $pic_flag -Wno-narrowing -w -c "$cld2/internal/{}.cc" \
         -o "$work/build/cld2/{}.o" >"$work/build/cld2.log" 2>&1; then
    tail -n 40 "$work/build/cld2.log" >&2
    log "$target: building cld2 failed"
    exit 1
  fi
  ar_tool=ar
  case "$target" in wasm32*) ar_tool=emar ;; arm64) ar_tool=aarch64-linux-gnu-ar ;;
                    armhf) ar_tool=arm-linux-gnueabihf-ar ;; esac
  "$ar_tool" rcs "$work/lib/libcld2.a" "$work/build/cld2/"*.o
  cp "$cld2/public/"*.h "$work/include/cld2/public/"
  cp "$cld2/internal/"*.h "$work/include/cld2/internal/"
  libraries+=(libcld2.a)
fi

for lib in "${libraries[@]}"; do
  [ -f "$work/lib/$lib" ] || { log "$target: $lib was not built"; exit 1; }
done
{
  for package in xnnpack pthreadpool cpuinfo sentencepiece cld2; do
    [ "$target" != sentencepiece-fuzz ] || [ "$package" = sentencepiece ] || continue
    echo "$package ${version[$package]}"
  done
  echo "target $target ($("$cc" --version | head -n 1))"
} >"$work/VERSIONS"
rm -rf "$work/src" "$work/build"
touch "$work/.complete"
rm -rf "$prefix"
mv "$work" "$prefix"
log "$target: ready in $prefix"
echo "$prefix"
