/**
 * A real container registry for the release test: Debian's docker-registry (the Distribution registry, installed by
 * deploy/scripts/install-image-tools.sh --registry) on a free loopback port, storing into a temporary directory, and
 * reads of its HTTP API (the way a kubelet resolves an image reference).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The manifest media types a client accepts (OCI and Docker v2, single image and index/list). */
const MANIFEST_TYPES = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
].join(", ");

/** A running registry. */
export interface Registry {
  /** `host:port` of the registry: the first part of an image reference pushed to it. */
  address: string;
  /**
   * A registries.conf that declares this registry insecure (plain HTTP), for `CONTAINERS_REGISTRIES_CONF`: how
   * podman pushes to a registry without TLS, as an operator's does with /etc/containers/registries.conf.
   */
  registriesConf: string;
  /** The tags of repository `name` (`GET /v2/<name>/tags/list`), or undefined when the registry does not know it. */
  tags(name: string): Promise<string[] | undefined>;
  /**
   * The manifest of `name:reference` (a tag or a digest) as a client that accepts OCI and Docker manifests gets it,
   * or undefined when absent; for a manifest list, the platforms it lists.
   */
  manifest(name: string, reference: string): Promise<ImageManifest | ImageIndex | undefined>;
  /** The `os/architecture` of image `digest` of repository `name`: what its configuration blob says. */
  platformOf(name: string, digest: string): Promise<string>;
  /** Stops the registry and deletes its storage. */
  stop(): Promise<void>;
}

/** The parts of an image manifest the tests read. */
interface ImageManifest {
  kind: "image";
  /** The response's Content-Type. */
  mediaType: string;
  /** The manifest's digest (the response's Docker-Content-Digest). */
  digest: string;
  /** Digest of the image configuration: the image ID podman shows for the same image. */
  configDigest: string;
  /** Number of layers. */
  layers: number;
}

/** The parts of a manifest list (OCI index) the tests read. */
interface ImageIndex {
  kind: "index";
  /** The response's Content-Type. */
  mediaType: string;
  /** The list's digest (the response's Docker-Content-Digest), the one an image reference pins. */
  digest: string;
  /** The images it lists: their digests and `os/architecture`. */
  manifests: { digest: string; platform: string }[];
}

/** A manifest or a manifest list as the registry serves it (the fields of both the tests read). */
interface ManifestBody {
  config?: { digest: string };
  layers?: unknown[];
  manifests?: { digest: string; platform: { os: string; architecture: string } }[];
}

/** Starts a registry on 127.0.0.1 (a port the kernel picks) and resolves once it listens. */
export async function startRegistry(): Promise<Registry> {
  const dir = mkdtempSync(join(tmpdir(), "swh-registry-"));
  const config = join(dir, "config.yml");
  writeFileSync(
    config,
    [
      "version: 0.1",
      "log: { level: info, accesslog: { disabled: true } }",
      `storage: { filesystem: { rootdirectory: ${join(dir, "data")} } }`,
      "http: { addr: 127.0.0.1:0 }",
      "",
    ].join("\n"),
  );
  const child = spawn("docker-registry", ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let address: string;
  try {
    address = await listeningAddress(child);
  } catch (error) {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const registriesConf = join(dir, "registries.conf");
  writeFileSync(registriesConf, `[[registry]]\nlocation = "${address}"\ninsecure = true\n`);

  const get = (path: string, accept?: string) =>
    fetch(`http://${address}/v2/${path}`, accept ? { headers: { Accept: accept } } : {});
  const registry: Registry = {
    address,
    registriesConf,
    async tags(name) {
      const response = await get(`${name}/tags/list`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`GET /v2/${name}/tags/list: ${response.status}`);
      return ((await response.json()) as { tags: string[] | null }).tags ?? [];
    },
    async manifest(name, reference) {
      const response = await get(`${name}/manifests/${reference}`, MANIFEST_TYPES);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`GET /v2/${name}/manifests/${reference}: ${response.status}`);
      const mediaType = response.headers.get("content-type") ?? "";
      const digest = response.headers.get("docker-content-digest") ?? "";
      const body = (await response.json()) as ManifestBody;
      if (body.manifests) {
        const manifests = body.manifests.map((m) => ({
          digest: m.digest,
          platform: `${m.platform.os}/${m.platform.architecture}`,
        }));
        return { kind: "index", mediaType, digest, manifests };
      }
      return {
        kind: "image",
        mediaType,
        digest,
        configDigest: body.config?.digest ?? "",
        layers: body.layers?.length ?? 0,
      };
    },
    async platformOf(name, digest) {
      const image = await registry.manifest(name, digest);
      if (image?.kind !== "image") throw new Error(`${name}@${digest} is no image manifest`);
      const response = await get(`${name}/blobs/${image.configDigest}`);
      if (!response.ok) throw new Error(`GET /v2/${name}/blobs/${image.configDigest}: ${response.status}`);
      const config = (await response.json()) as { os: string; architecture: string };
      return `${config.os}/${config.architecture}`;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return registry;
}

/** The address the registry logs once it listens ("listening on 127.0.0.1:PORT"); rejects when it exits first. */
function listeningAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log: string | undefined = "";
    child.stderr?.setEncoding("utf8");
    // Read to the end (a full pipe would stall the registry), keeping the log only until it listens.
    child.stderr?.on("data", (chunk: string) => {
      if (log === undefined) return;
      log += chunk;
      const listening = /msg="listening on ([^"]+)"/.exec(log);
      if (listening?.[1]) {
        log = undefined;
        resolve(listening[1]);
      }
    });
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new Error(
              "docker-registry is not installed: bash deploy/scripts/install-image-tools.sh --registry",
            )
          : error,
      ),
    );
    child.once("exit", (code) =>
      reject(new Error(`docker-registry exited (${code}) before listening:\n${log}`)),
    );
  });
}
