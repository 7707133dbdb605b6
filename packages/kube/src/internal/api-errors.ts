/** Returns the HTTP status carried by a client-node `ApiException` (or a watch error), if any. */
export function httpStatusOf(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === "number") return e.code;
  if (typeof e.statusCode === "number") return e.statusCode;
  return undefined;
}

/** Formats `date` as a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits), which the API requires. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Returns a one-line description of an API error: the status and the API server's own message from the Status
 * body when there is one (client-node's message also holds headers, too long and noisy for logs).
 */
export function describeApiError(err: unknown): string {
  const status = httpStatusOf(err);
  const body = (err as { body?: unknown } | null)?.body;
  let message: string | undefined;
  if (typeof body === "string") {
    try {
      message = (JSON.parse(body) as { message?: string }).message;
    } catch {
      message = body.slice(0, 300);
    }
  } else if (typeof body === "object" && body !== null) {
    message = (body as { message?: string }).message;
  }
  message ??= err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
  if (err instanceof Error && err.cause && typeof (err.cause as { code?: unknown }).code === "string") {
    message += ` (${(err.cause as { code: string }).code})`;
  }
  return status !== undefined ? `${status}: ${message}` : message;
}
