#!/usr/bin/env bash
# Installs what kube-proxy programs the data plane with (iptables/ip6tables and nft) from Debian's packages when
# missing. `scripts/run test|demo` call it before entering the network namespace, where no package mirror is
# reachable. A no-op when both are present.
set -euo pipefail
log() { printf '[install-proxy-tools] %s\n' "$*" >&2; }
if command -v iptables-restore >/dev/null && command -v ip6tables-restore >/dev/null && command -v nft >/dev/null; then
  exit 0
fi
[[ "$(id -u)" == 0 ]] || { log "kube-proxy needs iptables and nftables: apt-get install -y iptables nftables"; exit 1; }
log "installing iptables nftables (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables nftables >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables nftables >&2; }
