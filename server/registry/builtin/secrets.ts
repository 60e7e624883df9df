// core/v1 Secret: base64 data under file-name keys (at most 1 MiB), the keys its type requires,
// stringData folded into data on every write and never kept, type and immutable data frozen.
import { defineStrategy } from '../base-strategy.js';
import { secretSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import { PRINTER_AGE } from './printer-columns.js';
import { type FieldError, invalid, key, required } from '../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import {
  MAX_SECRET_SIZE,
  checkByteMap,
  checkStringMap,
  decodedLength,
  immutableErrors,
  keyErrors,
  stringMap,
  tooLongBytes,
} from './data-maps.js';

const secretKind = { group: '', resource: 'secrets', kind: 'Secret', listKind: 'SecretList', namespaced: true };

const SECRET_TYPE_OPAQUE = 'Opaque';
const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';

const secretType = (obj: KubeObject): string => (typeof obj['type'] === 'string' ? obj['type'] : '');

/**
 * SetDefaults_Secret and the v1 conversion: type Opaque when empty, each stringData value written
 * into data (base64, winning over data's own), stringData dropped.
 */
function canonicalizeSecret(obj: KubeObject): void {
  if (!secretType(obj)) obj['type'] = SECRET_TYPE_OPAQUE;
  const stringData = stringMap(obj, 'stringData');
  if (Object.keys(stringData).length > 0) {
    const data = { ...stringMap(obj, 'data') };
    for (const [k, v] of Object.entries(stringData))
      data[k] = Buffer.from(typeof v === 'string' ? v : '', 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

/** Whether a data value, decoded, is JSON (json.Unmarshal into a map), or Go's complaint. */
function jsonError(value: string): string | undefined {
  const text = Buffer.from(value, 'base64').toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    // null unmarshals into a nil map without complaint.
    if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
    const goKind = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
    return `json: cannot unmarshal ${goKind} into Go value of type map[string]interface {}`;
  } catch (err) {
    // encoding/json's SyntaxError for the two cases easy to place: input that ends too soon, and a
    // first character no JSON value starts with. Deeper errors name the character only (Go's
    // scanner adds where it was, which is not reproduced).
    const first = text.trimStart()[0];
    if (first === undefined || /Unexpected end/.test(String(err))) return 'unexpected end of JSON input';
    if (!/^[[{"\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
    const token = /Unexpected token '?(.)/.exec(String(err))?.[1];
    return token ? `invalid character '${token}'` : 'invalid JSON';
  }
}

const REDACTED = '<secret contents redacted>';

/** ValidateSecret, without the ObjectMeta rules the store checks itself. */
function validateSecret(obj: KubeObject): FieldError[] {
  const data = stringMap(obj, 'data');
  const errs = keyErrors(data, 'data');
  let totalSize = 0;
  for (const value of Object.values(data)) totalSize += typeof value === 'string' ? decodedLength(value) : 0;
  if (totalSize > MAX_SECRET_SIZE) errs.push(tooLongBytes('data', MAX_SECRET_SIZE));
  const has = (k: string): boolean => Object.hasOwn(data, k);
  const jsonKey = (k: string): void => {
    if (!has(k)) {
      errs.push(required(key('data', k)));
      return;
    }
    const message = jsonError(data[k] ?? '');
    if (message) errs.push(invalid(key('data', k), REDACTED, message));
  };
  switch (secretType(obj)) {
    case 'kubernetes.io/service-account-token':
      // Only the annotation: the token controller fills in the rest later.
      if (!obj.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY])
        errs.push(required(key('metadata.annotations', SERVICE_ACCOUNT_NAME_KEY)));
      break;
    case 'kubernetes.io/dockercfg':
      jsonKey('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      jsonKey('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      // Either may be empty or absent, not both absent.
      if (!has('username') && !has('password'))
        errs.push(required(key('data', 'username')), required(key('data', 'password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data['ssh-privatekey'] || decodedLength(data['ssh-privatekey']) === 0)
        errs.push(required(key('data', 'ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required(key('data', 'tls.crt')));
      if (!has('tls.key')) errs.push(required(key('data', 'tls.key')));
      break;
    default:
      // Opaque, bootstrap.kubernetes.io/token and any other type: no required keys here.
      break;
  }
  return errs;
}

/** ValidateSecretUpdate: type immutable, then data and the flag once `immutable` is set. */
function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (secretType(obj) !== secretType(old)) errs.push(invalid('type', secretType(obj), 'field is immutable'));
  return [...errs, ...immutableErrors(obj, old, ['data']), ...validateSecret(obj)];
}

/** `kubectl get secrets`' DATA column. */
export const secretDataCount = (obj: KubeObject): number => Object.keys(stringMap(obj, 'data')).length;

/** kube's secretColumnDefinitions. */
export const SECRET_COLUMNS: ServedColumn[] = [
  {
    name: 'Type',
    type: 'string',
    description:
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    jsonPath: '.type',
    value: secretType,
  },
  {
    name: 'Data',
    type: 'string',
    description:
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    jsonPath: '.data',
    value: secretDataCount,
  },
  PRINTER_AGE,
];

export const secretStrategy = defineStrategy(secretKind, {
  schemas: { v1: secretSchema },
  canonicalize(obj, ctx) {
    checkByteMap(obj, 'data', secretKind.kind, ctx);
    checkStringMap(obj, 'stringData', secretKind.kind, ctx);
    canonicalizeSecret(obj);
  },
  create: { validate: validateSecret },
  update: { validate: validateSecretUpdate },
  // kube's secret field set (SelectableFields), which `kubectl get secrets --field-selector type=...` uses.
  selectableFields: (obj) => ({
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': obj.metadata.namespace ?? '',
    type: secretType(obj),
  }),
});

export const SECRETS: BuiltinKind = storedKind(secretStrategy, {
  singular: 'secret',
  goPackage: 'k8s.io/api/core/v1',
  schema: secretSchema,
  printerColumns: SECRET_COLUMNS,
});
