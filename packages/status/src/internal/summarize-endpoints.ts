/**
 * Turns the EndpointSlices the agents wrote for one SWH, as the slice contract's reader reads them
 * (`readSlice`), into what status shows: per Service port the ready and total endpoint counts, and per endpoint
 * (a pod; a dual-stack pod is one endpoint with two addresses) whether each port serves and, when not, the
 * failing probe the agent reported. Pure.
 */
import {
  CONFIGURATION_FAILURE_REASONS,
  DRAINED_REASON,
  type EndpointPortStatus,
  type EndpointStatus,
  type EndpointsSummary,
  type PortStatus,
  type ProbeFailureReason,
  type ServicePort,
} from "@swh/crd-types";
import type { SliceView } from "@swh/slice-writer";

/** The reason an agent publishes for an endpoint no probe result exists for yet. */
const NOT_PROBED_YET: ProbeFailureReason = "NotProbedYet";

/** Default bound of `status.endpoints.list`: enough to see what fails, small enough for any object size. */
export const DEFAULT_MAX_LISTED_ENDPOINTS = 50;

/** Per-port counts, the endpoint summary, the nodes that published endpoints, configuration problems seen. */
export interface EndpointsView {
  ports: PortStatus[];
  endpoints: EndpointsSummary;
  /**
   * Not-ready, non-terminating endpoints whose every not-ready port only awaits its first probe (`NotProbedYet`):
   * no evidence against them yet (issue 21).
   */
  awaitingFirstProbe: number;
  /** Not-ready, non-terminating endpoints whose every not-ready port is `Drained`: taken out on purpose. */
  drained: number;
  nodes: string[];
  configurationProblems: string[];
}

interface PodEntry {
  pod: string;
  node: string;
  addresses: string[];
  terminating: boolean;
  ports: Map<string, EndpointPortStatus>;
}

/**
 * Summarizes `slices` (all belonging to one SWH) against the SWH's Service `ports`. An endpoint whose `ready`
 * condition is missing counts as ready (EndpointSlice API semantics, applied by the reader). `nodes` are the full
 * names of the nodes whose agents wrote the slices. The list holds at most `maxListed`
 * endpoints, not-ready ones first, then by pod name; `truncated` says when some were left out.
 */
export function summarizeEndpoints(
  slices: readonly SliceView[],
  ports: readonly Readonly<ServicePort>[],
  maxListed: number = DEFAULT_MAX_LISTED_ENDPOINTS,
): EndpointsView {
  const pods = new Map<string, PodEntry>();
  const perPort = new Map<string, Map<string, boolean>>();
  const nodes = new Set<string>();
  const problems = new Set<string>();

  for (const slice of slices) {
    const { portName } = slice;
    nodes.add(slice.nodeName);
    for (const endpoint of slice.endpoints) {
      const { address } = endpoint;
      const key = endpoint.targetRef?.uid ?? endpoint.targetRef?.name ?? address;
      const { ready, terminating } = endpoint.conditions;
      const node = endpoint.nodeName ?? slice.nodeName;

      const portReady = perPort.get(portName) ?? new Map<string, boolean>();
      perPort.set(portName, portReady);
      portReady.set(key, (portReady.get(key) ?? true) && ready);

      const entry = pods.get(key) ?? {
        pod: endpoint.targetRef?.name ?? "",
        node,
        addresses: [],
        terminating: false,
        ports: new Map<string, EndpointPortStatus>(),
      };
      pods.set(key, entry);
      if (!entry.addresses.includes(address)) entry.addresses.push(address);
      entry.terminating ||= terminating;

      // A ready endpoint keeps its failure too (fail-open, publishNotReadyAddresses): status tells the checks' truth.
      const reason = endpoint.reason;
      if (
        !ready &&
        reason !== undefined &&
        (CONFIGURATION_FAILURE_REASONS as readonly string[]).includes(reason.reason)
      ) {
        problems.add(
          `${reason.probe ?? "a probe"}: ${reason.reason}${reason.message ? ` (${reason.message})` : ""}`,
        );
      }
      const previous = entry.ports.get(portName);
      if (previous === undefined || (previous.ready && !ready)) {
        const status: EndpointPortStatus = {
          port: slice.port,
          ready: previous === undefined ? ready : false,
        };
        if (portName !== "") status.name = portName;
        if (reason?.probe !== undefined) status.failingProbe = reason.probe;
        if (reason !== undefined) status.reason = reason.reason;
        if (reason?.message !== undefined) status.message = reason.message;
        entry.ports.set(portName, status);
      }
    }
  }

  const portStatuses: PortStatus[] = ports.map((port) => {
    const counts = perPort.get(port.name ?? "") ?? new Map<string, boolean>();
    const status: PortStatus = {
      port: port.port,
      readyEndpoints: [...counts.values()].filter(Boolean).length,
      totalEndpoints: counts.size,
    };
    if (port.name !== undefined && port.name !== "") status.name = port.name;
    return status;
  });

  const entries = [...pods.values()].map((e) => ({
    e,
    ready: !e.terminating && [...e.ports.values()].every((p) => p.ready),
  }));
  const terminating = entries.filter(({ e }) => e.terminating).length;
  const awaitingFirstProbe = entries.filter(
    ({ e, ready }) =>
      !ready && !e.terminating && [...e.ports.values()].every((p) => p.ready || p.reason === NOT_PROBED_YET),
  ).length;
  const drained = entries.filter(
    ({ e, ready }) =>
      !ready && !e.terminating && [...e.ports.values()].every((p) => p.ready || p.reason === DRAINED_REASON),
  ).length;
  const ready = entries.filter((x) => x.ready).length;
  // Plain code-unit order (not localeCompare): deterministic across locales and fast on large lists.
  const listed = entries
    .sort(
      (a, b) =>
        Number(a.ready) - Number(b.ready) ||
        compareText(a.e.pod, b.e.pod) ||
        compareText(a.e.addresses[0] ?? "", b.e.addresses[0] ?? ""),
    )
    .slice(0, Math.max(0, maxListed))
    .map(({ e }) => toEndpointStatus(e));

  return {
    ports: portStatuses,
    endpoints: {
      total: entries.length,
      ready,
      notReady: entries.length - ready - terminating,
      terminating,
      truncated: entries.length > listed.length,
      list: listed,
    },
    awaitingFirstProbe,
    drained,
    nodes: [...nodes].sort(),
    configurationProblems: [...problems].sort(),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toEndpointStatus(entry: PodEntry): EndpointStatus {
  const addresses = [...entry.addresses].sort(
    (x, y) => Number(x.includes(":")) - Number(y.includes(":")) || compareText(x, y),
  );
  return {
    pod: entry.pod,
    node: entry.node,
    address: addresses[0] ?? "",
    ports: [...entry.ports.values()].sort(
      (a, b) => compareText(a.name ?? "", b.name ?? "") || a.port - b.port,
    ),
  };
}
