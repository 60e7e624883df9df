/**
 * The identifiers cel-go's parser reserves. The CEL parser refuses them; kube escapes a schema
 * property of that name as `__name__` in CEL (apiserver/pkg/cel/escaping.go; from 1.31 the bare
 * word reaches it too) and refuses it as an admission policy's variable name (isCELIdentifier).
 * Here, below both, so that the list is one.
 */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'false',
  'for',
  'function',
  'if',
  'import',
  'in',
  'let',
  'loop',
  'package',
  'namespace',
  'null',
  'return',
  'true',
  'var',
  'void',
  'while',
]);
