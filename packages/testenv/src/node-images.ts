/**
 * Images for the real node, built here with buildah FROM scratch (nothing is pulled: no registry is reachable):
 * Debian's static busybox as the workload image (httpd, sh, …) and as the pod sandbox ("pause") image. Both run
 * as 65534 on a read-only root.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The workload image: `/bin/busybox` and a symlink per applet in `/bin`; entrypoint none (give a command). */
export const BUSYBOX_IMAGE = "localhost/swh-testenv/busybox:1";
/** The sandbox image: sleeps until killed (containerd stops sandboxes with SIGKILL). */
export const PAUSE_IMAGE = "localhost/swh-testenv/pause:1";
const BUSYBOX = "/bin/busybox";
const NOBODY = 65534;

/** Builds {@link BUSYBOX_IMAGE} and {@link PAUSE_IMAGE} into the local (podman/buildah) image store. */
export function buildNodeImages(): void {
  const applets = run("busybox", ["--list"]).split("\n").filter(Boolean);
  build(BUSYBOX_IMAGE, applets, ["--cmd", JSON.stringify(["/bin/sh"])]);
  build(PAUSE_IMAGE, [], ["--entrypoint", JSON.stringify([`${BUSYBOX}`, "sleep", "2147483647"])]);
}

function build(image: string, applets: readonly string[], config: readonly string[]): void {
  const container = run("buildah", ["from", "--quiet", "scratch"]).trim();
  try {
    const root = run("buildah", ["mount", container]).trim();
    for (const dir of ["bin", "etc", "tmp"]) mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, "tmp"), 0o1777);
    copyFileSync(BUSYBOX, join(root, BUSYBOX));
    chmodSync(join(root, BUSYBOX), 0o755);
    for (const applet of applets) if (applet !== "busybox") symlinkSync("busybox", join(root, "bin", applet));
    writeFileSync(
      join(root, "etc/passwd"),
      `root:x:0:0:root:/:/bin/sh\nnobody:x:${NOBODY}:${NOBODY}::/:/bin/sh\n`,
    );
    writeFileSync(join(root, "etc/group"), `root:x:0:\nnogroup:x:${NOBODY}:\n`);
    run("buildah", ["unmount", container]);
    run("buildah", ["config", "--user", `${NOBODY}:${NOBODY}`, ...config, container]);
    run("buildah", ["commit", "--quiet", "--rm", container, image]);
  } catch (error) {
    try {
      run("buildah", ["rm", container]);
    } catch {}
    throw error;
  }
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}
