/** A node as the agent's decisions see it, for unit tests of reconcile and restart. */
import type { KubernetesObject, V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import {
  type AggregationIssue,
  newServiceFor,
  type PodInfo,
  type ProbeState,
  planNodeTargets,
  type ReadinessGateUpdate,
  type SwhInput,
  type SwhObject,
  swhInputFromObject,
} from "@swh/aggregation";
import type { ServiceWithHealthchecks } from "@swh/crd-types";
import { type Publication, readPublishedSwh, type ServiceSwh } from "@swh/crd-types/internal";
import { createLogger } from "@swh/kube";
import type { EndpointCounts } from "@swh/metrics";
import {
  type EndpointTransition,
  planSlices,
  readSlice,
  seedFromSlices,
  type WriteRequest,
} from "@swh/slice-writer";
import { reconcileSwh, type SwhRef, type UnusableSpec } from "../../src/reconcile-swh.js";
import { NODE } from "../builders.js";

/** An SWH as the agent reads it from its Service. */
export type SwhSlicesObject = KubernetesObject & SwhObject;

/**
 * A node as the reconciler sees it. `write` plans with the real slice planner and keeps the result as the
 * "existing" slices, counting writes: a stand-in for the API server that is enough for decisions.
 */
const QUIET = createLogger({ level: "error" });

export class World {
  swhs: SwhSlicesObject[] = [];
  pods: PodInfo[] = [];
  states = new Map<string, ProbeState>();
  slices: V1EndpointSlice[] = [];
  writes = 0;
  /** Readiness gate conditions written, in order. */
  gateWrites: ReadinessGateUpdate[] = [];
  transitions: EndpointTransition[] = [];
  counts = new Map<string, EndpointCounts | undefined>();
  /**
   * The Services; undefined = each SWH has the Service its controller would create for it (the usual case):
   * selector-less, controlled by the SWH, publishing its spec.
   */
  services: V1Service[] | undefined;
  publications = new Map<string, Publication | undefined>();
  /** Aggregation issues reported, as `<swh> <kind> <path>`. */
  issues: string[] = [];
  /** SWHs reported as unprocessable, with what they threw. */
  unprocessable: { swh: SwhInput; error: unknown }[] = [];
  /** Services whose published spec could not be used, as `<namespace>/<name> <state>`. */
  unusable: string[] = [];
  /** How Services are read: the agents' reader unless a test replaces it. */
  swhOf: (service: V1Service) => ServiceSwh = readPublishedSwh;
  #version = 0;

  /** Runs the agent's reconcile of `key` against this world: its reads, its writes and its reports. */
  reconcile(key = "shop/web"): Promise<void> {
    const reads = {
      service: async (ns: string, name: string) => {
        const service = this.service(ns, name);
        return service === undefined ? undefined : { service, swh: this.swhOf(service) };
      },
      ownSlices: (ns: string, name: string) =>
        this.slices.filter(
          (s) => s.metadata?.namespace === ns && s.metadata?.labels?.["kubernetes.io/service-name"] === name,
        ),
      aggregationInput: () => ({
        nodeName: NODE,
        pods: this.pods,
        states: this.states,
        zoneOf: () => "zone-1",
      }),
    };
    const reports = {
      unusableSpec: (ref: SwhRef, unusable: UnusableSpec) =>
        this.unusable.push(`${ref.namespace}/${ref.name} ${unusable.state}`),
      publication: (ref: SwhRef, publication: Publication | undefined) =>
        this.publications.set(`${ref.namespace}/${ref.name}`, publication),
      transitions: (_swh: SwhRef, t: readonly EndpointTransition[]) => this.transitions.push(...t),
      endpoints: (ref: SwhRef, counts: EndpointCounts | undefined) =>
        this.counts.set(`${ref.namespace}/${ref.name}`, counts),
      issues: (swh: SwhInput, issues: readonly AggregationIssue[]) =>
        this.issues.push(...issues.map((i) => `${swh.name} ${i.kind} ${i.path}`)),
      unprocessable: (swh: SwhInput, error: unknown) => this.unprocessable.push({ swh, error }),
    };
    const writes = {
      slices: { write: async (request: WriteRequest) => this.write(request) },
      gates: { write: async (updates: readonly ReadinessGateUpdate[]) => this.writeGates(updates) },
    };
    return reconcileSwh(key, reads, writes, reports, QUIET);
  }

  service(ns: string, name: string): V1Service | undefined {
    if (this.services !== undefined)
      return this.services.find((s) => s.metadata?.namespace === ns && s.metadata?.name === name);
    const swh = this.swhs.find((s) => s.metadata?.namespace === ns && s.metadata?.name === name);
    return swh === undefined ? undefined : managedService(swh);
  }

  write(request: WriteRequest): void {
    const plan = planSlices({
      swh: request.swh,
      nodeName: NODE,
      groups: request.groups,
      existing: request.existing,
    });
    this.writes += plan.create.length + plan.update.length + plan.delete.length;
    const gone = new Set([...plan.update, ...plan.delete].map((s) => s.metadata?.name));
    this.slices = this.slices.filter((s) => !gone.has(s.metadata?.name));
    for (const slice of [...plan.create, ...plan.update]) {
      this.slices.push({
        ...slice,
        metadata: { ...slice.metadata, resourceVersion: String(++this.#version) },
      });
    }
  }

  /** Records the gate writes and sets each pod's condition as the API server would. */
  writeGates(updates: readonly ReadinessGateUpdate[]): void {
    this.gateWrites.push(...updates);
    this.pods = this.pods.map((pod) => {
      const update = updates.find((u) => u.pod.uid === pod.uid);
      if (update === undefined) return pod;
      const { status, reason } = update.condition;
      const gates = (pod.readinessGates ?? []).map((g) =>
        `swh.network.deckhouse.io/${g.swh}` === update.condition.type
          ? { swh: g.swh, current: { status, reason } }
          : g,
      );
      return { ...pod, readinessGates: gates };
    });
  }

  /** What the slices say for `address` on `port`. */
  endpoint(port: number, address: string) {
    for (const slice of this.slices) {
      const view = readSlice(slice);
      if (view?.port !== port) continue;
      const endpoint = view.endpoints.find((e) => e.address === address);
      if (endpoint) return { ...endpoint.conditions, reason: endpoint.reason?.reason };
    }
    return undefined;
  }

  targets() {
    return planNodeTargets(
      this.swhs.flatMap((s) => swhInputFromObject(s) ?? []),
      this.pods,
      NODE,
    );
  }
}

/** The Service the controller creates for `swh` (its own code: the same object, spec annotation included). */
export function managedService(swh: SwhSlicesObject): V1Service {
  return newServiceFor(swh as unknown as ServiceWithHealthchecks);
}

/** The probe states a restarted agent starts from, read from `world`'s slices only: the agent's own seeding. */
export function restartSeeds(world: World): Map<string, ProbeState> {
  return seedFromSlices({
    nodeName: NODE,
    swhs: world.swhs.flatMap((x) => swhInputFromObject(x) ?? []),
    pods: world.pods,
    targets: world.targets(),
    slices: world.slices,
  }).seeds;
}
