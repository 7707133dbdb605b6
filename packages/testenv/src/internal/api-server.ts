import { httpGet } from "./http-get.js";
import { type ManagedProcess, spawnLogged, waitUntilReady } from "./processes.js";
import type { RecordedProcess } from "./state-file.js";

/** How long kube-apiserver may take to report /readyz ok (5–15 s is usual on 2 cores). */
const API_SERVER_READY_TIMEOUT_MS = 90_000;

/**
 * Starts kube-apiserver from a recorded command line; the first start and `restartApiServer()` use
 * the same one. Does not wait: see {@link waitForApiServer}.
 */
export function spawnApiServer(
  recorded: Omit<RecordedProcess, "pid">,
  opts: { unref?: boolean } = {},
): ManagedProcess {
  return spawnLogged("kube-apiserver", recorded.command, recorded.args, recorded.logPath, {
    ...(opts.unref ? { unref: true } : {}),
  });
}

/**
 * Resolves once `/readyz` answers `ok` to the admin token; throws with the log tail when the
 * process dies first or takes longer than {@link API_SERVER_READY_TIMEOUT_MS}.
 */
export async function waitForApiServer(
  proc: ManagedProcess,
  endpoint: { server: string; caPem: string; adminToken: string },
): Promise<void> {
  await waitUntilReady(
    proc,
    async () => {
      const res = await httpGet(`${endpoint.server}/readyz`, {
        caPem: endpoint.caPem,
        token: endpoint.adminToken,
        timeoutMs: 3_000,
      });
      return res.status === 200 && res.body.trim() === "ok";
    },
    API_SERVER_READY_TIMEOUT_MS,
  );
}
