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
});

it("the agent starts with V8 favouring memory over speed (its RSS budget depends on it)", () => {
  expect(nodeFlags("agent")).toContain("--optimize-for-size");
});
