/**
 * What a user looks at: the per-port endpoint table of one or more SWHs, read from the EndpointSlices the agents
 * wrote (pure: slices in, rows and text out).
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { LABEL_SERVICE_NAME } from "@swh/crd-types";

/** One endpoint address on one Service port of one SWH. */
export interface EndpointRow {
  swh: string;
  port: string;
  address: string;
  pod: string;
  node: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

/** Flattens slices into rows, sorted by SWH, port, address. */
export function endpointRows(slices: readonly V1EndpointSlice[]): EndpointRow[] {
  const rows: EndpointRow[] = [];
  for (const slice of slices) {
    const swh = slice.metadata?.labels?.[LABEL_SERVICE_NAME] ?? "?";
    const port = slice.ports?.[0];
    const portLabel = `${port?.name || "-"}/${port?.port ?? "?"}`;
    for (const endpoint of slice.endpoints ?? []) {
      for (const address of endpoint.addresses) {
        rows.push({
          swh,
          port: portLabel,
          address,
          pod: endpoint.targetRef?.name ?? "?",
          node: endpoint.nodeName ?? "?",
          ready: endpoint.conditions?.ready === true,
          serving: endpoint.conditions?.serving === true,
          terminating: endpoint.conditions?.terminating === true,
        });
      }
    }
  }
  return rows.sort((a, b) => key(a).localeCompare(key(b)));
}

function key(row: EndpointRow): string {
  return `${row.swh}\u0000${row.port}\u0000${row.address}`;
}

/** Renders rows as a fixed-width text table. */
export function renderEndpointTable(rows: readonly EndpointRow[]): string {
  const header = ["SWH", "PORT", "POD", "NODE", "ADDRESS", "READY", "SERVING", "TERMINATING"];
  const body = rows.map((r) => [
    r.swh,
    r.port,
    r.pod,
    r.node,
    r.address,
    yesNo(r.ready),
    yesNo(r.serving),
    yesNo(r.terminating),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...body.map(line)].join("\n");
}

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

/** A compact signature of the table, to notice changes: "swh port address ready serving terminating" lines. */
export function tableSignature(rows: readonly EndpointRow[]): string {
  return rows.map((r) => `${key(r)} ${r.ready} ${r.serving} ${r.terminating}`).join("\n");
}
