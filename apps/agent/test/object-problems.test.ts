import { AGGREGATION_ISSUE_KINDS } from "@swh/aggregation";
import { createLogger } from "@swh/kube";
import { describe, expect, it } from "vitest";
import { ObjectProblems } from "../src/internal/object-problems.js";

function reporter() {
  const recorded: { reason: string; type: string; name: string; message: string }[] = [];
  const problems = new ObjectProblems({
    events: {
      record: (subject, type, reason, message) =>
        recorded.push({ reason, type, name: subject.name, message }),
    },
    logger: createLogger({ level: "error" }),
    nodeName: "node-a",
  });
  return { problems, recorded };
}

const ref = { name: "bad", namespace: "shop", uid: "uid-bad" };

describe("ObjectProblems", () => {
  it("names the first field a malformed SWH gets wrong, once however often it is seen", () => {
    const { problems, recorded } = reporter();
    const spec = { selector: { app: "web" }, ports: "smtp" };
    for (let i = 0; i < 5; i++)
      problems.unprocessableSwh(ref, spec, new TypeError("ports.forEach is not a function"));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ type: "Warning", reason: "InvalidSpec", name: "bad" });
    expect(recorded[0]?.message).toMatch(/^spec\.ports: must be of type array/);
    expect(recorded[0]?.message).toContain("node node-a");
  });

  it("falls back to what was thrown when the schema finds nothing, and never shows a header value", () => {
    const { problems, recorded } = reporter();
    const header = { name: "Authorization", value: "Bearer s3cret" };
    const spec = {
      selector: { app: "web" },
      ports: [{ port: 80 }],
      healthcheck: { probes: [{ mode: "HTTP", http: { targetPort: 80, httpHeaders: [header] } }] },
    };
    problems.unprocessableSwh(ref, spec, new Error("boom"));
    expect(recorded[0]?.message).toMatch(/^the spec could not be processed: Error: boom;/);
    expect(JSON.stringify(recorded)).not.toContain("s3cret");
  });

  it("reports each probe that cannot run once per field, and ignores other issues", () => {
    const { problems, recorded } = reporter();
    const issue = (kind: string, pod: string) => ({
      kind: kind as (typeof AGGREGATION_ISSUE_KINDS)[keyof typeof AGGREGATION_ISSUE_KINDS],
      path: "spec.healthcheck.probes[1].tcp.targetPort",
      pod,
      message: `probe targetPort "smtpp" is not a container port of pod ${pod}`,
    });
    problems.probeIssues(ref, [
      issue(AGGREGATION_ISSUE_KINDS.probePortNotFound, "shop/a"),
      issue(AGGREGATION_ISSUE_KINDS.probePortNotFound, "shop/b"),
      issue(AGGREGATION_ISSUE_KINDS.probePortUnused, "shop/a"),
    ]);
    problems.probeIssues(ref, [issue(AGGREGATION_ISSUE_KINDS.probePortNotFound, "shop/a")]);
    expect(recorded).toEqual([
      {
        type: "Warning",
        reason: "ProbeCannotRun",
        name: "bad",
        message:
          'spec.healthcheck.probes[1].tcp.targetPort: probe targetPort "smtpp" is not a container port of pod shop/a',
      },
    ]);
  });
});
