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
  const stack: Array<Task<unknown>> = [task];
  let input: unknown;
  let error: unknown;
  let failed = false;
  for (;;) {
    const top = stack[stack.length - 1]!;
    let step: IteratorResult<Task<unknown>, unknown>;
    try {
      step = failed ? top.throw(error) : top.next(input);
      failed = false;
    } catch (err) {
      stack.pop();
      if (stack.length === 0) throw err;
      error = err;
      failed = true;
      continue;
    }
    if (step.done) {
      stack.pop();
      if (stack.length === 0) return step.value as T;
      input = step.value;
    } else {
      stack.push(step.value);
      input = undefined;
    }
  }
}

/**
 * Whether a step returned a task to run rather than its result. Walks return results directly
 * for leaves (most of an object) and tasks only for containers, which keeps allocation down;
 * a task's caller then runs it with `yield task`. JSON values never hold functions, so a result
 * is never mistaken for a task.
 */
export function isTask<T>(x: T | Task<T>): x is Task<T> {
  return typeof x === 'object' && x !== null && typeof (x as { next?: unknown }).next === 'function' && typeof (x as { throw?: unknown }).throw === 'function';
}

/** Runs a step that may be a task, from outside any task. */
export function runStep<T>(x: T | Task<T>): T {
  return isTask(x) ? runTask(x) : x;
}
