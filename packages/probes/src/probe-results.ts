/**
 * The published result of each probe target, modelled on the kubelet's `prober/results` manager: `set(id, state)`
 * stores the state and reports an update only when it differs from what was published (passing, reason,
 * message), so consumers react to changes instead of to every probe. The scheduler records into it after each
 * probe (option `results`) and removes a target's entry with the target.
 */

/** Longest probe message kept in published states (and so in the slice annotation and status). */
const MAX_RESULT_MESSAGE_LENGTH = 200;

/** What is published for a target: passing or not, with the reason and message of its latest failure. */
export interface PublishedResult {
  passing: boolean;
  reason?: string;
  message?: string;
}

/** The part of a `ProbeResult` that is published. */
export interface ResultOutcome {
  ok: boolean;
  reason?: string;
  message: string;
}

/** Receives a target's published state when it changed. */
export type ResultUpdate = (id: string, state: PublishedResult) => void;

/**
 * Returns what is published for a target after a probe result, `passing` being its threshold state after it. A
 * passing target carries no reason. A failing target carries the reason of the latest failed probe; while it
 * recovers (successes below `successThreshold`) it keeps the reason it failed for, so the reason does not churn.
 */
export function nextPublishedResult(
  previous: PublishedResult | undefined,
  passing: boolean,
  result: ResultOutcome,
): PublishedResult {
  if (passing) return { passing: true };
  if (!result.ok) {
    return { passing: false, reason: result.reason ?? "Error", message: truncate(result.message) };
  }
  if (previous && !previous.passing) return previous;
  return { passing: false };
}

/** True when two states publish the same thing. */
export function samePublishedResult(a: PublishedResult | undefined, b: PublishedResult | undefined): boolean {
  return a?.passing === b?.passing && a?.reason === b?.reason && a?.message === b?.message;
}

/** The published state of every target; see the file comment. */
export class ProbeResults {
  readonly #states = new Map<string, PublishedResult>();
  readonly #onUpdate: ResultUpdate | undefined;

  /** `onUpdate` is called after every change of a published state, never for a state set again unchanged. */
  constructor(onUpdate?: ResultUpdate) {
    this.#onUpdate = onUpdate;
  }

  /** Published states by target id (a missing id has no result yet). */
  get states(): ReadonlyMap<string, PublishedResult> {
    return this.#states;
  }

  /** The published state of `id`, if any. */
  get(id: string): PublishedResult | undefined {
    return this.#states.get(id);
  }

  /** Publishes `state` for `id`; returns true (after calling `onUpdate`) when it differs from the previous one. */
  set(id: string, state: PublishedResult): boolean {
    if (samePublishedResult(this.#states.get(id), state)) return false;
    this.#states.set(id, state);
    this.#onUpdate?.(id, state);
    return true;
  }

  /** Publishes the state that follows `result` for `id` (see `nextPublishedResult`); true when it changed. */
  record(id: string, passing: boolean, result: ResultOutcome): boolean {
    return this.set(id, nextPublishedResult(this.#states.get(id), passing, result));
  }

  /** Forgets `id` (its target is gone); no update is reported. */
  remove(id: string): void {
    this.#states.delete(id);
  }
}

function truncate(message: string): string {
  return message.length > MAX_RESULT_MESSAGE_LENGTH
    ? `${message.slice(0, MAX_RESULT_MESSAGE_LENGTH - 1)}…`
    : message;
}
