/**
 * docs/troubleshooting.md against the reason constants: every reason has exactly one row in its section (with a
 * meaning and an action), and no row names a reason that no longer exists.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CONDITION_REASONS,
  CONDITION_TYPES,
  DRAINED_REASON,
  EVENT_REASONS,
  PROBE_FAILURE_REASONS,
  PUBLICATION_BLOCKS,
  READINESS_GATE_REASONS,
} from "../src/index.js";
import { documentedReasons, type ReasonRow } from "./support/reason-tables.js";

const doc = readFileSync(fileURLToPath(new URL("../../../docs/troubleshooting.md", import.meta.url)), "utf8");
const sections = documentedReasons(doc);

/** The section whose heading contains all of `needles`; fails naming the heading it looked for. */
function section(...needles: string[]): ReasonRow[] {
  const found = sections.filter((s) => needles.every((n) => s.heading.includes(n)));
  expect(
    found.map((s) => s.heading),
    `one section headed with ${needles.join(" ")}`,
  ).toHaveLength(1);
  return found[0]?.rows ?? [];
}

function reasonsOf(rows: readonly ReasonRow[]): string[] {
  return rows.map((r) => r.reason).sort();
}

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

const CONDITION_SECTIONS = Object.keys(CONDITION_TYPES) as (keyof typeof CONDITION_TYPES)[];

describe("docs/troubleshooting.md", () => {
  it.each(CONDITION_SECTIONS)("lists exactly the reasons of condition %s", (key) => {
    // ChildServiceReady is documented with ServiceReady, whose reasons it mirrors.
    const reasonsKey = key === "childServiceReady" ? "serviceReady" : key;
    const rows = section("Condition", `\`${CONDITION_TYPES[key]}\``);
    expect(reasonsOf(rows)).toEqual(sorted(Object.values(CONDITION_REASONS[reasonsKey])));
  });

  it("lists exactly the Event reasons", () => {
    expect(reasonsOf(section("Events"))).toEqual(sorted(Object.values(EVENT_REASONS)));
  });

  it("lists exactly the probe failure reasons", () => {
    expect(reasonsOf(section("Probe failure reasons"))).toEqual(sorted(PROBE_FAILURE_REASONS));
  });

  it("lists the reason of a drained pod", () => {
    expect(reasonsOf(section("A drained pod"))).toEqual([DRAINED_REASON]);
  });

  it("lists exactly the reasons of a pod's readiness gate besides the probe failure reasons", () => {
    expect(reasonsOf(section("readiness gate"))).toEqual(sorted(Object.values(READINESS_GATE_REASONS)));
  });

  it("lists exactly the reasons an agent withholds endpoints for", () => {
    expect(reasonsOf(section("withholds endpoints"))).toEqual(sorted(PUBLICATION_BLOCKS));
  });

  it("says for every reason what it means and what to do", () => {
    const empty = sections.flatMap((s) =>
      s.rows.filter((r) => r.meaning === "" || r.action === "").map((r) => `${s.heading}: ${r.reason}`),
    );
    expect(empty).toEqual([]);
  });

  it("documents no reason twice in one section", () => {
    const twice = sections.flatMap((s) =>
      reasonsOf(s.rows)
        .filter((reason, i, all) => all.indexOf(reason) !== i)
        .map((reason) => `${s.heading}: ${reason}`),
    );
    expect(twice).toEqual([]);
  });
});

describe("documentedReasons", () => {
  it("reads the reason rows of each table under its heading and nothing else", () => {
    const text = [
      "### Condition `Ready`",
      "",
      "| Reason | Status | Meaning | What to do |",
      "| --- | --- | --- | --- |",
      "| `A` | True | means a | do a |",
      "| `B` | False | means b |  |",
      "",
      "## Events",
      "Some `C` in prose.",
      "| `D` | Normal | SWH | means d | do d |",
    ].join("\n");
    expect(documentedReasons(text)).toEqual([
      {
        heading: "Condition `Ready`",
        rows: [
          { reason: "A", meaning: "means a", action: "do a" },
          { reason: "B", meaning: "means b", action: "" },
        ],
      },
      { heading: "Events", rows: [{ reason: "D", meaning: "means d", action: "do d" }] },
    ]);
  });
});
