// Field errors in the shape of k8s.io/apimachinery/pkg/util/validation/field: a path, a type, the
// offending value and a detail, printed exactly as kube prints them (they end up, word for word,
// in 422 messages and in details.causes).
import { stringifyJSON } from './json.js';
import { goQuote } from './quote.js';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the value (as kube's ErrorBody). */
const valueless = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue?: unknown;
  detail: string;
}

/** A bad value that kube prints with Go's %#v where JSON would differ (uint64 0 prints as `0x0`). */
export class GoPrinted {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/** A slice of strings as %#v prints it in a bad value, `[]string{"a", "b"}` (`type` names a string type; a non-string reads as ""). */
export const goStringSlice = (values: readonly unknown[], type = 'string'): GoPrinted =>
  new GoPrinted(`[]${type}{${values.map((v) => goQuote(typeof v === 'string' ? v : '')).join(', ')}}`);

/** kube's printing of a bad value: strings quoted (Go %q), scalars bare, nil as "null". */
export function formatBadValue(value: unknown): string {
  if (value instanceof GoPrinted) return value.text;
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // stringifyJSON: a bad value may be a document nested deeper than JSON.stringify recurses.
  return stringifyJSON(value);
}

/** Field errors print string values with Go's %q. */
export { goQuote };

/** The message without the field path, as kube's field.Error.ErrorBody(). */
export function errorBody(e: FieldError): string {
  let s = typeText[e.type];
  if (!valueless.has(e.type)) s += `: ${formatBadValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `spec.size: Invalid value: 99: ...`, as kube's field.Error.Error(). */
export function formatFieldError(e: FieldError): string {
  return e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e);
}

export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, badValue: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  badValue,
  detail,
});
export const forbidden = (field: string, detail: string): FieldError => ({
  type: 'FieldValueForbidden',
  field,
  detail,
});
export const duplicate = (field: string, badValue: unknown): FieldError => ({
  type: 'FieldValueDuplicate',
  field,
  badValue,
  detail: '',
});
export const tooLong = (field: string, maxLength: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `may not be more than ${maxLength} bytes`,
});
export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  badValue: actual,
  detail: `must have at most ${max} items`,
});
export const internalField = (field: string, detail: string): FieldError => ({ type: 'InternalError', field, detail });

export function notSupported(field: string, badValue: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, badValue, detail };
}

/** Builds child paths the way kube's field.Path prints them: `a.b[0][key]`. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}
