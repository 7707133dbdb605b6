/** Validates a probe address: an IP literal and a port, so a probe can only ever reach the given pod address. */
import { isIP } from "node:net";
import { type ProbeAddress, ProbeConfigError } from "../probe-result.js";

/** Throws `ProbeConfigError` unless `target.host` is an IP literal and `target.port` is 1..65535. */
export function checkAddress(target: ProbeAddress): void {
  if (isIP(target.host) === 0)
    throw new ProbeConfigError("host", `must be an IP address, got ${JSON.stringify(target.host)}`);
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535)
    throw new ProbeConfigError("port", `must be an integer 1..65535, got ${String(target.port)}`);
}

/** Returns `host:port`, with brackets around an IPv6 host. */
export function formatAddress(target: ProbeAddress): string {
  return isIP(target.host) === 6 ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
