import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CRD_YAML_PATH, renderCrdYaml } from "../scripts/render-crd-yaml.js";
import { crdManifest } from "../src/index.js";

type Json = Record<string, unknown>;

describe("crdManifest", () => {
  it("matches deploy/chart/files/crd.yaml (run `pnpm --filter @swh/crd-types gen:crd` after changing the schema)", () => {
    const onDisk = readFileSync(fileURLToPath(new URL(`../${CRD_YAML_PATH}`, import.meta.url)), "utf8");
    expect(onDisk).toBe(renderCrdYaml(crdManifest()));
  });

  it("names the resource like the original module, with a status subresource and printer columns", () => {
    const crd = crdManifest() as Json;
    const spec = crd.spec as Json;
    expect(spec.group).toBe("network.deckhouse.io");
    expect(spec.scope).toBe("Namespaced");
    expect(spec.names).toEqual({
      kind: "ServiceWithHealthchecks",
      listKind: "ServiceWithHealthchecksList",
      plural: "servicewithhealthchecks",
      singular: "servicewithhealthcheck",
      shortNames: ["swh"],
      categories: ["all", "networking"],
    });
    const [version] = spec.versions as Json[];
    expect(version).toMatchObject({
      name: "v1alpha1",
      served: true,
      storage: true,
      subresources: { status: {} },
    });
    const columns = (version?.additionalPrinterColumns as { name: string }[] | undefined)?.map((c) => c.name);
    expect(columns).toEqual(["Type", "Cluster-IP", "External-IP", "Ports", "Ready", "Age"]);
  });

  it("emits CEL rules without their TypeScript twins", () => {
    const text = JSON.stringify(crdManifest());
    expect(text).toContain("x-kubernetes-validations");
    expect(text).not.toContain('"check"');
  });

  it("returns a fresh object each time", () => {
    const a = crdManifest();
    (a.spec as Json).group = "changed";
    expect((crdManifest().spec as Json).group).toBe("network.deckhouse.io");
  });
});
