// One request may carry a large object (bodies reach 3 MiB: 100,000 map keys, 20,000 list
// items), whose write costs seconds of work that no algorithm removes. Its phases, and the
// long walks inside them, give the event loop a turn now and then, so that every other client
// (and /readyz) is answered meanwhile: kube's goroutines give it that for free.
import { runTaskSliced, type Task } from '../../apimachinery/structured-merge/index.js';

/** The longest a sliced walk runs before giving way. */
const SLICE_MS = 20;

/** Lets whatever is waiting (I/O, timers, other requests) run before going on. */
export function giveWay(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs a walk written as a task, giving way every SLICE_MS. */
export function runSliced<T>(task: Task<T>): Promise<T> {
  return runTaskSliced(task, giveWay, SLICE_MS);
}
