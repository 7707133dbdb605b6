#!/usr/bin/env bash
# Installs what the real node of the test kit runs pods with (startRealNodeCluster, docs/control-plane.md), from
# Debian's packages when missing: containerd (with ctr and runc), the CNI plugins (bridge, host-local, portmap in
# /usr/lib/cni) and busybox-static (the workload and pause images are built from it). kubelet and kube-scheduler
# come from build-binaries.sh. `scripts/run test|demo` call it before entering the network namespace, where no
# package mirror is reachable. A no-op when everything is present.
set -euo pipefail
log() { printf '[install-node-tools] %s\n' "$*" >&2; }
packages=()
command -v containerd >/dev/null && command -v ctr >/dev/null && command -v runc >/dev/null || packages+=(containerd runc)
[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/portmap ]] ||
  packages+=(containernetworking-plugins)
# Static (ldd fails on it): the images hold nothing else. Debian's dynamic busybox package is replaced by it.
[[ -x /bin/busybox ]] && ! ldd /bin/busybox >/dev/null 2>&1 || packages+=(busybox-static)
[[ ${#packages[@]} -gt 0 ]] || exit 0
[[ "$(id -u)" == 0 ]] || { log "the real-node tests need: apt-get install -y ${packages[*]}"; exit 1; }
log "installing ${packages[*]} (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2; }
