/**
 * JSON-lines logger for both apps: one object per line on stdout with `level`, `time`, `msg` and the fields.
 * Field names that look like credentials are redacted wherever they occur, so a secret cannot reach the logs by
 * being passed as a field.
 */

/** Log levels from most to least verbose. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** One of `LOG_LEVELS`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured logger; `child` returns a logger that adds `fields` to every line. */
export interface Logger {
  debug(msg: string, fields?: object): void;
  info(msg: string, fields?: object): void;
  warn(msg: string, fields?: object): void;
  error(msg: string, fields?: object): void;
  child(fields: object): Logger;
}

/** Options of `createLogger`: the minimum level, where lines go, fields on every line and the time source. */
export interface LoggerOptions {
  level?: LogLevel;
  stream?: NodeJS.WritableStream;
  base?: object;
  /** Returns the current time; tests fix it. */
  now?: () => Date;
}

/** Printed instead of a redacted value. */
export const REDACTED = "[REDACTED]";

// Substring match on purpose: `dbPassword`, `apiToken`, `clientSecret`, `privateKey`, `Authorization` all hide.
const SENSITIVE_FIELD = /passw(or)?d|token|secret|key|credential|authorization|cookie/i;

/** Returns true when a field of this name must never be printed. */
function isSensitiveField(name: string): boolean {
  return SENSITIVE_FIELD.test(name);
}

/** Parses a `--log-level`/`LOG_LEVEL` value; throws naming the value when it is not a level. */
export function parseLogLevel(value: string): LogLevel {
  const v = value.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new Error(`log level: "${value}" is not one of ${LOG_LEVELS.join(", ")}`);
}

/** Creates a logger writing JSON lines to `stream` (stdout by default) at `level` ("info" by default) and above. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const stream = opts.stream ?? process.stdout;
  const min = LOG_LEVELS.indexOf(opts.level ?? "info");
  const now = opts.now ?? (() => new Date());
  const make = (base: Record<string, unknown>): Logger => {
    const write = (level: LogLevel, msg: string, fields?: object) => {
      if (LOG_LEVELS.indexOf(level) < min) return;
      const line = {
        level,
        time: now().toISOString(),
        msg,
        ...base,
        ...sanitize(fields ?? {}, 0, new WeakSet()),
      };
      stream.write(`${JSON.stringify(line)}\n`);
    };
    return {
      debug: (msg, fields) => write("debug", msg, fields),
      info: (msg, fields) => write("info", msg, fields),
      warn: (msg, fields) => write("warn", msg, fields),
      error: (msg, fields) => write("error", msg, fields),
      child: (fields) => make({ ...base, ...sanitize(fields, 0, new WeakSet()) }),
    };
  };
  return make(sanitize(opts.base ?? {}, 0, new WeakSet()));
}

const MAX_DEPTH = 6;

// Returns a JSON-safe copy with sensitive keys redacted, errors expanded and cycles/depth cut.
function sanitize(value: object, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSensitiveField(k) ? REDACTED : sanitizeValue(v, depth + 1, seen);
  }
  return out;
}

function sanitizeValue(v: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (v === null || typeof v !== "object") {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function" || typeof v === "symbol") return undefined;
    return v;
  }
  if (v instanceof Date) return v.toISOString();
  if (seen.has(v)) return "[Circular]";
  if (depth > MAX_DEPTH) return "[Truncated]";
  seen.add(v);
  try {
    if (v instanceof Error) return sanitizeError(v, depth, seen);
    if (Array.isArray(v)) return v.map((x) => sanitizeValue(x, depth + 1, seen));
    if (v instanceof Map) return sanitize(Object.fromEntries(v), depth, seen);
    return sanitize(v, depth, seen);
  } finally {
    seen.delete(v);
  }
}

function sanitizeError(e: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = { name: e.name, message: e.message };
  const extra = sanitize(e, depth, seen); // own enumerable props such as `code`, `statusCode`, `body`
  Object.assign(out, extra);
  if (e.stack !== undefined) out.stack = e.stack;
  if (e.cause !== undefined) out.cause = sanitizeValue(e.cause, depth + 1, seen);
  return out;
}
