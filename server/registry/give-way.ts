// One request may carry a large object (bodies reach 3 MiB: 100,000 map keys, 20,000 list
// items), whose write costs seconds of work that no algorithm removes. Its phases, and the
// long walks inside them, give the event loop a turn now and then, so that every other client
// (and /readyz) is answered meanwhile: kube's goroutines give it that for free.
import { runTaskSliced, type Task } from '../../apimachinery/structured-merge/index.js';

/** The longest a request runs before giving way (a sliced walk, or a write between its phases). */
export const SLICE_MS = 20;

/** When the loop last resumed a request that gave way. */
let lastTurn = 0;
const goOn = Promise.resolve();

/**
 * Lets whatever is waiting (I/O, timers, other requests) run before going on, once SLICE_MS have
 * passed since the loop last resumed a request here: a small write's phases then cost nothing, a
 * large one's give way between them. Requests giving way resume one per turn of the event loop, in
 * turn: were they all resumed by one check phase, ten large writes would run ten slices back to
 * back before the loop polled for I/O again.
 */
export function giveWay(): Promise<void> {
  if (performance.now() - lastTurn < SLICE_MS) return goOn;
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(resumeNext);
  });
}

const waiting: Array<() => void> = [];

function resumeNext(): void {
  const next = waiting.shift()!;
  lastTurn = performance.now();
  // Queued from inside the check phase, this runs in the loop's next turn, after its I/O.
  if (waiting.length > 0) setImmediate(resumeNext);
  next();
}

/** From this size on, a request body or a stored object makes a write large: its phases give way. */
export const LARGE_WRITE_BYTES = 64 * 1024;

const goOnNow = Promise.resolve();

/**
 * giveWay for a large write, nothing for the others: a small write's whole pipeline takes well
 * under a slice, and queueing it behind large ones only made its latency (create p99 on etcd, 32
 * in flight: 65-77 ms before giving way existed, 209-325 ms with every write giving way).
 */
export function giveWayFor(large: boolean | undefined): Promise<void> {
  return large ? giveWay() : goOnNow;
}

/** Runs a walk written as a task, giving way every SLICE_MS. */
export function runSliced<T>(task: Task<T>): Promise<T> {
  return runTaskSliced(task, giveWay, SLICE_MS);
}
