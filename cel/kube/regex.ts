// Kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll, RE2 through
// the project's bounded compile and cache (cel/regex.ts), as `matches` is.
import { func, memberOverload } from '../decls.js';
import type { Impl } from '../functions.js';
import { RegexError, type RegexWork, regexFindAll } from '../regex.js';
import { IntType, listType, StringType } from '../types.js';
import { CelError, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

/** Go's FindAllString(s, n): n < 0 all matches; a pattern that does not compile is "Illegal regex: <Go's error>". */
function findAll(s: string, pattern: string, n: bigint, work: RegexWork): string[] | CelError {
  // Go's int(n): past the string's length is as many as there can be.
  const limit = n < 0n ? -1 : n > BigInt(s.length + 1) ? s.length + 1 : Number(n);
  try {
    return regexFindAll(s, pattern, limit, work);
  } catch (e) {
    if (e instanceof RegexError) return new CelError(`Illegal regex: ${e.message}`);
    throw e;
  }
}

function find(s: string, pattern: string, work: RegexWork): Val {
  const all = findAll(s, pattern, 1n, work);
  return all instanceof CelError ? all : (all[0] ?? '');
}

const str = (v: Value): string => v as string;

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_find_string', ([s, p], c) => find(str(s!), str(p!), c.regexWork)],
  ['string_find_all_string', ([s, p], c) => findAll(str(s!), str(p!), -1n, c.regexWork)],
  ['string_find_all_string_int', ([s, p, n], c) => findAll(str(s!), str(p!), n as bigint, c.regexWork)],
];

export const REGEX_LIBRARY: KubeLibrary = {
  functions: [
    func('find', memberOverload('string_find_string', [StringType, StringType], StringType)),
    func(
      'findAll',
      memberOverload('string_find_all_string', [StringType, StringType], listType(StringType)),
      memberOverload('string_find_all_string_int', [StringType, StringType, IntType], listType(StringType)),
    ),
  ],
  impls: new Map(IMPLS),
  regexConstants: ['find', 'findAll'],
};
