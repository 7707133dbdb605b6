#!/usr/bin/env bash
# Installs the real servers probe tests run against that Node cannot provide itself, from Debian's packages when
# missing: redis-server (TCP send/expect checks, ADR 0036) and python3-grpcio (a gRPC server on gRPC C-core, whose
# HTTP/2 and HPACK are not nghttp2's, ADR 0046). `scripts/run test` calls it before entering the network namespace,
# where no package mirror is reachable. A no-op when everything is present.
set -euo pipefail
log() { printf '[install-test-servers] %s\n' "$*" >&2; }
missing=()
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
/usr/bin/python3 -c 'import grpc' 2>/dev/null || missing+=(python3-grpcio)
[[ ${#missing[@]} -eq 0 ]] && exit 0
[[ "$(id -u)" == 0 ]] || { log "the probe tests need: apt-get install -y ${missing[*]}"; exit 1; }
log "installing ${missing[*]} (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; }
