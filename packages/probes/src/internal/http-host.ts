/**
 * What an HTTP probe's `host` setting means on the wire: the Host header, the name the server certificate is
 * checked against, and whether that name goes out as TLS SNI. SNI carries DNS names only (RFC 6066 §3: "Literal
 * IPv4 and IPv6 addresses are not permitted"), and a Host header carries an IPv6 address in brackets (RFC 9110
 * §7.2 via RFC 3986 `IP-literal`), so `fd00::10`, `[fd00::10]` and `[fd00::10]:8443` all mean the address
 * fd00::10: Host `[fd00::10]` (with the port when given), the certificate checked for that IP, no SNI.
 */
import { isIP } from "node:net";

/** The parts of a `host` setting, see the file comment. */
export interface HostField {
  /** The Host header's value. */
  header: string;
  /** The DNS name or IP (without brackets or port) the server certificate must be valid for. */
  tlsName: string;
  /** True when `tlsName` is a DNS name, which is then sent as SNI. */
  sni: boolean;
}

const BRACKETED = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const WITH_PORT = /^([^:]+):(\d{1,5})$/;

/** Splits `host` (a name or IP, optionally with a port; IPv6 bracketed or not) into its parts. */
export function parseHostField(host: string): HostField {
  const bracketed = BRACKETED.exec(host);
  if (bracketed && isIP(bracketed[1] as string) === 6)
    return { header: host, tlsName: bracketed[1] as string, sni: false };
  if (isIP(host) === 6) return { header: `[${host}]`, tlsName: host, sni: false };
  const name = WITH_PORT.exec(host)?.[1] ?? host;
  return { header: host, tlsName: name, sni: isIP(name) === 0 };
}
