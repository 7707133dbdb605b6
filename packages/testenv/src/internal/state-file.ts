import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { ControlPlaneInfo } from "../control-plane-info.js";

/** Environment variable holding the path of the control plane's state file (set by the vitest globalSetup). */
export const STATE_ENV = "SWH_TESTENV_STATE";

/** A process recorded in the state file: enough to kill it, and for the API server to start it again. */
export interface RecordedProcess {
  pid: number;
  logPath: string;
  command: string;
  args: string[];
}

/**
 * Everything another process needs to use, restart or tear down a running control plane. The
 * apiserver pid changes on `restartApiServer()`, so whoever stops the control plane reads it here.
 */
export interface ControlPlaneState {
  info: ControlPlaneInfo;
  etcd: RecordedProcess;
  apiServer: RecordedProcess;
  controllerManager: RecordedProcess | undefined;
}

/** Reads and parses the state file at `path`; throws naming the path when it is missing or malformed. */
export function readState(path: string): ControlPlaneState {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read control plane state file ${path}`, { cause: error });
  }
  const state = JSON.parse(text) as ControlPlaneState;
  if (!state?.info?.server || !state.apiServer?.pid)
    throw new Error(`malformed control plane state file ${path}`);
  return state;
}

/** Writes the state atomically (write + rename), so a reader never sees half a file. */
export function writeState(path: string, state: ControlPlaneState): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
