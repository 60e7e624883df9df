// Where a parsed JSON document had the number literals kube decodes as float64 (a fraction, an
// exponent, or an integer outside int64), as a trie of the containers that hold some: the parser
// adds one in O(1) (it keeps the node of each open container), and a validator walking the value
// steps down it in O(1) per key. Path strings would cost the depth per literal on both sides, which
// a deep body with many floats turns into seconds to minutes of held event loop.

/** A float literal's entry in its container's node. */
export const FLOAT: unique symbol = Symbol('float literal');

/** A container with float literals at or below it. */
export class FloatNode {
  /** Float literals and containers holding some, by key; a list's indexes as decimal strings. */
  readonly below = new Map<string, FloatNode | typeof FLOAT>();
  /** A list (its paths print `[i]`) rather than a map. */
  constructor(readonly list: boolean) {}
}

/**
 * A value's place among the float literals: its container's node, FLOAT for a float literal, or
 * undefined when no float literal is at or below it (then neither is any below: the walk ends).
 */
export type DPath = FloatNode | typeof FLOAT | undefined;

export const dchild = (d: DPath, k: string): DPath => (d instanceof FloatNode ? d.below.get(k) : undefined);
export const dindex = (d: DPath, i: number): DPath => (d instanceof FloatNode ? d.below.get(String(i)) : undefined);

/** The float literals of one document, from its root. */
export class FloatLiterals {
  root: DPath = undefined;
  private paths: Set<string> | undefined;

  /**
   * From path texts as the parser prints them (`spec.items[0].x`); a map key may be written either
   * way (`spec.labels.a` or `spec.labels[a]`), so a key holding "." or "[" cannot be told apart.
   */
  static fromPaths(paths: Iterable<string>): FloatLiterals {
    const out = new FloatLiterals();
    for (const p of paths) {
      if (p === '') {
        out.root = FLOAT;
        continue;
      }
      const segs = p
        .replace(/\[([^\]]*)\]/g, '.$1')
        .replace(/^\./, '')
        .split('.');
      if (!(out.root instanceof FloatNode)) out.root = new FloatNode(false);
      let node = out.root;
      for (let s = 0; s < segs.length - 1; s++) {
        let next = node.below.get(segs[s]!);
        if (!(next instanceof FloatNode)) node.below.set(segs[s]!, (next = new FloatNode(false)));
        node = next;
      }
      node.below.set(segs[segs.length - 1]!, FLOAT);
    }
    return out;
  }

  /** Whether the literal at a path text was a float: the path strings are made on first ask. */
  has(path: string): boolean {
    return this.pathSet().has(path);
  }

  get size(): number {
    return this.pathSet().size;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.pathSet().values();
  }

  /** The paths as kube's strict decoder prints them: keys joined by ".", list indexes `[i]`. */
  private pathSet(): Set<string> {
    if (this.paths) return this.paths;
    const out = new Set<string>();
    // An explicit stack: documents nest 10,000 deep.
    const todo: Array<[string, DPath]> = [['', this.root]];
    while (todo.length > 0) {
      const [p, d] = todo.pop()!;
      if (d === FLOAT) out.add(p);
      else if (d) for (const [k, below] of d.below) todo.push([d.list ? `${p}[${k}]` : p ? `${p}.${k}` : k, below]);
    }
    this.paths = out;
    return out;
  }
}
