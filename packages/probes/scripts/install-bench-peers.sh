#!/usr/bin/env bash
# Installs the health checkers the probe benchmark compares against (bench/peers.ts) and the server that answers
# them: HAProxy, prometheus-blackbox-exporter and nginx, from Debian's packages, when missing. Run it before
# entering the network namespace, where no package mirror is reachable. A no-op when all three are present.
set -euo pipefail
log() { printf '[install-bench-peers] %s\n' "$*" >&2; }
packages=(haproxy prometheus-blackbox-exporter nginx)
have() { command -v haproxy >/dev/null && command -v prometheus-blackbox-exporter >/dev/null && command -v nginx >/dev/null; }
if have; then exit 0; fi
[[ "$(id -u)" == 0 ]] || { log "the benchmark's peers are missing: apt-get install -y ${packages[*]}"; exit 1; }
log "installing ${packages[*]} (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2; }
# Debian starts the services it installs; the benchmark runs its own instances with its own configuration.
for service in haproxy prometheus-blackbox-exporter nginx; do
  systemctl disable --now "$service" >/dev/null 2>&1 || service "$service" stop >/dev/null 2>&1 || true
done
have || { log "installed, but a command is still missing"; exit 1; }
