/**
 * Fail-open per Service port (ADR 0039), pure. When too few of a port's endpoints pass their checks across the
 * cluster (`spec.healthcheck.failOpen`: none, or fewer than `healthyBelowPercent`), that port's endpoints whose
 * checks fail are published as if passing, so a shared outage (a dependency down, a bad probe rollout) does not
 * black-hole the port. Only the controller sees every endpoint: it decides (`failOpenVerdict`) from the slices,
 * publishes the port names with the spec on the Service, and each agent applies them to its node's endpoints
 * (`aggregateEndpoints`' `failOpenPorts`).
 *
 * The verdict reads what the checks say, never the `ready` the agents published: a failing endpoint published as
 * if passing keeps its failure in the slice's reasons annotation, so failing open cannot end itself (no flapping).
 * Only endpoints with a verdict count ("judged"): passing ones, and ones failing a check that ran. Terminating and
 * drained endpoints, endpoints not probed yet (a new SWH is not an outage), and probes that cannot run (a
 * configuration failure fails closed) neither count nor are ever published by it; nor is a pod the kubelet holds
 * not ready.
 */
import { CONFIGURATION_FAILURE_REASONS, DRAINED_REASON, type FailOpenSpec } from "@swh/crd-types";
import { compareStrings } from "./select-pods.js";

/** Failure reasons that are no check verdict: fail-open neither counts nor publishes them. */
const NOT_A_VERDICT: ReadonlySet<string> = new Set<string>([
  ...CONFIGURATION_FAILURE_REASONS,
  "NotProbedYet",
  DRAINED_REASON,
]);

/** True when `reason` (an endpoint's failure reason) is a check that ran and failed: what fail-open may override. */
export function isCheckFailure(reason: string): boolean {
  return !NOT_A_VERDICT.has(reason);
}

/** An endpoint as the verdict reads it (a slice endpoint as read back fits). */
export interface JudgedEndpoint {
  conditions: { serving: boolean; terminating: boolean };
  /** Why it does not pass, from the reasons annotation; absent when it passes. */
  reason?: { reason: string } | undefined;
}

/** One port of the verdict with its counts. */
export interface FailOpenPort {
  portName: string;
  passing: number;
  failing: number;
}

/** What the verdict says about one port's endpoints (`undefined`: not judged). */
function judge(endpoint: JudgedEndpoint): "passing" | "failing" | undefined {
  if (endpoint.conditions.terminating) return undefined;
  const reason = endpoint.reason?.reason;
  if (reason === undefined) return endpoint.conditions.serving ? "passing" : undefined;
  return isCheckFailure(reason) ? "failing" : undefined;
}

/**
 * The ports failing open for `failOpen` over the endpoints of every slice of the SWH (`portName` per slice;
 * several slices of one port — nodes, address families — count together), sorted by port name. Empty when
 * `failOpen` is unset.
 */
export function failOpenVerdict(
  failOpen: Readonly<FailOpenSpec> | undefined,
  slices: Iterable<{ portName: string; endpoints: readonly JudgedEndpoint[] }>,
): FailOpenPort[] {
  if (failOpen === undefined) return [];
  const counts = new Map<string, FailOpenPort>();
  for (const slice of slices) {
    let port = counts.get(slice.portName);
    if (port === undefined) {
      port = { portName: slice.portName, passing: 0, failing: 0 };
      counts.set(slice.portName, port);
    }
    for (const endpoint of slice.endpoints) {
      const verdict = judge(endpoint);
      if (verdict === "passing") port.passing++;
      else if (verdict === "failing") port.failing++;
    }
  }
  const threshold = failOpen.healthyBelowPercent;
  return [...counts.values()]
    .filter(({ passing, failing }) => {
      const judged = passing + failing;
      if (failing === 0) return false;
      return threshold === undefined ? passing === 0 : passing * 100 < threshold * judged;
    })
    .sort((a, b) => compareStrings(a.portName, b.portName));
}
