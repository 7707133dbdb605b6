#!/usr/bin/env bash
# Runs an image with podman the way the chart runs the pods: unprivileged user 65534, read-only root
# filesystem, no network, every capability dropped. Settings for this workplace: no default ulimits
# (deploy/images/containers.conf) and runc (crun refuses the hybrid cgroup layout here).
#
# Usage: podman-run.sh IMAGE [ARGS...]        extra podman flags: PODMAN_RUN_FLAGS="--entrypoint x"
set -euo pipefail
DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CONTAINERS_CONF="${CONTAINERS_CONF:-$DEPLOY_DIR/images/containers.conf}"
image=$1
shift
# shellcheck disable=SC2086
exec podman run --rm --runtime /usr/sbin/runc --network "${PODMAN_NETWORK:-none}" --read-only \
  --user 65534:65534 --cap-drop ALL --security-opt no-new-privileges ${PODMAN_RUN_FLAGS:-} "$image" "$@"
