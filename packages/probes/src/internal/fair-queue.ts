/**
 * The probes waiting for a concurrency slot, kept per group (the agent's group is the pod's namespace) so that
 * one group's slow or hanging probes cannot hold every slot while another group's probes wait (ADR 0016).
 *
 * Policy: groups with waiting probes take turns (round robin, one probe per turn). A group may start a probe only
 * while it runs fewer than its share, `max(1, floor(maxConcurrent / (activeGroups + 1)))`, where `activeGroups`
 * counts the groups with a running or waiting probe. The "+1" keeps a share free for a group that is not active
 * yet: when it becomes active it finds a free slot at once, instead of waiting for another group's hanging probes
 * to time out. Running probes are never cut short; a group above its share (its share shrank because another
 * group became active) only starts nothing new until it is back below.
 *
 * Cost: every operation is O(1) except `take`, which may pass once over the groups that are at their share (none
 * in the common case); no allocation per probe: items carry their own links (`FairLinks`).
 */

/** The queue's bookkeeping inside an item: create it once per item with `fairLinks()`, never touch it. */
export interface FairLinks<T> {
  state: "idle" | "waiting" | "running";
  /** The group the item waits or runs in. */
  group: FairGroup<T> | undefined;
  prev: T | undefined;
  next: T | undefined;
}

/** An item of a `FairQueue`. */
export interface FairItem<T> {
  readonly fair: FairLinks<T>;
}

/** A group with running or waiting items (a group without either is forgotten). */
interface FairGroup<T> {
  readonly key: string;
  running: number;
  waiting: number;
  head: T | undefined;
  tail: T | undefined;
  // Links in the round robin, which holds exactly the groups with waiting items.
  turnPrev: FairGroup<T> | undefined;
  turnNext: FairGroup<T> | undefined;
}

/** Returns fresh links for a new item. */
export function fairLinks<T>(): FairLinks<T> {
  return { state: "idle", group: undefined, prev: undefined, next: undefined };
}

/** Waiting and running items per group under a global cap; see the file comment for the policy. */
export class FairQueue<T extends FairItem<T>> {
  readonly #max: number;
  readonly #groups = new Map<string, FairGroup<T>>();
  // The round robin: a doubly linked FIFO of the groups that have waiting items.
  #turnHead: FairGroup<T> | undefined;
  #turnTail: FairGroup<T> | undefined;
  #turns = 0;
  #running = 0;
  #waiting = 0;

  constructor(maxConcurrent: number) {
    this.#max = maxConcurrent;
  }

  /** Items running (started by `take` or `start`, not finished yet). */
  get running(): number {
    return this.#running;
  }

  /** Items waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Groups with a running or waiting item. */
  get activeGroups(): number {
    return this.#groups.size;
  }

  /** How many items one group may run at once now. */
  share(): number {
    return Math.max(1, Math.floor(this.#max / (this.#groups.size + 1)));
  }

  /** Adds an idle `item` at the end of group `key`'s line. */
  push(item: T, key: string): void {
    const links = item.fair;
    if (links.state !== "idle") throw new Error(`FairQueue.push: item is ${links.state}`);
    const group = this.#group(key);
    links.state = "waiting";
    links.group = group;
    links.prev = group.tail;
    links.next = undefined;
    if (group.tail === undefined) group.head = item;
    else group.tail.fair.next = item;
    group.tail = item;
    group.waiting++;
    this.#waiting++;
    if (group.waiting === 1) this.#enterTurn(group);
  }

  /** Takes a waiting `item` out of its line (it becomes idle); other items are ignored. */
  delete(item: T): void {
    const links = item.fair;
    const group = links.group;
    if (links.state !== "waiting" || group === undefined) return;
    this.#unlink(group, item);
    if (group.waiting === 0) this.#leaveTurn(group);
    links.state = "idle";
    links.group = undefined;
    this.#forgetIfIdle(group);
  }

  /**
   * Returns the next item allowed to start, now marked running, or undefined when the global cap is reached or
   * every group with waiting items is at its share. Call `finish` when it is done.
   */
  take(): T | undefined {
    if (this.#running >= this.#max) return undefined;
    // Starting an item keeps its group active, so the share is the same for the whole pass.
    const share = this.share();
    for (let turns = this.#turns; turns > 0; turns--) {
      const group = this.#turnHead as FairGroup<T>;
      // Whether it starts an item or not, the group goes to the back: the next group has the next turn.
      this.#leaveTurn(group);
      const item = group.head as T;
      if (group.running >= share) {
        this.#enterTurn(group);
        continue;
      }
      this.#unlink(group, item);
      if (group.waiting > 0) this.#enterTurn(group);
      this.#markRunning(group, item);
      return item;
    }
    return undefined;
  }

  /** Marks an idle or waiting `item` of group `key` running now, whatever the cap and shares say. */
  start(item: T, key: string): void {
    if (item.fair.state === "running") throw new Error("FairQueue.start: item is already running");
    this.delete(item);
    this.#markRunning(this.#group(key), item);
  }

  /** Marks a running `item` finished: its slot is free. */
  finish(item: T): void {
    const links = item.fair;
    const group = links.group;
    if (links.state !== "running" || group === undefined) return;
    links.state = "idle";
    links.group = undefined;
    group.running--;
    this.#running--;
    this.#forgetIfIdle(group);
  }

  #group(key: string): FairGroup<T> {
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = {
        key,
        running: 0,
        waiting: 0,
        head: undefined,
        tail: undefined,
        turnPrev: undefined,
        turnNext: undefined,
      };
      this.#groups.set(key, group);
    }
    return group;
  }

  #markRunning(group: FairGroup<T>, item: T): void {
    item.fair.state = "running";
    item.fair.group = group;
    group.running++;
    this.#running++;
  }

  #unlink(group: FairGroup<T>, item: T): void {
    const { prev, next } = item.fair;
    if (prev === undefined) group.head = next;
    else prev.fair.next = next;
    if (next === undefined) group.tail = prev;
    else next.fair.prev = prev;
    item.fair.prev = undefined;
    item.fair.next = undefined;
    group.waiting--;
    this.#waiting--;
  }

  #forgetIfIdle(group: FairGroup<T>): void {
    if (group.running === 0 && group.waiting === 0) this.#groups.delete(group.key);
  }

  #enterTurn(group: FairGroup<T>): void {
    group.turnPrev = this.#turnTail;
    group.turnNext = undefined;
    if (this.#turnTail === undefined) this.#turnHead = group;
    else this.#turnTail.turnNext = group;
    this.#turnTail = group;
    this.#turns++;
  }

  #leaveTurn(group: FairGroup<T>): void {
    const { turnPrev, turnNext } = group;
    if (turnPrev === undefined) this.#turnHead = turnNext;
    else turnPrev.turnNext = turnNext;
    if (turnNext === undefined) this.#turnTail = turnPrev;
    else turnNext.turnPrev = turnPrev;
    group.turnPrev = undefined;
    group.turnNext = undefined;
    this.#turns--;
  }
}
