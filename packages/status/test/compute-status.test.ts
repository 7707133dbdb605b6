import type { V1EndpointSlice } from "@kubernetes/client-node";
import { conditionChanges } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { indexed } from "../../slice-writer/test/indexed.js";
import { aSlice, aStoredService, aSwh } from "../../slice-writer/test/slice-builders.js";
import { computeStatus, type ServiceSyncOutcome, type StatusInput, sameStatus } from "../src/index.js";

const T0 = "2026-12-02T10:00:00Z";
const T1 = "2026-12-02T10:05:00Z";
const synced: ServiceSyncOutcome = { ready: true };

/** The status for `input`; slices are given as the agent wrote them and read as the controller's index does. */
function status(input: Partial<Omit<StatusInput, "slices">> & { slices?: V1EndpointSlice[] }) {
  return computeStatus({
    swh: aSwh(),
    sync: synced,
    service: aStoredService(),
    staleNodes: new Set(),
    now: T0,
    ...input,
    slices: indexed(input.slices ?? []).map(({ view }) => view),
  });
}
const condition = (s: ReturnType<typeof status>, type: string) => s.conditions?.find((c) => c.type === type);

describe("computeStatus", () => {
  const twoPorts = aSwh({
    ports: [
      { name: "http", port: 80, targetPort: 8080 },
      { name: "db", port: 5432, targetPort: 5432 },
    ],
  });

  it("counts ready and total endpoints per Service port from the slices", () => {
    const s = status({
      swh: twoPorts,
      slices: [
        aSlice({
          port: { name: "http", port: 8080 },
          endpoints: [
            { address: "10.244.1.1", pod: "a" },
            { address: "10.244.1.2", pod: "b" },
          ],
        }),
        aSlice({
          port: { name: "db", port: 5432 },
          endpoints: [
            { address: "10.244.1.1", pod: "a" },
            { address: "10.244.1.2", pod: "b", ready: false },
          ],
          reasons: {
            "10.244.1.2": { probe: "PostgreSQL :5432", reason: "QueryFalse", message: "returned f" },
          },
        }),
      ],
    });
    expect(s.ports).toEqual([
      { name: "http", port: 80, readyEndpoints: 2, totalEndpoints: 2 },
      { name: "db", port: 5432, readyEndpoints: 1, totalEndpoints: 2 },
    ]);
    expect(s.readySummary).toBe("3/4"); // endpoint-ports: http 2/2 + db 1/2
    expect(s.endpoints).toMatchObject({ total: 2, ready: 1, notReady: 1, terminating: 0, truncated: false });
    expect(s.endpoints?.list[0]).toEqual({
      pod: "b",
      node: "n1",
      address: "10.244.1.2",
      ports: [
        {
          name: "db",
          port: 5432,
          ready: false,
          failingProbe: "PostgreSQL :5432",
          reason: "QueryFalse",
          message: "returned f",
        },
        { name: "http", port: 8080, ready: true },
      ],
    });
    expect(condition(s, "Ready")).toMatchObject({
      status: "False",
      reason: "EndpointsNotReady",
      observedGeneration: 3,
    });
  });

  it("counts a dual-stack pod once and lists its IPv4 address", () => {
    const s = status({
      slices: [
        aSlice({ name: "v4", endpoints: [{ address: "10.244.1.1", pod: "a" }] }),
        aSlice({ name: "v6", endpoints: [{ address: "fd00:10:244::1", pod: "a" }] }),
      ],
    });
    expect(s.endpoints).toMatchObject({ total: 1, ready: 1 });
    expect(s.endpoints?.list[0]?.address).toBe("10.244.1.1");
    expect(condition(s, "Ready")).toMatchObject({ status: "True", reason: "EndpointsReady" });
  });

  it("bounds the endpoint list and lists failing endpoints first", () => {
    const endpoints = Array.from({ length: 60 }, (_, i) => ({
      address: `10.244.2.${i}`,
      pod: `p${String(i).padStart(2, "0")}`,
      ready: i !== 42,
    }));
    const s = status({ slices: [aSlice({ endpoints })], maxListedEndpoints: 50 });
    expect(s.endpoints?.list).toHaveLength(50);
    expect(s.endpoints?.truncated).toBe(true);
    expect(s.endpoints?.list[0]?.pod).toBe("p42");
    expect(s.readySummary).toBe("59/60");
  });

  it("stays Ready while the only not-ready endpoints await their first probe, and says so", () => {
    const awaiting = { probe: "HTTP :8080 /healthz", reason: "NotProbedYet", message: "no result yet" };
    const s = status({
      slices: [
        aSlice({
          endpoints: [{ address: "10.244.1.1" }, { address: "10.244.1.2", ready: false }],
          reasons: { "10.244.1.2": awaiting },
        }),
      ],
    });
    expect(s.readySummary).toBe("1/2");
    expect(condition(s, "Ready")).toMatchObject({
      status: "True",
      reason: "EndpointsReady",
      message: "1/2 endpoints ready, 1 awaiting a first probe (ports: http 1/2)",
    });
    // None ready yet: nothing serves, so not Ready.
    const none = status({
      slices: [
        aSlice({ endpoints: [{ address: "10.244.1.2", ready: false }], reasons: { "10.244.1.2": awaiting } }),
      ],
    });
    expect(condition(none, "Ready")).toMatchObject({ status: "False", reason: "EndpointsNotReady" });
    // A failed probe is evidence.
    const failed = status({
      slices: [
        aSlice({
          endpoints: [{ address: "10.244.1.1" }, { address: "10.244.1.2", ready: false }],
          reasons: {
            "10.244.1.2": { probe: "HTTP :8080 /healthz", reason: "ConnectionRefused", message: "refused" },
          },
        }),
      ],
    });
    expect(condition(failed, "Ready")).toMatchObject({ status: "False", reason: "EndpointsNotReady" });
  });

  it("counts terminating endpoints apart", () => {
    const s = status({
      slices: [
        aSlice({
          endpoints: [{ address: "10.244.1.1" }, { address: "10.244.1.2", ready: false, terminating: true }],
        }),
      ],
    });
    expect(s.endpoints).toMatchObject({ total: 2, ready: 1, notReady: 0, terminating: 1 });
    expect(condition(s, "Ready")?.status).toBe("True");
  });

  it("is not Ready without endpoints", () => {
    expect(condition(status({}), "Ready")).toMatchObject({ status: "False", reason: "NoEndpoints" });
  });

  it("reports a Service conflict in ServiceReady, its alias and Ready, and mirrors nothing", () => {
    const s = status({
      sync: { ready: false, reason: "ServiceOwnedByOther", message: "owned by X" },
      service: undefined,
    });
    for (const type of ["ServiceReady", "ChildServiceReady"]) {
      expect(condition(s, type)).toMatchObject({
        status: "False",
        reason: "ServiceOwnedByOther",
        message: "owned by X",
      });
    }
    expect(condition(s, "Ready")).toMatchObject({ status: "False", reason: "ServiceNotReady" });
    expect(s.clusterIP).toBeUndefined();
  });

  it("mirrors cluster IPs and the load balancer of the child Service", () => {
    const service = {
      ...aStoredService({ clusterIPs: ["10.96.0.10", "fd00::10"] }),
      status: { loadBalancer: { ingress: [{ ip: "192.0.2.7" }] } },
    };
    const s = status({ service });
    expect(s.clusterIP).toBe("10.96.0.10");
    expect(s.clusterIPs).toEqual(["10.96.0.10", "fd00::10"]);
    expect(s.loadBalancer).toEqual({ ingress: [{ ip: "192.0.2.7" }] });
  });

  it("reports probes on ports no Service port uses and configuration reasons from agents", () => {
    const swh = aSwh({ healthcheck: { probes: [{ mode: "TCP", tcp: { targetPort: 9999 } }] } });
    const slice = aSlice({
      endpoints: [{ address: "10.244.1.1", ready: false }],
      reasons: {
        "10.244.1.1": {
          probe: "PostgreSQL :5432",
          reason: "CredentialsMissing",
          message: "Secret db-auth not found",
        },
      },
    });
    const message = condition(status({ swh, slices: [slice] }), "ProbesValid")?.message;
    expect(message).toContain("probes[0] (TCP) targets port 9999");
    expect(message).toContain("CredentialsMissing (Secret db-auth not found)");
    expect(condition(status({}), "ProbesValid")?.status).toBe("True");
  });

  it("reports Secrets of a namespace no administrator enabled under ProbesValid", () => {
    const slice = aSlice({
      endpoints: [{ address: "10.244.1.1", ready: false }],
      reasons: {
        "10.244.1.1": {
          probe: "PostgreSQL :5432",
          reason: "CredentialsNotPermitted",
          message: "the agent may not read Secrets in namespace team-b",
        },
      },
    });
    expect(condition(status({ slices: [slice] }), "ProbesValid")).toMatchObject({
      status: "False",
      reason: "InvalidProbes",
      message: expect.stringContaining(
        "CredentialsNotPermitted (the agent may not read Secrets in namespace team-b)",
      ),
    });
  });

  it("reports a stale agent heartbeat only for nodes that publish this SWH", () => {
    const slices = [aSlice({ endpoints: [{ address: "10.244.1.1", node: "n1" }] })];
    expect(condition(status({ slices, staleNodes: new Set(["n2"]) }), "AgentsReporting")?.status).toBe(
      "True",
    );
    expect(condition(status({ slices, staleNodes: new Set(["n1"]) }), "AgentsReporting")).toMatchObject({
      status: "False",
      reason: "AgentHeartbeatStale",
    });
  });

  it("says when a NotReady node keeps its endpoints because its agent is alive, without calling agents silent", () => {
    const slices = [aSlice({ endpoints: [{ address: "10.244.1.1", node: "n1" }] })];
    expect(condition(status({ slices, notReadyNodes: new Set(["n1"]) }), "AgentsReporting")).toMatchObject({
      status: "True",
      reason: "NodeNotReadyAgentAlive",
      message: expect.stringContaining("n1"),
    });
  });

  it("keeps lastTransitionTime while a condition's status holds and equals the stored status (no write)", () => {
    const slices = [aSlice({ endpoints: [{ address: "10.244.1.1" }] })];
    const first = status({ slices });
    const stored = aSwh({}, {}, first);
    const again = status({ swh: stored, slices, now: T1 });
    expect(sameStatus(first, again)).toBe(true);
    expect(condition(again, "Ready")?.lastTransitionTime).toBe(T0);

    const failing = status({
      swh: stored,
      slices: [aSlice({ endpoints: [{ address: "10.244.1.1", ready: false }] })],
      now: T1,
    });
    expect(sameStatus(first, failing)).toBe(false);
    expect(condition(failing, "Ready")?.lastTransitionTime).toBe(T1);
    expect(condition(failing, "ServiceReady")?.lastTransitionTime).toBe(T0);
    expect(conditionChanges(first.conditions, failing.conditions ?? [])).toEqual([
      {
        type: "Ready",
        from: "True",
        to: "False",
        reason: "EndpointsNotReady",
        message: expect.stringContaining("0/1"),
      },
    ]);
  });

  it("makes no Events for the first conditions of a new SWH, only for later transitions", () => {
    const first = status({ slices: [aSlice({ endpoints: [{ address: "10.244.1.1" }] })] });
    expect(conditionChanges(undefined, first.conditions ?? [])).toEqual([]);
    expect(conditionChanges([], first.conditions ?? [])).toEqual([]);
  });
});

