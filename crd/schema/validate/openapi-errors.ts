// kube-openapi's results (errors with what their conversion needs, and the match count that
// picks an anyOf/oneOf branch), and their conversion to field errors as kube's
// kubeOpenAPIResultToFieldErrors does it.
import { type FieldError, goQuote, invalid, notSupported, required } from '../../../apimachinery/field-errors.js';
import { goIntString } from './go-values.js';

type Code = 'type' | 'required' | 'enum' | 'tooLong' | 'tooMany' | 'invalid' | 'composite';

/** An error as kube-openapi reports it: the path ("name"), the message, and what its conversion needs. */
interface OErr {
  code: Code;
  name: string;
  msg: string;
  value?: unknown;
  values?: string[];
  max?: number;
  actual?: number;
}

/** A kube-openapi Result: errors and MatchCount (which picks the reported anyOf/oneOf branch). */
export interface Res {
  errs: OErr[];
  count: number;
}

export const newRes = (): Res => ({ errs: [], count: 0 });
export function merge(into: Res, from: Res | undefined): void {
  if (!from) return;
  for (const e of from.errs) into.errs.push(e);
  into.count += from.count;
}
export const fail = (e: OErr): Res => ({ errs: [e], count: 0 });

/** `%s in body ...` */
export const inBody = (name: string, text: string): string => `${name} in body ${text}`;

export function typeError(name: string, typeName: string, value: string): OErr {
  return { code: 'type', name, value, msg: inBody(name, `must be of type ${typeName}: ${goQuote(value)}`) };
}

function toFieldError(e: OErr, fieldPath: string): FieldError {
  if (e.code === 'composite') return invalid(fieldPath || '<nil>', '', e.msg);
  const name = e.name === '' || e.name === '.' ? '' : e.name.replace(/^\./, '');
  const field = fieldPath && name ? `${fieldPath}.${name}` : fieldPath || name || '<nil>';
  switch (e.code) {
    case 'required':
      return required(field);
    case 'enum':
      return notSupported(field, e.value, e.values ?? []);
    case 'tooLong': {
      const max = e.max ?? -1;
      const detail =
        max >= 0 ? `may not be more than ${goIntString(max)} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
      return { type: 'FieldValueTooLong', field, detail };
    }
    case 'tooMany': {
      const max = e.max ?? -1;
      const detail =
        max >= 0 ? `must have at most ${goIntString(max)} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
      return { type: 'FieldValueTooMany', field, badValue: e.actual, detail };
    }
    case 'type':
      return { type: 'FieldValueTypeInvalid', field, badValue: e.value ?? '', detail: e.msg };
    default:
      return invalid(field, e.value ?? '', e.msg);
  }
}

/** A kube-openapi Result's errors, each message once, as field errors under `fieldPath` (kube's fldPath). */
export function finalize(errs: readonly OErr[], fieldPath = ''): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errs) {
    if (seen.has(e.msg)) continue;
    seen.add(e.msg);
    out.push(toFieldError(e, fieldPath));
  }
  return out;
}
