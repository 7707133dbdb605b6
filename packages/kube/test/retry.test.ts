import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { isRetryableApiError, withRetry } from "../src/index.js";

const apiError = (code: number) => new ApiException(code, "failed", {}, {});
const networkError = () =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
const noDelay = { initialMs: 0, maxMs: 0 };

describe("withRetry", () => {
  it.each([
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [403, false],
    [404, false],
    [409, false],
    [422, false],
  ])("HTTP %i retryable: %s", (code, retryable) => {
    expect(isRetryableApiError(apiError(code))).toBe(retryable);
  });

  it("retries network errors but not programming errors", () => {
    expect(isRetryableApiError(networkError())).toBe(true);
    expect(isRetryableApiError(new TypeError("x is not a function"))).toBe(false);
  });

  it("returns the result after transient failures", async () => {
    const failures = [apiError(503), networkError(), apiError(429)];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        const f = failures.shift();
        if (f) throw f;
        return "done";
      },
      { backoff: noDelay },
    );
    expect(result).toBe("done");
    expect(calls).toBe(4);
  });

  it("gives up at once on 403 and 422", async () => {
    for (const code of [403, 422]) {
      let calls = 0;
      await expect(
        withRetry(
          async () => {
            calls++;
            throw apiError(code);
          },
          { backoff: noDelay },
        ),
      ).rejects.toMatchObject({ code });
      expect(calls).toBe(1);
    }
  });

  it("stops after the configured attempts with the last error", async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw apiError(500);
        },
        { attempts: 3, backoff: noDelay },
      ),
    ).rejects.toMatchObject({ code: 500 });
    expect(calls).toBe(3);
  });
});
