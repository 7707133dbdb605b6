import type { V1Service } from "@kubernetes/client-node";
import { LABEL_MANAGED_SERVICE, MANAGED_BY, tcpProbe } from "@swh/crd-types";
import { ANNOTATION_SWH_SPEC, publishedSpecValue, readPublishedSwh } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { planService } from "../src/index.js";
import { aStoredService, aSwh, ownerRef, SWH_UID } from "./support/service-builders.js";

function updated(plan: ReturnType<typeof planService>): V1Service {
  if (plan.action !== "update") throw new Error(`expected update, got ${JSON.stringify(plan)}`);
  return plan.service;
}

function created(plan: ReturnType<typeof planService>): V1Service {
  if (plan.action !== "create") throw new Error(`expected create, got ${JSON.stringify(plan)}`);
  return plan.service;
}

describe("planService: create", () => {
  it("creates a selector-less Service carrying every Service field of the SWH", () => {
    const swh = aSwh({
      type: "LoadBalancer",
      selector: { app: "web" },
      ports: [
        { name: "http", port: 80, targetPort: "web", appProtocol: "http" },
        { name: "dns", port: 53, protocol: "UDP", nodePort: 30053 },
      ],
      externalIPs: ["192.0.2.1"],
      externalTrafficPolicy: "Local",
      internalTrafficPolicy: "Local",
      healthCheckNodePort: 32000,
      ipFamilies: ["IPv4", "IPv6"],
      ipFamilyPolicy: "PreferDualStack",
      loadBalancerClass: "example.com/lb",
      loadBalancerIP: "192.0.2.10",
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      allocateLoadBalancerNodePorts: false,
      publishNotReadyAddresses: true,
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
      trafficDistribution: "PreferClose",
    });
    const plan = planService(swh, undefined);
    expect(plan.action).toBe("create");
    if (plan.action !== "create") return;
    expect(plan.service.metadata?.ownerReferences).toEqual([ownerRef()]);
    expect(plan.service.spec).toEqual({
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, targetPort: "web", protocol: "TCP", appProtocol: "http" },
        { name: "dns", port: 53, targetPort: 53, protocol: "UDP", nodePort: 30053 },
      ],
      externalIPs: ["192.0.2.1"],
      externalTrafficPolicy: "Local",
      internalTrafficPolicy: "Local",
      healthCheckNodePort: 32000,
      ipFamilies: ["IPv4", "IPv6"],
      ipFamilyPolicy: "PreferDualStack",
      loadBalancerClass: "example.com/lb",
      loadBalancerIP: "192.0.2.10",
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      allocateLoadBalancerNodePorts: false,
      publishNotReadyAddresses: true,
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
      trafficDistribution: "PreferClose",
    });
  });

  it("propagates labels and annotations except kubectl and Helm bookkeeping", () => {
    const swh = aSwh(
      {},
      {
        labels: { app: "web" },
        annotations: {
          team: "a",
          "kubectl.kubernetes.io/last-applied-configuration": "{}",
          "meta.helm.sh/release-name": "r",
          "meta.helm.sh/release-namespace": "ns",
        },
      },
    );
    const plan = planService(swh, undefined);
    if (plan.action !== "create") throw new Error("expected create");
    expect(plan.service.metadata?.labels).toEqual({ app: "web", [LABEL_MANAGED_SERVICE]: MANAGED_BY });
    expect(plan.service.metadata?.annotations).toEqual({
      team: "a",
      "network.deckhouse.io/swh-propagated-labels": '["app"]',
      "network.deckhouse.io/swh-propagated-annotations": '["team"]',
      [ANNOTATION_SWH_SPEC]: publishedSpecValue(swh),
    });
  });
});

