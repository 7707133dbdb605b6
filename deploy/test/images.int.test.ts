/**
 * The release (issue 21): docs/install.md's `release.sh --push "$REGISTRY"`, run as written against a real registry
 * on loopback, builds the two images once for this file; the images are checked as the chart runs them, the
 * registry must serve exactly the references the chart renders for `global.imageRegistry=$REGISTRY`, and each
 * image started against the test control plane must become ready.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
const sizes = new Map<string, number>();

function version(app: string): string {
  return JSON.parse(readFileSync(join(ROOT_DIR, "apps", app, "package.json"), "utf8")).version;
}

function image(app: string): string {
  return `localhost/service-with-healthchecks/swh-${app}:${version(app)}`;
}

/** Runs the image as the chart runs it (deploy/scripts/podman-run.sh): user 65534, read-only root fs. */
function podmanRun(app: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run("bash", [join(DEPLOY_DIR, "scripts/podman-run.sh"), image(app), ...args], {
    env: { ...process.env, ...env },
  });
}

/** One field of the image's configuration (`podman image inspect --format`). */
function inspect(app: string, format: string): string {
  return run("podman", ["image", "inspect", "--format", format, image(app)], {
    env: { ...process.env, CONTAINERS_CONF: join(DEPLOY_DIR, "images/containers.conf") },
  }).stdout.trim();
}

let registry: Registry;
/** The `$REGISTRY` of docs/install.md: a path under the test registry, as an operator's prefix usually is. */
let prefix: string;

beforeAll(async () => {
  registry = await startRegistry();
  prefix = `${registry.address}/platform`;
  const shell = docShell("docs/install.md", await testCluster());
  const started = Date.now();
  shell.run("release-push", { REGISTRY: prefix, CONTAINERS_REGISTRIES_CONF: registry.registriesConf });
  console.log(`release.sh --push: ${Date.now() - started} ms`);
  // release.sh keeps build-images.sh's report: "<image> <size in bytes>" per line.
  for (const line of readFileSync(join(DEPLOY_DIR, "dist/images.txt"), "utf8").trim().split("\n")) {
    const [name, size] = line.split(" ");
    sizes.set(name ?? "", Number(size));
  }
  console.log(`image sizes (bytes): ${JSON.stringify(Object.fromEntries(sizes))}`);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  // The pushed tags are a second name of the local images; leave the local storage as the build left it.
  if (prefix) run("podman", ["rmi", ...APPS.map((app) => `${prefix}/swh-${app}:${version(app)}`)]);
});

describe("the release pushed to a registry", () => {
  it.each(APPS)(
    "serves the %s image under the reference the chart renders, the image tested here",
    async (app) => {
      const rendered = helmTemplate({ set: [`global.imageRegistry=${prefix}`] });
      const workload = find(rendered, app === "agent" ? "DaemonSet" : "Deployment", `swh-${app}`);
      const reference: string = workload.spec.template.spec.containers[0].image;
      expect(reference).toBe(`${prefix}/swh-${app}:${version(app)}`);

      // What a kubelet does with the reference: host, repository, tag.
      const [, repository = "", tag = ""] = /^[^/]+\/(.+):([^:/]+)$/.exec(reference) ?? [];
      expect(await registry.tags(repository)).toEqual([tag]);
      const manifest = await registry.manifest(repository, tag);
      expect(manifest).toMatchObject({ mediaType: expect.stringMatching(/manifest/), layers: 1 });
      // The pushed image is the local one the tests below run (podman's image ID is its config digest).
      expect(manifest?.configDigest).toBe(`sha256:${inspect(app, "{{.Id}}")}`);
    },
  );
});

describe.each(APPS)("the %s image", (app) => {
  it("is built with its version from package.json and holds Node plus the bundle only", () => {
    const size = sizes.get(`service-with-healthchecks/swh-${app}:${version(app)}`);
    expect(size).toBeGreaterThan(0);
    const listing = podmanRun(app, ["-e", "console.log(require('fs').readdirSync('/app').join(','))"], {
      PODMAN_RUN_FLAGS: "--entrypoint /usr/local/bin/node",
    });
    expect(listing.stdout.trim()).toBe("main.mjs");
  });

  it("answers --version as the unprivileged user on a read-only root filesystem", () => {
    const result = podmanRun(app, ["--version"]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(`swh-${app} ${version(app)}`);
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

// Starting an app for real needs its flags (--health-bind-address, /readyz); a bundle that only
// answers --version (before the app is implemented) skips these tests.
function serves(app: string): boolean {
  return readFileSync(join(ROOT_DIR, "apps", app, "dist/main.mjs"), "utf8").includes("health-bind-address");
}

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

describe.each(APPS.filter(serves))("the %s image against the test control plane", (app) => {
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
