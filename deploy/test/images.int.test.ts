/**
 * The release (issues 21 and 32): docs/install.md's `release.sh --push "$REGISTRY"`, run as written against a real
 * registry on loopback, builds the release once for this file. The registry must serve one manifest list per app for
 * linux/amd64 and linux/arm64, which the packaged chart installs by digest; the arm64 image must hold an aarch64 Node
 * with every library it links; every published package's tarball must carry LICENSE and its release notes; the
 * checkout must be as before. The host's image is then run as the chart runs it, and started against the test control
 * plane it must become ready.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode, httpsGet, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docShell } from "./support/doc-commands.ts";
import { documentedMetrics, exposedMetrics } from "./support/metrics-doc.ts";
import { type Registry, startRegistry } from "./support/registry.ts";
import {
  DEPLOY_DIR,
  find,
  helmTemplate,
  nodeFlags,
  parseYamlDocuments,
  ROOT_DIR,
  run,
} from "./support/tools.ts";

const APPS = ["controller", "agent"] as const;
const ARCHS = ["amd64", "arm64"] as const;
/** The architecture of this machine, as OCI names it: the image the tests below run. */
const HOST_ARCH = process.arch === "arm64" ? "arm64" : "amd64";
const DIST = join(DEPLOY_DIR, "dist");
const sizes = new Map<string, number>();
/** `<pushed reference> <manifest list digest>` per app, from release.sh's digests.txt. */
const digests = new Map<string, string>();
/** The version the release gave the apps (the pending changesets applied), read from the pushed references. */
let released = "";

/** The local image of `app` for `arch`, as build-images.sh --arch names it. */
function image(app: string, arch: string = HOST_ARCH): string {
  return `localhost/service-with-healthchecks/swh-${app}:${released}-${arch}`;
}

/** Runs the image as the chart runs it (deploy/scripts/podman-run.sh): user 65534, read-only root fs. */
function podmanRun(app: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run("bash", [join(DEPLOY_DIR, "scripts/podman-run.sh"), image(app), ...args], {
    env: { ...process.env, ...env },
  });
}

/** One field of the image's configuration (`podman image inspect --format`). */
function inspect(app: string, format: string, arch: string = HOST_ARCH): string {
  return run("podman", ["image", "inspect", "--format", format, image(app, arch)], {
    env: { ...process.env, CONTAINERS_CONF: join(DEPLOY_DIR, "images/containers.conf") },
  }).stdout.trim();
}

/** What git sees of the checkout: status and the content of every change, to compare before and after a release. */
function checkoutState(): { status: string; diff: string } {
  const status = run("git", ["status", "--porcelain=v1", "--untracked-files=all"], { cwd: ROOT_DIR }).stdout;
  const diff = run("git", ["diff", "HEAD", "--binary"], { cwd: ROOT_DIR }).stdout;
  return { status, diff: createHash("sha256").update(diff).digest("hex") };
}

/** ELF e_machine values (elf.h). */
const ELF_MACHINE = { amd64: 62, arm64: 183 } as const;

/** The e_machine field of the ELF file at `path` (offset 18, little-endian), or undefined when it is no ELF file. */
function elfMachine(path: string): number | undefined {
  const header = Buffer.alloc(20);
  const fd = openSync(path, "r");
  readSync(fd, header, 0, 20, 0);
  if (header.readUInt32BE(0) !== 0x7f454c46) return undefined;
  return header.readUInt16LE(18);
}

/** The shared libraries an ELF file names (DT_NEEDED), as readelf shows them. */
function neededLibraries(path: string): string[] {
  const dynamic = run("readelf", ["-dW", path]).stdout;
  return [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1] ?? "");
}

let registry: Registry;
/** The `$REGISTRY` of docs/install.md: a path under the test registry, as an operator's prefix usually is. */
let prefix: string;
let before: ReturnType<typeof checkoutState>;
let after: ReturnType<typeof checkoutState>;

beforeAll(async () => {
  registry = await startRegistry();
  prefix = `${registry.address}/platform`;
  const shell = docShell("docs/install.md", await testCluster());
  before = checkoutState();
  const started = Date.now();
  shell.run("release-push", { REGISTRY: prefix, CONTAINERS_REGISTRIES_CONF: registry.registriesConf });
  console.log(`release.sh --push: ${Date.now() - started} ms`);
  after = checkoutState();
  // release.sh keeps build-images.sh's report: "<image> <size in bytes>" per line.
  for (const line of readFileSync(join(DIST, "images.txt"), "utf8").trim().split("\n")) {
    const [name, size] = line.split(" ");
    sizes.set(name ?? "", Number(size));
  }
  for (const line of readFileSync(join(DIST, "digests.txt"), "utf8").trim().split("\n")) {
    const [reference = "", digest = ""] = line.split(" ");
    digests.set(reference, digest);
  }
  released = [...digests.keys()][0]?.split(":").at(-1) ?? "";
  console.log(`release ${released}; image sizes (bytes): ${JSON.stringify(Object.fromEntries(sizes))}`);
}, 900_000);

