// RE2JS, Go's regexp semantics (linear time, no backtracking), loaded with the first pattern a
// schema, format or CEL rule uses rather than at start-up.
import type { RE2JS } from 're2js';
import { lazyRequire } from './lazy-require.js';

export const re2 = lazyRequire<typeof import('re2js')>('re2js');

/** A pattern compiled, or RE2JS's message for why it does not compile. */
type CompiledPattern = { re: RE2JS; error?: undefined } | { re?: undefined; error: string };

/**
 * A CRD schema's `pattern`, compiled once however many schemas repeat it (the real-world corpus:
 * 1,280 patterns, 49 distinct): a compile costs far more than the look-up. Every schema node that
 * holds it shares one RE2JS (a match borrows one of its machines and gives it back before it
 * returns). The oldest is dropped past the bound.
 */
export function compilePattern(pattern: string): CompiledPattern {
  let compiled = patterns.get(pattern);
  if (compiled) return compiled;
  // A pattern read from a request body is a slice of it, which would keep the whole body alive
  // as long as the pattern is held: kept as a copy of its own.
  const own = ` ${pattern}`.slice(1);
  try {
    compiled = { re: re2().RE2JS.compile(own) };
  } catch (e) {
    compiled = { error: e instanceof Error ? e.message : String(e) };
  }
  if (patterns.size >= MAX_PATTERNS) patterns.delete(patterns.keys().next().value!);
  patterns.set(own, compiled);
  return compiled;
}

const patterns = new Map<string, CompiledPattern>();
const MAX_PATTERNS = 1024;
