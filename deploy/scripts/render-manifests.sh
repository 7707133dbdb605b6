#!/usr/bin/env bash
# Renders the chart with its default values into the plain manifests of deploy/manifests/ (one file
# per chart template, crd.yaml among them, plus namespace.yaml) and copies the dashboard and the alert rules
# to deploy/dashboards/ and deploy/prometheus/.
#
# Usage: render-manifests.sh           write the files
#        render-manifests.sh --check   fail (exit 1, with a diff) when the committed files differ
# Needs helm: HELM or the one deploy/scripts/build-tools.sh builds.
set -euo pipefail

DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NAMESPACE=swh-system
RELEASE=swh
# Pinned so the output does not depend on the helm build's compiled-in default version.
KUBE_VERSION=1.35.4
HELM="${HELM:-$(bash "$DEPLOY_DIR/scripts/build-tools.sh" helm | tail -1)/helm}"

mode=${1:-write}
out=$(mktemp -d "${TMPDIR:-/tmp}/swh-manifests.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/manifests" "$out/dashboards" "$out/prometheus"

"$HELM" template "$RELEASE" "$DEPLOY_DIR/chart" --namespace "$NAMESPACE" --kube-version "$KUBE_VERSION" \
  >"$out/all.yaml"

header() {
  printf '# Rendered from deploy/chart by deploy/scripts/render-manifests.sh — do not edit by hand.\n'
}

# Split helm's output into its documents; each starts with "# Source: <chart>/templates/<file>".
# One output file per template, documents kept in helm's order and separated by "---".
awk -v dir="$out/manifests" '
  function flush() {
    if (file != "" && doc ~ /[^[:space:]]/) {
      if (seen[file]++) print "---" >> file
      printf "%s", doc >> file
    }
    doc = ""; file = ""
  }
  /^---$/ { flush(); next }
  /^# Source: / { n = split($3, parts, "/"); file = dir "/" parts[n]; next }
  { doc = doc $0 "\n" }
  END { flush() }
' "$out/all.yaml"
for f in "$out"/manifests/*.yaml; do
  { header; cat "$f"; } >"$f.tmp"
  mv "$f.tmp" "$f"
done

{
  header
  cat <<NS
apiVersion: v1
kind: Namespace
metadata:
  name: $NAMESPACE
  labels:
    app.kubernetes.io/part-of: service-with-healthchecks
    pod-security.kubernetes.io/enforce: restricted
NS
} >"$out/manifests/namespace.yaml"


# A kustomization over every file, so `kubectl apply --server-side -k` installs them in one step and an overlay
# can point the images at a registry (docs/install.md). kustomize orders the Namespace and the CRD first.
{
  header
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  name: service-with-healthchecks\nresources:\n'
  for f in "$out"/manifests/*.yaml; do printf '  - %s\n' "$(basename "$f")"; done
} >"$out/manifests/kustomization.yaml.tmp"
mv "$out/manifests/kustomization.yaml.tmp" "$out/manifests/kustomization.yaml"

cp "$DEPLOY_DIR/chart/files/dashboard.json" "$out/dashboards/service-with-healthchecks.json"
cp "$DEPLOY_DIR/chart/files/alerts.yaml" "$out/prometheus/alerts.yaml"

if [[ "$mode" == "--check" ]]; then
  status=0
  for sub in manifests dashboards prometheus; do
    diff -ru "$DEPLOY_DIR/$sub" "$out/$sub" || status=1
  done
  [[ $status -eq 0 ]] || echo "deploy/: rendered files are out of date; run deploy/scripts/render-manifests.sh" >&2
  exit $status
fi
for sub in manifests dashboards prometheus; do
  rm -rf "${DEPLOY_DIR:?}/$sub"
  cp -r "$out/$sub" "$DEPLOY_DIR/$sub"
done
echo "rendered into $DEPLOY_DIR/{manifests,dashboards,prometheus}" >&2
