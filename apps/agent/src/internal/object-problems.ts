/**
 * Tells users what is wrong with their objects, as Warning Events on them plus a warning log: once per object
 * and problem however often the object is looked at (target planning runs on every pod change), through
 * `ObjectProblemReporter` of @swh/kube; this file says what the problems are and how their messages read. Three
 * kinds of problem (ADR 0015):
 * - an object the agent cannot process at all (a stored SWH whose shape no longer fits the schema, a Pod it
 *   cannot read): it is skipped and everything else goes on; the Event names the first field the schema rejects;
 * - a Service whose published SWH spec is invalid (ADR 0032): its slices stay as they are;
 * - a probe that cannot run on this node's pods (its named targetPort is no container port, its mode is unknown):
 *   it fails closed on every port of those pods; the Event names the probe's field.
 * Messages name fields, never values (no secrets).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { AGGREGATION_ISSUE_KINDS, type AggregationIssue } from "@swh/aggregation";
import { EVENT_REASONS } from "@swh/crd-types";
import { describeUnprocessableSpec, swhReference } from "@swh/crd-types/internal";
import { type EventRecorder, errorSummary, type Logger, ObjectProblemReporter } from "@swh/kube";
import type { SwhRef, UnusableSpec } from "../reconcile-swh.js";

/** Issue kinds meaning "this probe cannot run": reported as `ProbeCannotRun`. */
const CANNOT_RUN: ReadonlySet<string> = new Set([
  AGGREGATION_ISSUE_KINDS.probePortNotFound,
  AGGREGATION_ISSUE_KINDS.probeModeUnsupported,
]);

/** Reports problems with users' objects (see the file comment). */
export class ObjectProblems {
  readonly #reporter: ObjectProblemReporter;
  readonly #logger: Logger;
  readonly #nodeName: string;

  constructor(deps: { events: Pick<EventRecorder, "record">; logger: Logger; nodeName: string }) {
    this.#reporter = new ObjectProblemReporter(deps);
    this.#logger = deps.logger;
    this.#nodeName = deps.nodeName;
  }

  /** Reports that the SWH `ref` with stored `spec` could not be processed (`error` is what was thrown). */
  unprocessableSwh(ref: SwhRef, spec: unknown, error: unknown): void {
    const problem = describeUnprocessableSpec(spec, error);
    const message = `${problem}; the agent on node ${this.#nodeName} skips this object until it changes and leaves its slices on the node as they are`;
    this.#reporter.warn(swhReference(ref), EVENT_REASONS.invalidSpec, problem, message, error);
  }

  /**
   * Reports a Service whose published SWH spec (ADR 0032) cannot be used; its slices on this node stay as they
   * are. An invalid spec (someone edited the annotation; the controller puts it back) is the user's to see: a
   * Warning Event naming the field. A missing one is normal while an older controller's Services wait for the new
   * controller (an upgrade): logged once, no Event — it is no problem of the user's.
   */
  unusablePublishedSpec(ref: SwhRef, unusable: UnusableSpec): void {
    if (unusable.state === "invalid") {
      const message = `the spec published on Service ${ref.name} is invalid (${unusable.problem}); the agent on node ${this.#nodeName} leaves its slices on the node as they are until the controller rewrites it`;
      this.#reporter.warn(swhReference(ref), EVENT_REASONS.invalidSpec, unusable.problem, message);
      return;
    }
    if (!this.#reporter.firstTime(`missing\u0000${ref.namespace}/${ref.name}`)) return;
    this.#logger.info("Service publishes no SWH spec yet; its slices on this node are left as they are", {
      service: `${ref.namespace}/${ref.name}`,
    });
  }

  /** Reports that `pod` could not be read (`error` is what was thrown): it is left out until it changes. */
  unreadablePod(pod: Readonly<V1Pod>, error: unknown): void {
    const meta = pod.metadata ?? {};
    const subject = {
      kind: "Pod",
      apiVersion: "v1",
      name: meta.name ?? "",
      namespace: meta.namespace ?? "",
      uid: meta.uid ?? "",
    };
    const problem = `the pod could not be read: ${errorSummary(error)}`;
    const message = `${problem}; the agent on node ${this.#nodeName} publishes it for no balancer until it changes`;
    this.#reporter.warn(subject, EVENT_REASONS.unreadablePod, problem, message, error);
  }

  /** Reports the probes of the SWH `ref` that cannot run, from its aggregation `issues` (others are ignored). */
  probeIssues(ref: SwhRef, issues: readonly AggregationIssue[]): void {
    for (const issue of issues) {
      if (!CANNOT_RUN.has(issue.kind)) continue;
      // One Event per probe field, not per pod: the first pod's message stands for the others.
      this.#reporter.warn(
        swhReference(ref),
        EVENT_REASONS.probeCannotRun,
        `${issue.kind} ${issue.path}`,
        `${issue.path}: ${issue.message}`,
      );
    }
  }
}
