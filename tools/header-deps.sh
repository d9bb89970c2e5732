#!/usr/bin/env bash
# Usage: tools/header-deps.sh
#
# The header-only libraries edgemt-serve is built with, from Debian's source
# tarballs (tools/header-sources.pins, fetched and verified by
# tools/kernel-sources.sh), patched (tools/patches/) and unpacked into a
# cache outside the clone; prints the include directory on its last line.
#
#   cpp-httplib 0.11.4   the HTTP server. Debian's libcpp-httplib-dev is the
#                        same code split into a header and a shared library
#                        (with OpenSSL, zlib and brotli); header-only, without
#                        TLS, edgemt-serve needs no library beyond libc's and
#                        links statically. Patched (cpp-httplib-server.patch):
#                        the fix Debian backports (CVE-2023-26130, a header's
#                        line breaks), and answers to half-closed connections
#                        (it asked whether the peer still sends before writing).
#
# Cache: $EDGEMT_DEPS_CACHE (default ~/.cache/edgemt/kernel-deps)/headers-KEY,
# KEY a hash of the tarball and the patch.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${EDGEMT_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgemt/kernel-deps}"
log() { echo "header-deps: $*" >&2; }
mkdir -p "$cache"
exec 9>"$cache/.headers-lock"
flock 9
EDGEMT_KERNEL_PINS="$here/header-sources.pins" "$here/kernel-sources.sh" "$cache/header-src" ||
  { log "the source tarballs are missing (see above)"; exit 1; }
read -r _ _ _ tarball _ < <(grep '^cpp-httplib ' "$cache/header-src/MANIFEST")
patch_file="$here/patches/cpp-httplib-server.patch"
key="$( { sha256sum <"$cache/header-src/$tarball"; sha256sum <"$patch_file"; } | sha256sum | cut -c1-16)"
prefix="$cache/headers-$key"
if [ ! -f "$prefix/.complete" ]; then
  work="$prefix.partial"
  rm -rf "$work"
  mkdir -p "$work/src" "$work/include"
  tar -xf "$cache/header-src/$tarball" -C "$work/src"
  source="$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  patch -s -p1 -d "$source" <"$patch_file" || { log "the patch does not apply"; exit 1; }
  cp "$source/httplib.h" "$source/LICENSE" "$work/include/"
  rm -rf "$work/src"
  touch "$work/.complete"
  rm -rf "$prefix"
  mv "$work" "$prefix"
  log "ready in $prefix"
fi
echo "$prefix/include"
