/**
 * Properties of `WrittenObjects` over generated histories. Two writers — this process ("us", which records its
 * writes and deletes) and somebody else — create, update and delete a few objects on a model API server with one
 * version counter (as etcd has). A model of our informer (`informer.ts`: the same add/update/delete rules, a delete
 * notification carrying the last cached object) delivers the watch events in order, lags behind, sometimes
 * re-lists instead (reporting only the differences), or replays its cache (resync); every notification goes
 * through `observe`. Somebody else never re-creates an object after we deleted it: names we delete are ours (the
 * contract of `recordDelete`).
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WrittenObjects } from "../src/index.js";

interface Thing extends KubernetesObject {
  by: "us" | "them";
}

const NAMESPACES = ["shop", "bank"] as const;
const NAMES = ["a", "b"] as const;
const KEYS = NAMESPACES.flatMap((ns) => NAMES.map((name) => ({ ns, name, key: `${ns}/${name}` })));

type Step =
  | { kind: "write" | "delete"; who: "us" | "them"; at: number }
  | { kind: "deliver"; count: number }
  | { kind: "relist" }
  | { kind: "resync" };

const stepArb = (writers: readonly ("us" | "them")[], relists: boolean): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constantFrom("write" as const, "delete" as const),
        who: fc.constantFrom(...writers),
        at: fc.nat({ max: KEYS.length - 1 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("deliver" as const), count: fc.integer({ min: 1, max: 4 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "resync" as const }) },
    ...(relists ? [{ weight: 1, arbitrary: fc.constant({ kind: "relist" as const }) }] : []),
  );

const rv = (obj: Thing | undefined) => Number(obj?.metadata?.resourceVersion);
const show = (obj: Readonly<Thing> | undefined) =>
  obj === undefined ? "gone" : `${obj.metadata?.name}@${obj.metadata?.resourceVersion}`;

/** The model world: server, watch events, informer cache, and our tracker fed by every notification. */
class World {
  version = 100;
  readonly server = new Map<string, Thing>();
  readonly events: { obj: Thing; deleted: boolean }[] = [];
  delivered = 0;
  readonly cache = new Map<string, Thing>();
  readonly objects = new WrittenObjects<Thing>();
  /** Our latest write or delete per key, and whether we deleted a key before (names we delete are ours). */
  readonly ours = new Map<string, { version: number; kind: "write" | "delete" }>();
  readonly deletedByUs = new Set<string>();
  /** Keys with a delete notification since our latest write or delete of them. */
  readonly deleteSinceOurs = new Set<string>();
  /** Each notification of the last step: its key, version, and what `observe` answered. */
  notified: { key: string; version: number; deleted: boolean; echo: boolean }[] = [];

  apply(step: Step): void {
    this.notified = [];
    if (step.kind === "write" || step.kind === "delete") this.#change(step);
    else if (step.kind === "deliver") this.#deliver(step.count);
    else if (step.kind === "relist") this.#relist();
    else for (const obj of [...this.cache.values()]) this.#notify(obj, false);
  }

  /** Delivers everything, then lets the informer show one newer event (the world goes on). */
  settle(): void {
    this.#deliver(this.events.length);
    this.#change({ kind: "write", who: "them", at: -1 });
    this.#deliver(1);
  }

