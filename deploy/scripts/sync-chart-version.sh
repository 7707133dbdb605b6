#!/usr/bin/env bash
# Sets the chart's version and appVersion to the apps' version and re-renders the plain manifests, which carry it:
# the step after `changeset version` in `pnpm run version-packages`. The controller and the agent are released
# together (one "fixed" group in .changeset/config.json), so their versions must be equal; checked here.
#
# Usage: sync-chart-version.sh   (changes deploy/chart/Chart.yaml and deploy/manifests/ of the tree it is in)
set -euo pipefail

DEPLOY_DIR=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$DEPLOY_DIR/.." && pwd)

version_of() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/apps/$1/package.json"; }
controller_version=$(version_of controller)
agent_version=$(version_of agent)
if [[ -z "$controller_version" || "$controller_version" != "$agent_version" ]]; then
  echo "sync-chart-version.sh: apps/controller ($controller_version) and apps/agent ($agent_version) must have the same version" >&2
  exit 1
fi
sed -i "s/^version: .*/version: $controller_version/; s/^appVersion: .*/appVersion: \"$controller_version\"/" \
  "$DEPLOY_DIR/chart/Chart.yaml"
bash "$DEPLOY_DIR/scripts/render-manifests.sh"
