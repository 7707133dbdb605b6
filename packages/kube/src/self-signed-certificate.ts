/**
 * A self-signed X.509 serving certificate made at start-up, for the metrics endpoint when no certificate is
 * configured (the way kube-rbac-proxy and controller-runtime serve by default; scrapers then skip verification).
 * node:crypto makes the EC P-256 key and the ECDSA-SHA256 signature; the certificate's DER is encoded by hand
 * (`internal/der.ts`) because Node cannot build certificates and the libraries that can weigh half a megabyte in
 * the agent's bundle (ADR 0017). Tests check the result with Node's own parser and a TLS handshake.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from "./internal/der.js";

/** A certificate and its private key, both PEM. */
export interface CertificatePair {
  certPem: string;
  keyPem: string;
}

/** What `createSelfSignedCertificate` puts in the certificate. */
export interface SelfSignedCertificateOptions {
  /** Subject and issuer common name. */
  commonName: string;
  /** DNS names and IP addresses for the subjectAltName extension. */
  altNames?: readonly string[];
  /** Start of validity; default now. Backdated one hour against clock skew. */
  now?: Date;
  /** Validity in days; default 365. */
  days?: number;
}

const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
const COMMON_NAME = "2.5.4.3";
const BASIC_CONSTRAINTS = "2.5.29.19";
const KEY_USAGE = "2.5.29.15";
const EXT_KEY_USAGE = "2.5.29.37";
const SUBJECT_ALT_NAME = "2.5.29.17";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLOCK_SKEW_MS = 3_600_000;

/**
 * Creates a new key and a self-signed server certificate for it (not a CA; keyUsage digitalSignature, extended key
 * usage serverAuth), with `commonName` and `altNames`. Every call makes a new key and a random serial.
 */
export function createSelfSignedCertificate(opts: SelfSignedCertificateOptions): CertificatePair {
  if (opts.commonName === "") throw new Error("createSelfSignedCertificate: commonName is required");
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const now = opts.now ?? new Date();
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  const notAfter = new Date(now.getTime() + (opts.days ?? 365) * 86_400_000);
  const name = sequence(set(sequence(objectIdentifier(COMMON_NAME), utf8String(opts.commonName))));
  const algorithm = sequence(objectIdentifier(ECDSA_WITH_SHA256));
  // A positive 63-bit serial: unique per certificate, as RFC 5280 asks.
  const serial = randomBytes(8);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const extensions = [
    extension(BASIC_CONSTRAINTS, true, sequence()),
    // digitalSignature is bit 0: one byte 0x80 with 7 unused bits.
    extension(KEY_USAGE, true, bitString(Buffer.from([0x80]), 7)),
    extension(EXT_KEY_USAGE, false, sequence(objectIdentifier(SERVER_AUTH))),
  ];
  const altNames = opts.altNames ?? [];
  if (altNames.length > 0)
    extensions.push(extension(SUBJECT_ALT_NAME, false, sequence(...altNames.map(generalName))));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(3, sequence(...extensions)),
  );
  // For an EC key node:crypto returns the DER ECDSA-Sig-Value X.509 wants.
  const signature = sign("sha256", tbs, privateKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  return {
    certPem: toPem("CERTIFICATE", der),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  };
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** dNSName [2] or iPAddress [7] (4 or 16 octets). */
function generalName(name: string): Buffer {
  const family = isIP(name);
  if (family === 0) return implicitPrimitive(2, Buffer.from(name, "ascii"));
  return implicitPrimitive(7, family === 4 ? ipv4Bytes(name) : ipv6Bytes(name));
}

function ipv4Bytes(ip: string): Buffer {
  return Buffer.from(ip.split(".").map(Number));
}

function ipv6Bytes(ip: string): Buffer {
  const [head = "", tail = ""] = ip.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  let left = groups(head);
  let right = ip.includes("::") ? groups(tail) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const embed = (list: string[]) => {
    const last = list.at(-1);
    if (last === undefined || isIP(last) !== 4) return list;
    const b = ipv4Bytes(last);
    return [
      ...list.slice(0, -1),
      ((b[0] ?? 0) * 256 + (b[1] ?? 0)).toString(16),
      ((b[2] ?? 0) * 256 + (b[3] ?? 0)).toString(16),
    ];
  };
  if (ip.includes("::")) right = embed(right);
  else left = embed(left);
  const zeros = Array<string>(8 - left.length - right.length).fill("0");
  const all = [...left, ...zeros, ...right];
  const out = Buffer.alloc(16);
  for (const [i, group] of all.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}

function toPem(label: string, der: Buffer): string {
  const base64 = der.toString("base64").replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${base64.replace(/\n$/, "")}\n-----END ${label}-----\n`;
}