afterAll(async () => {
  await registry?.stop();
});

describe("the release", () => {
  it("leaves the checkout as it was: no file changed, added or removed", () => {
    expect(after.status).toBe(before.status);
    expect(after.diff).toBe(before.diff);
  });

  it("pushes one version of both apps, the chart's", () => {
    expect(released).toMatch(/^\d+\.\d+\.\d+/);
    expect([...digests.keys()].sort()).toEqual(APPS.map((app) => `${prefix}/swh-${app}:${released}`).sort());
    expect(existsSync(join(DIST, `service-with-healthchecks-${released}.tgz`))).toBe(true);
  });
});

describe.each(APPS)("the %s manifest list pushed to the registry", (app) => {
  const repository = () => `platform/swh-${app}`;
  const digest = () => digests.get(`${prefix}/swh-${app}:${released}`) ?? "";

  it("is what the tag serves and lists linux/amd64 and linux/arm64, each an image of that platform", async () => {
    const byTag = await registry.manifest(repository(), released);
    expect(byTag).toMatchObject({ kind: "index", digest: digest() });
    const list = await registry.manifest(repository(), digest());
    if (list?.kind !== "index") throw new Error(`${repository()}@${digest()} is no manifest list`);
    expect(list.mediaType).toBe("application/vnd.oci.image.index.v1+json");
    expect(list.manifests.map((m) => m.platform).sort()).toEqual(["linux/amd64", "linux/arm64"]);
    for (const entry of list.manifests) {
      expect(await registry.platformOf(repository(), entry.digest)).toBe(entry.platform);
    }
    // The host's entry is the local image the tests below run (podman's image ID is its config digest).
    const host = list.manifests.find((m) => m.platform === `linux/${HOST_ARCH}`);
    const image = await registry.manifest(repository(), host?.digest ?? "");
    expect(image).toMatchObject({
      kind: "image",
      layers: 1,
      configDigest: `sha256:${inspect(app, "{{.Id}}")}`,
    });
  });

  it("is what the packaged chart installs, pinned by its digest", async () => {
    const chart = join(DIST, `service-with-healthchecks-${released}.tgz`);
    const rendered = helmTemplate({
      chart,
      set: [
        `global.imageRegistry=${prefix}`,
        ...APPS.map((a) => `${a}.image.digest=${digests.get(`${prefix}/swh-${a}:${released}`)}`),
      ],
    });
    const workload = find(rendered, app === "agent" ? "DaemonSet" : "Deployment", `swh-${app}`);
    const reference: string = workload.spec.template.spec.containers[0].image;
    expect(reference).toBe(`${prefix}/swh-${app}:${released}@${digest()}`);
    // What a kubelet does with a reference that has a digest: fetch the manifest by the digest, the tag ignored.
    const [, name = "", pinned = ""] = /^[^/]+\/([^:@]+):[^@]+@(sha256:[0-9a-f]{64})$/.exec(reference) ?? [];
    expect(await registry.manifest(name, pinned)).toMatchObject({ kind: "index", digest: pinned });
  });
});

describe.each(ARCHS)("the %s images", (arch) => {
  it.each(APPS)("of the %s hold a Node for that CPU and every library it links, for that CPU too", (app) => {
    const mounted = run("podman", ["image", "mount", image(app, arch)]);
    expect(mounted.stderr).toBe("");
    const root = mounted.stdout.trim();
    try {
      expect(inspect(app, "{{.Os}}/{{.Architecture}}", arch)).toBe(`linux/${arch}`);
      const node = join(root, "usr/local/bin/node");
      expect(elfMachine(node)).toBe(ELF_MACHINE[arch]);
      const interpreter = /Requesting program interpreter: ([^\]]+)\]/.exec(
        run("readelf", ["-lW", node]).stdout,
      )?.[1];
      expect(interpreter && elfMachine(join(root, interpreter))).toBe(ELF_MACHINE[arch]);
      // Every library node needs, and theirs, where the loader of Debian's glibc looks (no ld.so.cache here).
      const libDirs = readdirSync(join(root, "lib"))
        .filter((d) => d.endsWith("-linux-gnu"))
        .map((d) => join(root, "lib", d));
      const seen = new Set<string>();
      const queue = [node];
      for (let file = queue.shift(); file; file = queue.shift()) {
        for (const name of neededLibraries(file)) {
          if (seen.has(name) || interpreter?.endsWith(`/${name}`)) continue;
          seen.add(name);
          const lib = libDirs.map((d) => join(d, name)).find((p) => existsSync(p));
          expect(lib, `${name} (needed by ${file})`).toBeDefined();
          expect(elfMachine(lib ?? ""), name).toBe(ELF_MACHINE[arch]);
          queue.push(lib ?? "");
        }
      }
      expect([...seen]).toEqual(expect.arrayContaining(["libc.so.6", "libstdc++.so.6"]));
    } finally {
      run("podman", ["image", "unmount", image(app, arch)]);
    }
  });
});

