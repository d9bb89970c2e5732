#!/usr/bin/env bash
# Usage: tools/kernel-sources.sh DIR
#
# Puts the verified source tarballs that tools/kernel-deps.sh builds from into
# DIR and writes DIR/MANIFEST, one line a package:
#     PACKAGE PINNED_VERSION VERSION TARBALL SHA256
# (VERSION differs from PINNED_VERSION when the pinned one is no longer served).
# The pins are tools/kernel-sources.pins (or $EDGEMT_KERNEL_PINS).
#
# For each package, the first of these that holds decides:
#  1. DIR already has it (the manifest names it and its SHA-256 matches).
#  2. $EDGEMT_KERNEL_SOURCES=SRC is set: SRC/TARBALL must be the pinned file
#     (SHA-256 checked); nothing is downloaded. For offline and reproducible
#     builds.
#  3. Debian's archive, through a private apt state (deb-src entries derived
#     from this host's apt sources, or the deb822 file $EDGEMT_KERNEL_APT_SOURCES):
#     apt checks the Release signature; the Release's Valid-Until and Date are
#     not checked (a mirror or proxy may serve an older snapshot, and the
#     signature and the SHA-256 below decide what is built).
#     a. The suite's signed index lists the pinned tarball: its SHA-256 there
#        must equal the pin, and the download must match it.
#     b. The pinned version is gone from the suite (it moved on): the version
#        the suite serves now is taken, its tarball checked against the
#        signed index, and one line says so. The manifest records it, and so
#        the kernel-deps cache key changes.
#     c. Nothing usable: fails, saying which file to put where.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pins="${EDGEMT_KERNEL_PINS:-$here/kernel-sources.pins}"
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dest="$1"
mkdir -p "$dest"
manifest="$dest/MANIFEST"

log() { echo "kernel-sources: $*" >&2; }
sha_ok() { [ -f "$2" ] && echo "$1  $2" | sha256sum -c --status; }

declare -a packages=()
declare -A pin_version=() pin_suite=() pin_tarball=() pin_sha=()
while read -r package version suite tarball sha; do
  case "$package" in '' | '#'*) continue ;; esac
  [ -n "$sha" ] || { log "$pins: a line lacks fields: $package"; exit 2; }
  packages+=("$package")
  pin_version[$package]=$version pin_suite[$package]=$suite
  pin_tarball[$package]=$tarball pin_sha[$package]=$sha
done <"$pins"

# 1. What DIR already holds, as its manifest says.
declare -A have=()
if [ -f "$manifest" ]; then
  while read -r package pinned version tarball sha; do
    [ -n "${pin_version[$package]:-}" ] && [ "$pinned" = "${pin_version[$package]}" ] || continue
    sha_ok "$sha" "$dest/$tarball" && have[$package]="$package $pinned $version $tarball $sha"
  done <"$manifest"
fi
missing=()
for package in "${packages[@]}"; do
  [ -n "${have[$package]:-}" ] || missing+=("$package")
done

# What to do by hand when nothing can be fetched.
explain() {
  local package
  log "put these files into a directory and run again with EDGEMT_KERNEL_SOURCES=that-directory:"
  for package in "${missing[@]}"; do
    log "  ${pin_tarball[$package]}  (SHA-256 ${pin_sha[$package]}; Debian source package $package ${pin_version[$package]}, ${pin_suite[$package]})"
  done
}

write_manifest() {
  local package
  for package in "${packages[@]}"; do
    [ -z "${have[$package]:-}" ] || echo "${have[$package]}"
  done >"$manifest.tmp"
  mv "$manifest.tmp" "$manifest"
}

