// Waits that must last at least so long, checked without reading a clock.

/**
 * Starts a timer of `ms`; the function returned tells whether it has fired. A wait that must last
 * at least about `ms` (a timeout that must not fire early) is checked against it rather than
 * against a clock reading: timers on one event loop fire in the order they expire, so a timer
 * started before the wait, and shorter than it, has fired by the time the wait is over, however
 * loaded the machine. (The wait's own timer must run in this process: an in-process server.)
 */
export function timerFired(ms: number): () => boolean {
  let fired = false;
  setTimeout(() => (fired = true), ms);
  return () => fired;
}
