/**
 * Reading API errors, one implementation for every caller. The errors we meet carry their HTTP status in one of
 * two fields: `code` on client-node's `ApiException` and on our `KubeApiError` (json-client.ts), `statusCode` on
 * the error client-node's `Watch` rejects with when the watch request itself is refused. Network errors (undici's
 * `TypeError("fetch failed")` with a socket `cause`) and timeouts carry neither: they have no status.
 */

/** The HTTP status of an API error (`ApiException`, `KubeApiError` or a refused watch), or undefined for others. */
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

/** How much of a description we keep: enough for any Status message, not a whole HTML error page. */
const MAX_DESCRIPTION = 600;

/**
 * The API server's own message from the Status body when there is one, else the error's first line (client-node's
 * message also holds headers, too long and noisy for logs and status), plus a socket error code from `cause`.
 */
export function apiErrorMessage(err: unknown): string {
  const body = (err as { body?: unknown } | null)?.body;
  let message: string | undefined;
  if (typeof body === "string") {
    try {
      message = (JSON.parse(body) as { message?: string }).message;
    } catch {
      message = body.slice(0, MAX_DESCRIPTION);
    }
  } else if (typeof body === "object" && body !== null) {
    message = (body as { message?: string }).message;
  }
  message ??= err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
  if (err instanceof Error && err.cause && typeof (err.cause as { code?: unknown }).code === "string") {
    message += ` (${(err.cause as { code: string }).code})`;
  }
  return message;
}

/**
 * A one-line, log- and status-safe description of an API error: `HTTP <status>: <message>` (see
 * `apiErrorMessage`), or the message alone when there is no status, at most 600 characters.
 */
export function describeApiError(err: unknown): string {
  const status = httpStatusOf(err);
  const message = apiErrorMessage(err);
  return (status === undefined ? message : `HTTP ${status}: ${message}`).slice(0, MAX_DESCRIPTION);
}
