// kube's fieldValidation: what a write does about fields its schema does not know and keys the
// body gives twice (Strict fails, Warn answers with Warning headers, Ignore drops them quietly),
// and the Warning header itself.
import type { ServerResponse } from 'node:http';
import { type ApiError, invalid } from '../errors.js';
import { goQuote, notSupported } from '../field-errors.js';

/** The metav1 options kinds a write's query parameters decode into (named in their 422s). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The fieldValidation query parameter, checked as ValidateFieldValidation; absent means Warn. */
export function parseFieldValidation(query: URLSearchParams, kind: OptionsKind): FieldValidation {
  const v = query.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw invalid({ group: 'meta.k8s.io', name: kind }, '', [notSupported('fieldValidation', v, ['', 'Ignore', 'Warn', 'Strict'])]);
}

/** Adds one `Warning: 299 - "..."` header, as kube's warning recorder writes them (once each). */
export function addWarning(res: ServerResponse, text: string): void {
  const existing = res.getHeader('Warning');
  const all = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  const line = `299 - ${goQuote(text)}`;
  if (!all.includes(line)) res.setHeader('Warning', [...all, line]);
}

/**
 * What strict decoding found (duplicate keys in the body, fields the schema prunes), handled as
 * the directive says: Strict fails with `fail(errors)`, Warn warns, Ignore says nothing.
 */
export function strictDecoding(
  warn: (text: string) => void,
  directive: FieldValidation,
  duplicateFields: readonly string[],
  fail: (errors: string) => ApiError,
): (unknownFields: readonly string[]) => void {
  return (unknownFields) => {
    const errors = [...duplicateFields.map((f) => `duplicate field ${goQuote(f)}`), ...unknownFields.map((f) => `unknown field ${goQuote(f)}`)];
    if (errors.length === 0 || directive === 'Ignore') return;
    if (directive === 'Strict') throw fail(`strict decoding error: ${errors.join(', ')}`);
    for (const e of errors) warn(e);
  };
}
