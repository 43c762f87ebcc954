/**
 * A lookup remembered per key, dropping the oldest key when full. For values that never change while their source
 * is open (an index file is read-only while open). Undefined (nothing found) is never remembered.
 */
export interface BoundedCache<K, V> {
  get(key: K): V | undefined;
  /** The value for `key`: remembered, else computed by `load` (and remembered unless undefined). */
  through(key: K, load: () => V): V;
  through(key: K, load: () => V | undefined): V | undefined;
  /** Remembers `value` for `key`, replacing what it held. */
  set(key: K, value: V): void;
}

/** A `BoundedCache` of at most `maxEntries` keys (at least one). */
export function boundedCache<K, V>(maxEntries: number): BoundedCache<K, V> {
  const map = new Map<K, V>();
  const set = (key: K, value: V): void => {
    map.delete(key);
    if (map.size >= maxEntries) map.delete(map.keys().next().value as K);
    map.set(key, value);
  };
  function through(key: K, load: () => V): V;
  function through(key: K, load: () => V | undefined): V | undefined;
  function through(key: K, load: () => V | undefined): V | undefined {
    let value = map.get(key);
    if (value === undefined) {
      value = load();
      if (value !== undefined) set(key, value);
    }
    return value;
  }
  return { get: (key) => map.get(key), through, set };
}

/**
 * `fn` of a text, remembered for texts of at most `maxChars` characters (at most `entries` of them, the oldest dropped
 * first); a longer text is computed each time. For string forms that reading one question asks of the same few hundred
 * short sentences and words thousands of times, where whole passages come once and would only crowd the cache out.
 */
export function memoizeShortText(fn: (text: string) => string, maxChars: number, entries: number): (text: string) => string {
  const cache = boundedCache<string, string>(entries);
  return (text) => (text.length > maxChars ? fn(text) : cache.through(text, () => fn(text)));
}
