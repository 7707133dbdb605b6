#!/usr/bin/env bash
# Builds a release into deploy/dist/ (git-ignored) and changes nothing else in the checkout:
#   packages/swh-<name>-<version>.tgz   every published package (pnpm pack), with LICENSE and its CHANGELOG.md
#   service-with-healthchecks-<version>.tgz   the chart; version and appVersion are the apps' version
#   swh-<app>-<version>.oci.tar         each app's image for amd64 and arm64 as one OCI index (manifest list)
#   images.txt                          "<image> <size in bytes>" per architecture's image (build-images.sh)
#   digests.txt                         with --push: "<pushed reference> <manifest list digest>" per app
#   SHA256SUMS
#
# The release is made from a copy of the working tree (its tracked and untracked, not ignored, files) in a temporary
# directory: there `pnpm run version-packages` turns the pending changesets into versions and CHANGELOG.md files and
# gives the chart the apps' version, then the packages, bundles, images and chart are built from that copy. So the
# artefacts carry the versions and notes the pending changesets give, and the same command run in the checkout and
# committed records that release in git (docs/releasing.md, ADR 0043). The release refuses a version without upgrade
# notes in docs/upgrading.md.
#
# Usage: release.sh [--push REGISTRY_PREFIX]   (push: the manifest lists as REGISTRY_PREFIX/swh-<app>:<version>,
#        the names the chart pulls with global.imageRegistry=REGISTRY_PREFIX; pin <app>.image.digest from digests.txt)
# Needs root (buildah), helm (HELM or deploy/scripts/build-tools.sh), and an installed checkout (pnpm install).
set -euo pipefail

# -P: the checkout itself, also when run through a symlinked deploy/ (the doc tests' shell).
DEPLOY_DIR=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$DEPLOY_DIR/.." && pwd)
OUT="$DEPLOY_DIR/dist"
ARCHS=(amd64 arm64)
REPOSITORY_PREFIX="${SWH_IMAGE_PREFIX:-service-with-healthchecks}"

log() { printf '[release] %s\n' "$*" >&2; }

push=""
if [[ "${1:-}" == "--push" ]]; then
  push=${2:?"--push needs a registry prefix, e.g. registry.example.com/platform"}
  push=${push%/}
fi

HELM="${HELM:-$(bash "$DEPLOY_DIR/scripts/build-tools.sh" helm | tail -1)/helm}"
export HELM
export CONTAINERS_CONF="${CONTAINERS_CONF:-$DEPLOY_DIR/images/containers.conf}"
# Fetched now: inside a network namespace npm and Debian are out of reach (a no-op once cached).
for arch in "${ARCHS[@]}"; do bash "$DEPLOY_DIR/scripts/node-runtime.sh" --fetch "$arch"; done

# --- the copy ----------------------------------------------------------------------------------------------
stage=$(mktemp -d "${TMPDIR:-/tmp}/swh-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT
log "copying the working tree to $stage"
(
  cd "$ROOT"
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    # A tracked file deleted in the working tree is not part of it.
    if [[ -e "$file" || -L "$file" ]]; then printf '%s\0' "$file"; fi
  done | tar --null --files-from=- -cf -
) | tar -xf - -C "$stage"
cd "$stage"
# From the store the checkout was installed from (a shell with another HOME would look for another one).
store=$(sed -n 's/^  "storeDir": "\(.*\)",$/\1/p' "$ROOT/node_modules/.modules.yaml")
pnpm install --frozen-lockfile --prefer-offline --loglevel=error ${store:+--store-dir "$store"} >&2
pnpm run --silent version-packages >&2

version_of() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$stage/apps/$1/package.json"; }
version=$(version_of controller)
log "releasing $version"
if ! grep -q "^## $version\$" docs/upgrading.md; then
  log "docs/upgrading.md has no section \"## $version\": write the upgrade notes of this release first"
  exit 1
fi

# --- packages and bundles -------------------------------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/packages"
mapfile -t published < <(node -e '
  const { readFileSync, readdirSync } = require("node:fs");
  for (const dir of readdirSync("packages")) {
    const pkg = JSON.parse(readFileSync(`packages/${dir}/package.json`, "utf8"));
    if (!pkg.private) console.log(`packages/${dir}`);
  }')
filters=(--filter "@swh/controller..." --filter "@swh/agent...")
for dir in "${published[@]}"; do filters+=(--filter "./$dir"); done
pnpm --recursive "${filters[@]}" run build >&2
for dir in "${published[@]}"; do
  tarball=$(cd "$dir" && pnpm pack --pack-destination "$OUT/packages" | tail -1)
  listing=$(tar -tzf "$tarball")
  for file in LICENSE CHANGELOG.md; do
    grep -qx "package/$file" <<<"$listing" || { log "$tarball has no $file"; exit 1; }
  done
  log "packed ${tarball##*/}"
done

# --- images: one per architecture, joined into one manifest list per app --------------------------------------
arch_flags=()
for arch in "${ARCHS[@]}"; do arch_flags+=(--arch "$arch"); done
bash deploy/scripts/build-images.sh --no-bundle "${arch_flags[@]}" controller agent | tee "$OUT/images.txt" >&2
for app in controller agent; do
  list="localhost/$REPOSITORY_PREFIX/swh-$app:$version"
  # A list or an image of a previous build under the same name.
  if podman manifest exists "$list"; then podman manifest rm "$list" >/dev/null; fi
  if podman image exists "$list"; then podman untag "$list" "$list"; fi
  # podman, not buildah: Debian's buildah 1.28 exits 0 from a `manifest push` to a registry that pushed nothing.
  podman manifest create "$list" >/dev/null
  for arch in "${ARCHS[@]}"; do
    podman manifest add --os linux --arch "$arch" "$list" "containers-storage:$list-$arch" >/dev/null
  done
  podman manifest push --quiet --all --format oci "$list" "oci-archive:$OUT/swh-$app-$version.oci.tar:$version"
  if [[ -n "$push" ]]; then
    reference="$push/swh-$app:$version"
    podman manifest push --quiet --all --format oci --digestfile "$stage/digest" "$list" "docker://$reference"
    [[ -s "$stage/digest" ]] || { log "pushing $reference gave no digest"; exit 1; }
    printf '%s %s\n' "$reference" "$(cat "$stage/digest")" >>"$OUT/digests.txt"
    log "pushed $reference ($(cat "$stage/digest"), ${ARCHS[*]})"
  fi
done

# --- chart ---------------------------------------------------------------------------------------------------------
"$HELM" lint deploy/chart --strict --kube-version 1.35.4 >&2
"$HELM" package deploy/chart --destination "$OUT" >&2

(cd "$OUT" && sha256sum -- *.tgz packages/*.tgz *.oci.tar >SHA256SUMS)
log "release $version in $OUT:"
ls -l "$OUT" >&2
