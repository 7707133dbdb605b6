import { spawnApiServer, waitForApiServer } from "./internal/api-server.js";
import { killGroup, ProcessFailedError } from "./internal/processes.js";
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
    await startAgain(statePath, state);
  }
}

/**
 * Attempts at starting the apiserver again. Under heavy load a fresh kube-apiserver was seen (twice, in
 * several hundred restarts) to exit at once without a line in its log; the cause is not known. What tests
 * exercise is how clients recover from the outage, not the apiserver's start-up, so a start that dies
 * before it is ready is tried again, and the last failure is thrown with its log.
 */
const START_ATTEMPTS = 3;

async function startAgain(statePath: string, state: ReturnType<typeof readState>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const proc = spawnApiServer(state.apiServer, { unref: true });
    // Read again: the kube-controller-manager's supervisor may have recorded a restart meanwhile.
    writeState(statePath, { ...readState(statePath), apiServer: { ...state.apiServer, pid: proc.pid } });
    try {
      await waitForApiServer(proc, {
        server: state.info.server,
        caPem: state.info.caPem,
        adminToken: state.info.adminToken,
      });
      return;
    } catch (error) {
      if (!(error instanceof ProcessFailedError) || attempt >= START_ATTEMPTS) throw error;
      process.stderr.write(
        `[@swh/testenv] restarted kube-apiserver died at once (attempt ${attempt}); starting it again\n`,
      );
      await killGroup(proc.pid, 0);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
