import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { applyDefaults, validate } from "../src/index.js";
import { readmeExample } from "./support/readme-example.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");

describe("README", () => {
  it("prints exactly the YAML the typed example produces, and the example validates", () => {
    const printed = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(printed).toBe(stringify(readmeExample()));
    expect(validate(readmeExample())).toEqual([]);
  });

  it("shows the same code as the tested example", () => {
    const call = (text: string) =>
      /serviceWithHealthchecks\(([\s\S]*?)\n {0,2}\);/.exec(text)?.[1]?.replace(/\s+/g, "");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const source = readFileSync(
      fileURLToPath(new URL("./support/readme-example.ts", import.meta.url)),
      "utf8",
    );
    expect(call(code)).toBeDefined();
    expect(call(code)).toBe(call(source));
  });

  it("states applyDefaults' result as it is", () => {
    expect(applyDefaults({ ports: [{ port: 5432 }] })).toEqual({
      ports: [{ port: 5432, protocol: "TCP" }],
      type: "ClusterIP",
      healthcheck: { initialDelaySeconds: 10, periodSeconds: 10, probes: [] },
    });
  });
});

describe("package", () => {
  it("has no runtime dependencies (in particular no Kubernetes client)", () => {
    const pkg = JSON.parse(
      readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"),
    ) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });
});