describe("planService: the spec agents read from the Service (ADR 0032)", () => {
  it("publishes the SWH's uid, generation and spec, which the agents' reader gets back", () => {
    const swh = aSwh({ publishNotReadyAddresses: true });
    const service = created(planService(swh, undefined));
    const read = readPublishedSwh(service);
    expect(read).toEqual({
      state: "swh",
      uid: SWH_UID,
      zoneHints: true,
      failOpen: [],
      swh: {
        apiVersion: swh.apiVersion,
        kind: swh.kind,
        metadata: { name: "web", namespace: "ns", uid: SWH_UID, generation: 3 },
        spec: swh.spec,
      },
    });
  });

  it("rewrites the published spec when the SWH's spec changes, and writes nothing when it did not", () => {
    const before = aSwh();
    const after = aSwh(
      { healthcheck: { probes: [tcpProbe(8080, { timeoutSeconds: 2 })] } },
      { generation: 4 },
    );
    const service = updated(planService(after, aStoredService({}, {}, before)));
    expect(JSON.parse(service.metadata?.annotations?.[ANNOTATION_SWH_SPEC] ?? "")).toEqual({
      uid: SWH_UID,
      generation: 4,
      spec: after.spec,
    });
    expect(planService(after, aStoredService({}, {}, after))).toEqual({ action: "none" });
  });

  it("publishes the zone-hints verdict with the spec: a changed verdict is one Service update (ADR 0035)", () => {
    const swh = aSwh({ trafficDistribution: "PreferClose" });
    const hinted = updated(planService(swh, aStoredService({}, {}, aSwh()), { zoneHints: true }));
    const published = () => JSON.parse(hinted.metadata?.annotations?.[ANNOTATION_SWH_SPEC] ?? "");
    expect(published()).toMatchObject({ uid: SWH_UID, zoneHints: true });
    expect(readPublishedSwh(hinted)).toMatchObject({ state: "swh", zoneHints: true });
    // The same verdict again writes nothing; the other verdict rewrites the annotation, and agents read it.
    expect(planService(swh, hinted, { zoneHints: true })).toEqual({ action: "none" });
    const withheld = updated(planService(swh, hinted, { zoneHints: false }));
    expect(readPublishedSwh(withheld)).toMatchObject({ state: "swh", zoneHints: false });
  });

  it("puts back a published spec someone edited, and never takes one from the SWH's own annotations", () => {
    const swh = aSwh({}, { annotations: { [ANNOTATION_SWH_SPEC]: '{"uid":"forged","spec":{}}' } });
    const edited = aStoredService({}, {}, aSwh({ sessionAffinity: "ClientIP" }));
    const service = updated(planService(swh, edited));
    expect(service.metadata?.annotations?.[ANNOTATION_SWH_SPEC]).toBe(publishedSpecValue(swh));
    expect(service.metadata?.annotations?.["network.deckhouse.io/swh-propagated-annotations"]).toBe("[]");
  });
});

describe("planService: in sync", () => {
  it("makes no write when the stored Service matches, allocated and defaulted fields included", () => {
    expect(planService(aSwh(), aStoredService())).toEqual({ action: "none" });
  });

  it("makes no write for a NodePort Service whose node ports were allocated", () => {
    const swh = aSwh({ type: "NodePort" });
    const stored = aStoredService(
      {
        type: "NodePort",
        externalTrafficPolicy: "Cluster",
        ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP", nodePort: 31000 }],
      },
      {},
      swh,
    );
    expect(planService(swh, stored)).toEqual({ action: "none" });
  });

  it("makes no write for a LoadBalancer with allocated health-check node port and defaults", () => {
    const swh = aSwh({ type: "LoadBalancer", externalTrafficPolicy: "Local" });
    const stored = aStoredService(
      {
        type: "LoadBalancer",
        externalTrafficPolicy: "Local",
        healthCheckNodePort: 32123,
        allocateLoadBalancerNodePorts: true,
        ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP", nodePort: 31000 }],
      },
      {},
      swh,
    );
    expect(planService(swh, stored)).toEqual({ action: "none" });
  });
});

