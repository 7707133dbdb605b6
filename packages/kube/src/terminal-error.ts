/**
 * The error a work-queue worker throws when running the key again cannot succeed (controller-runtime's
 * `reconcile.TerminalError`): a stored object whose shape no longer fits the schema, say. The queue logs and
 * counts it and forgets the key until an event adds it again, instead of retrying the same failure with backoff.
 */
export class TerminalError extends Error {
  override readonly name = "TerminalError";
}

/** True when `err` is a `TerminalError` (also across copies of this module: the name decides). */
export function isTerminalError(err: unknown): err is TerminalError {
  return err instanceof Error && err.name === "TerminalError";
}
