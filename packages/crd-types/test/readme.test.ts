import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { applyDefaults, POSTGRES_CREDENTIALS_KEYS, POSTGRES_TLS_MODES, validate } from "../src/index.js";
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

describe("README's credentials Secret", () => {
  const section = /## PostgreSQL credentials Secret\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
  const rows = [...section.matchAll(/^\| `(\w+)` +\|.*$/gm)];

  it("lists exactly the Secret's keys", () => {
    expect(rows.map((r) => r[1]).sort()).toEqual(Object.values(POSTGRES_CREDENTIALS_KEYS).sort());
  });

  it("names every tlsMode", () => {
    const tlsMode = rows.find((r) => r[1] === "tlsMode")?.[0] ?? "";
    for (const mode of POSTGRES_TLS_MODES) expect(tlsMode).toContain(`\`${mode}\``);
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