describe("computeStatus with a drained pod", () => {
  const slices = (second: { drained?: boolean; ready?: boolean }) => [
    aSlice({
      endpoints: [
        { address: "10.244.1.1", pod: "a" },
        { address: "10.244.1.2", pod: "b", ...second },
      ],
    }),
  ];

  it("shows the endpoint as Drained and keeps Ready True: a drain is on purpose", () => {
    const s = status({ slices: slices({ drained: true }) });
    expect(s.endpoints?.list?.find((e) => e.pod === "b")?.ports).toEqual([
      expect.objectContaining({ ready: false, reason: "Drained" }),
    ]);
    expect(condition(s, "Ready")).toMatchObject({ status: "True", reason: "EndpointsReady" });
    expect(condition(s, "Ready")?.message).toContain("1/2 endpoints ready, 1 drained");
  });

  it("turns Ready False for a failing endpoint, where it stays True for a drained one", () => {
    const s = status({ slices: slices({ ready: false }) });
    expect(condition(s, "Ready")).toMatchObject({ status: "False", reason: "EndpointsNotReady" });
  });

  it("turns Ready False when every endpoint is drained: nothing takes traffic", () => {
    const s = status({
      slices: [aSlice({ endpoints: [{ address: "10.244.1.1", pod: "a", drained: true }] })],
    });
    expect(condition(s, "Ready")).toMatchObject({ status: "False", reason: "EndpointsNotReady" });
  });
});

