/**
 * A directory laid out as the kubelet lays out a mounted Secret volume: each key is a symlink through `..data` to
 * a versioned directory, and an update swaps `..data` in one rename. Tests of certificate rotation write through
 * it so the code under test sees exactly what a pod sees when cert-manager renews its Secret.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A mounted `kubernetes.io/tls` Secret: `tls.crt` and `tls.key` in `dir`. */
export class SecretVolume {
  readonly dir = mkdtempSync(join(tmpdir(), "swh-secret-volume-"));
  #version = 0;

  /** Creates the volume with its first certificate and key. */
  constructor(pair: { certPem: string; keyPem: string }) {
    this.write(pair);
    symlinkSync("..data/tls.crt", join(this.dir, "tls.crt"));
    symlinkSync("..data/tls.key", join(this.dir, "tls.key"));
  }

  /** Paths of the certificate and the key, as the apps' `--metrics-tls-*` flags take them. */
  get files(): { certFile: string; keyFile: string } {
    return { certFile: join(this.dir, "tls.crt"), keyFile: join(this.dir, "tls.key") };
  }

  /** Replaces both files at once, as the kubelet's atomic writer does: a new directory, then a symlink swap. */
  write(pair: { certPem: string; keyPem: string }): void {
    const version = `..v${++this.#version}`;
    mkdirSync(join(this.dir, version));
    writeFileSync(join(this.dir, version, "tls.crt"), pair.certPem);
    writeFileSync(join(this.dir, version, "tls.key"), pair.keyPem, { mode: 0o600 });
    symlinkSync(version, join(this.dir, "..data_tmp"));
    renameSync(join(this.dir, "..data_tmp"), join(this.dir, "..data"));
  }

  /** Deletes the directory. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
