#!/usr/bin/env bash
# Runs a command inside a private network namespace (root: `unshare --net`; otherwise `unshare -rn`).
# Inside, loopback is up and the whole of 10.244.0.0/16 and fd00:10:244::/64 are local addresses,
# so tests can give pods real-looking IPs (EndpointSlice validation rejects loopback addresses) and bind
# servers to them. Nothing leaves the namespace; it disappears with the command.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: scripts/netns.sh COMMAND [ARGS...]" >&2; exit 2; }
if [[ "${SWH_IN_NETNS:-}" == 1 ]]; then exec "$@"; fi
flags=(--net)
[[ "$(id -u)" == 0 ]] || flags=(--user --map-root-user --net)
exec unshare "${flags[@]}" -- bash -c '
  set -e
  ip link set lo up
  ip route add local 10.244.0.0/16 dev lo table local
  sysctl -qw net.ipv6.ip_nonlocal_bind=1 2>/dev/null || true
  ip -6 route add local fd00:10:244::/64 dev lo table local 2>/dev/null || true
  export SWH_IN_NETNS=1
  exec "$@"' swh-netns "$@"
