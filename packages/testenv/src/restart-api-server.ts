import { spawnApiServer, waitForApiServer } from "./internal/api-server.js";
import { killGroup } from "./internal/processes.js";
import { readState, writeState } from "./internal/state-file.js";

/** Options of a restart. */
export interface RestartApiServerOptions {
  /**
   * Runs while the API server is down, before it starts again (e.g. wait until a client noticed the outage, so
   * a test does not depend on whether the client happened to retry before the new server was up). The server
   * starts again whether it resolves or throws; a throw is rethrown afterwards.
   */
  whileDown?: () => Promise<unknown>;
}

/**
 * Restarts kube-apiserver in place from any process (a vitest worker included): SIGKILLs the process
 * group whose pid the state file records, runs `opts.whileDown`, starts the recorded command line again
 * detached (same port, same etcd, same keys), records the new pid BEFORE waiting for it — so teardown
 * always kills the current one — and resolves once `/readyz` is ok.
 */
export async function restartApiServerFromState(
  statePath: string,
  opts: RestartApiServerOptions = {},
): Promise<void> {
  const state = readState(statePath);
  // SIGKILL at once: like a crash or a node loss, and a graceful apiserver shutdown takes seconds.
  await killGroup(state.apiServer.pid, 0);
  try {
    await opts.whileDown?.();
  } finally {
    const proc = spawnApiServer(state.apiServer, { unref: true });
    writeState(statePath, { ...state, apiServer: { ...state.apiServer, pid: proc.pid } });
    await waitForApiServer(proc, {
      server: state.info.server,
      caPem: state.info.caPem,
      adminToken: state.info.adminToken,
    });
  }
}
