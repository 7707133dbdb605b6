import type { EventsV1Event } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createKubeMetrics, EventRecorder, type EventSink, type EventSubject } from "../src/index.js";
import { FakeClock } from "./support/fake-clock.js";
import { memoryLogger } from "./support/quiet-logger.js";

/** An in-memory EventSink: Events by name, optionally failing. */
class FakeSink implements EventSink {
  events = new Map<string, EventsV1Event>();
  writes: string[] = [];
  fail = false;
  async create(namespace: string, event: EventsV1Event): Promise<string> {
    this.writes.push("create");
    if (this.fail) throw new Error("API down");
    const name = event.metadata?.name ?? "";
    if (this.events.has(name)) throw Object.assign(new Error("exists"), { code: 409 });
    this.events.set(name, { ...event, metadata: { ...event.metadata, name, namespace } });
    return name;
  }
  async updateSeries(_ns: string, name: string, series: { count: number; lastObservedTime: string }) {
    this.writes.push("patch");
    if (this.fail) throw new Error("API down");
    const e = this.events.get(name);
    if (!e) throw Object.assign(new Error("not found"), { code: 404 });
    this.events.set(name, { ...e, series: series as unknown as NonNullable<EventsV1Event["series"]> });
  }
}

const aSwh = (name = "web"): EventSubject => ({
  kind: "ServiceWithHealthchecks",
  apiVersion: "network.deckhouse.io/v1alpha1",
  name,
  namespace: "prod",
  uid: `uid-${name}`,
});

function setup(opts: { burst?: number } = {}) {
  const sink = new FakeSink();
  const clock = new FakeClock();
  const registry = new Registry();
  const metrics = createKubeMetrics(registry);
  const logger = memoryLogger();
  const recorder = new EventRecorder({
    component: "swh-controller",
    sink,
    clock,
    metrics,
    logger,
    rateLimit: { burst: opts.burst ?? 10, refillPerSecond: 0.1 },
    aggregationWindowMs: 60_000,
  });
  const count = async (result: string) =>
    (await metrics.events.get()).values.find((v) => v.labels.result === result)?.value ?? 0;
  return { sink, clock, recorder, count, logger };
}

describe("EventRecorder", () => {
  it("creates one Event and turns repeats into a series count on it", async () => {
    const { sink, recorder } = setup();
    recorder.record(aSwh(), "Warning", "NoReadyEndpoints", "port http has 0/3 ready");
    await recorder.flush();
    recorder.record(aSwh(), "Warning", "NoReadyEndpoints", "port http has 0/3 ready");
    recorder.record(aSwh(), "Warning", "NoReadyEndpoints", "port http has 0/3 ready");
    await recorder.flush();
    expect(sink.events.size).toBe(1);
    const [event] = [...sink.events.values()];
    expect(event).toMatchObject({
      reason: "NoReadyEndpoints",
      note: "port http has 0/3 ready",
      type: "Warning",
      reportingController: "swh-controller",
      regarding: { kind: "ServiceWithHealthchecks", name: "web", namespace: "prod", uid: "uid-web" },
      series: { count: 3 },
    });
  });

  it("repeats recorded before the create finished still end up in the count", async () => {
    const { sink, recorder } = setup();
    for (let i = 0; i < 4; i++) recorder.record(aSwh(), "Normal", "Ready", "all ports ready");
    await recorder.flush();
    expect(sink.events.size).toBe(1);
    expect([...sink.events.values()][0]?.series?.count).toBe(4);
  });

  it("a different message, reason or object makes a new Event", async () => {
    const { sink, recorder } = setup();
    recorder.record(aSwh(), "Normal", "Ready", "a");
    recorder.record(aSwh(), "Normal", "Ready", "b");
    recorder.record(aSwh(), "Normal", "Other", "a");
    recorder.record(aSwh("api"), "Normal", "Ready", "a");
    await recorder.flush();
    expect(sink.events.size).toBe(4);
  });

  it("after the aggregation window a repeat makes a new Event", async () => {
    const { sink, clock, recorder } = setup();
    recorder.record(aSwh(), "Normal", "Ready", "a");
    await recorder.flush();
    clock.advance(61_000);
    recorder.record(aSwh(), "Normal", "Ready", "a");
    await recorder.flush();
    expect(sink.events.size).toBe(2);
  });

  it("rate-limits per object: beyond the burst Events are dropped and counted, then refill", async () => {
    const { sink, clock, recorder, count } = setup({ burst: 3 });
    for (let i = 0; i < 5; i++) recorder.record(aSwh(), "Normal", "Changed", `change ${i}`);
    recorder.record(aSwh("other"), "Normal", "Changed", "other object has its own bucket");
    await recorder.flush();
    expect(sink.events.size).toBe(4);
    expect(await count("dropped")).toBe(2);
    clock.advance(10_000); // one token back at 0.1/s
    recorder.record(aSwh(), "Normal", "Changed", "change 5");
    await recorder.flush();
    expect(sink.events.size).toBe(5);
  });

  it("a rate-limited repeat still counts and its count goes out with the next patch", async () => {
    const { sink, clock, recorder } = setup({ burst: 2 });
    recorder.record(aSwh(), "Normal", "Flap", "x"); // token 1: create
    await recorder.flush();
    recorder.record(aSwh(), "Normal", "Flap", "x"); // token 2: patch count 2
    await recorder.flush();
    recorder.record(aSwh(), "Normal", "Flap", "x"); // no token: counted only
    await recorder.flush();
    expect([...sink.events.values()][0]?.series?.count).toBe(2);
    clock.advance(10_000);
    recorder.record(aSwh(), "Normal", "Flap", "x"); // token: patch count 4
    await recorder.flush();
    expect([...sink.events.values()][0]?.series?.count).toBe(4);
    expect(sink.events.size).toBe(1);
  });

  it("never throws into the caller when the API fails; failures are counted and logged", async () => {
    const { sink, recorder, count, logger } = setup();
    sink.fail = true;
    expect(() => recorder.record(aSwh(), "Warning", "X", "y")).not.toThrow();
    await recorder.flush();
    expect(await count("failed")).toBe(1);
    expect(logger.lines.some((l) => l.msg === "writing an event failed")).toBe(true);
    // The API recovers: the next occurrence creates the Event.
    sink.fail = false;
    recorder.record(aSwh(), "Warning", "X", "y");
    await recorder.flush();
    expect(sink.events.size).toBe(1);
  });
});

describe("EventRecorder limits", () => {
  it("truncates a note longer than 1 KiB (counting bytes) so the API accepts it", async () => {
    const { sink, recorder } = setup();
    recorder.record(aSwh(), "Warning", "Long", "é".repeat(2000));
    await recorder.flush();
    const note = [...sink.events.values()][0]?.note ?? "";
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note.length).toBe(512);
  });
});
