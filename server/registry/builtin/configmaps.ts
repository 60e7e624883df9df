// core/v1 ConfigMap: string data and binary data under file-name keys, at most 1 MiB together,
// frozen once `immutable` is set.
import { defineStrategy } from '../base-strategy.js';
import { configMapSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import { PRINTER_AGE } from './printer-columns.js';
import { objectMetaFieldLabels } from '../../../apimachinery/selectors/fields.js';
import { type FieldError, invalid, key } from '../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { byteLength } from '../../../apimachinery/validation/names.js';
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
import { appendAll } from '../../../apimachinery/append.js';

export const configMapKind = {
  group: '',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  namespaced: true,
};

/** ValidateConfigMap, without the ObjectMeta rules the store checks itself. */
function validateConfigMap(obj: KubeObject): FieldError[] {
  const data = stringMap(obj, 'data');
  const binaryData = stringMap(obj, 'binaryData');
  const errs = keyErrors(data, 'data');
  let totalSize = 0;
  for (const [k, value] of Object.entries(data)) {
    if (Object.hasOwn(binaryData, k)) errs.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
    totalSize += byteLength(typeof value === 'string' ? value : '');
  }
  appendAll(errs, keyErrors(binaryData, 'binaryData'));
  for (const value of Object.values(binaryData)) totalSize += typeof value === 'string' ? decodedLength(value) : 0;
  // kube's field.NewPath(""): the error is about the whole object, printed as `[]`.
  if (totalSize > MAX_SECRET_SIZE) errs.push(tooLongBytes('[]', MAX_SECRET_SIZE));
  return errs;
}

/** `kubectl get configmaps`' DATA column: the number of keys in both maps. */
export const configMapDataCount = (obj: KubeObject): number =>
  Object.keys(stringMap(obj, 'data')).length + Object.keys(stringMap(obj, 'binaryData')).length;

/** kube's configMapColumnDefinitions. */
export const CONFIG_MAP_COLUMNS: ServedColumn[] = [
  {
    name: 'Data',
    type: 'string',
    description:
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    jsonPath: '.data',
    value: configMapDataCount,
  },
  PRINTER_AGE,
];

export const configMapStrategy = defineStrategy(configMapKind, {
  schemas: { v1: configMapSchema },
  fieldLabels: objectMetaFieldLabels(configMapKind.kind),
  canonicalize(obj, ctx) {
    checkStringMap(obj, 'data', configMapKind.kind, ctx);
    checkByteMap(obj, 'binaryData', configMapKind.kind, ctx);
  },
  create: { validate: validateConfigMap },
  update: { validate: (obj, old) => [...immutableErrors(obj, old, ['data', 'binaryData']), ...validateConfigMap(obj)] },
});

export const CONFIG_MAPS: BuiltinKind = storedKind(configMapStrategy, {
  singular: 'configmap',
  goPackage: 'k8s.io/api/core/v1',
  shortNames: ['cm'],
  schema: configMapSchema,
  printerColumns: CONFIG_MAP_COLUMNS,
});
