import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_DIR, find, helmTemplate } from "./support/tools.ts";

const CRD_NAME = "servicewithhealthchecks.network.deckhouse.io";

function crds(set: string[] = []) {
  return helmTemplate({ set }).filter((o) => o.kind === "CustomResourceDefinition");
}

describe("the chart's CRD (a template, upgraded with the release; ADR 0030)", () => {
  it("renders the generated CRD unchanged, with the release's labels and the keep policy", () => {
    const [crd, ...others] = crds();
    expect(others).toEqual([]);
    const generated = parse(readFileSync(join(CHART_DIR, "files/crd.yaml"), "utf8"));
    expect(crd?.metadata.name).toBe(CRD_NAME);
    expect(crd?.spec).toEqual(generated.spec);
    expect(crd?.metadata.annotations).toEqual({ "helm.sh/resource-policy": "keep" });
    expect(crd?.metadata.labels).toMatchObject({ "app.kubernetes.io/managed-by": "Helm" });
  });

  it("leaves the CRD out with crds.enabled=false (another owner manages it), the rest unchanged", () => {
    expect(crds(["crds.enabled=false"])).toEqual([]);
    find(helmTemplate({ set: ["crds.enabled=false"] }), "Deployment", "swh-controller");
  });

  it("lets helm uninstall delete the CRD only with crds.keep=false", () => {
    expect(crds(["crds.keep=false"])[0]?.metadata.annotations).toBeUndefined();
  });

  it("is not in crds/, which Helm installs once and never upgrades", () => {
    expect(() => readFileSync(join(CHART_DIR, "crds", "servicewithhealthchecks.yaml"))).toThrow(/ENOENT/);
  });
});
