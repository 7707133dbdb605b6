import type { DefaultedProbeSpec } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import {
  type Aggregation,
  aggregateEndpoints,
  type PodInfo,
  type ProbeState,
  type ProbeTarget,
  planProbeTargets,
  type SwhInput,
} from "../src/index.js";
import { anHttpProbe, aPod, aPort, aSwh, aTcpProbe, deepFreeze, noZone, statesFor } from "./builders.js";

/** One line per published endpoint: `<port name>/<family>/<container port> <address> <pod> r|- s|- t|-`. */
function published(result: Aggregation): string[] {
  return result.groups.flatMap((g) =>
    g.endpoints.map(
      (e) =>
        `${g.portName}/${g.addressFamily}/${g.port}/${g.protocol} ${e.address} ${e.targetRef.name} ` +
        `${e.conditions.ready ? "r" : "-"}${e.conditions.serving ? "s" : "-"}${e.conditions.terminating ? "t" : "-"}`,
    ),
  );
}

const failing =
  (port: number) =>
  (t: ProbeTarget): ProbeState =>
    t.port === port
      ? { passing: false, reason: "ConnectionRefused", message: "connect ECONNREFUSED" }
      : { passing: true };

interface Case {
  name: string;
  swh: SwhInput;
  pods: PodInfo[];
  decide?: (t: ProbeTarget) => ProbeState;
  /** States are computed but then dropped: nothing has been probed yet. */
  noStates?: boolean;
  nodeName?: string;
  expected: string[];
}

const twoPorts = [aPort(), aPort({ name: "metrics", port: 9090, targetPort: "metrics" })];

