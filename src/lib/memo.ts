/**
 * @module Answers of a pure function kept in the isolate, by a key that holds everything the answer depends
 * on, so a kept answer is never stale. Bounded by a weight (a count by default, or characters kept): when an
 * answer would pass the bound, everything is forgotten at once, which costs nothing to track.
 */
export interface Memo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  /** The kept answer, or `make()`'s, kept. */
  through(key: K, make: () => V): V;
}

export function memo<K, V>(limit: number, weigh: (key: K, value: V) => number = () => 1): Memo<K, V> {
  const kept = new Map<K, V>();
  let weight = 0;
  const set = (key: K, value: V) => {
    const w = weigh(key, value);
    if (weight + w > limit) {
      kept.clear();
      weight = 0;
    }
    kept.set(key, value);
    weight += w;
  };
  return {
    get: (key) => kept.get(key),
    set,
    through(key, make) {
      let value = kept.get(key);
      if (value === undefined) {
        value = make();
        set(key, value);
      }
      return value;
    },
  };
}
