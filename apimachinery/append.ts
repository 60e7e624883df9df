// Appending one list to another in place, whatever its length.

/**
 * Appends `items` to `to`, and returns `to`. `to.push(...items)` passes each item as an argument,
 * which V8 refuses beyond about 100,000 (RangeError: a 500), and a request's lists grow that long.
 */
export function appendAll<T>(to: T[], items: Iterable<T>): T[] {
  for (const item of items) to.push(item);
  return to;
}
