/** The process ids of a running control plane, for benchmarks that measure what the API server and etcd spend. */
import type { ControlPlaneInfo } from "./control-plane-info.js";
import { readState } from "./internal/state-file.js";

/** Current pids of etcd, kube-apiserver and (when it runs) kube-controller-manager. */
export interface ControlPlanePids {
  etcd: number;
  apiServer: number;
  controllerManager?: number;
}

/** Reads the pids from the control plane's state file, so they are current after `restartApiServer()`. */
export function controlPlanePids(info: ControlPlaneInfo): ControlPlanePids {
  const state = readState(info.statePath);
  const pids: ControlPlanePids = { etcd: state.etcd.pid, apiServer: state.apiServer.pid };
  if (state.controllerManager?.pid) pids.controllerManager = state.controllerManager.pid;
  return pids;
}
