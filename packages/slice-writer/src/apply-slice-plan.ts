/**
 * The slice applier: performs a SlicePlan with @kubernetes/client-node, and on a stale view of the world (404,
 * 409 Conflict, AlreadyExists) re-reads this agent's slices and re-plans, a bounded number of times. All I/O of
 * this package lives here; the client is injected.
 */
import type { DiscoveryV1Api, V1EndpointSlice } from "@kubernetes/client-node";
import { FIELD_MANAGER_AGENT } from "@swh/crd-types/internal";
import { apiErrorMessage, httpStatusOf } from "@swh/kube";
import type { SlicePlan } from "./plan-slices.js";
import { isOwnedSlice, sliceLabelSelector } from "./slice-labels.js";

/** The DiscoveryV1Api calls the applier makes; a `DiscoveryV1Api` from `kubeConfig.makeApiClient` fits. */
export type SliceApi = Pick<
  DiscoveryV1Api,
  | "createNamespacedEndpointSlice"
  | "replaceNamespacedEndpointSlice"
  | "deleteNamespacedEndpointSlice"
  | "listNamespacedEndpointSlice"
>;

/** The kinds of write a plan holds (labels of the write metrics). */
const SLICE_ACTIONS = ["create", "update", "delete"] as const;
/** One of `SLICE_ACTIONS`. */
export type SliceAction = (typeof SLICE_ACTIONS)[number];

/** Outcome of one write: `conflict`/`notFound`/`alreadyExists` mean our view was stale; `notOwned` was refused. */
export const WRITE_RESULTS = ["ok", "conflict", "notFound", "alreadyExists", "notOwned", "error"] as const;
/** One of `WRITE_RESULTS`. */
export type WriteResult = (typeof WRITE_RESULTS)[number];

/** Options of `applySlicePlan`: whose slices are written, and how. */
export interface ApplyOptions {
  /** Namespace of the SWH (and of its slices). */
  namespace: string;
  /** The agent's node: only slices labelled for it are ever written or deleted. */
  nodeName: string;
  /** The SWH whose slices these are. */
  swhName: string;
  /**
   * Plans again from freshly listed slices of this SWH and node after a stale-view error. Without it the apply
   * stops at the first such error and reports it.
   */
  replan?: (existing: V1EndpointSlice[]) => SlicePlan;
  /** Attempts in total (first plan + re-plans); default 3. */
  maxAttempts?: number;
  fieldManager?: string;
}

/** What `applySlicePlan` did, for logs and metrics. */
export interface ApplyResult {
  /** True when the last plan attempted was fully applied. */
  ok: boolean;
  /** Plans attempted (1 + re-plans). */
  attempts: number;
  /** Number of API writes per action and result. */
  writes: Record<SliceAction, Record<WriteResult, number>>;
  /** Objects as the API server returned them after create/update: a caller may refresh its cache with them. */
  written: V1EndpointSlice[];
  /** Names of the slices deleted (or found already gone). */
  deleted: string[];
  /** The error that ended the apply, when `ok` is false. */
  error?: { action: SliceAction | "list"; name: string; code?: number; message: string };
}

/**
 * Performs `plan`: creates, then updates (each carrying the resourceVersion it was planned from, so a concurrent
 * change is a 409, not a lost write), then deletes (with uid and resourceVersion preconditions). A slice not
 * labelled as ours for `nodeName` and `swhName` is never written. On 404 of an update, 409 or AlreadyExists it
 * lists this SWH's slices of this node, calls `replan` and applies the new plan, up to `maxAttempts` plans.
 * A delete that finds the slice gone counts as done. Other API errors end the apply with `ok: false`; nothing is
 * thrown for API errors.
 */
