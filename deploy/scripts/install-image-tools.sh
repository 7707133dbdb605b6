#!/usr/bin/env bash
# Installs the image tools (buildah, podman, runc) from Debian's packages when one is missing (IMAGES.md).
# `scripts/run test` calls it before the test suites enter their network namespace, where no package
# mirror is reachable; build-images.sh calls it too. A no-op when all three are present.
set -euo pipefail
log() { printf '[install-image-tools] %s\n' "$*" >&2; }
if command -v buildah >/dev/null && command -v podman >/dev/null && [[ -x /usr/sbin/runc ]]; then exit 0; fi
[[ "$(id -u)" == 0 ]] || { log "buildah, podman and runc are required: apt-get install -y buildah podman runc"; exit 1; }
log "installing buildah podman runc (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah podman runc >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah podman runc >&2; }
