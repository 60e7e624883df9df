// The query parameters of a write (metav1 CreateOptions, UpdateOptions, PatchOptions), decoded and
// validated together as kube's handlers do: one 422 naming the options kind lists every bad one.
import { invalid as invalidStatus } from '../../apimachinery/errors.js';
import { isGoPrintable } from '../../apimachinery/quote.js';
import {
  type FieldError,
  forbidden,
  goStringSlice,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../../apimachinery/field-errors.js';
import type { FieldValidation, OptionsKind } from './field-validation.js';
import { FIELD_MANAGER_MAX_LENGTH } from '../../apimachinery/validation/object-meta.js';
import { queryOptionalBool } from '../request/request-info.js';

export interface WriteOptions {
  dryRun: boolean;
  /** Who is writing: the fieldManager parameter, or the User-Agent's product (kube's managerOrUserAgent). */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** Apply only: take the fields other managers own. */
  force: boolean;
}

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/**
 * Decodes and validates a write's options: ValidateCreateOptions / ValidateUpdateOptions /
 * ValidatePatchOptions (for a patch, `patchType` says whether it is an apply).
 */
export function parseWriteOptions(
  query: URLSearchParams,
  kind: Exclude<OptionsKind, 'DeleteOptions'>,
  userAgent: string | undefined,
  patchType?: string,
): WriteOptions {
  const manager = query.get('fieldManager') ?? '';
  const forceParam = query.get('force');
  const force = queryOptionalBool(forceParam);
  const errs: FieldError[] = [];
  if (kind === 'PatchOptions') {
    if (patchType !== APPLY_PATCH_TYPE) {
      if (force !== undefined) errs.push(forbidden('force', 'may not be specified for non-apply patch'));
    } else if (manager === '') {
      // kubectl defaults it to "kubectl"; controllers must set it.
      errs.push(required('fieldManager', 'is required for apply patch'));
    }
  }
  errs.push(...fieldManagerErrors(manager, 'fieldManager'));
  const dryRun = query.getAll('dryRun');
  errs.push(...dryRunErrors(dryRun));
  const validation = query.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(validation))
    errs.push(notSupported('fieldValidation', validation, ['', 'Ignore', 'Warn', 'Strict']));
  if (errs.length > 0) throw invalidStatus({ group: 'meta.k8s.io', name: kind }, '', errs);
  return {
    dryRun: dryRun.length > 0,
    fieldManager: manager || managerFromUserAgent(userAgent ?? ''),
    fieldValidation: validation === '' ? 'Warn' : (validation as FieldValidation),
    force: force ?? false,
  };
}

/** ValidateDryRun: every value must be All; the bad value is the whole []string, printed with %#v. */
export function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', goStringSlice(values), ['All'])];
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
function fieldManagerErrors(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let at = 0;
  for (const ch of manager) {
    if (!isGoPrintable(ch)) errs.push(invalid(path, manager, `invalid character ${goUnicode(ch)} (at position ${at})`));
    at += Buffer.byteLength(ch);
  }
  return errs;
}

/**
 * prefixFromUserAgent: what precedes the first `/` (`kubectl` of `kubectl/v1.33.0 (linux/amd64)`),
 * printable characters only, cut at 128 bytes.
 */
export function managerFromUserAgent(userAgent: string): string {
  let out = '';
  for (const ch of userAgent.split('/')[0]!) {
    if (!isGoPrintable(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

/** Go's %#U: `U+0007`, with the character quoted after it when printable. */
function goUnicode(ch: string): string {
  const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return isGoPrintable(ch) ? `U+${hex} '${ch}'` : `U+${hex}`;
}