const cases: Case[] = [
  {
    name: "a port without probes follows pod readiness",
    swh: aSwh(),
    pods: [aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"], ready: false })],
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 rs-", "http/IPv4/8080/TCP 10.244.1.2 web-2 ---"],
  },
  {
    name: "a failing probe group takes the pod out of its port only",
    swh: aSwh({ spec: { ports: twoPorts }, probes: [aTcpProbe(8080), aTcpProbe(9090)] }),
    pods: [aPod()],
    decide: failing(8080),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 ---", "metrics/IPv4/9090/TCP 10.244.1.1 web-1 rs-"],
  },
  {
    name: "several probes on one port must all pass",
    swh: aSwh({ probes: [aTcpProbe(8080), anHttpProbe(8080)] }),
    pods: [aPod()],
    decide: (t) => ({ passing: t.probe.mode === "TCP" }),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 ---"],
  },
  {
    name: "several probes on one port all passing serve",
    swh: aSwh({ probes: [aTcpProbe(8080), anHttpProbe("http")] }),
    pods: [aPod()],
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 rs-"],
  },
  {
    name: "a TCP probe on 53 gates both UDP/53 and TCP/53 (ports matched by number)",
    swh: aSwh({
      spec: {
        ports: [
          aPort({ name: "dns", protocol: "UDP", port: 53, targetPort: 53 }),
          aPort({ name: "dns-tcp", protocol: "TCP", port: 53, targetPort: 53 }),
          aPort({ name: "http", port: 80, targetPort: 8080 }),
        ],
      },
      probes: [aTcpProbe(53)],
    }),
    pods: [aPod()],
    decide: failing(53),
    expected: [
      "dns/IPv4/53/UDP 10.244.1.1 web-1 ---",
      "dns-tcp/IPv4/53/TCP 10.244.1.1 web-1 ---",
      "http/IPv4/8080/TCP 10.244.1.1 web-1 rs-",
    ],
  },
  {
    name: "a named targetPort resolves per pod: different numbers give different groups",
    swh: aSwh({ spec: { ports: [aPort({ targetPort: "http" })] }, probes: [aTcpProbe("http")] }),
    pods: [
      aPod(),
      aPod({
        name: "web-2",
        ips: ["10.244.1.2"],
        containerPorts: [{ name: "http", containerPort: 8081, protocol: "TCP" }],
      }),
    ],
    decide: failing(8081),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 rs-", "http/IPv4/8081/TCP 10.244.1.2 web-2 ---"],
  },
  {
    name: "a named targetPort that does not resolve leaves the pod out of that port",
    swh: aSwh({
      spec: {
        ports: [aPort({ targetPort: "grpc" }), aPort({ name: "metrics", port: 9090, targetPort: 9090 })],
      },
    }),
    pods: [aPod()],
    expected: ["metrics/IPv4/9090/TCP 10.244.1.1 web-1 rs-"],
  },
  {
    name: "an empty targetPort means the Service port",
    swh: aSwh({ spec: { ports: [{ name: "", protocol: "TCP", port: 8080 }] } }),
    pods: [aPod()],
    expected: ["/IPv4/8080/TCP 10.244.1.1 web-1 rs-"],
  },
  {
    name: "publishNotReadyAddresses publishes every candidate ready; serving keeps the real value",
    swh: aSwh({ spec: { publishNotReadyAddresses: true }, probes: [aTcpProbe(8080)] }),
    pods: [aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"], ready: false })],
    decide: (t) => ({ passing: t.address !== "10.244.1.1" }),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 r--", "http/IPv4/8080/TCP 10.244.1.2 web-2 r--"],
  },
  {
    name: "a terminating pod is not ready; serving follows its probes",
    swh: aSwh({ probes: [aTcpProbe(8080)] }),
    pods: [aPod({ terminating: true }), aPod({ name: "web-2", ips: ["10.244.1.2"], terminating: true })],
    decide: (t) => ({ passing: t.address === "10.244.1.1" }),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 -st", "http/IPv4/8080/TCP 10.244.1.2 web-2 --t"],
  },
  {
    name: "a headless SWH gets endpoints like any other",
    swh: aSwh({ spec: { clusterIP: "None" } }),
    pods: [aPod()],
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 rs-"],
  },
  {
    name: "dual-stack: one group per family, each gated by the probe of its own address",
    swh: aSwh({ probes: [aTcpProbe(8080)] }),
    pods: [aPod({ ips: ["10.244.1.1", "fd00:10:244::1:1"] })],
    decide: (t) => ({ passing: t.address.includes(":") }),
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 ---", "http/IPv6/8080/TCP fd00:10:244::1:1 web-1 rs-"],
  },
  {
    name: "spec.ipFamilies limits the published families",
    swh: aSwh({ spec: { ipFamilies: ["IPv6"] } }),
    pods: [aPod({ ips: ["10.244.1.1", "fd00:10:244::1:1"] })],
    expected: ["http/IPv6/8080/TCP fd00:10:244::1:1 web-1 rs-"],
  },
  {
    name: "a probe without a result yet is failing",
    swh: aSwh({ probes: [aTcpProbe(8080)] }),
    pods: [aPod()],
    noStates: true,
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 ---"],
  },
  {
    name: "an empty selector selects no pods",
    swh: aSwh({ spec: { selector: {} } }),
    pods: [aPod()],
    expected: [],
  },
  {
    name: "a missing selector selects no pods",
    swh: (() => {
      const { selector: _none, ...spec } = aSwh().spec;
      return { ...aSwh(), spec };
    })(),
    pods: [aPod()],
    expected: [],
  },
  {
    name: "only candidates: same namespace, this node, with an IP, not Succeeded/Failed",
    swh: aSwh(),
    nodeName: "node-a",
    pods: [
      aPod(),
      aPod({ name: "other-ns", namespace: "other", ips: ["10.244.1.2"] }),
      aPod({ name: "other-node", nodeName: "node-b", ips: ["10.244.1.3"] }),
      aPod({ name: "no-ip", ips: [] }),
      aPod({ name: "done", phase: "Succeeded", ips: ["10.244.1.4"] }),
      aPod({ name: "failed", phase: "Failed", ips: ["10.244.1.5"] }),
      aPod({ name: "pending", phase: "Pending", ips: ["10.244.1.6"], ready: false }),
      aPod({ name: "unselected", labels: { app: "db" }, ips: ["10.244.1.7"] }),
    ],
    expected: ["http/IPv4/8080/TCP 10.244.1.1 web-1 rs-", "http/IPv4/8080/TCP 10.244.1.6 pending ---"],
  },
];

describe("aggregateEndpoints", () => {
  it.each(cases)("$name", (c) => {
    const swh = deepFreeze(c.swh);
    const pods = deepFreeze(c.pods);
    const states = c.noStates ? new Map() : statesFor([swh], pods, c.decide);
    const opts = c.nodeName === undefined ? noZone : { ...noZone, nodeName: c.nodeName };
    expect(published(aggregateEndpoints(swh, pods, states, opts))).toEqual(c.expected);
  });

  it("names the first failing probe of a group with its reason", () => {
    const swh = deepFreeze(aSwh({ probes: [aTcpProbe(8080), anHttpProbe(8080, "/ready")] }));
    const pods = deepFreeze([aPod()]);
    const states = statesFor([swh], pods, (t) =>
      t.probe.mode === "HTTP"
        ? { passing: false, reason: "HTTPStatus", message: "status 503" }
        : { passing: true },
    );
    const [group] = aggregateEndpoints(swh, pods, states, noZone).groups;
    expect(group?.endpoints[0]?.failure).toMatchObject({
      probeIndex: 1,
      failingProbe: "HTTP :8080 /ready",
      reason: "HTTPStatus",
      message: "status 503",
    });
  });

  it("reports NotProbedYet for a probe without a result", () => {
    const swh = deepFreeze(aSwh({ probes: [aTcpProbe(8080)] }));
    const [group] = aggregateEndpoints(swh, deepFreeze([aPod()]), new Map(), noZone).groups;
    expect(group?.endpoints[0]?.failure).toMatchObject({ reason: "NotProbedYet", failingProbe: "TCP :8080" });
  });

  it("reports probes whose port no Service port uses, and unresolvable names", () => {
    const swh = deepFreeze(
      aSwh({
        spec: { ports: [aPort(), aPort({ name: "grpc", port: 50051, targetPort: "grpc" })] },
        probes: [aTcpProbe(8080), aTcpProbe(9090), aTcpProbe("admin")],
      }),
    );
    const pods = deepFreeze([aPod()]);
    const { issues, groups } = aggregateEndpoints(swh, pods, statesFor([swh], pods), noZone);
    expect(issues.map((i) => `${i.kind} ${i.path} ${i.pod}`)).toEqual([
      "ProbePortUnused spec.healthcheck.probes[1].tcp.targetPort default/web-1",
      "ProbePortNotFound spec.healthcheck.probes[2].tcp.targetPort default/web-1",
      "TargetPortNotFound spec.ports[1].targetPort default/web-1",
    ]);
    expect(groups.map((g) => g.portName)).toEqual(["http"]);
  });

  it("keeps two SWHs selecting the same pod independent", () => {
    const strict = deepFreeze(aSwh({ name: "strict", probes: [anHttpProbe(8080, "/deep")] }));
    const loose = deepFreeze(aSwh({ name: "loose", probes: [aTcpProbe(8080)] }));
    const pods = deepFreeze([aPod()]);
    const states = statesFor([strict, loose], pods, (t) => ({ passing: t.probe.mode === "TCP" }));
    expect(published(aggregateEndpoints(strict, pods, states, noZone))).toEqual([
      "http/IPv4/8080/TCP 10.244.1.1 web-1 ---",
    ]);
    expect(published(aggregateEndpoints(loose, pods, states, noZone))).toEqual([
      "http/IPv4/8080/TCP 10.244.1.1 web-1 rs-",
    ]);
  });

  it("fills zone, nodeName, targetRef and appProtocol", () => {
    const swh = deepFreeze(aSwh({ spec: { ports: [aPort({ appProtocol: "http" })] } }));
    const result = aggregateEndpoints(swh, deepFreeze([aPod()]), new Map(), {
      zoneOf: (n) => `zone-of-${n}`,
    });
    expect(result.groups).toEqual([
      {
        portName: "http",
        port: 8080,
        protocol: "TCP",
        appProtocol: "http",
        addressFamily: "IPv4",
        endpoints: [
          {
            address: "10.244.1.1",
            conditions: { ready: true, serving: true, terminating: false },
            nodeName: "node-a",
            zone: "zone-of-node-a",
            targetRef: { kind: "Pod", name: "web-1", namespace: "default", uid: "uid-web-1" },
          },
        ],
      },
    ]);
  });

  it("does not depend on the order of pods", () => {
    const swh = deepFreeze(aSwh({ probes: [aTcpProbe(8080)] }));
    const pods = deepFreeze([1, 2, 3, 4].map((i) => aPod({ name: `web-${i}`, ips: [`10.244.1.${i}`] })));
    const states = statesFor([swh], pods, (t) => ({ passing: t.address.endsWith("2") }));
    const forward = aggregateEndpoints(swh, pods, states, noZone);
    const backward = aggregateEndpoints(swh, [...pods].reverse(), states, noZone);
    expect(backward).toEqual(forward);
  });
});

/** `port reason failingProbe` of each endpoint of `result`, for the fail-closed cases. */
function failures(result: Aggregation): string[] {
  return result.groups.flatMap((g) =>
    g.endpoints.map(
      (e) =>
        `${g.portName} ${e.targetRef.name} ${e.conditions.serving ? "serving" : "not-serving"} ` +
        `${e.failure?.reason ?? "-"} ${e.failure?.failingProbe ?? "-"}`,
    ),
  );
}

/** A probe as a stored object of a newer schema (or garbage) may hold it: a mode this version does not run. */
function aProbeOfMode(mode: unknown): DefaultedProbeSpec {
  return { ...aTcpProbe(8080), mode, tcp: undefined, udp: { port: 8080 } } as unknown as DefaultedProbeSpec;
}

describe("aggregateEndpoints fails closed on probes that cannot run", () => {
  const twoPorts = [aPort(), aPort({ name: "metrics", port: 9090, targetPort: 9090 })];

  it("takes the pod out of every port with PortNotFound when a probe's named targetPort is no container port", () => {
    const swh = deepFreeze(
      aSwh({ spec: { ports: twoPorts }, probes: [aTcpProbe(8080), aTcpProbe("smtpp")] }),
    );
    const pods = deepFreeze([aPod()]);
    const result = aggregateEndpoints(swh, pods, statesFor([swh], pods), noZone);
    expect(published(result)).toEqual([
      "http/IPv4/8080/TCP 10.244.1.1 web-1 ---",
      "metrics/IPv4/9090/TCP 10.244.1.1 web-1 ---",
    ]);
    expect(failures(result)).toEqual([
      "http web-1 not-serving PortNotFound TCP :smtpp",
      "metrics web-1 not-serving PortNotFound TCP :smtpp",
    ]);
    expect(result.groups[0]?.endpoints[0]?.failure?.message).toContain('"smtpp" is not a container port');
    expect(result.issues.map((i) => `${i.kind} ${i.path} ${i.pod}`)).toEqual([
      "ProbePortNotFound spec.healthcheck.probes[1].tcp.targetPort default/web-1",
    ]);
  });

  it("fails only the pods that lack the named port", () => {
    const swh = deepFreeze(aSwh({ probes: [anHttpProbe("admin")] }));
    const withAdmin = aPod({
      name: "web-2",
      ips: ["10.244.1.2"],
      containerPorts: [
        { name: "http", containerPort: 8080, protocol: "TCP" },
        { name: "admin", containerPort: 8080, protocol: "TCP" },
      ],
    });
    const pods = deepFreeze([aPod(), withAdmin]);
    const result = aggregateEndpoints(swh, pods, statesFor([swh], pods), noZone);
    expect(failures(result)).toEqual([
      "http web-1 not-serving PortNotFound HTTP :admin /healthz",
      "http web-2 serving - -",
    ]);
  });

  it.each([
    ["UDP", "UDP"],
    [7, "7"],
    [undefined, "undefined"],
  ])("takes every pod out of every port with UnsupportedMode for mode %j", (mode, shown) => {
    const swh = deepFreeze(aSwh({ spec: { ports: twoPorts }, probes: [aProbeOfMode(mode)] }));
    const pods = deepFreeze([aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"] })]);
    const result = aggregateEndpoints(swh, pods, statesFor([swh], pods), noZone);
    expect(failures(result)).toEqual([
      `http web-1 not-serving UnsupportedMode ${shown}`,
      `http web-2 not-serving UnsupportedMode ${shown}`,
      `metrics web-1 not-serving UnsupportedMode ${shown}`,
      `metrics web-2 not-serving UnsupportedMode ${shown}`,
    ]);
    expect(result.issues.map((i) => `${i.kind} ${i.path} ${i.pod ?? "all pods"}`)).toEqual([
      "ProbeModeUnsupported spec.healthcheck.probes[0].mode all pods",
    ]);
    expect(planProbeTargets([swh], pods)).toEqual([]);
  });

  it("names the first failing probe in spec order: an earlier probe's own failure comes first", () => {
    const swh = deepFreeze(
      aSwh({ spec: { ports: twoPorts }, probes: [aTcpProbe(8080), aTcpProbe("smtpp")] }),
    );
    const pods = deepFreeze([aPod()]);
    const result = aggregateEndpoints(swh, pods, statesFor([swh], pods, failing(8080)), noZone);
    expect(failures(result)).toEqual([
      "http web-1 not-serving ConnectionRefused TCP :8080",
      "metrics web-1 not-serving PortNotFound TCP :smtpp",
    ]);
  });

  it("keeps publishNotReadyAddresses endpoints ready while serving reports the failure", () => {
    const swh = deepFreeze(aSwh({ spec: { publishNotReadyAddresses: true }, probes: [aTcpProbe("smtpp")] }));
    const pods = deepFreeze([aPod()]);
    expect(published(aggregateEndpoints(swh, pods, statesFor([swh], pods), noZone))).toEqual([
      "http/IPv4/8080/TCP 10.244.1.1 web-1 r--",
    ]);
  });

  it("gives the failure a target id of its own per address, stable across calls", () => {
    const swh = deepFreeze(aSwh({ probes: [aTcpProbe("smtpp")] }));
    const pods = deepFreeze([aPod({ ips: ["10.244.1.1", "fd00:10:244::1:1"] })]);
    const ids = () =>
      aggregateEndpoints(swh, pods, new Map(), noZone).groups.map((g) => g.endpoints[0]?.failure?.targetId);
    expect(ids()).toEqual(["unrunnable/10.244.1.1/probes[0]", "unrunnable/fd00:10:244::1:1/probes[0]"]);
    expect(ids()).toEqual(ids());
  });
});
