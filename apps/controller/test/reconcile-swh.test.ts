import type { V1Service } from "@kubernetes/client-node";
import { createLogger } from "@swh/kube";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ControllerApi } from "../src/controller-api.js";
import { createControllerMetrics } from "../src/controller-metrics.js";
import { reconcileSwh, type SwhReconcileDeps } from "../src/reconcile-swh.js";
import { aSlice, aStoredService, aSwh } from "./builders.js";
import { indexed } from "./indexed.js";

/** A fake of our own ControllerApi: records calls, answers from a script. */
function fakeApi(fail?: { code: number; message: string }) {
  const calls: { op: string; arg: unknown }[] = [];
  const answer = async <T>(op: string, arg: unknown, value: T): Promise<T> => {
    calls.push({ op, arg });
    if (fail !== undefined)
      throw Object.assign(new Error(fail.message), { code: fail.code, body: { message: fail.message } });
    return value;
  };
  const api: ControllerApi = {
    createService: (s) => answer("createService", s, { ...s, spec: { ...s.spec, clusterIP: "10.96.0.10" } }),
    replaceService: (s) => answer("replaceService", s, s),
    patchStatus: async (ns, name, patch) => {
      calls.push({ op: "patchStatus", arg: { ns, name, patch } });
      return "8";
    },
    deleteSlice: async (ns, name) => {
      calls.push({ op: "deleteSlice", arg: { ns, name } });
    },
    readNode: async (name) => {
      calls.push({ op: "readNode", arg: name });
      return undefined;
    },
  };
  return { api, calls };
}

function deps(
  over: Partial<SwhReconcileDeps> & { api: ControllerApi },
): SwhReconcileDeps & { recorded: string[] } {
  const recorded: string[] = [];
  return {
    getSwh: () => aSwh({}, { resourceVersion: "7" }),
    getService: () => undefined,
    slicesOf: () => [],
    staleNodes: () => new Set(),
    events: {
      record: (_obj, type, reason) => {
        recorded.push(`${type}/${reason}`);
      },
    },
    metrics: createControllerMetrics(new Registry(), "test"),
    logger: createLogger({ level: "error" }),
    now: () => new Date("2026-12-02T10:00:00Z"),
    writtenStatus: new Map(),
    recorded,
    ...over,
  };
}

describe("reconcileSwh", () => {
  it("creates the missing Service, patches status once and records one Event", async () => {
    const { api, calls } = fakeApi();
    const d = deps({ api });
    await reconcileSwh("ns/web", d);
    expect(calls.map((c) => c.op)).toEqual(["createService", "patchStatus"]);
    // The first conditions are in the status; Events are for what happened (the Service) and later transitions.
    expect(d.recorded).toEqual(["Normal/ServiceCreated"]);

    // The informer now has the Service but not yet our status (same SWH resourceVersion): nothing to write again.
    const created = calls[0]?.arg as V1Service;
    const again = fakeApi();
    await reconcileSwh("ns/web", {
      ...d,
      api: again.api,
      getService: () => ({ ...created, spec: { ...created.spec, clusterIP: "10.96.0.10" } }),
    });
    expect(again.calls).toEqual([]);
  });

  it("makes no request when the Service and the status are in sync", async () => {
    const first = fakeApi();
    const service = aStoredService();
    const slices = indexed([aSlice({ endpoints: [{ address: "10.244.1.1" }] })]);
    const d = deps({ api: first.api, getService: () => service, slicesOf: () => slices });
    await reconcileSwh("ns/web", d);
    const patch = first.calls.find((c) => c.op === "patchStatus")?.arg as { patch: object };
    const stored = aSwh({}, { resourceVersion: "8" }, patch.patch as never);

    const second = fakeApi();
    await reconcileSwh("ns/web", { ...d, api: second.api, getSwh: () => stored, writtenStatus: new Map() });
    expect(second.calls).toEqual([]);
  });

  it("requeues on a conflict without touching status", async () => {
    const { api, calls } = fakeApi({ code: 409, message: "already exists" });
    const result = await reconcileSwh("ns/web", deps({ api }));
    expect(result).toEqual({ requeueAfterMs: 500 });
    expect(calls.map((c) => c.op)).toEqual(["createService"]);
  });

  it("reports a refused write in status, then fails for a retry", async () => {
    const { api, calls } = fakeApi({ code: 422, message: "spec.loadBalancerSourceRanges: Forbidden" });
    await expect(reconcileSwh("ns/web", deps({ api }))).rejects.toThrow(/Forbidden/);
    const patch = calls.find((c) => c.op === "patchStatus")?.arg as {
      patch: { conditions: { type: string; reason: string; message: string }[] };
    };
    expect(patch.patch.conditions.find((c) => c.type === "ServiceReady")).toMatchObject({
      reason: "ServiceWriteFailed",
      message: "HTTP 422: spec.loadBalancerSourceRanges: Forbidden",
    });
  });

  it("does nothing for a deleted SWH (the garbage collector removes its children)", async () => {
    const { api, calls } = fakeApi();
    await reconcileSwh("ns/web", deps({ api, getSwh: () => undefined }));
    expect(calls).toEqual([]);
  });
});
