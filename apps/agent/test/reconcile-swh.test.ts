import type { V1Service } from "@kubernetes/client-node";
import { swhInputFromObject } from "@swh/aggregation";
import { ANNOTATION_SWH_SPEC, ownerReferenceTo, readPublishedSwh } from "@swh/crd-types/internal";
import { TerminalError } from "@swh/kube";
import { seedPrecedingProbes } from "@swh/slice-writer";
import { describe, expect, it } from "vitest";
import { anHttpProbe, aPod, aPort, aSwhObject, aTcpProbe, NODE } from "./builders.js";
import { managedService, restartSeeds, World } from "./support/world.js";

const twoPorts = {
  ports: [
    aPort({ name: "http", port: 80, targetPort: 8080 }),
    aPort({ name: "admin", port: 90, targetPort: 9090 }),
  ],
};

describe("reconcileSwh", () => {
  it("takes a pod out of the failing port only, with the reason on the slice", async () => {
    const world = new World();
    world.swhs = [aSwhObject({ probes: [anHttpProbe(8080), aTcpProbe(9090)], spec: twoPorts })];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    for (const t of world.targets().targets) {
      world.states.set(
        t.id,
        t.port === 8080 ? { passing: false, reason: "HTTPStatus", message: "status 503" } : { passing: true },
      );
    }
    await world.reconcile();
    expect(world.endpoint(8080, "10.244.1.5")).toEqual({
      ready: false,
      serving: false,
      terminating: false,
      reason: "HTTPStatus",
    });
    expect(world.endpoint(9090, "10.244.1.5")).toEqual({
      ready: true,
      serving: true,
      terminating: false,
      reason: undefined,
    });
    expect(world.counts.get("shop/web")).toEqual({ ready: 1, not_ready: 1, terminating: 0 });
  });

  it("writes nothing when reconciled again with nothing changed", async () => {
    const world = new World();
    world.swhs = [aSwhObject({ probes: [aTcpProbe(8080)] })];
    world.pods = [aPod()];
    await world.reconcile();
    const writes = world.writes;
    await world.reconcile();
    expect(world.writes).toBe(writes);
  });

  it("after a restart, starting from the published slices writes nothing and withdraws nothing", async () => {
    const world = new World();
    world.swhs = [
      // The TCP probe differs from api's (threshold), so nothing but the annotation tells that it passes.
      aSwhObject({ name: "web", probes: [aTcpProbe(8080, { failureThreshold: 2 }), anHttpProbe(8080)] }),
      aSwhObject({ name: "api", probes: [aTcpProbe(8080)] }),
    ];
    world.pods = [
      aPod({ name: "a", ips: ["10.244.1.5"] }),
      aPod({ name: "b", ips: ["10.244.1.6"] }),
      aPod({ name: "c", ips: ["10.244.1.7"], ready: false }),
      aPod({ name: "d", ips: ["10.244.1.8"], terminating: true }),
    ];
    const before = world.targets();
    for (const t of before.targets) {
      const failing = t.probe.mode === "HTTP" && (t.address === "10.244.1.6" || t.address === "10.244.1.8");
      world.states.set(
        t.id,
        failing ? { passing: false, reason: "Timeout", message: "timed out" } : { passing: true },
      );
    }
    await world.reconcile("shop/web");
    await world.reconcile("shop/api");
    const published = structuredClone(world.slices);
    const writes = world.writes;

    // A new agent: states only from what it finds in its slices.
    world.states = restartSeeds(world);
    await world.reconcile("shop/web");
    await world.reconcile("shop/api");
    expect(world.writes).toBe(writes);
    expect(world.slices).toEqual(published);
  });

  it("keeps a pod in one SWH while another withdraws it", async () => {
    const world = new World();
    world.swhs = [
      aSwhObject({ name: "web", probes: [anHttpProbe(8080)] }),
      aSwhObject({ name: "api", probes: [aTcpProbe(8080)] }),
    ];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    for (const t of world.targets().targets) {
      world.states.set(
        t.id,
        t.probe.mode === "HTTP" ? { passing: false, reason: "HTTPStatus" } : { passing: true },
      );
    }
    await world.reconcile("shop/web");
    await world.reconcile("shop/api");
    const readyOf = (swh: string) =>
      world.slices.find((s) => s.metadata?.labels?.["kubernetes.io/service-name"] === swh)?.endpoints?.[0]
        ?.conditions?.ready;
    expect(readyOf("web")).toBe(false);
    expect(readyOf("api")).toBe(true);
  });

  it("reports readiness transitions of existing endpoints", async () => {
    const world = new World();
    world.swhs = [aSwhObject({ probes: [aTcpProbe(8080)] })];
    world.pods = [aPod({ name: "p", ips: ["10.244.1.5"] })];
    const id = world.targets().targets[0]?.id ?? "";
    world.states.set(id, { passing: true });
    await world.reconcile();
    expect(world.transitions).toEqual([]);
    world.states.set(id, { passing: false, reason: "ConnectionRefused" });
    await world.reconcile();
    expect(world.transitions).toEqual([
      {
        pod: "p",
        address: "10.244.1.5",
        portName: "http",
        port: 8080,
        ready: false,
        failure: { failingProbe: "TCP :8080", reason: "ConnectionRefused" },
      },
    ]);
  });

  it("does nothing for a deleted SWH but forgets its counts", async () => {
    const world = new World();
    await world.reconcile("shop/gone");
    expect(world.writes).toBe(0);
    expect(world.counts.has("shop/gone")).toBe(true);
    expect(world.counts.get("shop/gone")).toBeUndefined();
  });

  it("fails a probe whose named port is missing: the pod serves on no port, with PortNotFound, and it is reported", async () => {
    const world = new World();
    world.swhs = [aSwhObject({ probes: [aTcpProbe(8080), aTcpProbe("smtpp")], spec: twoPorts })];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    for (const t of world.targets().targets) world.states.set(t.id, { passing: true });
    await world.reconcile();
    for (const port of [8080, 9090]) {
      expect(world.endpoint(port, "10.244.1.5")).toEqual({
        ready: false,
        serving: false,
        terminating: false,
        reason: "PortNotFound",
      });
    }
    expect(world.issues).toEqual(["web ProbePortNotFound spec.healthcheck.probes[1].tcp.targetPort"]);
  });

  it("after a restart, an endpoint failing a probe that cannot run is rewritten by nothing", async () => {
    const world = new World();
    world.swhs = [
      aSwhObject({ probes: [aTcpProbe(8080), aTcpProbe("smtpp"), aTcpProbe(9090)], spec: twoPorts }),
    ];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    for (const t of world.targets().targets) world.states.set(t.id, { passing: true });
    await world.reconcile();
    const published = structuredClone(world.slices);
    const writes = world.writes;
    world.states = restartSeeds(world);
    await world.reconcile();
    expect(world.writes).toBe(writes);
    expect(world.slices).toEqual(published);
  });

  it("leaves the slices of an SWH whose published spec is invalid alone and reports it, while another SWH is published", async () => {
    const world = new World();
    const bad = aSwhObject({ name: "bad", probes: [aTcpProbe(8080)] });
    const web = aSwhObject({ name: "web", probes: [aTcpProbe(8080)] });
    world.swhs = [{ ...bad, spec: { ...bad.spec, ports: "smtp" as never } }, web];
    // Someone edited the spec the controller published on the Service: the API server validated none of it.
    const edited = managedService(bad);
    const published = JSON.parse(edited.metadata?.annotations?.[ANNOTATION_SWH_SPEC] ?? "{}");
    published.spec.ports = "smtp";
    const annotations = { [ANNOTATION_SWH_SPEC]: JSON.stringify(published) };
    world.services = [{ ...edited, metadata: { ...edited.metadata, annotations } }, managedService(web)];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    const plan = world.targets();
    expect(plan.rejected.map((r) => r.swh.name)).toEqual(["bad"]);
    expect(plan.targets.map((t) => plan.users.get(t.id)?.map((u) => u.name))).toEqual([["web"]]);
    for (const t of plan.targets) world.states.set(t.id, { passing: true });

    await world.reconcile("shop/bad");
    await world.reconcile("shop/web");
    expect(world.unusable).toEqual(["shop/bad invalid"]);
    expect(world.slices.map((s) => s.metadata?.labels?.["kubernetes.io/service-name"])).toEqual(["web"]);
    expect(world.endpoint(8080, "10.244.1.5")).toMatchObject({ ready: true });
  });

  it("leaves an SWH whose aggregation throws alone with a TerminalError (not retried until it changes)", async () => {
    const world = new World();
    const web = aSwhObject({ probes: [aTcpProbe(8080)] });
    world.swhs = [web];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    await world.reconcile();
    const published = structuredClone(world.slices);
    // A spec the reader let through but the aggregation cannot process (e.g. stored under an older schema).
    world.swhOf = (service) => {
      const read = readPublishedSwh(service);
      if (read.state !== "swh") return read;
      return { ...read, swh: { ...read.swh, spec: { ...read.swh.spec, ports: "smtp" as never } } };
    };
    await expect(world.reconcile()).rejects.toThrow(TerminalError);
    expect(world.unprocessable.map((u) => u.swh.name)).toEqual(["web"]);
    expect(world.slices).toEqual(published);
  });

  it("seeds the other SWHs after a restart when one stored SWH is malformed", () => {
    const world = new World();
    const bad = aSwhObject({ name: "bad", probes: [aTcpProbe(8080)] });
    world.swhs = [
      { ...bad, spec: { ...bad.spec, ipFamilies: 4 as never } },
      aSwhObject({ name: "web", probes: [aTcpProbe(8080)] }),
    ];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    const skipped: string[] = [];
    const swhs = world.swhs.flatMap((x) => swhInputFromObject(x) ?? []);
    expect(() => seedPrecedingProbes(swhs, world.pods, NODE, [], new Map())).toThrow();
    seedPrecedingProbes(swhs, world.pods, NODE, [], new Map(), (swh) => skipped.push(swh.name));
    expect(skipped).toEqual(["bad"]);
  });
});