describe("planService: update", () => {
  it("follows port and source-range changes while keeping cluster IP and node ports", () => {
    const swh = aSwh({
      type: "NodePort",
      ports: [
        { name: "http", port: 80, targetPort: 8081 },
        { name: "https", port: 443, targetPort: 8443 },
      ],
      loadBalancerSourceRanges: ["10.1.0.0/16"],
    });
    const stored = aStoredService({
      type: "NodePort",
      externalTrafficPolicy: "Cluster",
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP", nodePort: 31000 }],
    });
    const service = updated(planService(swh, stored));
    expect(service.metadata?.resourceVersion).toBe("100");
    expect(service.spec?.clusterIP).toBe("10.96.0.10");
    expect(service.spec?.clusterIPs).toEqual(["10.96.0.10"]);
    expect(service.spec?.ports).toEqual([
      { name: "http", port: 80, targetPort: 8081, protocol: "TCP", nodePort: 31000 },
      { name: "https", port: 443, targetPort: 8443, protocol: "TCP" },
    ]);
    expect(service.spec?.loadBalancerSourceRanges).toEqual(["10.1.0.0/16"]);
  });

  it("removes fields the SWH no longer sets, and a selector someone added", () => {
    const stored = aStoredService({
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      externalIPs: ["192.0.2.1"],
      selector: { a: "b" },
    });
    const service = updated(planService(aSwh(), stored));
    expect(service.spec?.loadBalancerSourceRanges).toBeUndefined();
    expect(service.spec?.externalIPs).toBeUndefined();
    expect(service.spec?.selector).toBeUndefined();
  });

  it("drops node ports when the type goes back to ClusterIP", () => {
    const stored = aStoredService({
      type: "NodePort",
      externalTrafficPolicy: "Cluster",
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP", nodePort: 31000 }],
    });
    const service = updated(planService(aSwh(), stored));
    expect(service.spec?.type).toBe("ClusterIP");
    expect(service.spec?.ports?.[0]?.nodePort).toBeUndefined();
    expect(service.spec?.externalTrafficPolicy).toBeUndefined();
  });

  it("keeps fields of the stored spec it does not manage", () => {
    const stored = aStoredService({ futureField: "x" } as V1Service["spec"]);
    const service = updated(planService(aSwh({ externalIPs: ["192.0.2.9"] }), stored));
    expect((service.spec as Record<string, unknown>).futureField).toBe("x");
  });

  it("removes labels it propagated earlier and keeps labels set by others", () => {
    const stored = aStoredService(
      {},
      {
        labels: { app: "web", old: "x", byOthers: "y", [LABEL_MANAGED_SERVICE]: MANAGED_BY },
        annotations: {
          "network.deckhouse.io/swh-propagated-labels": '["app","old"]',
          "network.deckhouse.io/swh-propagated-annotations": '["gone"]',
          gone: "1",
          "lb.example.com/id": "abc",
        },
      },
    );
    const swh = aSwh({}, { labels: { app: "web2" } });
    const service = updated(planService(swh, stored));
    expect(service.metadata?.labels).toEqual({
      app: "web2",
      byOthers: "y",
      [LABEL_MANAGED_SERVICE]: MANAGED_BY,
    });
    expect(service.metadata?.annotations).toEqual({
      "lb.example.com/id": "abc",
      "network.deckhouse.io/swh-propagated-labels": '["app"]',
      "network.deckhouse.io/swh-propagated-annotations": "[]",
      [ANNOTATION_SWH_SPEC]: publishedSpecValue(swh),
    });
  });
});