# Records what DIR holds now and exits: 0, or 1 naming the packages given
# (those that could not be had) and what to do about them.
finish() {
  write_manifest
  [ $# -gt 0 ] || exit 0
  missing=("$@")
  explain
  exit 1
}

[ ${#missing[@]} -gt 0 ] || finish

# 2. A directory of tarballs given by the user.
if [ -n "${EDGEMT_KERNEL_SOURCES:-}" ]; then
  bad=()
  for package in "${missing[@]}"; do
    file="$EDGEMT_KERNEL_SOURCES/${pin_tarball[$package]}"
    if sha_ok "${pin_sha[$package]}" "$file"; then
      cp "$file" "$dest/${pin_tarball[$package]}"
      have[$package]="$package ${pin_version[$package]} ${pin_version[$package]} ${pin_tarball[$package]} ${pin_sha[$package]}"
    elif [ -f "$file" ]; then
      log "$file: its SHA-256 is not the pinned one"
      bad+=("$package")
    else
      log "$file: not found"
      bad+=("$package")
    fi
  done
  finish "${bad[@]}"
fi

# 3. Debian's archive.
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/prefs.d" "$state/sources.d" "$state/dl"
: >"$state/status"
suites="$(for package in "${packages[@]}"; do echo "${pin_suite[$package]}"; done | sort -u | tr '\n' ' ')"
if [ -n "${EDGEMT_KERNEL_APT_SOURCES:-}" ]; then
  cp "$EDGEMT_KERNEL_APT_SOURCES" "$state/sources.d/edgemt-src.sources"
else
  # deb-src entries for the pinned suites on the archives the host already uses.
  sources=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    sources+="$(cat "$f")"$'\n\n'
  done
  printf '%s' "$sources" | awk -v suites="$suites" 'BEGIN { RS = ""; ORS = "\n\n" }
      /Types:[^\n]*deb/ && /Suites:[^\n]*(bookworm|trixie|forky|stable|testing|sid|unstable)/ && !/-security/ && !/Enabled: *no/ {
        out = ""
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^#/) continue
          if (lines[i] ~ /^Types:/) lines[i] = "Types: deb-src"
          if (lines[i] ~ /^Suites:/) lines[i] = "Suites: " suites
          out = out lines[i] "\n"
        }
        print out
      }' >"$state/sources.d/edgemt-src.sources"
  # One-line sources.list entries (older hosts) too.
  if [ -f /etc/apt/sources.list ]; then
    for suite in $suites; do
      sed -n -E "s#^deb (\[[^]]*\] )?([a-z]+://[^ ]+/debian/?) (bookworm|trixie|forky|stable|testing|sid|unstable) .*#deb-src \1\2 $suite main#p" \
        /etc/apt/sources.list
    done | sort -u >"$state/sources.d/edgemt-src.list"
  fi
fi
[ -s "$state/sources.d/edgemt-src.sources" ] || [ -s "$state/sources.d/edgemt-src.list" ] || {
  log "no Debian archive found in the host's apt sources"
  finish "${missing[@]}"
}
opts=(
  -o "Dir::State=$state" -o "Dir::State::Lists=$state/lists" -o "Dir::State::status=$state/status"
  -o "Dir::Cache=$state" -o "Dir::Cache::archives=$state/archives"
  -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$state/sources.d"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$state/prefs.d"
  -o "Acquire::Languages=none" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)"
  # Only for this private state: freshness is no part of the tarballs' integrity.
  -o "Acquire::Check-Valid-Until=false" -o "Acquire::Check-Date=false"
)
log "reading the Sources indices of $suites(private apt state)"
for try in 1 2 3; do
  apt-get "${opts[@]}" -q update >"$state/update.log" 2>&1 && ! grep -q '^[WE]:' "$state/update.log" && break
  if [ "$try" -eq 3 ]; then
    grep -E '^(W|E):' "$state/update.log" >&2 || cat "$state/update.log" >&2
    log "apt-get update (deb-src) reported errors; going on with the indices it verified"
    break
  fi
  sleep $((try * 3))
done

# URI, file name and SHA-256 of a source package's upstream tarball, as the
# signed index lists them.
index_tarball() {  # package version
  apt-get "${opts[@]}" -qq source --print-uris "$1=$2" 2>/dev/null |
    sed -n -E "s/^'([^']+)' ($1_[^ ]+\.orig\.tar\.[a-z0-9]+) [0-9]+ SHA256:([0-9a-f]{64})\$/\1 \2 \3/p" | head -n 1
}

fetch() {  # uri tarball sha256
  rm -f "$state/dl/$2"
  /usr/lib/apt/apt-helper "${opts[@]}" download-file "$1" "$state/dl/$2" "SHA256:$3" >"$state/fetch.log" 2>&1 &&
    sha_ok "$3" "$state/dl/$2" && mv "$state/dl/$2" "$dest/$2"
}

failed=()
for package in "${missing[@]}"; do
  pinned="${pin_version[$package]}" tarball="${pin_tarball[$package]}" sha="${pin_sha[$package]}"
  read -r uri listed listed_sha <<<"$(index_tarball "$package" "$pinned")" || true
  if [ -n "${uri:-}" ]; then
    # 3a. The pinned version is served.
    if [ "$listed" != "$tarball" ] || [ "$listed_sha" != "$sha" ]; then
      log "$package $pinned: the signed index lists $listed with SHA-256 $listed_sha, but the pin is $tarball $sha: refused"
      failed+=("$package")
    elif fetch "$uri" "$tarball" "$sha"; then
      have[$package]="$package $pinned $pinned $tarball $sha"
    else
      cat "$state/fetch.log" >&2
      log "$package: $tarball: the download failed or does not match the signed index"
      failed+=("$package")
    fi
    continue
  fi
  # 3b. Gone: the version the pinned suite serves now.
  suite="${pin_suite[$package]}"
  now="$(apt-cache "${opts[@]}" madison "$package" 2>/dev/null |
         awk -F'|' -v s="$suite" '$3 ~ " " s "/[^ ]* Sources" { gsub(/ /, "", $2); print $2; exit }')"
  uri=""
  [ -z "$now" ] || read -r uri listed listed_sha <<<"$(index_tarball "$package" "$now")" || true
  if [ -z "$uri" ]; then
    log "$package: neither $pinned nor any other version is served by $suite"
    failed+=("$package")
  elif fetch "$uri" "$listed" "$listed_sha"; then
    log "$package $pinned is no longer served by $suite: using $now ($listed, SHA-256 $listed_sha from the signed index)"
    have[$package]="$package $pinned $now $listed $listed_sha"
  else
    cat "$state/fetch.log" >&2
    log "$package: $listed: the download failed or does not match the signed index"
    failed+=("$package")
  fi
done
finish "${failed[@]}"
