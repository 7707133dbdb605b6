/**
 * Writes deploy/chart/files/crd.yaml from `crdManifest()`. Runs on the built package (`gen:crd`
 * builds first) because Node's type stripping does not map the sources' `.js` imports to `.ts` files.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { crdManifest } from "../dist/index.js";
import { CRD_YAML_PATH, renderCrdYaml } from "./render-crd-yaml.ts";

const target = fileURLToPath(new URL(`../${CRD_YAML_PATH}`, import.meta.url));
writeFileSync(target, renderCrdYaml(crdManifest()));
process.stdout.write(`wrote ${target}\n`);
