/**
 * How `swh-probe` prints a result: one line either way — text for people (the default) or JSON for scripts — with
 * the message made one line (`oneLineMessage`) in both. Pure.
 */

import type { ProbeAddress, ProbePhaseTimings, ProbeResult } from "../probe-result.js";
import { formatAddress } from "./check-address.js";
import type { CliOutput, CliTarget } from "./cli-args.js";
import { oneLineMessage } from "./one-line-message.js";

/** One probe as the CLI reports it: the kind, the target as given, the address probed when it was a name. */
export interface CliReport {
  kind: string;
  target: CliTarget;
  address?: ProbeAddress | undefined;
  result: ProbeResult;
}

/** The phases `-v` prints, in the order a probe reaches them, with their names in the text output. */
const PHASES = [
  ["connectMs", "connect"],
  ["tlsMs", "TLS"],
  ["firstByteMs", "first byte"],
  ["totalMs", "total"],
] as const satisfies readonly (readonly [keyof ProbePhaseTimings, string])[];

/**
 * JSON: `{"target","kind",("address"),"ok",("reason"),"message","durationMs",("timings")}`, `timings` being the
 * probe's when `-v` asked for them. Text: `PASS http example.test:8080 (10.0.0.7:8080): HTTP 200 OK in 3.1 ms` or
 * `FAIL … HTTPStatus: HTTP 503 … in …`, with `-v` followed by `(connect 0.3 ms, TLS 2.1 ms, first byte 3 ms,
 * total 3.1 ms)`.
 */
export function formatCliResult(report: CliReport, output: CliOutput): string {
  const target = formatAddress(report.target);
  const address = report.address ? formatAddress(report.address) : undefined;
  const result = { ...report.result, message: oneLineMessage(report.result.message) };
  if (output === "json")
    return JSON.stringify({ target, kind: report.kind, ...(address ? { address } : {}), ...result });
  const verdict = result.ok ? "PASS" : "FAIL";
  const where = address ? `${target} (${address})` : target;
  const why = result.ok ? result.message : `${result.reason ?? "Error"}: ${result.message}`;
  const timings = result.timings ? ` (${formatTimings(result.timings)})` : "";
  return `${verdict} ${report.kind} ${where}: ${why} in ${result.durationMs} ms${timings}`;
}

/** `connect 0.3 ms, TLS 2.1 ms, first byte 3 ms, total 3.1 ms`: the phases reached, in order. */
function formatTimings(timings: ProbePhaseTimings): string {
  return PHASES.filter(([field]) => timings[field] !== undefined)
    .map(([field, name]) => `${name} ${timings[field]} ms`)
    .join(", ");
}
