import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_DIR, nodeFlags } from "./support/tools.ts";

describe.each(["controller", "agent"])("the %s Dockerfile", (app) => {
  it("starts Node with the app's flags from its package.json, like build-images.sh does", () => {
    const dockerfile = readFileSync(join(DEPLOY_DIR, "images", `${app}.Dockerfile`), "utf8");
    const line = dockerfile.split("\n").find((l) => l.startsWith("ENTRYPOINT "));
    expect(JSON.parse(line?.slice("ENTRYPOINT ".length) ?? "null")).toEqual([
      "/nodejs/bin/node",
      ...nodeFlags(app),
      "/app/main.mjs",
    ]);
  });

  it("builds the bundle on the build machine's platform, so a two-platform buildx build needs no emulation", () => {
    const dockerfile = readFileSync(join(DEPLOY_DIR, "images", `${app}.Dockerfile`), "utf8");
    const stages = dockerfile.split("\n").filter((l) => l.startsWith("FROM "));
    expect(stages).toHaveLength(2);
    // Only the final stage, which runs nothing, is of the target platform.
    expect(stages[0]).toMatch(/^FROM --platform=\$BUILDPLATFORM \S+ AS build$/);
    expect(stages[1]).not.toContain("--platform");
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(finalStage.split("\n").filter((l) => l.startsWith("RUN "))).toEqual([]);
  });
});

it("the agent starts with V8 favouring memory over speed (its RSS budget depends on it)", () => {
  expect(nodeFlags("agent")).toContain("--optimize-for-size");
});
