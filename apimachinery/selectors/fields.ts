// Field selectors as k8s.io/apimachinery/pkg/fields parses and matches them, and the per-kind
// field label conversion the REST handlers run over a parsed selector (a label the kind does not
// support is a 400 with the conversion function's text).
import { badRequest } from '../errors.js';
import { goQuote } from '../field-errors.js';
import { compareGoStrings } from '../go-sort.js';

export interface FieldTerm {
  readonly field: string;
  /** `=` and `==` are the same term in kube (hasTerm); `!=` is notHasTerm. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** ANDed; none selects everything. In kube's order: sorted by the raw term text. */
  readonly terms: readonly FieldTerm[];
}

type Fields = Readonly<Record<string, string>>;

/** Splits on commas not escaped by a backslash; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** `!=` is tried before `==` before `=` at each position, so `a==b` is not `a` = `=b`. */
const TERM_OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** fields.UnescapeValue, with its error text (a bare rune prints as its number, as Go's %v does). */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=')
        throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.ParseSelector; a bad selector is the apiserver's 400 with the parser's text. */
export function parseFieldSelector(selector: string): FieldSelector {
  const terms: FieldTerm[] = [];
  for (const part of splitTerms(selector).sort(compareGoStrings)) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    terms.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value: unescapeValue(split.rhs) });
  }
  return { terms };
}

/** A missing field reads as "", as fields.Set.Get does: `a!=x` matches objects without `a`. */
export function matchesFields(sel: FieldSelector, fields: Fields): boolean {
  return sel.terms.every((t) => {
    const actual = Object.hasOwn(fields, t.field) ? fields[t.field]! : '';
    return t.operator === '=' ? actual === t.value : actual !== t.value;
  });
}

/** Selector.RequiresExactMatch: the value of the first `field=value` term. */
export function requiresExactMatch(sel: FieldSelector, field: string): string | undefined {
  return sel.terms.find((t) => t.field === field && t.operator === '=')?.value;
}

/**
 * A kind's field label conversion func: the label and value to select on, or the error kube's
 * conversion returns for a label the kind does not support.
 */
export type FieldLabelConversion = (
  label: string,
  value: string,
) => { label: string; value: string } | { error: string };

/**
 * The conversion of a kind that lists its fields, with the text every such kube func uses.
 * For a custom resource (apiextensions' crConverter) the list is `metadata.name`,
 * `metadata.namespace` when namespaced, and the version's selectableFields.
 */
export function supportedFieldLabels(supported: readonly string[]): FieldLabelConversion {
  const set = new Set(supported);
  return (label, value) => (set.has(label) ? { label, value } : { error: `field label not supported: ${label}` });
}

/**
 * runtime.DefaultMetaV1FieldSelectorConversion, for kinds that register no conversion func
 * (CustomResourceDefinitions among them): only the two metadata fields, namespaced or not.
 */
export const defaultMetaV1FieldLabels: FieldLabelConversion = (label, value) =>
  label === 'metadata.name' || label === 'metadata.namespace'
    ? { label, value }
    : { error: `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"` };

/**
 * Selector.Transform over a kind's conversion, as the list and watch handlers run it: the first
 * unsupported label, in the selector's order, is a 400 with the conversion's text. A term whose
 * label and value both convert to "" is dropped.
 */
export function convertFieldSelector(sel: FieldSelector, convert: FieldLabelConversion): FieldSelector {
  const terms: FieldTerm[] = [];
  for (const t of sel.terms) {
    const converted = convert(t.field, t.value);
    if ('error' in converted) throw badRequest(converted.error);
    if (converted.label === '' && converted.value === '') continue;
    terms.push({ field: converted.label, operator: t.operator, value: converted.value });
  }
  return { terms };
}

/**
 * core/v1's conversion for kinds "having selectable nothing but ObjectMeta fields" (ConfigMap,
 * ServiceAccount, Service...), with its own error text naming the kind.
 */
export function objectMetaFieldLabels(kind: string): FieldLabelConversion {
  return (label, value) =>
    label === 'metadata.name' || label === 'metadata.namespace'
      ? { label, value }
      : { error: `field label ${goQuote(label)} not supported for ${goQuote(kind)}` };
}
