// What ConfigMap and Secret share: string-keyed data maps whose keys become file names, bytes
// fields sent as base64, kube's 1 MiB cap on their contents, and the `immutable` flag.
import { type FieldError, forbidden, invalid, key } from '../../../apimachinery/field-errors.js';
import { deepEqual } from '../../../apimachinery/equality.js';
import { decodeGoBase64 } from '../../../apimachinery/go-base64.js';
import { isConfigMapKey } from '../../../apimachinery/validation/names.js';
import { type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { jsonKind } from '../../../apimachinery/json.js';
import type { WriteContext } from '../strategy.js';
import { decodeFailure } from '../write-steps.js';

/** core.MaxSecretSize: the most a ConfigMap's or Secret's values may hold together, in bytes. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** field.TooLong as kube 1.30+ words it (`must have at most N bytes`). */
export const tooLongBytes = (field: string, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `must have at most ${max} bytes`,
});

/** The string map at `field`, or an empty one (absent and null decode to a nil map in Go). */
export function stringMap(obj: KubeObject, field: string): Record<string, string> {
  const value = obj[field];
  return isJsonObject(value) ? (value as Record<string, string>) : {};
}

/** IsConfigMapKey for every key of the map at `field`, as Invalid errors on `field[key]`. */
export function keyErrors(map: Record<string, unknown>, field: string): FieldError[] {
  return Object.keys(map).flatMap((k) => isConfigMapKey(k).map((msg) => invalid(key(field, k), k, msg)));
}

/** Bytes a base64 value stands for (values were checked when the object was decoded). */
export const decodedLength = (value: string): number => Buffer.from(value.replace(/[\r\n]/g, ''), 'base64').length;

/** encoding/json's UnmarshalTypeError for a map value of the kind's struct field. */
const typeError = (kind: string, field: string, value: unknown, goType: string): string =>
  `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${kind}.${field} of type ${goType}`;

/**
 * Checks that every value of a []byte map decodes as Go's JSON decoder would decode it, answering
 * as kube's handlers do for a body that does not decode (transformDecodeError's 400, or the
 * patch's own 422 when the request says so).
 */
export function checkByteMap(obj: KubeObject, field: string, kind: string, ctx: WriteContext): void {
  for (const value of Object.values(stringMap(obj, field) as Record<string, unknown>)) {
    if (value === null) continue;
    if (typeof value !== 'string') throw decodeFailure(kind, obj, typeError(kind, field, value, '[]uint8'), ctx);
    const result = decodeGoBase64(value);
    if (!result.ok) throw decodeFailure(kind, obj, result.error, ctx);
  }
}

/** The same for a map[string]string: a number or object where a string belongs does not decode. */
export function checkStringMap(obj: KubeObject, field: string, kind: string, ctx: WriteContext): void {
  for (const value of Object.values(stringMap(obj, field) as Record<string, unknown>)) {
    if (value !== null && typeof value !== 'string')
      throw decodeFailure(kind, obj, typeError(kind, field, value, 'string'), ctx);
  }
}

const IMMUTABLE_TEXT = 'field is immutable when `immutable` is set';

/**
 * An object stored with `immutable: true` keeps that flag and the given fields as they are
 * (ValidateConfigMapUpdate, ValidateSecretUpdate).
 */
export function immutableErrors(obj: KubeObject, old: KubeObject, fields: readonly string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (obj['immutable'] !== true) errs.push(forbidden('immutable', IMMUTABLE_TEXT));
  // Absent, null and empty maps count as the same here. kube's reflect.DeepEqual tells a nil map
  // from an empty one, so there `data: {}` sent over a stored object without data is refused;
  // storage differs (kube's protobuf drops empty maps, our JSON keeps them), so no rule matches
  // kube in every case, and this one never refuses a write that changes nothing.
  for (const f of fields) if (!deepEqual(normalMap(obj[f]), normalMap(old[f]))) errs.push(forbidden(f, IMMUTABLE_TEXT));
  return errs;
}

const normalMap = (v: unknown): unknown =>
  v === null || (typeof v === 'object' && Object.keys(v as object).length === 0) ? undefined : v;
