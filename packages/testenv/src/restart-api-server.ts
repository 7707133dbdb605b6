import { spawnApiServer, waitForApiServer } from "./internal/api-server.js";
import { killGroup } from "./internal/processes.js";
import { readState, writeState } from "./internal/state-file.js";

/**
 * Restarts kube-apiserver in place from any process (a vitest worker included): SIGKILLs the process
 * group whose pid the state file records, starts the recorded command line again detached (same
 * port, same etcd, same keys), records the new pid BEFORE waiting for it — so teardown always kills
 * the current one — and resolves once `/readyz` is ok.
 */
export async function restartApiServerFromState(statePath: string): Promise<void> {
  const state = readState(statePath);
  // SIGKILL at once: like a crash or a node loss, and a graceful apiserver shutdown takes seconds.
  await killGroup(state.apiServer.pid, 0);
  const proc = spawnApiServer(state.apiServer, { unref: true });
  writeState(statePath, { ...state, apiServer: { ...state.apiServer, pid: proc.pid } });
  await waitForApiServer(proc, {
    server: state.info.server,
    caPem: state.info.caPem,
    adminToken: state.info.adminToken,
  });
}
