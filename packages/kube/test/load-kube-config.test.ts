import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadKubeConfig, PooledKubeConfig } from "../src/index.js";

/** A kubeconfig file naming `server`. */
function kubeconfigFile(dir: string, name: string, server: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    }),
  );
  return path;
}

describe("loadKubeConfig", () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "swh-kubeconfig-"));
    delete process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_PORT;
    process.env.KUBECONFIG = kubeconfigFile(dir, "env", "https://from-env.example:6443");
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it("uses the --kubeconfig file before anything else, even in a pod", () => {
    process.env.KUBERNETES_SERVICE_HOST = "10.96.0.1";
    process.env.KUBERNETES_SERVICE_PORT = "443";
    const kc = loadKubeConfig(kubeconfigFile(dir, "flag", "https://from-flag.example:6443"));
    expect(kc.getCurrentCluster()?.server).toBe("https://from-flag.example:6443");
    expect(kc).toBeInstanceOf(PooledKubeConfig);
  });

  it("in a pod uses the ServiceAccount, not a KUBECONFIG that happens to be set", () => {
    process.env.KUBERNETES_SERVICE_HOST = "10.96.0.1";
    process.env.KUBERNETES_SERVICE_PORT = "443";
    expect(loadKubeConfig(undefined).getCurrentCluster()?.server).toBe("https://10.96.0.1:443");
  });

  it("outside a pod falls back to KUBECONFIG", () => {
    expect(loadKubeConfig(undefined).getCurrentCluster()?.server).toBe("https://from-env.example:6443");
  });

  it("names the file it cannot read", () => {
    expect(() => loadKubeConfig(join(dir, "missing"))).toThrow(/missing/);
  });
});
