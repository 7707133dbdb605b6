/** Runs `fn(0 … count-1)` with at most `concurrency` calls at once: how the benchmarks create many objects. */
export async function inParallel(
  count: number,
  fn: (i: number) => Promise<unknown>,
  concurrency = 16,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}
