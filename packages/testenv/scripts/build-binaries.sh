#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-proxy and etcd (with --node also kube-scheduler and kubelet,
# for the real node of startRealNodeCluster) from the Go module proxy into a version-keyed cache outside the
# repository. Builds only the binaries that are missing, so it is a no-op when all are there (and adding a binary
# to the list does not rebuild the others).
#
# Usage: build-binaries.sh [--node]
#
# Why from source: no release downloads are reachable here, only the Go module proxy.
# `go install k8s.io/kubernetes/cmd/...` cannot work (staging modules at v0.0.0), so a small
# wrapper module requires k8s.io/kubernetes and replaces every staging module with its
# published v0.<minor>.<patch> tag. The replace list is derived from the real go.mod so a
# wrong list fails loudly instead of silently mixing versions.
#
# Output: prints the bin directory on the last line of stdout.
set -euo pipefail

K8S_VERSION="${SWH_K8S_VERSION:-v1.35.4}"
ETCD_VERSION="${SWH_ETCD_VERSION:-v3.6.6}"
CACHE_ROOT="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
BIN_DIR="$CACHE_ROOT/k8s-$K8S_VERSION-etcd-$ETCD_VERSION/bin"

log() { printf '[build-binaries] %s\n' "$*" >&2; }

K8S_COMMANDS=(kube-apiserver kube-controller-manager kube-proxy)
for arg in "$@"; do
  case "$arg" in
    --node) K8S_COMMANDS+=(kube-scheduler kubelet) ;;
    *) log "unknown argument: $arg"; exit 2 ;;
  esac
done
missing_k8s=()
for cmd in "${K8S_COMMANDS[@]}"; do [[ -x "$BIN_DIR/$cmd" ]] || missing_k8s+=("$cmd"); done
need_etcd=0
[[ -x "$BIN_DIR/etcd" ]] || need_etcd=1
if [[ ${#missing_k8s[@]} -eq 0 && $need_etcd -eq 0 ]]; then
  echo "$BIN_DIR"
  exit 0
fi

command -v go >/dev/null || { log "go is required (Go 1.25+) to build the control plane"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/swh-k8s-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$BIN_DIR.partial"
mkdir -p "$BIN_DIR.partial"

# --- Kubernetes -----------------------------------------------------------------------------
if [[ ${#missing_k8s[@]} -gt 0 ]]; then
minor_patch="${K8S_VERSION#v1.}"           # 35.4
staging_tag="v0.$minor_patch"              # v0.35.4
log "resolving k8s.io/kubernetes@$K8S_VERSION"
gomod=$(cd "$work" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[[ -f "$gomod" ]] || { log "could not download go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod" | sort -u)
[[ ${#staging[@]} -gt 20 ]] || { log "found only ${#staging[@]} staging modules in $gomod"; exit 1; }
goversion=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")

mkdir -p "$work/k8s"
{
  echo "module swh.local/k8sbuild"
  echo
  echo "go ${goversion:-1.25.0}"
  echo
  echo "godebug default=go1.25"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  echo "tool ("
  for cmd in "${K8S_COMMANDS[@]}"; do echo "	k8s.io/kubernetes/cmd/$cmd"; done
  echo ")"
  echo
  echo "replace ("
  for m in "${staging[@]}"; do echo "	$m => $m $staging_tag"; done
  echo ")"
} >"$work/k8s/go.mod"
log "wrapper module with ${#staging[@]} staging replaces; go mod tidy (downloads modules on a cold cache)"
(cd "$work/k8s" && go mod tidy >&2)

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor_patch%%.*}"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
for cmd in "${missing_k8s[@]}"; do
  log "building $cmd $K8S_VERSION"
  (cd "$work/k8s" && go build -trimpath -ldflags "$ldflags" -o "$BIN_DIR.partial/$cmd" "k8s.io/kubernetes/cmd/$cmd" >&2)
  "$BIN_DIR.partial/$cmd" --version >&2
done
fi

# --- etcd -------------------------------------------------------------------------------------
if [[ $need_etcd -eq 1 ]]; then
mkdir -p "$work/etcd"
cat >"$work/etcd/go.mod" <<EOF
module swh.local/etcdbuild

go 1.25.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION

tool go.etcd.io/etcd/server/v3
EOF
log "building etcd $ETCD_VERSION"
(cd "$work/etcd" && go mod tidy >&2 && go build -trimpath -ldflags "-s -w" -o "$BIN_DIR.partial/etcd" go.etcd.io/etcd/server/v3 >&2)
"$BIN_DIR.partial/etcd" --version >&2 | head -1 || true
fi

# Every binary is built before any moves in, so a failed build leaves the cache as it was.
mkdir -p "$BIN_DIR"
mv "$BIN_DIR.partial"/* "$BIN_DIR/"
rmdir "$BIN_DIR.partial"
log "built in $(($(date +%s) - start)) s into $BIN_DIR"
echo "$BIN_DIR"