describe("planService: the label agents watch Services by", () => {
  const managed = { [LABEL_MANAGED_SERVICE]: MANAGED_BY };

  it("labels a Service an older controller created without the label (upgrade)", () => {
    const service = updated(planService(aSwh(), aStoredService({}, { labels: { app: "x" } })));
    expect(service.metadata?.labels).toEqual({ app: "x", ...managed });
  });

  it("puts the label back when someone removed it, and keeps it when an SWH label claims the key", () => {
    expect(updated(planService(aSwh(), aStoredService({}, { labels: {} }))).metadata?.labels).toEqual(
      managed,
    );
    const swh = aSwh({}, { labels: { [LABEL_MANAGED_SERVICE]: "other" } });
    expect(updated(planService(swh, aStoredService())).metadata?.labels).toEqual(managed);
  });

  it("labels a Service it adopts", () => {
    const adopted = aStoredService({}, { ownerReferences: [], labels: {}, annotations: {} });
    expect(updated(planService(aSwh(), adopted)).metadata?.labels).toEqual(managed);
  });

  it("never labels a Service it does not manage", () => {
    const selecting = aStoredService({ selector: { app: "web" } }, { ownerReferences: [], labels: {} });
    expect(planService(aSwh(), selecting).action).toBe("blocked");
  });
});

describe("planService: ownership", () => {
  const foreign = (metadata: V1Service["metadata"], spec: V1Service["spec"] = {}) =>
    aStoredService(spec, { ownerReferences: [], annotations: {}, ...metadata });

  it("adopts a selector-less Service that has no controller, keeping its other owners", () => {
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "c1" };
    const plan = planService(aSwh(), foreign({ ownerReferences: [other] }));
    expect(plan.action === "update" && plan.adopt).toBe(true);
    expect(updated(plan).metadata?.ownerReferences).toEqual([other, ownerRef()]);
  });

  it.each([
    [
      "controlled by another object",
      foreign({ ownerReferences: [{ ...ownerRef("other-uid"), kind: "Thing" }] }),
      "ServiceOwnedByOther",
    ],
    [
      "controlled by a namesake SWH that was deleted",
      foreign({ ownerReferences: [ownerRef("old-uid")] }),
      "ServiceOwnedByOther",
    ],
    ["selecting pods", foreign({}, { selector: { app: "web" } }), "ServiceHasSelector"],
    ["being deleted", aStoredService({}, { deletionTimestamp: new Date(0) }), "ServiceDeleting"],
  ])("leaves a Service %s untouched and says why", (_what, stored, reason) => {
    const plan = planService(aSwh(), stored);
    expect(plan).toMatchObject({ action: "blocked", reason });
  });

  it("never adopts, writes or creates default/kubernetes, and says why", () => {
    const kubernetes = aSwh({}, { name: "kubernetes", namespace: "default" });
    const apiServerService = aStoredService(
      { ports: [{ name: "https", port: 443, targetPort: 6443, protocol: "TCP" }] },
      { name: "kubernetes", namespace: "default", ownerReferences: [], annotations: {} },
    );
    for (const stored of [apiServerService, undefined]) {
      expect(planService(kubernetes, stored)).toMatchObject({ action: "blocked", reason: "ServiceReserved" });
    }
    // Even a Service that an editor of `default` pointed at the SWH stays untouched.
    const pointed = aStoredService({}, { name: "kubernetes", namespace: "default" });
    expect(planService(kubernetes, pointed)).toMatchObject({ action: "blocked", reason: "ServiceReserved" });
    // The name is reserved in `default` only.
    expect(planService(aSwh({}, { name: "kubernetes", namespace: "team-a" }), undefined).action).toBe(
      "create",
    );
  });

  it.each([
    ["another IP", { clusterIP: "10.96.0.99" }],
    ["headless", { clusterIP: "None" }],
  ])("reports a cluster IP change to %s instead of writing", (_what, spec) => {
    expect(planService(aSwh(spec), aStoredService())).toMatchObject({
      action: "blocked",
      reason: "ClusterIPImmutable",
    });
  });

  it("reports a headless Service that would need a cluster IP", () => {
    const stored = aStoredService({ clusterIP: "None", clusterIPs: ["None"] });
    expect(planService(aSwh(), stored)).toMatchObject({ action: "blocked", reason: "ClusterIPImmutable" });
    const headless = aSwh({ clusterIP: "None" });
    expect(
      planService(headless, aStoredService({ clusterIP: "None", clusterIPs: ["None"] }, {}, headless)),
    ).toEqual({
      action: "none",
    });
  });
});