  #change({ kind, who, at }: { kind: "write" | "delete"; who: "us" | "them"; at: number }): void {
    const { ns, name, key } = KEYS[at] ?? { ns: "elsewhere", name: "clock", key: "elsewhere/clock" };
    const stored = this.server.get(key);
    if (kind === "delete" && stored === undefined) return;
    if (kind === "write" && who === "them" && stored === undefined && this.deletedByUs.has(key)) return;
    const version = ++this.version;
    const obj: Thing = { metadata: { namespace: ns, name, resourceVersion: String(version) }, by: who };
    if (kind === "write") this.server.set(key, obj);
    else this.server.delete(key);
    this.events.push({ obj, deleted: kind === "delete" });
    if (who !== "us") return;
    this.ours.set(key, { version, kind });
    this.deleteSinceOurs.delete(key);
    if (kind === "write") this.objects.recordWrite(obj);
    else {
      this.objects.recordDelete({ namespace: ns, name });
      this.deletedByUs.add(key);
    }
  }

  #deliver(count: number): void {
    for (const { obj, deleted } of this.events.slice(this.delivered, this.delivered + count)) {
      this.delivered++;
      const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
      const old = this.cache.get(key);
      if (deleted) {
        this.cache.delete(key);
        this.#notify(old ?? obj, true);
      } else if (old === undefined || rv(old) !== rv(obj)) {
        this.cache.set(key, obj);
        this.#notify(obj, false);
      }
    }
  }

  #relist(): void {
    this.delivered = this.events.length;
    for (const [key, obj] of this.server) {
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (old === undefined || rv(old) !== rv(obj)) this.#notify(obj, false);
    }
    for (const [key, old] of [...this.cache]) {
      if (this.server.has(key)) continue;
      this.cache.delete(key);
      this.#notify(old, true);
    }
  }

  #notify(obj: Thing, deleted: boolean): void {
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    const echo = this.objects.observe(obj, deleted);
    this.notified.push({ key, version: rv(obj), deleted, echo });
    if (deleted) this.deleteSinceOurs.add(key);
    // Never hides a change: "nothing new" only for what our own write or delete of that key already covers.
    if (echo) expect(this.ours.get(key)?.version ?? -1).toBeGreaterThanOrEqual(rv(obj));
  }

  /** What the tracker shows for each key, over the informer's cache. */
  shown(): Map<string, Readonly<Thing> | undefined> {
    return new Map(KEYS.map(({ key }) => [key, this.objects.current(key, this.cache.get(key))]));
  }

  /** `view` per namespace, as "name@version" sorted. */
  views(): string[][] {
    return NAMESPACES.map((ns) =>
      this.objects
        .view(
          [...this.cache.values()].filter((o) => o.metadata?.namespace === ns),
          ns,
          () => true,
        )
        .map(show)
        .sort(),
    );
  }
}

/** `view` must agree with `current` key by key. */
function expectViewMatchesCurrent(world: World): void {
  const shown = world.shown();
  const expected = NAMESPACES.map((ns) =>
    KEYS.filter((k) => k.ns === ns)
      .map(({ key }) => shown.get(key))
      .filter((o) => o !== undefined)
      .map(show)
      .sort(),
  );
  expect(world.views()).toEqual(expected);
}

describe("WrittenObjects over generated histories", () => {
  it("reads its own writes at every step when it is the only writer", () => {
    fc.assert(
      fc.property(fc.array(stepArb(["us"], true), { maxLength: 40 }), (steps) => {
        const world = new World();
        for (const step of steps) {
          // Only writer, never re-creating what it deleted: the view is exactly the server, however far behind.
          if (step.kind === "write" && world.deletedByUs.has(KEYS[step.at]?.key ?? "")) continue;
          world.apply(step);
          for (const { key } of KEYS) expect(show(world.shown().get(key))).toBe(show(world.server.get(key)));
          expectViewMatchesCurrent(world);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("is never older than the cache, only ever shows our own writes over it, and yields once the informer caught up", () => {
    fc.assert(
      fc.property(fc.array(stepArb(["us", "them"], true), { maxLength: 50 }), (steps) => {
        const world = new World();
        for (const step of steps) {
          world.apply(step);
          for (const [key, shown] of world.shown()) {
            const cached = world.cache.get(key);
            if (shown === cached) continue;
            if (shown === undefined) expect(world.ours.get(key)?.kind).toBe("delete");
            else {
              expect(shown.by).toBe("us");
              if (cached !== undefined) expect(rv(shown)).toBeGreaterThan(rv(cached));
            }
          }
          expectViewMatchesCurrent(world);
        }
        world.settle();
        for (const [key, shown] of world.shown()) expect(show(shown)).toBe(show(world.server.get(key)));
        expectViewMatchesCurrent(world);
      }),
      { numRuns: 500 },
    );
  });

  it("reports the echo of our latest write or delete of an object as nothing new, on a watch in order", () => {
    fc.assert(
      fc.property(fc.array(stepArb(["us", "them"], false), { maxLength: 60 }), (steps) => {
        const world = new World();
        for (const step of [...steps, { kind: "deliver" as const, count: 200 }]) {
          if (step.kind !== "deliver") {
            world.apply(step);
            continue;
          }
          // One event at a time, so each notification is judged with what was known just before it.
          for (let i = 0; i < step.count && world.delivered < world.events.length; i++) {
            const next = world.events[world.delivered];
            const key = `${next?.obj.metadata?.namespace}/${next?.obj.metadata?.name}`;
            const ours = world.ours.get(key);
            // A delete notification in between ends what we recorded (see `observe`): only then may it be missed.
            const expectEcho =
              ours !== undefined && ours.version === rv(next?.obj) && !world.deleteSinceOurs.has(key);
            world.apply({ kind: "deliver", count: 1 });
            if (expectEcho) expect(world.notified.map((n) => n.echo)).toEqual([true]);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
