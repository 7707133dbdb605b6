/**
 * Properties of the Service planner over generated SWH specs: once the Service the plan asks for is stored (with
 * what the API server allocates and defaults added), planning again asks for nothing; and after any spec change
 * the update plan, once stored, is again in sync (one write per change, never a loop).
 */
import type { V1Service, V1ServiceSpec } from "@kubernetes/client-node";
import type { ServiceFields } from "@swh/crd-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planService } from "../src/index.js";
import { aSwh } from "./support/service-builders.js";

const portArb = fc.record(
  {
    name: fc.constantFrom("http", "https", "db", "metrics"),
    protocol: fc.constantFrom("TCP" as const, "UDP" as const),
    port: fc.integer({ min: 1, max: 65535 }),
    targetPort: fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constantFrom("web", "pg")),
    appProtocol: fc.constantFrom("http", "kubernetes.io/h2c"),
  },
  { requiredKeys: ["name", "port"] },
);

/** Specs the Service API accepts: type-dependent fields only with the types that allow them. */
const specArb: fc.Arbitrary<ServiceFields> = fc
  .record(
    {
      type: fc.constantFrom("ClusterIP" as const, "NodePort" as const, "LoadBalancer" as const),
      // The Service API refuses two ports with the same number and protocol, or the same name.
      ports: fc
        .uniqueArray(portArb, {
          minLength: 1,
          maxLength: 4,
          selector: (p) => `${p.port}/${p.protocol ?? "TCP"}`,
        })
        .map((ports) => ports.map((p, i) => ({ ...p, name: `${p.name}-${i}` }))),
      externalIPs: fc.array(fc.constantFrom("192.0.2.1", "192.0.2.2"), { maxLength: 2 }),
      externalTrafficPolicy: fc.constantFrom("Cluster" as const, "Local" as const),
      internalTrafficPolicy: fc.constantFrom("Cluster" as const, "Local" as const),
      publishNotReadyAddresses: fc.boolean(),
      sessionAffinity: fc.constantFrom("None" as const, "ClientIP" as const),
      trafficDistribution: fc.constant("PreferClose"),
      loadBalancerClass: fc.constant("example.com/lb"),
      loadBalancerSourceRanges: fc.array(fc.constantFrom("10.0.0.0/8", "192.168.0.0/16"), { maxLength: 2 }),
    },
    { requiredKeys: ["ports"] },
  )
  .map((spec) => {
    const out: ServiceFields = { ...spec };
    const type = spec.type ?? "ClusterIP";
    if (type === "ClusterIP") delete out.externalTrafficPolicy;
    if (type !== "LoadBalancer") {
      delete out.loadBalancerClass;
      delete out.loadBalancerSourceRanges;
    }
    return out;
  });

const labelsArb = fc.dictionary(fc.constantFrom("app", "tier", "team", "env"), fc.constantFrom("a", "b"), {
  maxKeys: 3,
});

/** What the API server adds when it stores `service` (allocations and defaults), on top of what was sent. */
function storeAsServer(service: V1Service, previous?: V1Service): V1Service {
  const spec: V1ServiceSpec = structuredClone(service.spec ?? {});
  const type = spec.type ?? "ClusterIP";
  spec.clusterIP ??= previous?.spec?.clusterIP ?? "10.96.0.10";
  spec.clusterIPs ??= previous?.spec?.clusterIPs ?? [spec.clusterIP];
  spec.ipFamilies ??= ["IPv4"];
  spec.ipFamilyPolicy ??= "SingleStack";
  spec.internalTrafficPolicy ??= "Cluster";
  if (type === "NodePort" || type === "LoadBalancer") {
    spec.externalTrafficPolicy ??= "Cluster";
    let next = 30000;
    for (const port of spec.ports ?? []) port.nodePort ??= next++;
  } else {
    delete spec.externalTrafficPolicy;
  }
  if (type === "LoadBalancer") {
    spec.allocateLoadBalancerNodePorts ??= true;
    if (spec.externalTrafficPolicy === "Local") spec.healthCheckNodePort ??= 32000;
  }
  return { ...service, metadata: { ...service.metadata, resourceVersion: "1", uid: "svc" }, spec };
}

describe("planService properties", () => {
  it("is in sync right after the Service it asked for was stored", () => {
    fc.assert(
      fc.property(specArb, labelsArb, (spec, labels) => {
        const swh = aSwh(spec, { labels });
        const plan = planService(swh, undefined);
        expect(plan.action).toBe("create");
        if (plan.action !== "create") return;
        expect(planService(swh, storeAsServer(plan.service))).toEqual({ action: "none" });
      }),
      { numRuns: 300 },
    );
  });

  it("needs exactly one write to follow any change of the SWH", () => {
    fc.assert(
      fc.property(specArb, specArb, labelsArb, labelsArb, (before, after, labelsBefore, labelsAfter) => {
        const first = planService(aSwh(before, { labels: labelsBefore }), undefined);
        if (first.action !== "create") throw new Error("expected create");
        const stored = storeAsServer(first.service);
        const changed = aSwh(after, { labels: labelsAfter });
        const plan = planService(changed, stored);
        if (plan.action === "none") return;
        expect(plan.action).toBe("update");
        if (plan.action !== "update") return;
        expect(plan.service.spec?.clusterIP).toBe("10.96.0.10");
        expect(planService(changed, storeAsServer(plan.service, stored))).toEqual({ action: "none" });
      }),
      { numRuns: 300 },
    );
  });
});
