// Recursion without the call stack. The walks here follow the shape of the object, and objects
// may nest 10,000 deep (what kube's decoders accept), far past what JS's call stack holds. So a
// recursive walk is written as a generator that yields its recursive calls (`yield* call(...)`),
// and runTask drives them from an explicit stack: depth costs heap, not stack.

/** A computation that returns T and may call other tasks. */
export type Task<T> = Generator<Task<unknown>, T, unknown>;

/** Inside a task: runs `task` and evaluates to its result (`const r = yield* call(f(x))`). */
export function* call<T>(task: Task<T>): Generator<Task<unknown>, T, unknown> {
  return (yield task) as T;
}

/** Runs a task and everything it calls; exceptions travel up through the callers as usual. */
export function runTask<T>(task: Task<T>): T {
  const run = new Run(task);
  run.advance(Infinity);
  return run.result();
}

/**
 * runTask for a request's long walks: gives the event loop a turn (`giveWay`) whenever `sliceMs`
 * have passed since the last one, so that one large object does not hold every other client.
 */
export async function runTaskSliced<T>(task: Task<T>, giveWay: () => Promise<void>, sliceMs: number): Promise<T> {
  const run = new Run(task);
  let since = performance.now();
  // The clock is read after every step (one container, PAUSE_EVERY leaves, or a whole set
  // operation between two pauses): cheap beside any step, and a heavy one is not followed by more.
  while (!run.advance(1)) {
    if (performance.now() - since < sliceMs) continue;
    await giveWay();
    since = performance.now();
  }
  return run.result();
}

/** Loops over many leaves yield `pause()` every PAUSE_EVERY items: a sliced run can stop there. */
export const PAUSE_EVERY = 1024;

/** A task that does nothing but take a step. */
// biome-ignore lint/correctness/useYield: the step is the call itself; the runner pauses between steps
export function* pause(): Task<undefined> {
  return undefined;
}

/** The explicit stack of a task being run, advanced a number of steps at a time. */
class Run<T> {
  private readonly stack: Array<Task<unknown>>;
  private input: unknown;
  private error: unknown;
  private failed = false;
  private value: T | undefined;

  constructor(task: Task<T>) {
    this.stack = [task];
  }

  /** Runs up to `steps` steps; true once the task has returned. Throws what the task throws. */
  advance(steps: number): boolean {
    const stack = this.stack;
    for (let n = 0; n < steps; n++) {
      const top = stack[stack.length - 1]!;
      let step: IteratorResult<Task<unknown>, unknown>;
      try {
        step = this.failed ? top.throw(this.error) : top.next(this.input);
        this.failed = false;
      } catch (err) {
        stack.pop();
        if (stack.length === 0) throw err;
        this.error = err;
        this.failed = true;
        continue;
      }
      if (step.done) {
        stack.pop();
        if (stack.length === 0) {
          this.value = step.value as T;
          return true;
        }
        this.input = step.value;
      } else {
        stack.push(step.value);
        this.input = undefined;
      }
    }
    return false;
  }

  result(): T {
    return this.value as T;
  }
}

/**
 * Whether a step returned a task to run rather than its result. Walks return results directly
 * for leaves (most of an object) and tasks only for containers, which keeps allocation down;
 * a task's caller then runs it with `yield task`. JSON values never hold functions, so a result
 * is never mistaken for a task.
 */
export function isTask<T>(x: T | Task<T>): x is Task<T> {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as { next?: unknown }).next === 'function' &&
    typeof (x as { throw?: unknown }).throw === 'function'
  );
}

/** Runs a step that may be a task, from outside any task. */
export function runStep<T>(x: T | Task<T>): T {
  return isTask(x) ? runTask(x) : x;
}