describe("computeStatus: condition TopologyHints (ADR 0035)", () => {
  const zoned = (node: string, zone: string | undefined, address: string) =>
    aSlice({ node, endpoints: [{ address, node, ...(zone === undefined ? {} : { zone }) }] });

  it("is absent while trafficDistribution asks for no hints", () => {
    const s = status({ slices: [zoned("n1", undefined, "10.244.1.1")] });
    expect(condition(s, "TopologyHints")).toBeUndefined();
  });

  it("is True (Hinted) when every endpoint has a zone", () => {
    const s = status({
      swh: aSwh({ trafficDistribution: "PreferClose" }),
      slices: [zoned("n1", "zone-a", "10.244.1.1"), zoned("n2", "zone-b", "10.244.1.2")],
    });
    expect(condition(s, "TopologyHints")).toMatchObject({ status: "True", reason: "Hinted" });
  });

  it("is False (NodeWithoutZone) naming the nodes without a zone; PreferSameNode keeps node hints", () => {
    const slices = [zoned("n1", "zone-a", "10.244.1.1"), zoned("n2", undefined, "10.244.1.2")];
    const close = condition(
      status({ swh: aSwh({ trafficDistribution: "PreferClose" }), slices }),
      "TopologyHints",
    );
    expect(close).toMatchObject({ status: "False", reason: "NodeWithoutZone" });
    expect(close?.message).toContain("node(s) n2 have no topology.kubernetes.io/zone label");
    expect(close?.message).toContain("routed cluster-wide");
    const node = condition(
      status({ swh: aSwh({ trafficDistribution: "PreferSameNode" }), slices }),
      "TopologyHints",
    );
    expect(node?.message).toContain("endpoints carry node hints only");
  });
});

