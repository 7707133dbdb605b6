/**
 * The agent's work loop: one queue, two kinds of key. `TARGETS` runs a targets pass (what the node probes);
 * an SWH key runs the reconcile of that SWH's slices (`reconcileSwh`). Keys are added by the informer handlers
 * (`enqueueOnChanges`) and by probe results; the queue runs each key once at a time, coalescing repeats.
 */
import type { WorkQueue } from "@swh/kube";
import { reconcileSwh, type SwhReports, type SwhWrites } from "../reconcile-swh.js";
import { enqueueSwhs, TARGETS } from "./event-handlers.js";
import type { NodeView } from "./node-view.js";
import type { PublishedSwhs } from "./published-swhs.js";
import type { TargetPlanning } from "./target-planning.js";

/** What the work loop reads, plans with, writes to and reports to. */
export interface PublicationParts {
  view: NodeView;
  planning: TargetPlanning;
  published: PublishedSwhs;
  writes: SwhWrites;
  reports: SwhReports;
}

/** Enqueues a targets pass and every published SWH, then works the queue until `signal` aborts. */
export function runPublication(
  queue: WorkQueue<string>,
  parts: PublicationParts,
  opts: { workers: number; signal: AbortSignal },
): Promise<void> {
  const { view, planning, writes, reports } = parts;
  queue.add(TARGETS);
  enqueueSwhs(queue, parts.published);
  return queue.run(
    async (key, { logger }) => {
      if (key === TARGETS) planning.run();
      else await reconcileSwh(key, view, writes, reports, logger);
    },
    { concurrency: opts.workers, signal: opts.signal },
  );
}
