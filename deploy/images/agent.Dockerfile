# syntax=docker/dockerfile:1
# Image of the service-with-healthchecks agent. Build from the repository root:
#   docker build -f deploy/images/agent.Dockerfile -t service-with-healthchecks/swh-agent:<version> .
# deploy/scripts/build-images.sh produces the same layout without a registry (buildah from scratch).

# --- build: the single-file bundle (esbuild) -------------------------------------------------
# The bundle is plain JavaScript: built on the build machine's platform, so `docker buildx build --platform
# linux/amd64,linux/arm64` runs no build step under emulation; only the final stage is per platform.
FROM --platform=$BUILDPLATFORM docker.io/library/node:24-bookworm-slim AS build
WORKDIR /src
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable
COPY . .
RUN pnpm install --frozen-lockfile --filter "@swh/agent..." && pnpm --filter @swh/agent build

# --- runtime: Node 24 and the bundle, nothing else (no shell, no package manager, no node_modules)
FROM gcr.io/distroless/nodejs24-debian12:nonroot
COPY --from=build /src/apps/agent/dist/main.mjs /app/main.mjs
WORKDIR /app
ENV NODE_ENV=production
# The chart runs every container as 65534:65534 on a read-only root filesystem.
USER 65534:65534
# Node flags: swh.nodeFlags in apps/agent/package.json (V8 favours memory over speed; ADR 0011).
ENTRYPOINT ["/nodejs/bin/node", "--optimize-for-size", "/app/main.mjs"]
