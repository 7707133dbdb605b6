// Measures the WorkQueue's own overhead (the worker does nothing): N distinct keys, each added 3 times
// (de-duplicated), processed with concurrency 8. Run: pnpm --filter @swh/kube bench
import { WorkQueue } from "@swh/kube"; // the built package (dist), via its own exports map

const KEYS = 10_000;
const ROUNDS = 20;

async function once(): Promise<number> {
  const q = new WorkQueue<string>();
  const stop = new AbortController();
  let processed = 0;
  const started = performance.now();
  for (let r = 0; r < 3; r++) for (let i = 0; i < KEYS; i++) q.add(`ns/obj-${i}`);
  await q.run(
    async () => {
      processed++;
      if (processed === KEYS) stop.abort();
    },
    { concurrency: 8, signal: stop.signal },
  );
  return performance.now() - started;
}

await once(); // warm-up
const times: number[] = [];
for (let i = 0; i < ROUNDS; i++) times.push(await once());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] ?? 0;
console.log(
  JSON.stringify({
    bench: "workqueue",
    keys: KEYS,
    addsPerKey: 3,
    concurrency: 8,
    rounds: ROUNDS,
    medianMs: Number(median.toFixed(1)),
    keysPerSecond: Math.round((KEYS / median) * 1000),
  }),
);
