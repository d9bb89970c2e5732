#!/usr/bin/env bash
# Usage: toolchains/make-sysroot.sh ARCH DIR        (ARCH: arm64 | armhf)
#
# Builds a sysroot for cross-compiling EdgeMT in DIR: Debian's ARCH builds of
# its Debian-packaged dependencies (SentencePiece with its runtime dependency
# closure, plus the FlatBuffers and doctest headers; XNNPACK, pthreadpool and
# cpuinfo are built from source by tools/kernel-deps.sh),
# fetched with `apt-get download` and unpacked with `dpkg -x`. Nothing is
# installed on the host: apt runs with a private state directory and
# APT::Architecture=ARCH, reading the host's own sources list (or the one in
# $EDGEMT_APT_SOURCES, e.g. on a host whose archive has no ARCH packages).
# No root needed.
#
# libc, libstdc++, libgcc_s (and the other runtime libraries of the cross
# compiler) are not downloaded: the sysroot links to the cross compiler's own
# (/usr/<triplet>/lib), which are the ones the binaries are linked against,
# so that `qemu-<arch> -L DIR program` runs a program with exactly those.
#
# Idempotent: does nothing when DIR holds a complete sysroot of this format
# (the stamp DIR/.edgemt-sysroot); otherwise builds it in DIR.partial and
# renames it to DIR at the end.
set -euo pipefail

# Bump when the package list or the layout changes: the toolchain files then
# rebuild existing sysroots.
format=2

usage() { echo "usage: $0 arm64|armhf DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
case "$1" in
  arm64 | aarch64) arch=arm64 triplet=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
  armhf | arm) arch=armhf triplet=arm-linux-gnueabihf loader=ld-linux-armhf.so.3 ;;
  *) usage ;;
esac
dir="$(realpath -m "$2")"
stamp="$dir/.edgemt-sysroot"
if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "edgemt-sysroot $format $arch" ]; then
  echo "sysroot $dir ($arch) is up to date"
  exit 0
fi

# Shared libraries needed at run time (with their Depends closure) and
# development packages (headers, .so links) taken without their Depends.
runtime_packages=(libsentencepiece0)
dev_packages=(libsentencepiece-dev
              libflatbuffers-dev doctest-dev)
# Provided by the cross compiler's runtime (/usr/<triplet>/lib): not fetched.
toolchain_packages=" libc6 libgcc-s1 libstdc++6 gcc-12-base libatomic1 libgomp1 libasan8 libubsan1 "

toolchain_lib="/usr/$triplet/lib"
[ -e "$toolchain_lib/$loader" ] || {
  echo "error: $toolchain_lib/$loader not found: install g++-$triplet (tools/install-deps.sh)" >&2
  exit 1
}

work="$dir.partial"
rm -rf "$work"
apt_dir="$work/.apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/prefs.d" "$apt_dir/debs"
: >"$apt_dir/status"
apt_opts=(
  -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
  -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::archives=$apt_dir/archives"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$apt_dir/prefs.d"
  -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)"
  -o "Debug::NoLocking=1"
)
if [ -n "${EDGEMT_APT_SOURCES:-}" ]; then
  mkdir -p "$apt_dir/sources.d"
  apt_opts+=(-o "Dir::Etc::SourceList=$(realpath "$EDGEMT_APT_SOURCES")"
             -o "Dir::Etc::SourceParts=$apt_dir/sources.d")
fi

echo "make-sysroot: reading the $arch package lists (private apt state in $apt_dir)"
# A mirror in the middle of a sync can fail one index: retry, then go on with
# what was read as long as every package is found (checked below).
for try in 1 2 3; do
  if apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1; then
    break
  fi
  if [ "$try" -eq 3 ]; then
    grep -E '^(E|W):' "$apt_dir/update.log" >&2 || cat "$apt_dir/update.log" >&2
    echo "make-sysroot: warning: apt-get update for $arch reported errors, going on with the lists it read" >&2
  else
    sleep $((try * 5))
  fi
done
for p in "${runtime_packages[@]}" "${dev_packages[@]}"; do
  apt-cache "${apt_opts[@]}" show "$p" >/dev/null 2>&1 || {
    echo "error: no $arch package $p in the package lists (see $apt_dir/update.log)" >&2
    exit 1
  }
done

# Depends/Pre-Depends closure of the runtime packages, stopping at the
# packages the cross toolchain provides.
declare -A seen=()
queue=("${runtime_packages[@]}")
closure=()
while [ ${#queue[@]} -gt 0 ]; do
  p="${queue[0]}"
  queue=("${queue[@]:1}")
  [ -z "${seen[$p]:-}" ] || continue
  seen[$p]=1
  case "$toolchain_packages" in *" $p "*) continue ;; esac
  closure+=("$p")
  while read -r dep; do
    queue+=("$dep")
  done < <(apt-cache "${apt_opts[@]}" depends --important "$p" |
             sed -n -E 's/^ *\|?(Pre)?Depends: ([^<][^ ]*)$/\2/p' | sed 's/:.*//')
done

packages=("${closure[@]}" "${dev_packages[@]}")
echo "make-sysroot: downloading ${packages[*]}"
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "${packages[@]}" >"$apt_dir/download.log" 2>&1) || {
  cat "$apt_dir/download.log" >&2
  echo "error: apt-get download failed" >&2
  exit 1
}

for deb in "$apt_dir"/debs/*.deb; do
  dpkg -x "$deb" "$work"
done

# Absolute symlinks inside the packages point into the sysroot, not the host.
while IFS= read -r -d '' link; do
  target="$(readlink "$link")"
  case "$target" in /*) ln -sfnr "$work$target" "$link" ;; esac
done < <(find "$work" -path "$apt_dir" -prune -o -type l -print0)

# The cross compiler's runtime: the dynamic loader where the binaries look
# for it (/lib/<loader>) and the libraries in the loader's default path.
mkdir -p "$work/lib/$triplet"
ln -sfn "$toolchain_lib/$loader" "$work/lib/$loader"
for f in "$toolchain_lib"/*.so.*; do
  [ -e "$work/lib/$triplet/$(basename "$f")" ] || ln -s "$f" "$work/lib/$triplet/"
done

{
  echo "edgemt-sysroot $format $arch"
  for deb in "$apt_dir"/debs/*.deb; do
    dpkg-deb --show --showformat='${Package} ${Version} ${Architecture}\n' "$deb"
  done
} >"$work/.edgemt-sysroot.tmp"
rm -rf "$apt_dir"
mv "$work/.edgemt-sysroot.tmp" "$work/.edgemt-sysroot"
rm -rf "$dir"
mv "$work" "$dir"
echo "make-sysroot: $arch sysroot ready in $dir"
