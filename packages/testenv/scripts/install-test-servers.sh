#!/usr/bin/env bash
# Installs the real servers probe tests run against that Node cannot provide itself, from Debian's packages when
# missing: redis-server (TCP send/expect checks, ADR 0036). `scripts/run test` calls it before entering the network
# namespace, where no package mirror is reachable. A no-op when everything is present.
set -euo pipefail
log() { printf '[install-test-servers] %s\n' "$*" >&2; }
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  exit 0
fi
[[ "$(id -u)" == 0 ]] || { log "the probe tests need Redis: apt-get install -y redis-server"; exit 1; }
log "installing redis-server (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >&2; }
