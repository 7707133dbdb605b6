/**
 * The `--*-bind-address` flags of both apps, one meaning everywhere: `host:port` listens on that host only,
 * `[v6]:port` on that IPv6 address, and `:port` on every interface — `::`, both families on a dual-stack kernel,
 * falling back to `0.0.0.0` where IPv6 is off (see `listenOps`), so the same flag works in IPv4, IPv6 and dual-stack
 * clusters. Pure: text in, an address or an error naming the flag out.
 */

/** Where an operations server listens; `host` undefined means every interface (dual-stack where available). */
export interface BindAddress {
  host: string | undefined;
  port: number;
}

/**
 * Splits a bind address: `host:port`, `:port` (every interface: `host` is `""`) or `[v6]:port`, with a port of
 * 0..65535 (0 picks a free port). Returns undefined for anything else, so that the caller names its flag in the error.
 */
export function splitHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) return undefined;
  return { host: match[1] ?? match[2] ?? "", port };
}

/**
 * Parses the value of bind-address flag `flag` (e.g. `--health-bind-address`): `host:port`, `[v6]:port`, `:port`
 * (every interface) or, with `disableWithZero`, `0` for "do not listen" (address undefined).
 */
export function parseBindAddress(
  flag: string,
  text: string,
  opts: { disableWithZero?: boolean } = {},
): { ok: true; address: BindAddress | undefined } | { ok: false; error: string } {
  if (opts.disableWithZero && text === "0") return { ok: true, address: undefined };
  const split = splitHostPort(text);
  if (split === undefined) {
    const zero = opts.disableWithZero ? " or 0 (disabled)" : "";
    return { ok: false, error: `${flag} must be host:port, [v6]:port, :port${zero}, got "${text}"` };
  }
  return { ok: true, address: { host: split.host || undefined, port: split.port } };
}
