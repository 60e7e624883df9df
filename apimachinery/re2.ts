// RE2JS, Go's regexp semantics (linear time, no backtracking), loaded with the first pattern a
// schema, format or CEL rule uses rather than at start-up.
import { lazyRequire } from './lazy-require.js';

export const re2 = lazyRequire<typeof import('re2js')>('re2js');
