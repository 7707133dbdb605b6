/**
 * The metrics server's certificate: read from files (e.g. a `kubernetes.io/tls` Secret mounted into the pod, kept
 * current by cert-manager) and reloaded when they change, so a rotated certificate is served without a restart.
 * A change is noticed by watching the files' directories (a Secret volume swaps a `..data` symlink there) and,
 * because watches can miss events, by re-reading the files every `pollMs`. A new pair is used only when it loads
 * and the key matches the certificate; otherwise the old one stays (fail static) and the failure is logged once.
 */
import { createHash, X509Certificate } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createSecureContext } from "node:tls";
import type { Logger } from "./logger.js";
import type { CertificatePair } from "./self-signed-certificate.js";

/** Paths of a PEM certificate (chain) and its PEM private key. */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate kept current from its files. */
export interface WatchedCertificate {
  /** The pair in use now. */
  current(): CertificatePair;
  /** Stops watching. */
  close(): void;
}

/** Options of `watchCertificateFiles`. */
export interface WatchCertificateOptions extends CertificateFiles {
  /** Called with each new valid pair after the files changed. */
  onChange: (pair: CertificatePair) => void;
  logger: Logger;
  /** Re-read period, in case a file watch missed a change. Default 10 s. */
  pollMs?: number;
}

/**
 * Loads the pair from the files, then keeps it current (see the file comment). Rejects when the first load
 * fails: a configured certificate that cannot be read is a configuration error, not something to serve around.
 */
export async function watchCertificateFiles(opts: WatchCertificateOptions): Promise<WatchedCertificate> {
  let current = await loadPair(opts);
  let lastFailure = "";
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;

  const reload = async (): Promise<void> => {
    let pair: CertificatePair;
    try {
      pair = await loadPair(opts);
    } catch (err) {
      const message = (err as Error).message;
      if (message !== lastFailure)
        opts.logger.warn("metrics certificate not reloaded; serving the previous one", { err: message });
      lastFailure = message;
      return;
    }
    lastFailure = "";
    if (closed || (pair.certPem === current.certPem && pair.keyPem === current.keyPem)) return;
    current = pair;
    opts.logger.info("metrics certificate reloaded", describe(pair));
    opts.onChange(pair);
  };
  // One reload at a time; a change seen during one runs another right after it.
  const trigger = () => {
    if (closed) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = reload().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        trigger();
      }
    });
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set([dirname(opts.certFile), dirname(opts.keyFile)])) {
    try {
      const watcher = watch(dir, { persistent: false }, trigger);
      watcher.on("error", (err) =>
        opts.logger.warn("metrics certificate directory watch failed; polling only", { dir, err }),
      );
      watchers.push(watcher);
    } catch (err) {
      opts.logger.warn("metrics certificate directory cannot be watched; polling only", { dir, err });
    }
  }
  const poll = setInterval(trigger, opts.pollMs ?? 10_000);
  poll.unref();
  opts.logger.info("metrics certificate loaded", { certFile: opts.certFile, ...describe(current) });

  return {
    current: () => current,
    close() {
      closed = true;
      clearInterval(poll);
      for (const watcher of watchers) watcher.close();
    },
  };
}

async function loadPair(files: CertificateFiles): Promise<CertificatePair> {
  const [certPem, keyPem] = await Promise.all([
    readFile(files.certFile, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new Error(`cannot read certificate file ${files.certFile}: ${err.code ?? err.message}`);
    }),
    readFile(files.keyFile, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new Error(`cannot read key file ${files.keyFile}: ${err.code ?? err.message}`);
    }),
  ]);
  try {
    // Throws when either does not parse or the key is not the certificate's.
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw new Error(
      `${files.certFile} and ${files.keyFile} are not a usable certificate and key: ${(err as Error).message}`,
    );
  }
  return { certPem, keyPem };
}

/** What the logs say about a certificate: never the key, only public facts. */
function describe(pair: CertificatePair): Record<string, string> {
  try {
    const cert = new X509Certificate(pair.certPem);
    return { subject: cert.subject, notAfter: cert.validTo, sha256: cert.fingerprint256 };
  } catch {
    return { sha256: createHash("sha256").update(pair.certPem).digest("hex") };
  }
}
