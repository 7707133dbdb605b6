/**
 * The HTTP status of an error thrown by @kubernetes/client-node (an ApiException has `code`), if any. The one
 * product implementation is `@swh/kube`'s `httpStatusOf`; testenv cannot import it (the packages' tests, @swh/kube's
 * among them, depend on testenv), and only meets `ApiException`s.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "number") return code;
  }
  return undefined;
}

/**
 * Runs a read-modify-write `attempt` again when the apiserver answers 409 Conflict (someone else
 * wrote in between), a few times; anything else propagates.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (httpStatusOf(error) !== 409 || i >= tries) throw error;
    }
  }
}
