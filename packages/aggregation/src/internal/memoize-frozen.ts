/**
 * Caches a pure function's result per frozen input object. Informer caches deep-freeze their objects, so a
 * frozen object cannot change and its derived value (a pod's aggregation view, an SWH with defaults applied) is
 * computed once per object version instead of once per reconcile. Objects that are not frozen are never cached.
 */

/** Returns `fn` with its results remembered for frozen arguments (weakly: they go with the object). */
export function memoizeFrozen<T extends object, R>(fn: (obj: T) => R): (obj: T) => R {
  const cache = new WeakMap<T, R>();
  return (obj) => {
    if (!Object.isFrozen(obj)) return fn(obj);
    if (cache.has(obj)) return cache.get(obj) as R;
    const result = fn(obj);
    cache.set(obj, result);
    return result;
  };
}
