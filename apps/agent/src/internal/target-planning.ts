/**
 * The targets pass: which probe targets the node's pods need for the published SWHs, read once per pass (SWHs
 * and pods), planned by `planNodeTargets` and handed to the scheduler. An SWH planned for the first time while
 * this node already has slices of it starts from those slices (SPEC §3.6: passing where an endpoint serves,
 * reasons from the annotation) — at start, and when its spec becomes readable later (an upgrade, while Services
 * still lack the spec an older controller never published, ADR 0032) — so its endpoints do not flap. A new SWH
 * has no slices: nothing to seed.
 */
import { planNodeTargets, type SwhInput } from "@swh/aggregation";
import { objectKey } from "@swh/crd-types";
import { seedFromSlices } from "@swh/slice-writer";
import type { NodeView } from "./node-view.js";
import type { ObjectProblems } from "./object-problems.js";
import type { Probing } from "./probing.js";

/** Runs targets passes, remembering which SWHs were planned before (see the file comment). */
export class TargetPlanning {
  readonly #view: NodeView;
  readonly #probing: Probing;
  readonly #problems: ObjectProblems;
  #planned = new Set<string>();

  constructor(view: NodeView, probing: Probing, problems: ObjectProblems) {
    this.#view = view;
    this.#probing = probing;
    this.#problems = problems;
  }

  /** One pass; returns how many targets were seeded passing from published slices (for the start-up log). */
  run(): number {
    const { nodeName } = this.#view;
    const swhs = this.#view.swhs();
    const pods = this.#view.pods();
    const plan = planNodeTargets(swhs, pods, nodeName);
    const report = (swh: SwhInput, error: unknown) => this.#problems.unprocessableSwh(swh, swh.spec, error);
    for (const { swh, error } of plan.rejected) report(swh, error);
    const fresh = swhs.flatMap((swh) => {
      if (this.#planned.has(objectKey(swh))) return [];
      const slices = this.#view.ownSlices(swh.namespace, swh.name);
      return slices.length > 0 ? [{ swh, slices }] : [];
    });
    this.#planned = new Set(swhs.map(objectKey));
    if (fresh.length === 0) {
      this.#probing.sync(plan);
      return 0;
    }
    const { seeds, passing } = seedFromSlices({
      nodeName,
      swhs: fresh.map((f) => f.swh),
      pods,
      targets: plan,
      slices: fresh.flatMap((f) => f.slices),
      onError: report,
    });
    this.#probing.sync(plan, seeds);
    return passing;
  }
}
