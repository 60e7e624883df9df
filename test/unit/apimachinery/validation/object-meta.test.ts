import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import { validateDNS1123Subdomain, validatePathSegmentName } from '../../../../apimachinery/validation/names.js';
import {
  metaDecodeError,
  type ObjectMetaOptions,
  validateObjectMeta,
  validateObjectMetaTask,
  validateObjectMetaUpdate,
  validateObjectMetaUpdateTask,
} from '../../../../apimachinery/validation/object-meta.js';
import { type Task, runTaskSliced } from '../../../../apimachinery/structured-merge/trampoline.js';

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const namespaced: ObjectMetaOptions = { namespaced: true, validateName: validateDNS1123Subdomain };
const clusterScoped: ObjectMetaOptions = { namespaced: false, validateName: validateDNS1123Subdomain };
const ok = { name: 'web', namespace: 'default' };
const ref = { apiVersion: 'cache.example.com/v1', kind: 'Cache', name: 'a', uid: 'u-a' };

describe('validateObjectMeta', () => {
  it.each<{ name: string; meta: unknown; opts?: ObjectMetaOptions; want: string[] }>([
    { name: 'a valid namespaced object', meta: ok, want: [] },
    { name: 'a valid cluster-scoped object', meta: { name: 'web' }, opts: clusterScoped, want: [] },
    {
      name: 'nulls are absent fields',
      meta: { ...ok, labels: null, annotations: null, finalizers: null, generation: null, uid: null },
      want: [],
    },
    {
      name: 'no metadata at all',
      meta: undefined,
      want: ['metadata.name: Required value: name or generateName is required', 'metadata.namespace: Required value'],
    },
    {
      name: 'no name',
      meta: { namespace: 'default' },
      want: ['metadata.name: Required value: name or generateName is required'],
    },
    {
      name: 'a name that is not a subdomain',
      meta: { ...ok, name: 'Web' },
      want: [`metadata.name: Invalid value: "Web": ${SUBDOMAIN}`],
    },
    {
      name: 'a name over 253 bytes',
      meta: { ...ok, name: 'a'.repeat(254) },
      want: [`metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`],
    },
    {
      name: 'a generateName with its generated name',
      meta: { ...ok, name: 'web-x7k2p', generateName: 'web-' },
      want: [],
    },
    {
      name: 'a bad generateName',
      meta: { ...ok, name: 'Web-x7k2p', generateName: 'Web-' },
      want: [
        `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN}`,
        `metadata.name: Invalid value: "Web-x7k2p": ${SUBDOMAIN}`,
      ],
    },
    {
      name: 'the path-segment validator kube runs second',
      meta: { ...ok, name: '..', generateName: 'a/' },
      opts: { namespaced: true, validateName: validatePathSegmentName },
      want: [
        `metadata.generateName: Invalid value: "a/": may not contain '/'`,
        `metadata.name: Invalid value: "..": may not be '..'`,
      ],
    },
    {
      name: 'a namespace on a cluster-scoped kind',
      meta: ok,
      opts: clusterScoped,
      want: ['metadata.namespace: Forbidden: not allowed on this type'],
    },
    {
      name: 'a namespace that is not a DNS label',
      meta: { ...ok, namespace: 'Default' },
      want: [`metadata.namespace: Invalid value: "Default": ${LABEL}`],
    },
    {
      name: 'a negative generation',
      meta: { ...ok, generation: -1 },
      want: ['metadata.generation: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'bad label keys and values, reported on the map',
      meta: { ...ok, labels: { 'a b': 'x', app: 'bad value', 'example.com/ok': '' } },
      want: [
        `metadata.labels: Invalid value: "a b": ${NAME_PART}`,
        `metadata.labels: Invalid value: "bad value": ${LABEL_VALUE}`,
      ],
    },
    {
      name: 'a label value over 63 characters',
      meta: { ...ok, labels: { a: 'v'.repeat(64) } },
      want: [`metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`],
    },
    {
      name: 'annotation keys are checked lower-cased',
      meta: { ...ok, annotations: { 'Example.COM/Foo': 'x' } },
      want: [],
    },
    {
      name: 'a bad annotation key',
      meta: { ...ok, annotations: { 'a b': 'x' } },
      want: [`metadata.annotations: Invalid value: "a b": ${NAME_PART}`],
    },
    { name: 'annotations of exactly 256 KiB', meta: { ...ok, annotations: { a: 'x'.repeat(262143) } }, want: [] },
    {
      name: 'annotations over 256 KiB, counted in bytes',
      meta: { ...ok, annotations: { a: 'é'.repeat(131072) } },
      want: ['metadata.annotations: Too long: may not be more than 262144 bytes'],
    },
    {
      name: 'a bad finalizer, reported on the list',
      meta: { ...ok, finalizers: ['example.com/f', 'bad finalizer'] },
      want: [`metadata.finalizers: Invalid value: "bad finalizer": ${NAME_PART}`],
    },
    {
      name: 'orphan with foregroundDeletion',
      meta: { ...ok, finalizers: ['orphan', 'foregroundDeletion'] },
      want: [
        'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
      ],
    },
    {
      name: 'an empty owner reference, fields not indexed (as kube)',
      meta: { ...ok, ownerReferences: [{}] },
      want: [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ],
    },
    {
      name: 'a core owner',
      meta: { ...ok, ownerReferences: [{ ...ref, apiVersion: 'v1', kind: 'ConfigMap' }] },
      want: [],
    },
    {
      name: 'apiVersions without a version',
      meta: {
        ...ok,
        ownerReferences: [
          { ...ref, apiVersion: 'apps/' },
          { ...ref, apiVersion: 'a/b/c' },
        ],
      },
      want: [
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
        'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
      ],
    },
    {
      name: 'an Event as owner',
      meta: { ...ok, ownerReferences: [{ ...ref, apiVersion: 'v1', kind: 'Event' }] },
      want: [
        'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"a","uid":"u-a"}: /v1, Kind=Event is disallowed from being an owner',
      ],
    },
    {
      name: 'two controllers',
      meta: {
        ...ok,
        ownerReferences: [
          { ...ref, controller: true },
          { ...ref, name: 'b', uid: 'u-b', controller: true },
          { ...ref, name: 'c', uid: 'u-c', controller: false },
        ],
      },
      want: [
        'metadata.ownerReferences: Invalid value: [{"apiVersion":"cache.example.com/v1","kind":"Cache","name":"a","uid":"u-a","controller":true},{"apiVersion":"cache.example.com/v1","kind":"Cache","name":"b","uid":"u-b","controller":true},{"apiVersion":"cache.example.com/v1","kind":"Cache","name":"c","uid":"u-c","controller":false}]: Only one reference can have Controller set to true. Found "true" in references for Cache/a and Cache/b',
      ],
    },
    {
      name: 'managedFields with a bad operation and fieldsType',
      meta: {
        ...ok,
        managedFields: [
          { manager: 'kubectl', operation: 'Patch', fieldsType: 'FieldsV2' },
          { manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1' },
        ],
      },
      want: [
        'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
        'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      ],
    },
    {
      name: 'managedFields with a bad manager and subresource',
      meta: {
        ...ok,
        managedFields: [
          { manager: 'é\tb', operation: 'Update', subresource: 's'.repeat(257) },
          { manager: 'm'.repeat(129), operation: 'Update' },
        ],
      },
      want: [
        'metadata.managedFields[0].manager: Invalid value: "é\\tb": invalid character U+0009 (at position 2)',
        'metadata.managedFields[0].subresource: Too long: may not be more than 256 bytes',
        'metadata.managedFields[1].manager: Too long: may not be more than 128 bytes',
      ],
    },
    {
      name: 'managedFields without an operation',
      meta: { ...ok, managedFields: [{}] },
      want: ['metadata.managedFields[0].operation: Invalid value: "": must be `Apply` or `Update`'],
    },
    {
      name: 'metadata of the wrong type',
      meta: 'web',
      want: ['metadata: Invalid value: "string": metadata in body must be of type object: "string"'],
    },
    {
      name: 'metadata that is a list',
      meta: [],
      want: ['metadata: Invalid value: "array": metadata in body must be of type object: "array"'],
    },
    {
      name: 'a name of the wrong type is reported once',
      meta: { name: 5, namespace: true },
      want: [
        'metadata.name: Invalid value: "integer": metadata.name in body must be of type string: "integer"',
        'metadata.namespace: Invalid value: "boolean": metadata.namespace in body must be of type string: "boolean"',
      ],
    },
    {
      name: 'labels of the wrong types',
      meta: { ...ok, labels: { a: 1, b: 'ok', c: { x: 1 } } },
      want: [
        'metadata.labels[a]: Invalid value: "integer": metadata.labels[a] in body must be of type string: "integer"',
        'metadata.labels[c]: Invalid value: "object": metadata.labels[c] in body must be of type string: "object"',
      ],
    },
    {
      name: 'annotations that are a list',
      meta: { ...ok, annotations: ['a'] },
      want: [
        'metadata.annotations: Invalid value: "array": metadata.annotations in body must be of type object: "array"',
      ],
    },
    {
      name: 'finalizers of the wrong types',
      meta: { ...ok, finalizers: ['ok', 7] },
      want: [
        'metadata.finalizers[1]: Invalid value: "integer": metadata.finalizers[1] in body must be of type string: "integer"',
      ],
    },
    {
      name: 'finalizers that are a string',
      meta: { ...ok, finalizers: 'x' },
      want: [
        'metadata.finalizers: Invalid value: "string": metadata.finalizers in body must be of type array: "string"',
      ],
    },
    {
      name: 'a fractional generation',
      meta: { ...ok, generation: 1.5 },
      want: [
        'metadata.generation: Invalid value: "number": metadata.generation in body must be of type integer: "number"',
      ],
    },
    {
      name: 'owner references of the wrong types',
      meta: { ...ok, ownerReferences: [5, { ...ref, controller: 'yes', uid: 1 }] },
      want: [
        'metadata.ownerReferences[0]: Invalid value: "integer": metadata.ownerReferences[0] in body must be of type object: "integer"',
        'metadata.ownerReferences[1].uid: Invalid value: "integer": metadata.ownerReferences[1].uid in body must be of type string: "integer"',
        'metadata.ownerReferences[1].controller: Invalid value: "string": metadata.ownerReferences[1].controller in body must be of type boolean: "string"',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ],
    },
    {
      name: 'a __proto__ label key stays data',
      meta: JSON.parse('{"name":"web","namespace":"default","labels":{"__proto__":"x"}}') as unknown,
      want: [`metadata.labels: Invalid value: "__proto__": ${NAME_PART}`],
    },
    {
      name: 'embedded metadata at another path',
      meta: {},
      opts: { ...clusterScoped, path: 'spec.template.metadata' },
      want: ['spec.template.metadata.name: Required value: name or generateName is required'],
    },
  ])('$name', ({ meta, opts, want }) => {
    expect(validateObjectMeta(meta, opts ?? namespaced).map(formatFieldError)).toEqual(want);
  });

  it('returns kube field error types', () => {
    const errs = validateObjectMeta(
      { namespace: 'x', labels: { 'a b': '' }, annotations: { a: 'x'.repeat(262144) }, finalizers: 3 },
      clusterScoped,
    );
    expect(errs.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueTypeInvalid', 'metadata.finalizers'],
      ['FieldValueRequired', 'metadata.name'],
      ['FieldValueForbidden', 'metadata.namespace'],
      ['FieldValueInvalid', 'metadata.labels'],
      ['FieldValueTooLong', 'metadata.annotations'],
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };
  const deleting = {
    ...old,
    deletionTimestamp: '2024-01-02T00:00:00Z',
    deletionGracePeriodSeconds: 0,
    finalizers: ['a'],
  };

  it.each<{ name: string; next: unknown; old?: unknown; want: string[] }>([
    { name: 'nothing changed', next: old, want: [] },
    { name: 'labels and a bumped generation', next: { ...old, generation: 3, labels: { a: 'b' } }, want: [] },
    {
      name: 'no resourceVersion',
      next: { ...old, resourceVersion: undefined },
      want: ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
    },
    {
      name: 'a decremented generation',
      next: { ...old, generation: 1 },
      want: ['metadata.generation: Invalid value: 1: must not be decremented'],
    },
    {
      name: 'a new name',
      next: { ...old, name: 'other' },
      want: ['metadata.name: Invalid value: "other": field is immutable'],
    },
    {
      name: 'a new namespace',
      next: { ...old, namespace: 'other' },
      want: ['metadata.namespace: Invalid value: "other": field is immutable'],
    },
    { name: 'a new uid', next: { ...old, uid: 'u2' }, want: ['metadata.uid: Invalid value: "u2": field is immutable'] },
    {
      name: 'a cleared uid',
      next: { ...old, uid: undefined },
      want: ['metadata.uid: Invalid value: "": field is immutable'],
    },
    {
      name: 'the same creation instant written differently',
      next: { ...old, creationTimestamp: '2024-01-01T01:00:00.000+01:00' },
      want: [],
    },
    {
      name: 'a new creationTimestamp',
      next: { ...old, creationTimestamp: '2024-02-01T00:00:00Z' },
      want: ['metadata.creationTimestamp: Invalid value: "2024-02-01T00:00:00Z": field is immutable'],
    },
    {
      name: 'a deletionTimestamp set by the client',
      next: { ...old, deletionTimestamp: '2024-01-02T00:00:00Z' },
      want: ['metadata.deletionTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable'],
    },
    {
      name: 'a cleared deletionTimestamp',
      next: { ...deleting, deletionTimestamp: undefined },
      old: deleting,
      want: ['metadata.deletionTimestamp: Invalid value: "null": field is immutable'],
    },
    {
      name: 'a deletionGracePeriodSeconds set by the client',
      next: { ...old, deletionGracePeriodSeconds: 30 },
      want: ['metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable'],
    },
    {
      name: 'a changed deletionGracePeriodSeconds',
      next: { ...deleting, deletionGracePeriodSeconds: 5 },
      old: deleting,
      want: ['metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable'],
    },
    { name: 'finalizers removed while deleting', next: { ...deleting, finalizers: [] }, old: deleting, want: [] },
    {
      name: 'finalizers added while deleting, listed sorted',
      next: { ...deleting, finalizers: ['a', 'example.com/c', 'b', 'b'] },
      old: deleting,
      want: [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "example.com/c"}',
      ],
    },
    { name: 'finalizers added to a live object', next: { ...old, finalizers: ['example.com/f'] }, want: [] },
    {
      name: 'only the stored object decides whether it is being deleted',
      next: { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['example.com/f'] },
      want: ['metadata.deletionTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable'],
    },
    // Finalizer names are validateObjectMeta's to check, as in kube.
    { name: 'a bad finalizer name', next: { ...old, finalizers: ['bad name'] }, want: [] },
    {
      name: 'bad labels, annotations, owner references and managedFields',
      next: {
        ...old,
        labels: { 'a b': 'c' },
        annotations: { '-': '' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n' }],
        managedFields: [{ operation: 'X' }],
      },
      want: [
        `metadata.labels: Invalid value: "a b": ${NAME_PART}`,
        `metadata.annotations: Invalid value: "-": ${NAME_PART}`,
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
        'metadata.managedFields[0].operation: Invalid value: "X": must be `Apply` or `Update`',
      ],
    },
    {
      name: 'metadata of the wrong type',
      next: 7,
      want: ['metadata: Invalid value: "integer": metadata in body must be of type object: "integer"'],
    },
    {
      name: 'a generation of the wrong type is not also decremented',
      next: { ...old, generation: '3' },
      want: [
        'metadata.generation: Invalid value: "string": metadata.generation in body must be of type integer: "string"',
      ],
    },
    {
      name: 'a name of the wrong type is not also immutable',
      next: { ...old, name: ['web'] },
      want: ['metadata.name: Invalid value: "array": metadata.name in body must be of type string: "array"'],
    },
  ])('$name', ({ next, old: before, want }) => {
    expect(validateObjectMetaUpdate(next, before ?? old).map(formatFieldError)).toEqual(want);
  });
});

describe('metaDecodeError', () => {
  it("a custom resource's metadata: the first mistyped field in sorted key order, among unknown fields", () => {
    const meta = { zz: 1, name: 3, aa: 2, labels: 'x', annotations: 5 };
    expect(metaDecodeError(meta, { typed: false })).toBe(
      'json: cannot unmarshal number into Go struct field ObjectMeta.annotations of type map[string]string',
    );
    expect(metaDecodeError({ zz: 1, name: 3, aa: 2, labels: 'x' }, { typed: false })).toBe(
      'json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string',
    );
  });

  it("a map's first value that is not a string; none in a map whose only key is empty", () => {
    expect(metaDecodeError({ labels: { a: 'x', b: 1, c: true } }, { typed: false })).toBe(
      'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string',
    );
    expect(metaDecodeError({ labels: { '': 'x' }, annotations: { a: null } }, { typed: false })).toBeUndefined();
  });
});

describe('validateObjectMeta of a request-sized metadata', () => {
  it('150,000 bad label keys: one error each, no RangeError', () => {
    const labels = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`-f${i}`, 'v']));
    const errs = validateObjectMeta({ ...ok, labels }, namespaced);
    expect(errs).toHaveLength(150_000);
    expect(formatFieldError(errs[0]!)).toMatch(/^metadata\.labels: Invalid value: "-f0": name part must consist/);
  });

  /** Runs a task giving way after every step; its result and how many times it gave way. */
  const sliced = async <T>(task: Task<T>) => {
    let pauses = 0;
    const result = await runTaskSliced(
      task,
      async () => {
        pauses++;
      },
      0,
    );
    return { result, pauses };
  };

  it('as a task, gives way between labels and annotations, with the same errors', async () => {
    const labels = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`${i % 2 ? '-' : ''}f${i}`, 'v']));
    const annotations = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`-a${i}`, 'v']));
    const meta = { ...ok, labels, annotations };
    const create = await sliced(validateObjectMetaTask(meta, namespaced));
    expect(create.pauses).toBeGreaterThanOrEqual(8);
    expect(create.result).toEqual(validateObjectMeta(meta, namespaced));
    expect(create.result).toHaveLength(7500);
    const old = { ...ok, resourceVersion: '1' };
    const update = await sliced(validateObjectMetaUpdateTask({ ...meta, resourceVersion: '1' }, old));
    expect(update.pauses).toBeGreaterThanOrEqual(8);
    expect(update.result).toEqual(validateObjectMetaUpdate({ ...meta, resourceVersion: '1' }, old));
  });
});
