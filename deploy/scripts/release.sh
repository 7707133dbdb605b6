#!/usr/bin/env bash
# Builds a release: the apps' bundles, both images (buildah, from scratch), the chart package, and
# OCI archives of the images, into deploy/dist/ (git-ignored), with SHA256SUMS.
#
# Versions come from the apps' package.json (bumped by `pnpm changeset version`); the controller and
# the agent are released together, so their versions must be equal. The chart's version and
# appVersion are set to that version and the plain manifests re-rendered, so commit deploy/ afterwards
# when they changed.
#
# Usage: release.sh [--push REGISTRY_PREFIX]   (push tags the images as REGISTRY_PREFIX/swh-<app>:<version>, the
#        names scripts/image-names.sh prints and the chart pulls with image.repositoryPrefix=REGISTRY_PREFIX)
set -euo pipefail

# -P: the checkout itself, also when run through a symlinked deploy/ (the doc tests' shell).
DEPLOY_DIR=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$DEPLOY_DIR/.." && pwd)
OUT="$DEPLOY_DIR/dist"

log() { printf '[release] %s\n' "$*" >&2; }

push=""
if [[ "${1:-}" == "--push" ]]; then
  push=${2:?"--push needs a registry prefix, e.g. registry.example.com/platform"}
fi

version_of() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/apps/$1/package.json"; }
controller_version=$(version_of controller)
agent_version=$(version_of agent)
if [[ -z "$controller_version" || "$controller_version" != "$agent_version" ]]; then
  log "apps/controller ($controller_version) and apps/agent ($agent_version) must have the same version"
  exit 1
fi
version=$controller_version
log "releasing $version"

# Chart version = app version; re-render the manifests so they carry it too.
sed -i "s/^version: .*/version: $version/; s/^appVersion: .*/appVersion: \"$version\"/" "$DEPLOY_DIR/chart/Chart.yaml"
bash "$DEPLOY_DIR/scripts/render-manifests.sh"

rm -rf "$OUT"
mkdir -p "$OUT"
bash "$DEPLOY_DIR/scripts/build-images.sh" controller agent | tee "$OUT/images.txt" >&2

HELM="${HELM:-$(bash "$DEPLOY_DIR/scripts/build-tools.sh" helm | tail -1)/helm}"
"$HELM" lint "$DEPLOY_DIR/chart" --strict --kube-version 1.35.4 >&2
"$HELM" package "$DEPLOY_DIR/chart" --destination "$OUT" >&2

export CONTAINERS_CONF="${CONTAINERS_CONF:-$DEPLOY_DIR/images/containers.conf}"
mapfile -t local_images < <(bash "$DEPLOY_DIR/scripts/image-names.sh")
pushed_images=()
if [[ -n "$push" ]]; then mapfile -t pushed_images < <(bash "$DEPLOY_DIR/scripts/image-names.sh" "$push"); fi
for i in "${!local_images[@]}"; do
  image=${local_images[$i]}
  archive=${image##*/}
  podman save --quiet --format oci-archive -o "$OUT/${archive/:/-}.oci.tar" "$image"
  if [[ -n "$push" ]]; then
    podman tag "$image" "${pushed_images[$i]}"
    podman push "${pushed_images[$i]}"
    log "pushed ${pushed_images[$i]}"
  fi
done

(cd "$OUT" && sha256sum -- *.tgz *.oci.tar >SHA256SUMS)
log "release $version in $OUT:"
ls -l "$OUT" >&2
