/**
 * A binary min-heap of timed items: the scheduler keeps every target's next slot here and runs one timer for
 * the earliest, instead of one timer per target. Items due at the same time come out in insertion order.
 */

/** What the heap orders: `at` (ms on the scheduler's clock); `seq` is assigned on push. */
export interface DueItem {
  at: number;
  seq: number;
}

export class DueQueue<T extends DueItem> {
  readonly #items: T[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  /** The earliest item, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    item.seq = this.#seq++;
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, items[parent] as T)) break;
      items[i] = items[parent] as T;
      i = parent;
    }
    items[i] = item;
  }

  /** Removes and returns the earliest item. */
  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && before(items[right] as T, items[left] as T) ? right : left;
      if (!before(items[child] as T, last)) break;
      items[i] = items[child] as T;
      i = child;
    }
    items[i] = last;
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}

function before(a: DueItem, b: DueItem): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