describe("reconcileSwh: only for a Service the SWH controls", () => {
  const web = aSwhObject({ probes: [aTcpProbe(8080)] });
  const aService = (metadata: V1Service["metadata"], spec: V1Service["spec"] = {}): V1Service => ({
    metadata: { name: "web", namespace: "shop", ...metadata },
    spec,
  });
  const controlled = managedService(web);

  async function publishedWorld(): Promise<World> {
    const world = new World();
    world.swhs = [web];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    world.services = [controlled];
    await world.reconcile();
    expect(world.slices.length).toBe(1);
    return world;
  }

  it.each([
    ["has a selector and no owner", aService({}, { selector: { app: "db" } }), "ServiceHasSelector"],
    [
      "is controlled by a Deployment",
      aService({
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "Deployment", name: "d", uid: "d1", controller: true },
        ],
      }),
      "ServiceOwnedByOther",
    ],
    ["is ownerless (not adopted yet)", aService({}), "ServiceNotAdopted"],
  ])("writes no slice while the Service %s", async (_what, service, reason) => {
    const world = new World();
    world.swhs = [web];
    world.pods = [aPod({ ips: ["10.244.1.5"] })];
    world.services = [service];
    await world.reconcile();
    expect(world.slices).toEqual([]);
    expect(world.writes).toBe(0);
    expect(world.publications.get("shop/web")).toMatchObject({ publish: false, reason });
  });

  it("deletes this node's slices when the Service is taken away, and publishes again when it is given back", async () => {
    const world = await publishedWorld();
    world.services = [aService({}, { selector: { app: "web" } })];
    await world.reconcile();
    expect(world.slices).toEqual([]);
    expect(world.counts.get("shop/web")).toEqual({ ready: 0, not_ready: 0, terminating: 0 });

    world.services = [controlled];
    await world.reconcile();
    expect(world.slices.map((s) => s.endpoints?.map((e) => e.addresses))).toEqual([[["10.244.1.5"]]]);
  });

  it("deletes this node's slices when the Service is deleted", async () => {
    const world = await publishedWorld();
    world.services = [];
    await world.reconcile();
    expect(world.slices).toEqual([]);
    // Gone, not withheld: nothing left to count.
    expect(world.publications.has("shop/web")).toBe(true);
    expect(world.publications.get("shop/web")).toBeUndefined();
  });

  it("leaves this node's slices as they are while the Service publishes no spec (an older controller wrote it)", async () => {
    const world = await publishedWorld();
    const published = structuredClone(world.slices);
    const annotations = { ...controlled.metadata?.annotations };
    delete annotations[ANNOTATION_SWH_SPEC];
    world.services = [{ ...controlled, metadata: { ...controlled.metadata, annotations } }];
    world.states.clear(); // no probe target without a spec: only the published state would be lost
    await world.reconcile();
    expect(world.slices).toEqual(published);
    expect(world.unusable).toEqual(["shop/web missing"]);
    expect(world.publications.get("shop/web")).toEqual({ publish: true });
  });

  it("feeds no Service whose published spec names another SWH than its controller", async () => {
    const world = await publishedWorld();
    const forged = JSON.parse(controlled.metadata?.annotations?.[ANNOTATION_SWH_SPEC] ?? "{}");
    const annotations = { [ANNOTATION_SWH_SPEC]: JSON.stringify({ ...forged, uid: "someone-else" }) };
    world.services = [{ ...controlled, metadata: { ...controlled.metadata, annotations } }];
    await world.reconcile();
    expect(world.slices).toEqual([]);
    expect(world.publications.get("shop/web")).toMatchObject({
      publish: false,
      reason: "ServiceOwnedByOther",
    });
  });

  it("never writes slices for default/kubernetes", async () => {
    const world = new World();
    const kubernetes = { ...aSwhObject({ name: "kubernetes", probes: [aTcpProbe(8080)] }) };
    kubernetes.metadata = { ...kubernetes.metadata, namespace: "default" };
    world.swhs = [kubernetes];
    world.pods = [aPod({ namespace: "default", ips: ["10.244.1.5"] })];
    // Even when an editor of `default` made the Service name the SWH as its controller.
    world.services = [
      {
        metadata: {
          name: "kubernetes",
          namespace: "default",
          ownerReferences: [ownerReferenceTo(kubernetes)],
        },
      },
    ];
    await world.reconcile("default/kubernetes");
    expect(world.slices).toEqual([]);
    expect(world.publications.get("default/kubernetes")).toMatchObject({ reason: "ServiceReserved" });
  });
});
