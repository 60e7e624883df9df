// Property names as CEL field names (k8s.io/apiserver/pkg/cel/escaping.go): reserved words are
// wrapped in `__`, `__ . - /` spelled out, and names CEL cannot carry are left out of `self`.

import { CEL_RESERVED_WORDS } from '../../apimachinery/cel-reserved.js';

const SPELLED: Readonly<Record<string, string>> = {
  __: '__underscores__',
  '.': '__dot__',
  '-': '__dash__',
  '/': '__slash__',
};

/** The CEL field name for a property, or undefined if the property is not reachable from CEL. */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (CEL_RESERVED_WORDS.has(name)) return `__${name}__`;
  if (!/^[A-Za-z0-9_./-]*$/.test(name)) return undefined;
  // Most names need nothing spelled out.
  if (!/__|[./-]/.test(name)) return name;
  return name.replace(/__|[./-]/g, (s) => SPELLED[s]!);
}