describe("computeStatus: condition ChecksEnforced (fail-open, ADR 0039)", () => {
  const failing = { probe: "HTTP :8080 /healthz", reason: "HTTPStatus", message: "HTTP 503" };
  const withFailOpen = aSwh({ healthcheck: { failOpen: {} } });
  const slices = (published: { ready: boolean }, secondFails = true) => [
    aSlice({
      endpoints: [
        { address: "10.244.1.1", pod: "a", ...published },
        { address: "10.244.1.2", pod: "b", ...(secondFails ? published : { ready: true }) },
      ],
      reasons: secondFails ? { "10.244.1.1": failing, "10.244.1.2": failing } : { "10.244.1.1": failing },
    }),
  ];

  it("is absent while failOpen is not set", () => {
    expect(condition(status({ slices: slices({ ready: false }) }), "ChecksEnforced")).toBeUndefined();
  });

  it("is True (ChecksDecide) while some endpoint of each port passes", () => {
    const s = status({ swh: withFailOpen, slices: slices({ ready: false }, false) });
    expect(condition(s, "ChecksEnforced")).toMatchObject({ status: "True", reason: "ChecksDecide" });
  });

  it("is False (FailingOpen) naming the port and counts, and stays so while the agents publish them ready", () => {
    for (const published of [{ ready: false }, { ready: true }]) {
      const s = status({ swh: withFailOpen, slices: slices(published) });
      const c = condition(s, "ChecksEnforced");
      expect(c).toMatchObject({ status: "False", reason: "FailingOpen" });
      expect(c?.message).toContain("port(s) http (0/2 passing)");
    }
    // Published ready, each endpoint still shows the failure of its check.
    const open = status({ swh: withFailOpen, slices: slices({ ready: true }) });
    expect(open.endpoints?.list.map((e) => [e.ports[0]?.ready, e.ports[0]?.reason])).toEqual([
      [true, "HTTPStatus"],
      [true, "HTTPStatus"],
    ]);
  });
});
