/**
 * A scripted scenario: steps that change the world, each followed by waiting until the published endpoints
 * (read from the EndpointSlices) satisfy the step's expectation. Shared by the demo and the end-to-end suite.
 */
import { DiscoveryV1Api, type KubeConfig } from "@kubernetes/client-node";
import { LABEL_MANAGED_BY, MANAGED_BY } from "@swh/crd-types";
import { type EndpointRow, endpointRows, renderEndpointTable, tableSignature } from "./endpoint-table.js";

/** Reads the endpoint rows of every slice our agents wrote in `namespace`. */
export async function readEndpoints(kc: KubeConfig, namespace: string): Promise<EndpointRow[]> {
  const api = kc.makeApiClient(DiscoveryV1Api);
  const list = await api.listNamespacedEndpointSlice({
    namespace,
    labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
  });
  return endpointRows(list.items);
}

/** True when the row for (swh, pod, port name) exists and has the given readiness. */
export function hasEndpoint(
  rows: readonly EndpointRow[],
  swh: string,
  pod: string,
  ready: boolean,
  port?: string,
): boolean {
  return rows.some(
    (r) =>
      r.swh === swh &&
      r.pod === pod &&
      r.ready === ready &&
      (port === undefined || r.port.startsWith(`${port}/`)),
  );
}

export interface ScenarioStep {
  title: string;
  act(): Promise<void>;
  /** The published state the step must reach. */
  expect(rows: readonly EndpointRow[]): boolean;
}

export interface StepOutcome {
  title: string;
  converged: boolean;
  elapsedMs: number;
}

/**
 * Runs `steps` in order. After each action polls the slices every `pollMs`, calls `onTable` whenever the table
 * changes, and moves on once `expect` holds (or after `timeoutMs`, recorded as not converged).
 */
export async function runScenario(
  kc: KubeConfig,
  namespace: string,
  steps: readonly ScenarioStep[],
  opts: {
    timeoutMs?: number;
    pollMs?: number;
    onTable?: (table: string) => void;
    onStep?: (title: string) => void;
    /** Runs after each step has converged (or timed out), with the rows it ended on; the demo sends traffic here. */
    afterStep?: (rows: readonly EndpointRow[]) => Promise<void>;
  } = {},
): Promise<StepOutcome[]> {
  const outcomes: StepOutcome[] = [];
  let lastSignature = "";
  for (const step of steps) {
    opts.onStep?.(step.title);
    const started = performance.now();
    await step.act();
    let converged = false;
    let rows: EndpointRow[] = [];
    while (performance.now() - started < (opts.timeoutMs ?? 60_000)) {
      rows = await readEndpoints(kc, namespace);
      const signature = tableSignature(rows);
      if (signature !== lastSignature) {
        lastSignature = signature;
        opts.onTable?.(renderEndpointTable(rows));
      }
      if (step.expect(rows)) {
        converged = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 200));
    }
    outcomes.push({ title: step.title, converged, elapsedMs: Math.round(performance.now() - started) });
    await opts.afterStep?.(rows);
  }
  return outcomes;
}
