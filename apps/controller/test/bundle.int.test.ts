import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("bundle", () => {
  it("runs as a single file and prints its version", () => {
    const out = execFileSync(process.execPath, [
      new URL("../dist/main.mjs", import.meta.url).pathname,
      "--version",
    ]);
    expect(out.toString().trim()).toBe(`swh-controller ${pkg.version}`);
  });
});
