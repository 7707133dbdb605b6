/**
 * Graceful shutdown on SIGTERM/SIGINT: the first signal runs every registered handler (in registration order,
 * each awaited, failures reported on stderr and the exit code set to 1), then exits. A second signal while
 * handlers run exits at once, so an operator is never stuck with a process that will not stop.
 */

type Handler = (signal: string) => Promise<void> | void;

const handlers: Handler[] = [];
let installed = false;
let shuttingDown = false;

/** Options of `onShutdown`. */
export interface ShutdownOptions {
  /** Exit code-setting and exit; tests replace it. Default `process.exit`. */
  exit?: (code: number) => void;
}

/** Registers `fn` to run once on the first SIGTERM or SIGINT, before the process exits. */
export function onShutdown(fn: Handler, opts: ShutdownOptions = {}): void {
  handlers.push(fn);
  if (installed) return;
  installed = true;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      exit(130);
      return;
    }
    shuttingDown = true;
    void runHandlers(signal).then((ok) => exit(ok ? 0 : 1));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

async function runHandlers(signal: string): Promise<boolean> {
  let ok = true;
  for (const fn of handlers) {
    try {
      await fn(signal);
    } catch (err) {
      ok = false;
      console.error(JSON.stringify({ level: "error", msg: "shutdown handler failed", error: String(err) }));
    }
  }
  return ok;
}
