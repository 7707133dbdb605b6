#!/usr/bin/env bash
# Sets up a fresh machine for this repository: Node (24 when the machine's is older than 22.19), pnpm 10,
# and the workspace's dependencies (`pnpm install --frozen-lockfile`). Idempotent and fast when done.
# `eval "$(scripts/bootstrap.sh --print-env)"` puts the same Node and pnpm on your shell's PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/toolchain.sh
source "$root/scripts/toolchain.sh"
swh_ensure_toolchain
if [[ "${1:-}" == "--print-env" ]]; then
  printf 'export PATH=%q\n' "$PATH"
  exit 0
fi
cd "$root"
pnpm install --frozen-lockfile --prefer-offline --reporter=append-only >&2
