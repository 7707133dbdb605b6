/**
 * Tells users what is wrong with their objects, as a Warning Event on the object plus a warning log line: once per
 * object and problem however often the object is looked at (a controller's handlers may look at it on every
 * change of anything), and within the EventRecorder's per-object rate limit on top. What a problem is and how its
 * message reads is the caller's; this holds the "once", with bounded memory: past `MAX_REMEMBERED` problems it
 * starts over (a repeated Event is harmless, an unbounded set is not).
 */
import type { EventRecorder, EventSubject } from "./event-recorder.js";
import type { Logger } from "./logger.js";

/** Problems remembered as reported; past this many the memory starts over. */
const MAX_REMEMBERED = 10_000;

/** Longest error text in a message or log line. */
const MAX_ERROR_TEXT = 200;

/** Reports problems with users' objects once each (see the file comment). */
export class ObjectProblemReporter {
  readonly #events: Pick<EventRecorder, "record">;
  readonly #logger: Logger;
  readonly #reported = new Set<string>();
  readonly #max: number;

  /** `maxRemembered` (default 10,000) bounds the memory of what was reported. */
  constructor(deps: { events: Pick<EventRecorder, "record">; logger: Logger; maxRemembered?: number }) {
    this.#events = deps.events;
    this.#logger = deps.logger;
    this.#max = deps.maxRemembered ?? MAX_REMEMBERED;
  }

  /**
   * Logs `problem` of `subject` as a warning ("object problem", with `error` when given) and records a Warning
   * Event with `reason` and `message`, unless this subject (by uid and name) already had this reason and problem.
   */
  warn(subject: EventSubject, reason: string, problem: string, message: string, error?: unknown): void {
    const key = `${subject.uid}\u0000${subject.namespace}/${subject.name}\u0000${reason}\u0000${problem}`;
    if (!this.firstTime(key)) return;
    this.#logger.warn("object problem", {
      kind: subject.kind,
      object: `${subject.namespace}/${subject.name}`,
      reason,
      problem,
      ...(error === undefined ? {} : { err: errorSummary(error) }),
    });
    this.#events.record(subject, "Warning", reason, message);
  }

  /** True the first time `key` is asked about (within the bounded memory): for problems reported otherwise. */
  firstTime(key: string): boolean {
    if (this.#reported.has(key)) return false;
    if (this.#reported.size >= this.#max) this.#reported.clear();
    this.#reported.add(key);
    return true;
  }
}

/**
 * An error's name and message, cut to 200 characters: for errors from reading object shapes, which name code and
 * fields, not values.
 */
export function errorSummary(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text;
}