/** The public packages of the checkout: directory and package.json. */
function publishedPackages(): { dir: string; name: string }[] {
  return readdirSync(join(ROOT_DIR, "packages"))
    .map((dir) => ({
      dir,
      pkg: JSON.parse(readFileSync(join(ROOT_DIR, "packages", dir, "package.json"), "utf8")),
    }))
    .filter(({ pkg }) => !pkg.private)
    .map(({ dir, pkg }) => ({ dir, name: pkg.name as string }));
}

/** The first line of the summary of each pending changeset that names `name` in its front matter. */
function pendingSummaries(name: string): string[] {
  const dir = join(ROOT_DIR, ".changeset");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .filter((text) => text.split("---")[1]?.includes(`"${name}":`))
    .map((text) => text.split("---").slice(2).join("---").trim().split("\n")[0] ?? "");
}

describe("the published packages of the release", () => {
  const packages = publishedPackages();

  it.each(packages)("$name ships LICENSE and its CHANGELOG.md with the notes of this release", ({ name }) => {
    const tarballs = readdirSync(join(DIST, "packages"));
    const tarball = tarballs.find((f) => f.startsWith(`${name.replace("@", "").replace("/", "-")}-`));
    expect(tarball, `a tarball of ${name} among ${tarballs.join(", ")}`).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "swh-tarball-"));
    run("tar", ["-xzf", join(DIST, "packages", tarball ?? ""), "-C", dir]);
    expect(readFileSync(join(dir, "package/LICENSE"), "utf8")).toBe(
      readFileSync(join(ROOT_DIR, "LICENSE"), "utf8"),
    );
    const { version } = JSON.parse(readFileSync(join(dir, "package/package.json"), "utf8"));
    const changelog = readFileSync(join(dir, "package/CHANGELOG.md"), "utf8");
    expect(changelog.startsWith(`# ${name}\n`)).toBe(true);
    expect(changelog).toContain(`\n## ${version}\n`);
    for (const summary of pendingSummaries(name)) expect(changelog).toContain(summary);
  });

  it("are all in SHA256SUMS with their checksums", () => {
    const sums = run("sha256sum", ["--check", "--strict", "SHA256SUMS"], { cwd: DIST });
    expect(sums.status).toBe(0);
    expect(sums.stdout.split("\n").filter((l) => l.startsWith("packages/")).length).toBe(packages.length);
  });
});

