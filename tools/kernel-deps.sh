#!/usr/bin/env bash
# Usage: tools/kernel-deps.sh TARGET        (TARGET: host | arm64 | armhf)
#
# Builds EdgeMT's kernel libraries, XNNPACK 2024-11 with the pthreadpool and
# cpuinfo it is built against, from Debian's source tarballs, as static,
# position-independent libraries for TARGET, and prints the install prefix
# (lib/*.a, include/*.h) on its last line. The CMake build links them from
# there (cmake/EdgeMTDependencies.cmake); nothing is installed system-wide.
#
#   xnnpack     0.0~git20241108.4ea82e5   Debian 13 (trixie)
#   pthreadpool 0.0~git20240616.560c60d   Debian 13 (trixie)
#   cpuinfo     0.0~git20250905.877328f   Debian unstable (the archive serves
#                                         no trixie tarball of it)
#
# The tarballs come through `apt-get source --download-only` with a private
# apt state whose deb-src list is derived from this host's own sources (the
# archive serves only the .orig.tar.xz files: apt's error about the .dsc is
# expected) and are checked against the SHA-256 of the signed Sources index.
#
# Cache: $EDGEMT_DEPS_CACHE (default ~/.cache/edgemt/kernel-deps), outside the
# clone: src/ holds the verified tarballs, TARGET-KEY/ a finished build, KEY a
# hash of the format below, the versions, the flags and the compilers, so a
# change to any of them builds anew. A finished build is reused by every later configure and CI
# run on the machine. From nothing: about 6 CPU-minutes for host, 4.5 for
# arm64 and 2.5 for armhf.
set -euo pipefail

# Bump when the way the libraries are built changes (options, layout): the
# cache key includes it, so existing builds are not reused.
format=1
xnnpack_version=0.0~git20241108.4ea82e5-2
pthreadpool_version=0.0~git20240616.560c60d-1
cpuinfo_version=0.0~git20250905.877328f-1
# SHA-256 of the upstream tarballs, as the Sources indices list them.
declare -A tarball_sha256=(
  [xnnpack_0.0~git20241108.4ea82e5.orig.tar.xz]=90bde2caef0f880f627bab0dc805a86c4b8070cd98e3243db3046ab3f3be1a99
  [pthreadpool_0.0~git20240616.560c60d.orig.tar.xz]=4cc3cbd933b28131d2a34edc54f76af9fb41bc490af5eae1a5bd3cd07ea90708
  [cpuinfo_0.0~git20250905.877328f.orig.tar.xz]=557ca404a3836b9f335a3a06b65ff9fe9dbaaefab7fb5c0185f53d9f33615a10
)

usage() { echo "usage: $0 host|arm64|armhf" >&2; exit 2; }
[ $# -eq 1 ] || usage
target="$1"
flags="-O2 -fPIC -DNDEBUG"
processor="" toolchain_args=()
case "$target" in
  host) cc=gcc cxx=g++ ;;
  arm64) cc=aarch64-linux-gnu-gcc cxx=aarch64-linux-gnu-g++ processor=aarch64 ;;
  # armhf: ARMv7-A with NEON (every 32-bit ARM board XNNPACK targets); the
  # kernels are chosen at run time from what cpuinfo finds.
  armhf) cc=arm-linux-gnueabihf-gcc cxx=arm-linux-gnueabihf-g++ processor=armv7l
         flags="$flags -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard" ;;
  *) usage ;;
esac
command -v "$cc" >/dev/null || { echo "kernel-deps: $cc not found (tools/install-deps.sh installs it)" >&2; exit 1; }
if [ -n "$processor" ]; then
  toolchain_args=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$processor")
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${EDGEMT_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgemt/kernel-deps}"
key="$( { echo "$format $xnnpack_version $pthreadpool_version $cpuinfo_version $flags"
          "$cc" --version | head -n 1; "$cxx" --version | head -n 1; cmake --version | head -n 1; } |
        sha256sum | cut -c1-16)"
prefix="$cache/$target-$key"
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

log() { echo "kernel-deps: $*" >&2; }

# One build per cache at a time (two configures at once wait for each
# other); the second finds the first one's result.
mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
  log "waiting for another kernel-deps.sh to finish with $cache"
  flock 9
fi
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

