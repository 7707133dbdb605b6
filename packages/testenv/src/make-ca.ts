import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A certificate and its private key, both PEM. */
export interface CertKeyPair {
  certPem: string;
  keyPem: string;
}

/** What {@link CertificateAuthority.issue} signs. */
export interface IssueOptions {
  commonName: string;
  /** DNS names and IP addresses for the subjectAltName; the common name is added when it is one. */
  altNames?: string[];
  /** Organizations (O=) of the subject: Kubernetes reads them as a client certificate's groups. */
  organizations?: readonly string[];
  /** A client certificate (extendedKeyUsage clientAuth) instead of a server one (serverAuth). */
  client?: boolean;
  /** Validity in days, default 30. */
  days?: number;
}

/** A throwaway certificate authority that can sign server and client certificates. */
export interface CertificateAuthority extends CertKeyPair {
  issue(opts: IssueOptions): CertKeyPair;
}

/**
 * Creates a self-signed CA (EC P-256) named `name` for tests. Keys come from node:crypto; signing
 * uses the `openssl` CLI because Node has no API to sign X.509 certificates.
 */
export function makeCa(name = "swh-test-ca"): CertificateAuthority {
  const keyPem = newKeyPem();
  const certPem = withTempDir((dir) => {
    const keyPath = join(dir, "ca.key");
    writeFileSync(keyPath, keyPem, { mode: 0o600 });
    return openssl(dir, [
      "req",
      "-x509",
      "-new",
      "-key",
      keyPath,
      "-subj",
      `/CN=${escapeDn(name)}`,
      "-days",
      "365",
      "-set_serial",
      serial(),
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
  });
  return {
    certPem,
    keyPem,
    issue: (opts) => issue({ certPem, keyPem }, opts),
  };
}

function issue(ca: CertKeyPair, opts: IssueOptions): CertKeyPair {
  if (!opts.commonName) throw new Error("makeCa().issue: commonName is required");
  const keyPem = newKeyPem();
  const names = [...(opts.altNames ?? [])];
  if (!opts.client && !names.includes(opts.commonName) && looksLikeHost(opts.commonName)) {
    names.unshift(opts.commonName);
  }
  const san = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
  const certPem = withTempDir((dir) => {
    writeFileSync(join(dir, "ca.crt"), ca.certPem);
    writeFileSync(join(dir, "ca.key"), ca.keyPem, { mode: 0o600 });
    writeFileSync(join(dir, "leaf.key"), keyPem, { mode: 0o600 });
    return openssl(dir, [
      "req",
      "-new",
      "-key",
      join(dir, "leaf.key"),
      "-subj",
      [
        ...(opts.organizations ?? []).map((o) => `/O=${escapeDn(o)}`),
        `/CN=${escapeDn(opts.commonName)}`,
      ].join(""),
      "-CA",
      join(dir, "ca.crt"),
      "-CAkey",
      join(dir, "ca.key"),
      "-days",
      String(opts.days ?? 30),
      "-set_serial",
      serial(),
      "-addext",
      "basicConstraints=critical,CA:FALSE",
      "-addext",
      "keyUsage=critical,digitalSignature,keyEncipherment",
      "-addext",
      `extendedKeyUsage=${opts.client ? "clientAuth" : "serverAuth"}`,
      ...(san ? ["-addext", `subjectAltName=${san}`] : []),
    ]);
  });
  return { certPem, keyPem };
}

function newKeyPem(): string {
  return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
    type: "pkcs8",
    format: "pem",
  }) as string;
}

function serial(): string {
  // Positive 63-bit serial: clients reject certificates that share issuer + serial.
  return `0x${(randomBytes(8).readBigUInt64BE() >> 1n).toString(16)}`;
}

function looksLikeHost(name: string): boolean {
  return isIP(name) !== 0 || /^[a-z0-9.-]+$/i.test(name);
}

function escapeDn(value: string): string {
  return value.replace(/[/\\=+,]/g, (c) => `\\${c}`);
}

function openssl(cwd: string, args: string[]): string {
  const out = join(cwd, "out.pem");
  try {
    execFileSync("openssl", [...args, "-out", out], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(error)}`, { cause: error });
  }
  return readFileSync(out, "utf8");
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "swh-ca-"));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