export async function applySlicePlan(
  api: SliceApi,
  plan: SlicePlan,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const result: ApplyResult = { ok: false, attempts: 0, writes: emptyCounts(), written: [], deleted: [] };
  const maxAttempts = opts.maxAttempts ?? 3;
  let current = plan;
  while (true) {
    result.attempts++;
    const outcome = await applyOnce(api, current, opts, result);
    if (outcome === "done") {
      result.ok = true;
      delete result.error;
      return result;
    }
    if (outcome === "failed" || opts.replan === undefined || result.attempts >= maxAttempts) return result;
    try {
      const listed = await api.listNamespacedEndpointSlice({
        namespace: opts.namespace,
        labelSelector: sliceLabelSelector({ nodeName: opts.nodeName, swhName: opts.swhName }),
      });
      current = opts.replan(listed.items);
    } catch (err) {
      result.error = { action: "list", name: opts.swhName, ...describeError(err) };
      return result;
    }
  }
}

type Outcome = "done" | "stale" | "failed";

async function applyOnce(
  api: SliceApi,
  plan: SlicePlan,
  opts: ApplyOptions,
  result: ApplyResult,
): Promise<Outcome> {
  const fieldManager = opts.fieldManager ?? FIELD_MANAGER_AGENT;
  const steps: [SliceAction, V1EndpointSlice][] = [
    ...plan.create.map((s): [SliceAction, V1EndpointSlice] => ["create", s]),
    ...plan.update.map((s): [SliceAction, V1EndpointSlice] => ["update", s]),
    ...plan.delete.map((s): [SliceAction, V1EndpointSlice] => ["delete", s]),
  ];
  for (const [action, slice] of steps) {
    const name = slice.metadata?.name ?? "";
    const ours =
      isOwnedSlice(slice, { nodeName: opts.nodeName, swhName: opts.swhName }) &&
      (slice.metadata?.namespace ?? opts.namespace) === opts.namespace;
    if (!ours) {
      result.writes[action].notOwned++;
      result.error = {
        action,
        name,
        message: `slice ${name} is not owned by this agent for ${opts.swhName}; refused`,
      };
      return "failed";
    }
    try {
      if (action === "create") {
        result.written.push(
          await api.createNamespacedEndpointSlice({ namespace: opts.namespace, body: slice, fieldManager }),
        );
      } else if (action === "update") {
        result.written.push(
          await api.replaceNamespacedEndpointSlice({
            name,
            namespace: opts.namespace,
            body: slice,
            fieldManager,
          }),
        );
      } else {
        const preconditions: { uid?: string; resourceVersion?: string } = {};
        if (slice.metadata?.uid !== undefined) preconditions.uid = slice.metadata.uid;
        if (slice.metadata?.resourceVersion !== undefined)
          preconditions.resourceVersion = slice.metadata.resourceVersion;
        await api.deleteNamespacedEndpointSlice({ name, namespace: opts.namespace, body: { preconditions } });
        result.deleted.push(name);
      }
      result.writes[action].ok++;
    } catch (err) {
      const { code, message } = describeError(err);
      const kind = classify(action, code);
      result.writes[action][kind]++;
      if (action === "delete" && kind === "notFound") {
        result.deleted.push(name);
        continue;
      }
      result.error = { action, name, message, ...(code === undefined ? {} : { code }) };
      return kind === "error" ? "failed" : "stale";
    }
  }
  return "done";
}

function classify(action: SliceAction, code: number | undefined): WriteResult {
  if (code === 404) return "notFound";
  if (code === 409) return action === "create" ? "alreadyExists" : "conflict";
  return "error";
}

/** HTTP status and a readable message of an API error (the Status message when the body carries one). */
function describeError(err: unknown): { code?: number; message: string } {
  const code = httpStatusOf(err);
  const message = apiErrorMessage(err);
  return code === undefined ? { message } : { code, message };
}

function emptyCounts(): Record<SliceAction, Record<WriteResult, number>> {
  const row = () => Object.fromEntries(WRITE_RESULTS.map((r) => [r, 0])) as Record<WriteResult, number>;
  return { create: row(), update: row(), delete: row() };
}