describe.each(APPS)("the %s image", (app) => {
  it("is built with its version from package.json and holds Node plus the bundle only", () => {
    const size = sizes.get(`service-with-healthchecks/swh-${app}:${released}-${HOST_ARCH}`);
    expect(size).toBeGreaterThan(0);
    const listing = podmanRun(app, ["-e", "console.log(require('fs').readdirSync('/app').join(','))"], {
      PODMAN_RUN_FLAGS: "--entrypoint /usr/local/bin/node",
    });
    expect(listing.stdout.trim()).toBe("main.mjs");
  });

  it("answers --version as the unprivileged user on a read-only root filesystem", () => {
    const result = podmanRun(app, ["--version"]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(`swh-${app} ${released}`);
    expect(inspect(app, "{{.Config.User}}")).toBe("65534:65534");
    expect(JSON.parse(inspect(app, "{{json .Config.Entrypoint}}"))).toEqual([
      "/usr/local/bin/node",
      ...nodeFlags(app),
      "/app/main.mjs",
    ]);
  });

  it("cannot write to its root filesystem and does not run as root", () => {
    const probe = podmanRun(
      app,
      [
        "-e",
        "let w='written';try{require('fs').writeFileSync('/app/x','1')}catch(e){w=e.code};console.log(process.getuid(),w)",
      ],
      { PODMAN_RUN_FLAGS: "--entrypoint /usr/local/bin/node" },
    );
    expect(probe.stdout.trim()).toBe("65534 EROFS");
  });
});

const PORTS = {
  controller: { metrics: 18080, health: 18081 },
  agent: { metrics: 18090, health: 18091 },
} as const;
const NODE = "image-test-node";

/**
 * Starts `app`'s image detached on the netns' network with what a kubelet gives the pod: the
 * ServiceAccount token, CA and namespace files and the downward-API env. Returns the container name.
 */
async function startInCluster(app: (typeof APPS)[number]): Promise<string> {
  const cluster = await testCluster();
  const { token } = await cluster.serviceAccountKubeConfig("swh-system", `swh-${app}`);
  const secrets = mkdtempSync(join(tmpdir(), "swh-sa-"));
  writeFileSync(join(secrets, "token"), token);
  writeFileSync(join(secrets, "ca.crt"), cluster.info.caPem);
  writeFileSync(join(secrets, "namespace"), "swh-system");
  // Readable by the container's user 65534, as the kubelet's projected volume is.
  chmodSync(secrets, 0o755);
  for (const file of ["token", "ca.crt", "namespace"]) chmodSync(join(secrets, file), 0o644);
  const server = new URL(cluster.info.server);
  const name = `swh-${app}-${process.pid}`;
  const args = [
    `--metrics-bind-address=127.0.0.1:${PORTS[app].metrics}`,
    `--health-bind-address=127.0.0.1:${PORTS[app].health}`,
    "--log-level=info",
  ];
  if (app === "controller") args.unshift("--leader-elect=true", "--namespace=swh-system");
  const started = run("bash", [join(DEPLOY_DIR, "scripts/podman-run.sh"), image(app), ...args], {
    env: {
      ...process.env,
      PODMAN_NETWORK: "host",
      PODMAN_RUN_FLAGS: [
        "--detach",
        `--name ${name}`,
        `--volume ${secrets}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
        `--env KUBERNETES_SERVICE_HOST=${server.hostname}`,
        `--env KUBERNETES_SERVICE_PORT=${server.port}`,
        "--env POD_NAMESPACE=swh-system",
        `--env POD_NAME=${name}`,
        `--env NODE_NAME=${NODE}`,
      ].join(" "),
    },
  });
  if (started.status !== 0) throw new Error(`podman run ${app} failed:\n${started.stderr}`);
  return name;
}

function stopAndShowLogs(name: string): void {
  const logs = run("podman", ["logs", name]);
  run("podman", ["rm", "--force", name]);
  console.log(`--- ${name} (last lines)\n${(logs.stdout + logs.stderr).split("\n").slice(-15).join("\n")}`);
}

describe.each(APPS)("the %s image against the test control plane", (app) => {
  it("becomes ready with a token for its ServiceAccount (chart RBAC only) and exports the documented metrics", async () => {
    const cluster = await testCluster();
    const files = ["namespace.yaml", "crd.yaml", `rbac-${app}.yaml`];
    await cluster.apply(
      files.flatMap((f) => parseYamlDocuments(readFileSync(join(DEPLOY_DIR, "manifests", f), "utf8"))),
    );
    if (app === "agent") await createNode(cluster.kubeConfig, { name: NODE }).catch(() => undefined);
    const name = await startInCluster(app);
    try {
      await waitFor(
        `the ${app} container to answer /readyz with 200`,
        async () =>
          (await fetch(`http://127.0.0.1:${PORTS[app].health}/readyz`).catch(() => undefined))?.status ===
          200,
        { timeoutMs: 60_000 },
      );
      // HTTPS with the app's self-signed certificate; the admin may get /metrics, and the app reviews the
      // token as its own ServiceAccount.
      const scraped = await httpsGet(PORTS[app].metrics, "/metrics", {
        token: cluster.kubeConfig.getCurrentUser()?.token,
      });
      expect(scraped.status).toBe(200);
      const metrics = scraped.body;
      const exposed = exposedMetrics(metrics);
      const docs = documentedMetrics();
      const expected = [
        ...(docs.get("Both apps") ?? []),
        ...(docs.get(app === "agent" ? "Agent" : "Controller") ?? []),
      ];
      expect(expected.length).toBeGreaterThan(8);
      expect(expected.filter((metric) => !exposed.has(metric))).toEqual([]);
    } finally {
      stopAndShowLogs(name);
    }
  });
});