# --- The verified tarballs (shared by all targets).
fetch_tarballs() {
  local src="$cache/src" missing=() name
  mkdir -p "$src"
  for name in "${!tarball_sha256[@]}"; do
    if [ -f "$src/$name" ] && echo "${tarball_sha256[$name]}  $src/$name" | sha256sum -c --status; then
      continue
    fi
    missing+=("$name")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  log "downloading the source tarballs (${missing[*]})"
  local state
  state="$(mktemp -d)"
  mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/prefs.d" "$state/sources.d" "$state/dl"
  : >"$state/status"
  # deb-src entries for trixie and unstable on the archives the host already uses.
  local sources="" f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    sources+="$(cat "$f")"$'\n\n'
  done
  printf '%s' "$sources" | awk 'BEGIN { RS = ""; ORS = "\n\n" }
      /Types:[^\n]*deb/ && /Suites:[^\n]*(bookworm|trixie|stable|sid)/ && !/-security/ && !/Enabled: *no/ {
        out = ""
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^#/) continue
          if (lines[i] ~ /^Types:/) lines[i] = "Types: deb-src"
          if (lines[i] ~ /^Suites:/) lines[i] = "Suites: trixie unstable"
          out = out lines[i] "\n"
        }
        print out
      }' >"$state/sources.d/edgemt-src.sources"
  # One-line sources.list entries (older hosts) too.
  if [ -f /etc/apt/sources.list ]; then
    sed -n -E 's#^deb (\[[^]]*\] )?([a-z]+://[^ ]+/debian/?) (bookworm|trixie|stable|sid) .*#deb-src \1\2 trixie main\ndeb-src \1\2 unstable main#p' \
      /etc/apt/sources.list >"$state/sources.d/edgemt-src.list"
  fi
  [ -s "$state/sources.d/edgemt-src.sources" ] || [ -s "$state/sources.d/edgemt-src.list" ] || {
    log "no Debian archive found in the host's apt sources"
    exit 1
  }
  local opts=(
    -o "Dir::State=$state" -o "Dir::State::Lists=$state/lists" -o "Dir::State::status=$state/status"
    -o "Dir::Cache=$state" -o "Dir::Cache::archives=$state/archives"
    -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$state/sources.d"
    -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$state/prefs.d"
    -o "Acquire::Languages=none" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)"
  )
  local try
  for try in 1 2 3; do
    apt-get "${opts[@]}" -q update >"$state/update.log" 2>&1 && break
    [ "$try" -lt 3 ] || { cat "$state/update.log" >&2; log "apt-get update (deb-src) failed"; exit 1; }
    sleep $((try * 5))
  done
  # The .dsc and .debian.tar.xz are not served: apt reports an error after
  # the tarballs arrive, so its status says nothing; the checksums decide.
  (cd "$state/dl" && apt-get "${opts[@]}" -q source --download-only \
      "xnnpack=$xnnpack_version" "pthreadpool=$pthreadpool_version" "cpuinfo=$cpuinfo_version" \
      >"$state/source.log" 2>&1) || true
  for name in "${missing[@]}"; do
    # The index is what apt verified against the archive's signature; the
    # script's own list must agree with it.
    local index
    index="$(apt-cache "${opts[@]}" showsrc "${name%%_*}" 2>/dev/null || true)"
    if ! grep -q "^ ${tarball_sha256[$name]} [0-9]* $name\$" <<<"$index"; then
      log "$name: the signed Sources index does not list it with the expected SHA-256"
      exit 1
    fi
    if [ ! -f "$state/dl/$name" ] ||
       ! echo "${tarball_sha256[$name]}  $state/dl/$name" | sha256sum -c --status; then
      cat "$state/source.log" >&2
      log "$name: download failed or its SHA-256 differs"
      exit 1
    fi
    mv "$state/dl/$name" "$src/$name"
  done
  rm -rf "$state"
}

fetch_tarballs

work="$prefix.partial"
rm -rf "$work"
mkdir -p "$work/src" "$work/build" "$work/include"
for name in "${!tarball_sha256[@]}"; do
  package="${name%%_*}"
  mkdir -p "$work/src/$package"
  tar -xf "$cache/src/$name" -C "$work/src/$package"
done
pthreadpool_src="$(find "$work/src/pthreadpool" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
cpuinfo_src="$(find "$work/src/cpuinfo" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
xnnpack_src="$work/src/xnnpack"
jobs="${EDGEMT_DEPS_JOBS:-$(nproc)}"

cmake_build() {
  local name="$1" source="$2"
  shift 2
  log "$target: building $name"
  if ! { cmake -S "$source" -B "$work/build/$name" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
           -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_ASM_FLAGS="$flags" \
           -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$work" -DCMAKE_INSTALL_LIBDIR=lib \
           "${toolchain_args[@]}" "$@" &&
         cmake --build "$work/build/$name" -j "$jobs" &&
         cmake --install "$work/build/$name"; } >"$work/build/$name.log" 2>&1; then
    tail -n 40 "$work/build/$name.log" >&2
    log "$target: building $name failed (log: $work/build/$name.log)"
    exit 1
  fi
}

cmake_build cpuinfo "$cpuinfo_src" -DCPUINFO_LIBRARY_TYPE=static -DCPUINFO_RUNTIME_TYPE=static \
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
cmake_build pthreadpool "$pthreadpool_src" -DPTHREADPOOL_LIBRARY_TYPE=static \
  -DPTHREADPOOL_BUILD_TESTS=OFF -DPTHREADPOOL_BUILD_BENCHMARKS=OFF -DFXDIV_SOURCE_DIR="$fxdiv"
cmake_build xnnpack "$xnnpack_src" -DXNNPACK_LIBRARY_TYPE=static -DXNNPACK_USE_SYSTEM_LIBS=ON \
  -DXNNPACK_BUILD_TESTS=OFF -DXNNPACK_BUILD_BENCHMARKS=OFF -DXNNPACK_BUILD_ALL_MICROKERNELS=OFF \
  -DXNNPACK_ENABLE_KLEIDIAI=OFF \
  -DCPUINFO_SOURCE_DIR="$work" -DPTHREADPOOL_SOURCE_DIR="$work" -DFXDIV_SOURCE_DIR="$fxdiv" \
  -DFXDIV_HDR="$fxdiv/include/fxdiv.h" -DPython_EXECUTABLE=/usr/bin/python3

for lib in libXNNPACK.a libmicrokernels-prod.a libpthreadpool.a libcpuinfo.a; do
  [ -f "$work/lib/$lib" ] || { log "$target: $lib was not built"; exit 1; }
done
{
  echo "xnnpack $xnnpack_version"
  echo "pthreadpool $pthreadpool_version"
  echo "cpuinfo $cpuinfo_version"
  echo "target $target ($("$cc" --version | head -n 1))"
} >"$work/VERSIONS"
rm -rf "$work/src" "$work/build"
touch "$work/.complete"
rm -rf "$prefix"
mv "$work" "$prefix"
log "$target: ready in $prefix"
echo "$prefix"
