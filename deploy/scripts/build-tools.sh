#!/usr/bin/env bash
# Builds the operations tools deploy/ needs (helm, promtool) from the Go module proxy into a
# version-keyed cache outside the repository.
# A no-op for every tool already built. One build at a time, niced: the machine is shared.
#
# Usage: build-tools.sh [helm|promtool]...   (default: all)
# Output: prints the bin directory on the last line of stdout; exit status 0 only if every tool exists.
set -euo pipefail

HELM_VERSION="${SWH_HELM_VERSION:-v3.22.0}"
PROMETHEUS_VERSION="${SWH_PROMETHEUS_VERSION:-v0.316.0}"          # promtool of Prometheus 3.x
CACHE_ROOT="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
BIN_DIR="$CACHE_ROOT/tools/bin"

log() { printf '[build-tools] %s\n' "$*" >&2; }

command -v go >/dev/null || { log "go is required to build the tools"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
mkdir -p "$BIN_DIR"
# One build at a time across processes (test files may ask concurrently): wait for the other.
exec 9>"$BIN_DIR/.lock"
flock 9

# build NAME VERSION PACKAGE: `go install PACKAGE@VERSION` into a temp GOBIN, then moved to NAME-VERSION.
build() {
  local name=$1 version=$2 pkg=$3 target="$BIN_DIR/$1-$2"
  if [[ ! -x "$target" ]]; then
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

tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=(helm promtool)
status=0
for tool in "${tools[@]}"; do
  case "$tool" in
    helm) build helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm || status=1 ;;
    promtool) build promtool "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/promtool || status=1 ;;
    *) log "unknown tool: $tool"; exit 2 ;;
  esac
done
echo "$BIN_DIR"
exit "$status"
