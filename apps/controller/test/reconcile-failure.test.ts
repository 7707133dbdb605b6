import type { KubernetesObject, V1Service } from "@kubernetes/client-node";
import type { Condition, ServiceWithHealthchecks } from "@swh/crd-types";
import { createLogger, type DroppedKey, type Logger, WorkQueue, WrittenObjects } from "@swh/kube";
import { createControllerMetrics } from "@swh/metrics";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ControllerApi } from "../src/internal/controller-api.js";
import {
  reconcileSwh,
  reportReconcileFailure,
  type SwhFacts,
  type SwhIo,
} from "../src/internal/reconcile-swh.js";
import { aSwh } from "./builders.js";

/**
 * The SWH queue as `workers.ts` wires it — the real `WorkQueue`, `reconcileSwh` as worker and
 * `reportReconcileFailure` as `onDropped` — over an API whose next `failuresLeft` Service writes fail.
 */
function controllerQueue(maxRetries: number) {
  const state = { failuresLeft: Number.POSITIVE_INFINITY, serviceWrites: 0, statusPatches: 0 };
  const api: ControllerApi = {
    createService: async (service) => {
      state.serviceWrites++;
      if (state.failuresLeft-- > 0) {
        const body = { message: "etcdserver: request timed out" };
        throw Object.assign(new Error("HTTP 500"), { code: 500, body });
      }
      return { ...service, spec: { ...service.spec, clusterIP: "10.96.0.10" } } as V1Service;
    },
    replaceService: async (service) => service,
    patchStatus: async () => String(100 + ++state.statusPatches),
    deleteSlice: async () => {},
    readNode: async () => undefined,
  };
  const recorded: string[] = [];
  const written = new WrittenObjects<KubernetesObject>();
  const metrics = createControllerMetrics(new Registry(), "test");
  const stop = new AbortController();
  const facts = (key: string): SwhFacts => ({
    key,
    swh: aSwh({}, { resourceVersion: "7" }),
    service: undefined,
    slices: [],
    staleNodes: new Set(),
    notReadyNodes: new Set(),
    now: new Date("2026-12-03T10:00:00Z"),
  });
  const io = (logger: Logger, signal: AbortSignal): SwhIo => ({
    api,
    events: { record: (_obj, type, reason) => void recorded.push(`${type}/${reason}`) },
    metrics,
    logger,
    signal,
    written,
  });
  const dropped: Array<DroppedKey<string>> = [];
  let settled: () => void = () => {};
  const queue = new WorkQueue<string>({
    name: "swh",
    maxRetries,
    backoff: { initialMs: 1, maxMs: 1 },
    logger: createLogger({ level: "error" }),
    onDropped: async (d) => {
      await reportReconcileFailure(d, facts(d.key), io(d.logger, stop.signal));
      dropped.push(d);
      settled();
    },
  });
  const done = queue.run(
    async (key, ctx) => {
      const result = await reconcileSwh(facts(key), io(ctx.logger, ctx.signal));
      settled();
      return result;
    },
    { concurrency: 1, signal: stop.signal },
  );
  return {
    state,
    recorded,
    dropped,
    /** Adds the SWH and resolves when it succeeded or was dropped. */
    reconcile: () =>
      new Promise<void>((resolve) => {
        settled = resolve;
        queue.add("ns/web");
      }),
    /** The conditions the controller last wrote. */
    conditions: (): Condition[] =>
      (written.current("ns/web", undefined) as ServiceWithHealthchecks | undefined)?.status?.conditions ?? [],
    stop: async () => {
      stop.abort();
      await done;
    },
  };
}

describe("an SWH whose reconcile keeps failing", () => {
  it("gets the last error in a Reconciled condition once the queue stops retrying, until a reconcile succeeds", async () => {
    const c = controllerQueue(2);
    await c.reconcile();
    expect(c.state.serviceWrites).toBe(3); // the first run and 2 retries, then no more
    expect(c.dropped).toHaveLength(1);
    expect(c.conditions().find((x) => x.type === "Reconciled")).toMatchObject({
      status: "False",
      reason: "ReconcileFailed",
      message: expect.stringMatching(
        /^failed 3 times in a row, .*: HTTP 500: etcdserver: request timed out$/,
      ),
      observedGeneration: 3,
    });
    // The other conditions say what the failed runs established: the Service write failed.
    expect(c.conditions().find((x) => x.type === "ServiceReady")).toMatchObject({
      reason: "ServiceWriteFailed",
    });
    expect(c.recorded).toContain("Warning/ReconcileFailed");

    // An event while the cause persists: dropped again, and the status stays as it is — no write that undoes the
    // report and a report that redoes it, each time the SWH changes.
    const patches = c.state.statusPatches;
    await c.reconcile();
    expect(c.state.serviceWrites).toBe(6);
    expect(c.state.statusPatches).toBe(patches);
    expect(c.dropped).toHaveLength(2);
    expect(c.conditions().map((x) => x.type)).toContain("Reconciled");

    // The cause is gone: the next reconcile succeeds and removes the condition.
    c.state.failuresLeft = 0;
    await c.reconcile();
    expect(c.dropped).toHaveLength(2);
    expect(c.conditions().map((x) => x.type)).not.toContain("Reconciled");
    expect(c.conditions().find((x) => x.type === "ServiceReady")).toMatchObject({ status: "True" });
    await c.stop();
  });

  it("an SWH that fails fewer times than the limit never gets the condition", async () => {
    const c = controllerQueue(5);
    c.state.failuresLeft = 2;
    await c.reconcile();
    expect(c.state.serviceWrites).toBe(3);
    expect(c.dropped).toEqual([]);
    expect(c.recorded).not.toContain("Warning/ReconcileFailed");
    expect(c.conditions().map((x) => x.type)).not.toContain("Reconciled");
    expect(c.conditions().find((x) => x.type === "ServiceReady")).toMatchObject({ status: "True" });
    await c.stop();
  });
});
