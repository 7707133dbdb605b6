import type { KubernetesObject, V1Service } from "@kubernetes/client-node";
import { createLogger, TerminalError, WrittenObjects } from "@swh/kube";
import { createControllerMetrics } from "@swh/metrics";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ControllerApi } from "../src/internal/controller-api.js";
import { reconcileSwh, type SwhFacts, type SwhIo } from "../src/internal/reconcile-swh.js";
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
    patchStatus: async ({ namespace: ns, name, resourceVersion }, patch) => {
      calls.push({ op: "patchStatus", arg: { ns, name, patch, resourceVersion } });
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

/** What the SWH `ns/web` reconcile reads, and its I/O with a fresh status overlay; `over` replaces parts. */
function deps(over: Partial<SwhFacts> & Partial<SwhIo> & { api: ControllerApi }): {
  facts: SwhFacts;
  io: SwhIo;
  recorded: string[];
} {
  const recorded: string[] = [];
  const { api, signal, written, ...facts } = over;
  return {
    facts: {
      key: "ns/web",
      swh: aSwh({}, { resourceVersion: "7" }),
      service: undefined,
      slices: [],
      staleNodes: new Set(),
      notReadyNodes: new Set(),
      now: new Date("2026-12-02T10:00:00Z"),
      ...facts,
    },
    io: {
      api,
      events: {
        record: (_obj, type, reason) => {
          recorded.push(`${type}/${reason}`);
        },
      },
      metrics: createControllerMetrics(new Registry(), "test"),
      logger: createLogger({ level: "error" }),
      signal: signal ?? new AbortController().signal,
      written: written ?? new WrittenObjects<KubernetesObject>(),
    },
    recorded,
  };
}

describe("reconcileSwh", () => {
  it("creates the missing Service, patches status once and records one Event", async () => {
    const { api, calls } = fakeApi();
    const d = deps({ api });
    await reconcileSwh(d.facts, d.io);
    expect(calls.map((c) => c.op)).toEqual(["createService", "patchStatus"]);
    // The first conditions are in the status; Events are for what happened (the Service) and later transitions.
    expect(d.recorded).toEqual(["Normal/ServiceCreated"]);

    // The informer now has the Service but not yet our status (same SWH resourceVersion): nothing to write again.
    const created = calls[0]?.arg as V1Service;
    const again = fakeApi();
    await reconcileSwh(
      { ...d.facts, service: { ...created, spec: { ...created.spec, clusterIP: "10.96.0.10" } } },
      { ...d.io, api: again.api },
    );
    expect(again.calls).toEqual([]);
  });

  it("makes no request when the Service and the status are in sync", async () => {
    const first = fakeApi();
    const service = aStoredService();
    const slices = indexed([aSlice({ endpoints: [{ address: "10.244.1.1" }] })]);
    const d = deps({ api: first.api, service, slices });
    await reconcileSwh(d.facts, d.io);
    const patch = first.calls.find((c) => c.op === "patchStatus")?.arg as { patch: object };
    const stored = aSwh({}, { resourceVersion: "8" }, patch.patch as never);

    const second = fakeApi();
    await reconcileSwh(
      { ...d.facts, swh: stored },
      { ...d.io, api: second.api, written: new WrittenObjects<KubernetesObject>() },
    );
    expect(second.calls).toEqual([]);
  });

  it("requeues on a conflict without touching status", async () => {
    const { api, calls } = fakeApi({ code: 409, message: "already exists" });
    const d = deps({ api });
    const result = await reconcileSwh(d.facts, d.io);
    expect(result).toEqual({ requeueAfterMs: 500 });
    expect(calls.map((c) => c.op)).toEqual(["createService"]);
  });

  it("reports a refused write in status, then fails for a retry", async () => {
    const { api, calls } = fakeApi({ code: 422, message: "spec.loadBalancerSourceRanges: Forbidden" });
    const d = deps({ api });
    await expect(reconcileSwh(d.facts, d.io)).rejects.toThrow(/Forbidden/);
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
    const d = deps({ api, swh: undefined });
    await reconcileSwh(d.facts, d.io);
    expect(calls).toEqual([]);
  });

  it("computes the status patch over the version it read, then over the version its own patch produced", async () => {
    const { api, calls } = fakeApi();
    const d = deps({ api });
    await reconcileSwh(d.facts, d.io);
    expect(calls.find((c) => c.op === "patchStatus")?.arg).toMatchObject({ resourceVersion: "7" });

    // The informer still holds version 7 while the Service arrived: the next patch builds on our version 8.
    const created = calls[0]?.arg as V1Service;
    const again = fakeApi();
    const slices = indexed([aSlice({ endpoints: [{ address: "10.244.1.1" }] })]);
    await reconcileSwh(
      { ...d.facts, service: { ...created, spec: { ...created.spec, clusterIP: "10.96.0.10" } }, slices },
      { ...d.io, api: again.api },
    );
    expect(again.calls.find((c) => c.op === "patchStatus")?.arg).toMatchObject({ resourceVersion: "8" });
  });

  it("requeues without Events when the SWH moved on since the status was computed (409)", async () => {
    const { api } = fakeApi();
    const conflict = Object.assign(new Error("the object has been modified"), { code: 409 });
    const d = deps({ api: { ...api, patchStatus: async () => Promise.reject(conflict) } });
    const result = await reconcileSwh(d.facts, d.io);
    expect(result).toEqual({ requeueAfterMs: 500 });
    expect(d.recorded).toEqual(["Normal/ServiceCreated"]);
    expect(d.io.written.current("ns/web", undefined)).toBeUndefined();
  });

  it("abandons an in-flight write the moment leadership ends, and writes nothing after it", async () => {
    const term = new AbortController();
    const calls: string[] = [];
    const api: ControllerApi = {
      ...fakeApi().api,
      // A write that hangs until its signal aborts, like a request to an API server that stopped answering.
      createService: (_s, signal) => {
        calls.push("createService");
        return new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      },
      patchStatus: async () => {
        calls.push("patchStatus");
        return "8";
      },
    };
    const d = deps({ api, signal: term.signal });
    const running = reconcileSwh(d.facts, d.io);
    await Promise.resolve();
    term.abort(new Error("lost leadership"));
    await expect(running).rejects.toThrow("lost leadership");
    expect(calls).toEqual(["createService"]);
  });

  it.each([
    ["spec.ports", { ports: "smtp" }],
    ["spec.healthcheck.probes", { healthcheck: { probes: "tcp" } }],
  ])(
    "gives a malformed stored SWH an InvalidSpec status naming %s, leaves its Service and does not retry",
    async (field, spec) => {
      const { api, calls } = fakeApi();
      const d = deps({ api, swh: aSwh(spec as never, { resourceVersion: "7" }) });
      // A TerminalError: the queue does not retry it until the SWH changes.
      await expect(reconcileSwh(d.facts, d.io)).rejects.toThrow(TerminalError);
      expect(calls.map((c) => c.op).filter((op) => op !== "createService")).toEqual(["patchStatus"]);
      const patch = calls.find((c) => c.op === "patchStatus")?.arg as {
        patch: { conditions: { type: string; status: string; reason: string; message: string }[] };
      };
      const byType = new Map(patch.patch.conditions.map((c) => [c.type, c]));
      expect(byType.get("Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
      expect(byType.get("Ready")?.message.startsWith(`${field}: must be of type`)).toBe(true);
      expect(byType.get("ServiceReady")).toMatchObject({ status: "False", reason: "InvalidSpec" });
      expect(d.recorded).toContain("Warning/InvalidSpec");
    },
  );

  it("names a gRPC probe whose port no Service port uses in ProbesValid", async () => {
    const { api, calls } = fakeApi();
    const probes = [{ mode: "GRPC", grpc: { targetPort: 50051 } }];
    const d = deps({
      api,
      swh: aSwh({ healthcheck: { probes } } as never, { resourceVersion: "7" }),
    });
    await reconcileSwh(d.facts, d.io);
    const patch = calls.find((c) => c.op === "patchStatus")?.arg as {
      patch: { conditions: { type: string; status: string; message: string }[] };
    };
    expect(patch.patch.conditions.find((c) => c.type === "ProbesValid")?.message).toContain(
      "spec.healthcheck.probes[0] (GRPC) targets port 50051, which no Service port sends traffic to",
    );
  });

  it("names an unsupported probe mode in ProbesValid", async () => {
    const { api, calls } = fakeApi();
    const probes = [{ mode: "UDP", udp: { port: 8080 } }];
    const d = deps({
      api,
      swh: aSwh({ healthcheck: { probes } } as never, { resourceVersion: "7" }),
    });
    await reconcileSwh(d.facts, d.io);
    const patch = calls.find((c) => c.op === "patchStatus")?.arg as {
      patch: { conditions: { type: string; status: string; message: string }[] };
    };
    expect(patch.patch.conditions.find((c) => c.type === "ProbesValid")).toMatchObject({ status: "False" });
    expect(patch.patch.conditions.find((c) => c.type === "ProbesValid")?.message).toContain(
      "spec.healthcheck.probes[0].mode UDP is not supported",
    );
  });
});
