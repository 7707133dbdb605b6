#!/usr/bin/env bash
# Provides the operations tools deploy/ needs (helm, promtool) in a version-keyed cache outside the
# repository. promtool comes from Debian's `prometheus` package when apt has the pinned version (seconds: it
# is downloaded, its signature checked by apt, and only promtool is extracted — no Prometheus server is
# installed); otherwise, like helm (Debian has no helm package), it is built from the Go module proxy (minutes).
# A no-op for every tool already present. One build at a time, niced: the machine is shared (ADR 0031).
#
# Usage: build-tools.sh [helm|promtool]...   (default: all)
#        SWH_PROMTOOL_FROM=source build-tools.sh promtool   skips the Debian package
# Output: prints the bin directory on the last line of stdout; exit status 0 only if every tool exists.
set -euo pipefail

HELM_VERSION="${SWH_HELM_VERSION:-v3.22.0}"
PROMETHEUS_VERSION="${SWH_PROMETHEUS_VERSION:-v0.316.0}"          # promtool of Prometheus 3.x, source build
# Debian 12's package (promtool of Prometheus 2.42.0): `check rules` and `test rules` of deploy/ pass with it.
PROMETHEUS_DEB_VERSION="${SWH_PROMETHEUS_DEB_VERSION:-2.42.0+ds-5+deb12u1}"
PROMTOOL_FROM="${SWH_PROMTOOL_FROM:-debian}"
CACHE_ROOT="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
BIN_DIR="$CACHE_ROOT/tools/bin"

log() { printf '[build-tools] %s\n' "$*" >&2; }

export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
mkdir -p "$BIN_DIR"
# One build at a time across processes (test files may ask concurrently): wait for the other.
exec 9>"$BIN_DIR/.lock"
flock 9

# build NAME VERSION PACKAGE: `go install PACKAGE@VERSION` into a temp GOBIN, then moved to NAME-VERSION.
build() {
  local name=$1 version=$2 pkg=$3 target="$BIN_DIR/$1-$2"
  if [[ ! -x "$target" ]]; then
    command -v go >/dev/null || { log "go is required to build $name"; return 1; }
    local gobin start
    gobin=$(mktemp -d "${TMPDIR:-/tmp}/swh-tool.XXXXXX")
    start=$(date +%s)
    log "building $name $version from $pkg"
    if ! GOBIN="$gobin" nice -n 10 go install -trimpath -ldflags "-s -w" "$pkg@$version" >&2; then
      rm -rf "$gobin"
      log "could not build $name $version"
      return 1
    fi
    mv "$gobin/$(basename "$pkg")" "$target"
    rm -rf "$gobin"
    log "built $name in $(($(date +%s) - start)) s"
  fi
  ln -sf "$name-$version" "$BIN_DIR/$name"
}

# apt_offers PACKAGE VERSION: true when apt's package lists hold exactly that version.
apt_offers() {
  apt-cache madison "$1" 2>/dev/null | awk -F' [|] ' -v v="$2" '$2 == v { found = 1 } END { exit !found }'
}

# from_debian NAME PACKAGE VERSION: NAME from the Debian package PACKAGE=VERSION, moved to NAME-deb-VERSION;
# fails (for the caller to fall back) when apt does not offer that exact version or the binary reports another.
from_debian() {
  local name=$1 package=$2 version=$3 target="$BIN_DIR/$1-deb-$3"
  if [[ ! -x "$target" ]]; then
    command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || return 1
    # Only a version apt knows: never whatever the mirror holds today. A fresh machine often has no package
    # lists yet: as root, fetch them once (as the other apt-based install scripts do) before giving up.
    if ! apt_offers "$package" "$version"; then
      [[ "$(id -u)" == 0 ]] && apt-get update -qq >&2 || true
      apt_offers "$package" "$version" || { log "apt has no $package=$version"; return 1; }
    fi
    local dir start
    dir=$(mktemp -d "${TMPDIR:-/tmp}/swh-tool.XXXXXX")
    start=$(date +%s)
    log "taking $name from Debian's $package $version"
    # apt checks the package against the signed index; dpkg-deb -x extracts without installing anything.
    local as_root=()
    # As root apt downloads as its _apt user, who cannot write to our private temp dir; it would warn and
    # download as root anyway: say so up front.
    [[ "$(id -u)" == 0 ]] && as_root=(-o APT::Sandbox::User=root)
    if ! (cd "$dir" && apt-get download -qq "${as_root[@]}" "$package=$version" >&2) ||
      ! dpkg-deb -x "$dir/${package}_"*.deb "$dir/root" ||
      [[ ! -x "$dir/root/usr/bin/$name" ]]; then
      rm -rf "$dir"
      log "could not take $name from $package $version"
      return 1
    fi
    local upstream=${version%%+*}
    if ! "$dir/root/usr/bin/$name" --version 2>&1 | head -1 | grep -q "version $upstream"; then
      log "$name of $package $version does not report version $upstream"
      rm -rf "$dir"
      return 1
    fi
    mv "$dir/root/usr/bin/$name" "$target"
    rm -rf "$dir"
    log "took $name from Debian in $(($(date +%s) - start)) s"
  fi
  ln -sf "$name-deb-$version" "$BIN_DIR/$name"
}

provide_promtool() {
  if [[ "$PROMTOOL_FROM" == debian ]] && from_debian promtool prometheus "$PROMETHEUS_DEB_VERSION"; then
    return 0
  fi
  build promtool "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/promtool
}

tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=(helm promtool)
status=0
for tool in "${tools[@]}"; do
  case "$tool" in
    helm) build helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm || status=1 ;;
    promtool) provide_promtool || status=1 ;;
    *) log "unknown tool: $tool"; exit 2 ;;
  esac
done
echo "$BIN_DIR"
exit "$status"
