/**
 * Figures of the API load benchmark (api-load.ts): per-agent API usage between two readings of its meter, split
 * into what the targets name (watches, heartbeat, anything else), and the extrapolation to a cluster of
 * `EXTRAPOLATE_NODES` agents. Pure: the benchmark passes the readings.
 */
import type { ApiUsage } from "@swh/e2e";
import { percentile, printFigures } from "./report.ts";

/** The node count the benchmark extrapolates to (issue 20). */
export const EXTRAPOLATE_NODES = 5000;

/** One agent's readings at the ends of a phase. */
export interface AgentPhase {
  node: string;
  usage: ApiUsage;
}

/** What an agent did in a phase, in the terms of the targets. */
export interface PhaseFigures {
  node: string;
  /** Watch requests started (a re-watch after the server ended one counts too). */
  watches: number;
  /** Heartbeat Lease reads and writes. */
  heartbeat: number;
  /** Every other request (lists, slice writes, Events, …), by `<verb> <resource>`. */
  other: Record<string, number>;
  otherTotal: number;
  bytesReceived: number;
  bytesSent: number;
  watchEvents: number;
  watchEventsByResource: Record<string, number>;
  bookmarks: number;
}

/** `after - before` of one agent's meter, classified. */
export function phaseFigures(node: string, before: ApiUsage, after: ApiUsage): PhaseFigures {
  const requests = diff(before.requests, after.requests);
  const events = diff(before.watchEvents, after.watchEvents);
  let watches = 0;
  let heartbeat = 0;
  const other: Record<string, number> = {};
  for (const [key, n] of Object.entries(requests)) {
    const [verb = "", resource = ""] = key.split(" ");
    if (verb === "watch") watches += n;
    else if (resource === "leases" && ["get", "update", "create"].includes(verb)) heartbeat += n;
    else other[key] = n;
  }
  return {
    node,
    watches,
    heartbeat,
    other,
    otherTotal: sum(Object.values(other)),
    bytesReceived: after.bytesReceived - before.bytesReceived,
    bytesSent: after.bytesSent - before.bytesSent,
    watchEvents: sum(Object.values(events)),
    watchEventsByResource: events,
    bookmarks: sum(Object.values(diff(before.bookmarks, after.bookmarks))),
  };
}

/** Prints one line per agent for a phase of `seconds`, then min / median / max across agents. */
export function printPhase(title: string, seconds: number, figures: readonly PhaseFigures[]): void {
  const rows: [string, string][] = figures.map((f) => [
    f.node,
    `watches ${f.watches}, heartbeat ${f.heartbeat}, other ${f.otherTotal}${describeOther(f.other)}; ` +
      `received ${kb(f.bytesReceived)} KB (${(f.bytesReceived / seconds).toFixed(0)} B/s), sent ${kb(f.bytesSent)} KB; ` +
      `watch events ${f.watchEvents}${describeOther(f.watchEventsByResource)}, bookmarks ${f.bookmarks}`,
  ]);
  rows.push(
    ["requests besides watches + heartbeat: min/median/max", spread(figures.map((f) => f.otherTotal))],
    ["bytes received: min/median/max", spread(figures.map((f) => f.bytesReceived))],
    ["watch events: min/median/max", spread(figures.map((f) => f.watchEvents))],
  );
  printFigures(`${title} (${seconds.toFixed(0)} s)`, rows);
}

/** Mean per agent of `pick` over `figures` (0 when empty). */
export function mean(figures: readonly PhaseFigures[], pick: (f: PhaseFigures) => number): number {
  return figures.length === 0 ? 0 : sum(figures.map(pick)) / figures.length;
}

/** The steady-state extrapolation to `EXTRAPOLATE_NODES` agents (same object counts per cluster). */
export function extrapolationRows(opts: {
  steady: readonly PhaseFigures[];
  steadySeconds: number;
  startup: readonly PhaseFigures[];
  metricSeries: readonly number[];
  churn: readonly {
    name: string;
    involved: number;
    figures: readonly PhaseFigures[];
    involvedNodes: Set<string>;
  }[];
}): [string, string][] {
  const n = EXTRAPOLATE_NODES;
  const perS = (pick: (f: PhaseFigures) => number) => (mean(opts.steady, pick) / opts.steadySeconds) * n;
  const rows: [string, string][] = [
    [
      "steady: requests/s on the API server (all)",
      perS((f) => f.watches + f.heartbeat + f.otherTotal).toFixed(1),
    ],
    ["steady: of which heartbeat", perS((f) => f.heartbeat).toFixed(1)],
    ["steady: of which besides watches + heartbeat", perS((f) => f.otherTotal).toFixed(1)],
    ["steady: bytes/s the API server sends to agents", human(perS((f) => f.bytesReceived))],
    ["steady: watch events/s the API server sends to agents", perS((f) => f.watchEvents).toFixed(1)],
    [
      "metric series (all agents)",
      String(Math.round((sum(opts.metricSeries) / opts.metricSeries.length) * n)),
    ],
    [
      "agent start: bytes each agent reads (all agents restarted)",
      human(mean(opts.startup, (f) => f.bytesReceived) * n),
    ],
    [
      "agent start: requests (all agents restarted)",
      (mean(opts.startup, (f) => f.watches + f.heartbeat + f.otherTotal) * n).toFixed(0),
    ],
  ];
  for (const step of opts.churn) {
    const involved = step.figures.filter((f) => step.involvedNodes.has(f.node));
    const others = step.figures.filter((f) => !step.involvedNodes.has(f.node));
    const total = (pick: (f: PhaseFigures) => number) =>
      mean(involved, pick) * step.involved + mean(others, pick) * (n - step.involved);
    if (others.length === 0) {
      rows.push([`${step.name}`, "n/a: every node was involved (run with more nodes)"]);
      continue;
    }
    rows.push(
      [`${step.name}: bytes the API server sends to agents`, human(total((f) => f.bytesReceived))],
      [`${step.name}: watch events sent to agents`, total((f) => f.watchEvents).toFixed(0)],
      [`${step.name}: requests besides watches + heartbeat`, total((f) => f.otherTotal).toFixed(0)],
    );
  }
  return rows;
}

function diff(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

function describeOther(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

function spread(values: readonly number[]): string {
  return [0, 50, 100].map((p) => percentile(values, p)).join(" / ");
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** Bytes (or bytes/s) in B, KB, MB or GB. */
function human(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
