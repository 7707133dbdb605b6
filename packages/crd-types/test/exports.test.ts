/**
 * The package's two entry points: the root (`src/index.ts`, the resource API for users) and `./internal`
 * (`src/internal.ts`, contracts between this repository's components). Both name every export, and the
 * internal contracts stay out of the root.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";
import * as internal from "../src/internal.js";

const source = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../src/${file}`, import.meta.url)), "utf8");

/** At the root only until `@swh/slice-writer` imports them from `./internal` (issue 28). */

describe("the package's entry points", () => {
  it.each(["index.ts", "internal.ts"])("%s names its exports one by one (no export *)", (file) => {
    expect(source(file)).not.toMatch(/^\s*export\s+(type\s+)?\*/m);
  });

  it.each([
    "readPublishedSwh",
    "publishedSpecValue",
    "ANNOTATION_SWH_SPEC",
    "FIELD_MANAGER_CONTROLLER",
    "CONTROLLER_LEADER_LEASE",
    "endpointPublication",
    "ownerReferenceTo",
    "swhReference",
    "describeValue",
  ])("keep the internal %s out of the root, in ./internal", (name) => {
    expect(Object.keys(root)).not.toContain(name);
    expect(Object.keys(internal)).toContain(name);
  });

  it.each([
    "specSchema",
    "serviceWithHealthchecksSchema",
    "LIST_KIND",
    "SHORT_NAME",
    "PRINTER_COLUMNS",
    "RESERVED_SERVICES",
    "MAX_PORTS",
    "DEFAULT_TIMEOUT_SECONDS",
    "describeSpecIssues",
    "formatTime",
  ])("export %s from neither", (name) => {
    expect(Object.keys(root)).not.toContain(name);
    expect(Object.keys(internal)).not.toContain(name);
  });

  it("share no name: an internal is never also at the root", () => {
    const shared = Object.keys(root).filter((name) => name in internal);
    expect(shared).toEqual([]);
  });

  it.each([
    "applyDefaults",
    "validate",
    "crdManifest",
    "serviceWithHealthchecks",
    "objectKey",
    "splitObjectKey",
  ])("offer %s at the root", (name) => {
    expect(Object.keys(root)).toContain(name);
  });
});
