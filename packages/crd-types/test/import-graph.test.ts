/**
 * The modules of this package import one another one way only: a cycle (ownership → types → reasons → ownership
 * was one) makes the load order decide which constants are still undefined when a module body runs, and makes
 * the files impossible to read bottom-up. Reads the relative imports and re-exports of every file under src/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

/** The relative modules `source` imports or re-exports (type-only ones too), as paths relative to src/. */
function importsOf(file: string, source: string): string[] {
  const specifiers = [...source.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((s) => relative(SRC, normalize(join(dirname(file), s.replace(/\.js$/, ".ts")))));
}

/** Every module of src/ (tests beside the sources excluded) with the modules it imports. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
  );
  return new Map(files.map((f) => [f, importsOf(join(SRC, f), readFileSync(join(SRC, f), "utf8"))]));
}

/** The first cycle found by depth-first search, as the list of modules around it; undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return undefined;
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe("imports inside @swh/crd-types", () => {
  it("form no cycle", () => {
    expect(findCycle(importGraph())).toBeUndefined();
  });

  it("are all seen by the check (it finds the cycle of a graph that has one)", () => {
    const graph = importGraph();
    expect(graph.get("ownership.ts")).toContain("types.ts");
    expect(graph.get("index.ts")?.length).toBeGreaterThan(10);
    const withCycle = new Map(graph).set("reasons.ts", [...(graph.get("reasons.ts") ?? []), "ownership.ts"]);
    expect(findCycle(withCycle)).toEqual(expect.arrayContaining(["ownership.ts", "reasons.ts"]));
  });
});
