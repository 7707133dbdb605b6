import { PassThrough } from "node:stream";
import { endpointPublication, ownerReferenceTo } from "@swh/crd-types/internal";
import { createLogger } from "@swh/kube";
import { createAgentMetrics } from "@swh/metrics";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { PublicationLog } from "../src/internal/publication-log.js";

const swh = { metadata: { name: "db", namespace: "team-a", uid: "uid-db" } };
const ref = { namespace: "team-a", name: "db" };
const publish = endpointPublication(swh, {
  metadata: { name: "db", ownerReferences: [ownerReferenceTo(swh)] },
});
const foreign = endpointPublication(swh, { metadata: { name: "db" }, spec: { selector: { app: "db" } } });
const missing = endpointPublication(swh, undefined);

function aLog() {
  const stream = new PassThrough();
  const lines: { level: string; msg: string; reason?: string }[] = [];
  stream.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
  });
  const registry = new Registry();
  const metrics = createAgentMetrics(registry, "test");
  const log = new PublicationLog(createLogger({ level: "debug", stream }), metrics.endpointsWithheld);
  const withheld = async () =>
    Object.fromEntries((await metrics.endpointsWithheld.get()).values.map((v) => [v.labels.reason, v.value]));
  return { log, lines, withheld };
}

describe("PublicationLog", () => {
  it("logs a conflict once however often it is reconciled, and counts the SWH while it lasts", async () => {
    const { log, lines, withheld } = aLog();
    for (let i = 0; i < 3; i++) log.record(ref, foreign);
    expect(lines.map((l) => [l.level, l.reason])).toEqual([["warn", "ServiceHasSelector"]]);
    expect(await withheld()).toMatchObject({ ServiceHasSelector: 1, ServiceMissing: 0 });

    log.record(ref, publish);
    log.record(ref, publish);
    expect(lines.map((l) => l.level)).toEqual(["warn", "info"]);
    expect(await withheld()).toMatchObject({ ServiceHasSelector: 0 });
  });

  it("keeps a new SWH waiting for its Service quiet, but reports a published one losing it", async () => {
    const { log, lines, withheld } = aLog();
    log.record(ref, missing);
    log.record(ref, publish);
    expect(lines.map((l) => l.level)).toEqual(["debug", "info"]);
    log.record(ref, missing);
    expect(lines.map((l) => l.level)).toEqual(["debug", "info", "info"]);
    expect(await withheld()).toMatchObject({ ServiceMissing: 1 });
    log.record(ref, undefined);
    expect(await withheld()).toMatchObject({ ServiceMissing: 0 });
  });
});
