/** How `swh-probe` prints a result: one JSON line for scripts, or one line for people. Pure. */

import type { ProbeAddress, ProbeResult } from "../probe-result.js";
import { formatAddress } from "./check-address.js";
import type { CliOutput, CliTarget } from "./cli-args.js";

/** One probe as the CLI reports it: the kind, the target as given, the address probed when it was a name. */
export interface CliReport {
  kind: string;
  target: CliTarget;
  address?: ProbeAddress | undefined;
  result: ProbeResult;
}

/**
 * JSON: `{"target","kind",("address"),"ok",("reason"),"message","durationMs"}`. Text:
 * `PASS http example.test:8080 (10.0.0.7:8080): HTTP 200 OK in 3.1 ms` or `FAIL … HTTPStatus: HTTP 503 … in …`.
 */
export function formatCliResult(report: CliReport, output: CliOutput): string {
  const target = formatAddress(report.target);
  const address = report.address ? formatAddress(report.address) : undefined;
  const { result } = report;
  if (output === "json")
    return JSON.stringify({ target, kind: report.kind, ...(address ? { address } : {}), ...result });
  const verdict = result.ok ? "PASS" : "FAIL";
  const where = address ? `${target} (${address})` : target;
  const why = result.ok ? result.message : `${result.reason ?? "Error"}: ${result.message}`;
  return `${verdict} ${report.kind} ${where}: ${why} in ${result.durationMs} ms`;
}
