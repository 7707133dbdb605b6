/**
 * What the agent knows about its node at any moment, read from the informer caches: the node's pods and the SWHs
 * published on the Services (ADR 0032), each read through its one reader; an object that cannot be read is left
 * out and reported (ADR 0015), so one bad object never stops the others. It is the read side of both loops: the
 * targets pass (which pods to probe for which SWHs) and the reconcile of one SWH (`SwhReads`).
 */
import type { V1EndpointSlice, V1Pod } from "@kubernetes/client-node";
import {
  type PodInfo,
  type ProbeStates,
  podInfoFromPod,
  type SwhInput,
  swhInputFromObject,
} from "@swh/aggregation";
import { LABEL_TOPOLOGY_ZONE } from "@swh/crd-types/internal";
import type { NodeAggregationInput, PublishedService, SwhReads } from "../reconcile-swh.js";
import type { AgentInformers } from "./informers.js";
import type { ObjectProblems } from "./object-problems.js";
import type { OwnSlices } from "./own-slices.js";
import type { PublishedSwhs } from "./published-swhs.js";
import type { ReadinessGates } from "./readiness-gates.js";

/** What the view reads. */
interface NodeViewSources {
  nodeName: string;
  informers: AgentInformers;
  published: PublishedSwhs;
  slices: OwnSlices;
  problems: ObjectProblems;
  states: () => ProbeStates;
  gates: ReadinessGates;
}

/** The node as the agent's loops read it (see the file comment). */
export class NodeView implements SwhReads {
  readonly nodeName: string;
  readonly #in: NodeViewSources;

  constructor(sources: NodeViewSources) {
    this.nodeName = sources.nodeName;
    this.#in = sources;
  }

  /** The node's pods as the aggregation reads them; an unreadable pod is reported and left out. */
  pods(): PodInfo[] {
    return this.#in.informers.pods.list().flatMap((cached) => {
      // With this agent's gate writes the informer has not delivered yet (read-your-writes).
      const pod = this.#in.gates.current(cached as V1Pod);
      try {
        const info = podInfoFromPod(pod);
        return info === undefined ? [] : [info];
      } catch (err) {
        this.#in.problems.unreadablePod(pod as V1Pod, err);
        return [];
      }
    });
  }

  /** Every SWH with a usable published spec, defaulted; one that cannot be read is reported and left out. */
  swhs(): SwhInput[] {
    return this.#in.published.list().flatMap((obj) => {
      try {
        const input = swhInputFromObject(obj);
        return input === undefined ? [] : [input];
      } catch (err) {
        const { name = "", namespace = "", uid } = obj.metadata ?? {};
        this.#in.problems.unprocessableSwh({ name, namespace, uid }, obj.spec, err);
        return [];
      }
    });
  }

  async service(namespace: string, name: string): Promise<PublishedService | undefined> {
    // Synced: the loops start after the informers, and a failing watch keeps the last list (fail static).
    const service = await this.#in.published.service(namespace, name);
    return service === undefined ? undefined : { service, swh: this.#in.published.read(service) };
  }

  ownSlices(namespace: string, name: string): V1EndpointSlice[] {
    return this.#in.slices.of(namespace, name);
  }

  aggregationInput(): NodeAggregationInput {
    return {
      nodeName: this.nodeName,
      pods: this.pods(),
      states: this.#in.states(),
      zoneOf: (node) => this.#in.informers.nodes.get(node)?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE],
    };
  }
}
