#!/usr/bin/env bash
# Installs the image tools (buildah, podman, runc) from Debian's packages when one is missing (IMAGES.md).
# `scripts/run test` calls it before the test suites enter their network namespace, where no package
# mirror is reachable; build-images.sh calls it too. A no-op when all are present.
#
# Usage: install-image-tools.sh [--registry]
#   --registry  also Debian's docker-registry (the Distribution registry), which the release test pushes to
#               (deploy/test/images.int.test.ts starts its own instance). The package's system service is
#               stopped and disabled right after installing it: nothing listens on the machine's port 5000.
set -euo pipefail
log() { printf '[install-image-tools] %s\n' "$*" >&2; }

packages=()
command -v buildah >/dev/null || packages+=(buildah)
command -v podman >/dev/null || packages+=(podman)
[[ -x /usr/sbin/runc ]] || packages+=(runc)
registry=0
if [[ "${1:-}" == "--registry" ]] && ! command -v docker-registry >/dev/null; then
  registry=1
  packages+=(docker-registry)
fi
[[ ${#packages[@]} -gt 0 ]] || exit 0
[[ "$(id -u)" == 0 ]] || { log "missing, as root: apt-get install -y ${packages[*]}"; exit 1; }

log "installing ${packages[*]} (apt-get)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2 ||
  { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2; }

if [[ $registry -eq 1 ]]; then
  # The package starts a registry on :5000 for the whole machine; the tests want none of it.
  if [[ -d /run/systemd/system ]]; then
    systemctl disable --now docker-registry.service >&2
  else
    update-rc.d docker-registry disable >&2 || true
    invoke-rc.d docker-registry stop >&2 || true
  fi
fi
