/**
 * Where the reconcile of one SWH reports (`SwhReports`): the publication decision (logged on change, the
 * withheld gauge), problems with the user's objects (Warning Events, once), readiness transitions (Events and the
 * transitions counter) and the per-SWH endpoint series.
 */
import type { AggregationIssue, SwhInput } from "@swh/aggregation";
import type { Publication } from "@swh/crd-types/internal";
import type { EventRecorder, Logger } from "@swh/kube";
import { type AgentMetrics, type EndpointCounts, recordEndpointCounts } from "@swh/metrics";
import type { EndpointTransition } from "@swh/slice-writer";
import type { SwhRef, SwhReports, UnusableSpec } from "../reconcile-swh.js";
import { recordEndpointTransitions } from "./endpoint-events.js";
import type { ObjectProblems } from "./object-problems.js";
import { PublicationLog } from "./publication-log.js";

/** Logs, Events and metrics of the SWH reconciles (see the file comment). */
export class AgentSwhReports implements SwhReports {
  readonly #publications: PublicationLog;
  readonly #problems: ObjectProblems;
  readonly #out: { events: Pick<EventRecorder, "record">; metrics: AgentMetrics; logger: Logger };

  constructor(deps: {
    problems: ObjectProblems;
    events: Pick<EventRecorder, "record">;
    metrics: AgentMetrics;
    logger: Logger;
  }) {
    this.#problems = deps.problems;
    this.#out = { events: deps.events, metrics: deps.metrics, logger: deps.logger };
    this.#publications = new PublicationLog(deps.logger, deps.metrics.endpointsWithheld);
  }

  publication(ref: SwhRef, publication: Publication | undefined): void {
    this.#publications.record(ref, publication);
  }

  unusableSpec(ref: SwhRef, unusable: UnusableSpec): void {
    this.#problems.unusablePublishedSpec(ref, unusable);
  }

  transitions(swh: SwhRef, transitions: readonly EndpointTransition[]): void {
    recordEndpointTransitions(swh, transitions, this.#out);
  }

  endpoints(ref: SwhRef, counts: EndpointCounts | undefined): void {
    recordEndpointCounts(this.#out.metrics, ref, counts);
  }

  issues(swh: SwhInput, issues: readonly AggregationIssue[]): void {
    this.#problems.probeIssues(swh, issues);
  }

  unprocessable(swh: SwhInput, error: unknown): void {
    this.#problems.unprocessableSwh(swh, swh.spec, error);
  }
}
