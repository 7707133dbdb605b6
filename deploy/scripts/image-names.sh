#!/usr/bin/env bash
# Prints the image references of a release, one per line (controller, then agent): <prefix>/swh-<app>:<version>,
# the names `release.sh --push <prefix>` pushes and the chart pulls with global.imageRegistry=<prefix>
# (docs/install.md). The one place that spells an image name from a prefix and the apps' versions.
#
# Usage: image-names.sh [REGISTRY_PREFIX]   (default: localhost/service-with-healthchecks, the local build)
set -euo pipefail

ROOT=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${1:-localhost/service-with-healthchecks}
prefix=${prefix%/}

for app in controller agent; do
  version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/apps/$app/package.json")
  [[ -n "$version" ]] || { echo "image-names.sh: no version in apps/$app/package.json" >&2; exit 1; }
  printf '%s/swh-%s:%s\n' "$prefix" "$app" "$version"
done
