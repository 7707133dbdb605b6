import { describe, expect, it } from "vitest";
import { allHaveSynced, allSynced } from "../src/index.js";

/** An informer as far as syncing goes, synced when `sync()` is called or stopped by `fail()`. */
function anInformer() {
  let synced = false;
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return {
    hasSynced: () => synced,
    synced: () => promise,
    sync: () => {
      synced = true;
      resolve();
    },
    fail: (err: Error) => reject(err),
  };
}

describe("allSynced / allHaveSynced", () => {
  it("waits for the last informer to load its first list", async () => {
    const [a, b] = [anInformer(), anInformer()];
    let done = false;
    const all = allSynced([a, b]).then(() => {
      done = true;
    });
    a.sync();
    await Promise.resolve();
    expect(done).toBe(false);
    expect(allHaveSynced([a, b])).toBe(false);
    b.sync();
    await all;
    expect(done).toBe(true);
    expect(allHaveSynced([a, b])).toBe(true);
  });

  it("rejects when one informer stops before it synced", async () => {
    const [a, b] = [anInformer(), anInformer()];
    a.sync();
    b.fail(new Error("stopped"));
    await expect(allSynced([a, b])).rejects.toThrow("stopped");
  });

  it("counts no informers as synced", async () => {
    await expect(allSynced([])).resolves.toBeUndefined();
    expect(allHaveSynced([])).toBe(true);
  });
});
