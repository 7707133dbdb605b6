/**
 * vitest globalSetup: starts ONE control plane (etcd + kube-apiserver + kube-controller-manager) per
 * vitest run, publishes its state file to test files through `$SWH_TESTENV_STATE` (workers inherit the
 * environment), and stops it (every process, every temp dir) when the run ends.
 *
 * Use: `defineSwhConfig("integration", { globalSetup: ["@swh/testenv/global-setup"] })`, then
 * `await testCluster()` in test files.
 */
import { type ControlPlane, startControlPlane } from "./control-plane.js";
import { STATE_ENV } from "./internal/state-file.js";

let controlPlane: ControlPlane | undefined;

export default async function setup(): Promise<() => Promise<void>> {
  const started = Date.now();
  controlPlane = await startControlPlane({ controllerManager: true });
  process.env[STATE_ENV] = controlPlane.statePath;
  if (process.env.SWH_TESTENV_VERBOSE === "1") {
    console.warn(`[@swh/testenv] control plane ${controlPlane.server} ready in ${Date.now() - started} ms`);
  }
  return teardown;
}

async function teardown(): Promise<void> {
  const cp = controlPlane;
  controlPlane = undefined;
  delete process.env[STATE_ENV];
  await cp?.stop();
}
