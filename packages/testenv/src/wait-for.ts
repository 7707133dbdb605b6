/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long; default 30 000 ms. */
  timeoutMs?: number;
  /** Pause between checks; default 100 ms. */
  intervalMs?: number;
}

/**
 * Polls `check` every `intervalMs` until it returns a truthy value, which is returned. Throws after
 * `timeoutMs` with `description` and the last value (or error) `check` produced, so a failing test
 * says what it was waiting for and what it saw instead. Errors thrown by `check` count as "not yet".
 */
export async function waitFor<T>(
  description: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  opts: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const seen =
    "error" in last ? `last error: ${describe(last.error)}` : `last value: ${describe(last.value)}`;
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}; ${seen}`, {
    cause: "error" in last ? last.error : undefined,
  });
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}
