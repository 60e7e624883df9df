// ObjectMeta validation as kube-apiserver does it (k8s.io/apimachinery/pkg/api/validation/objectmeta.go,
// apis/meta/v1/validation/validation.go), with kube's field paths, order and message text.
//
// The input is the client's JSON, so every field's type is checked first; a field of the wrong type
// is reported once (in kube-openapi's "must be of type" form) and skipped by the rules below. kube
// itself rejects such metadata earlier, while decoding, with a 400 whose json-iterator text cannot
// be reproduced; a 422 naming the field is the closest useful answer. The metav1.Time fields are
// the exception: their decoding errors are Go's own texts (metaTimeDecodeError), and the store
// answers them with kube's 400.
//
// How kube composes these for custom resources (the store should do the same):
//   create: validateObjectMeta(meta, { namespaced, validateName: validateDNS1123Subdomain }); kube then
//           runs it again with validatePathSegmentName, which adds nothing a subdomain check missed.
//   update: validateObjectMeta(new, { namespaced, validateName: validatePathSegmentName })
//           + validateObjectMetaUpdate(new, old)   (rest.BeforeUpdate's validateCommonFields)
//           + validateObjectMetaUpdate(new, old)   (the CR strategy's ValidateUpdate, again: kube's
//           details.causes really list these errors twice; the message shows each once).
import { type FieldError, child, forbidden, goQuote, index, invalid, key, required, tooLong } from '../field-errors.js';
import { type NameValidator, byteLength, isDNS1123Label, isQualifiedName, isValidLabelValue } from './names.js';
import { goRFC3339ParseError } from './go-time.js';
import { gvkString, parseGroupVersion } from '../versions.js';
import { isJsonObject } from '../object.js';
import { jsonKind } from '../json.js';
import { appendAll } from '../append.js';
import { PAUSE_EVERY, pause, runTask, type Task } from '../structured-merge/trampoline.js';
import { isGoPrintable } from '../quote.js';

/** ValidateAnnotations: keys plus values may total at most 256 KiB. */
const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
export const FIELD_IMMUTABLE = 'field is immutable';
export const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;
/** metav1.FinalizerOrphanDependents and FinalizerDeleteDependents. */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

export interface ObjectMetaOptions {
  /** Whether the kind is namespaced: namespace is then required, otherwise forbidden. */
  namespaced: boolean;
  /** How this kind's names are judged; called with prefix=true for generateName. */
  validateName: NameValidator;
  /** Where the metadata sits; `metadata` unless it is embedded in another object. */
  path?: string;
}

type JsonRecord = Record<string, unknown>;

/** kube-openapi's names for a JSON value's type. */
function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A wrong JSON type, as kube's schema validation prints it: `x: Invalid value: "string": x in body must be of type integer: "string"`. */
function typeInvalid(field: string, expected: string, value: unknown): FieldError {
  const actual = jsonTypeName(value);
  return {
    type: 'FieldValueTypeInvalid',
    field,
    badValue: actual,
    detail: `${field} in body must be of type ${expected}: ${goQuote(actual)}`,
  };
}

interface OwnerReferenceView {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  raw: JsonRecord;
}

interface ManagedFieldsView {
  manager: string;
  operation: string;
  fieldsType: string;
  subresource: string;
}

/** The metadata as kube would have decoded it: absent and null fields are Go zero values. */
interface MetaView {
  name: string;
  generateName: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  creationTimestamp: string;
  deletionTimestamp: string;
  deletionGracePeriodSeconds: number | undefined;
  labels: Array<[string, string]>;
  annotations: Array<[string, string]>;
  finalizers: string[];
  ownerReferences: OwnerReferenceView[];
  ownerReferencesRaw: unknown;
  managedFields: ManagedFieldsView[];
  /** Top-level fields of the wrong type: already reported, so no other rule looks at them. */
  mistyped: ReadonlySet<string>;
}

/** Reads fields of one JSON object, recording a type error for each field of the wrong type. */
class FieldReader {
  readonly mistyped = new Set<string>();

  constructor(
    private readonly obj: JsonRecord,
    private readonly path: string,
    private readonly errs: FieldError[],
  ) {}

  private get(name: string): unknown {
    return Object.hasOwn(this.obj, name) ? this.obj[name] : undefined;
  }

  private mistype(name: string, expected: string, v: unknown): void {
    this.mistyped.add(name);
    this.errs.push(typeInvalid(child(this.path, name), expected, v));
  }

  string(name: string): string {
    const v = this.get(name);
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    this.mistype(name, 'string', v);
    return '';
  }

  boolean(name: string): boolean {
    const v = this.get(name);
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    this.mistype(name, 'boolean', v);
    return false;
  }

  integer(name: string): number | undefined {
    const v = this.get(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    this.mistype(name, 'integer', v);
    return undefined;
  }

  /** A map of strings as entries, pausing every PAUSE_EVERY (a request may send 200,000). */
  *stringMap(name: string): Task<Array<[string, string]>> {
    const v = this.get(name);
    if (v === undefined || v === null) return [];
    const path = child(this.path, name);
    if (!isJsonObject(v)) {
      this.mistype(name, 'object', v);
      return [];
    }
    const entries: Array<[string, string]> = [];
    // Keys, then each value: Object.entries of 200,000 labels takes three times as long.
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const val = v[k];
      // A null value decodes to Go's "".
      if (typeof val === 'string' || val === null) entries.push([k, val ?? '']);
      else this.errs.push(typeInvalid(key(path, k), 'string', val));
      if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    }
    return entries;
  }

  list(name: string): unknown[] {
    const v = this.get(name);
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.mistype(name, 'array', v);
    return [];
  }

  stringList(name: string): string[] {
    const path = child(this.path, name);
    const out: string[] = [];
    this.list(name).forEach((item, i) => {
      if (typeof item === 'string') out.push(item);
      else if (item === null) out.push('');
      else this.errs.push(typeInvalid(index(path, i), 'string', item));
    });
    return out;
  }

  /** The elements of a list of objects, each with a reader of its own. */
  objectList(name: string): FieldReader[] {
    const path = child(this.path, name);
    const out: FieldReader[] = [];
    this.list(name).forEach((item, i) => {
      if (isJsonObject(item)) out.push(new FieldReader(item, index(path, i), this.errs));
      else if (item === null) out.push(new FieldReader({}, index(path, i), this.errs));
      else this.errs.push(typeInvalid(index(path, i), 'object', item));
    });
    return out;
  }

  get raw(): JsonRecord {
    return this.obj;
  }
}

function* readMeta(meta: JsonRecord, path: string, errs: FieldError[]): Task<MetaView> {
  const r = new FieldReader(meta, path, errs);
  const view: Omit<MetaView, 'mistyped'> = {
    name: r.string('name'),
    generateName: r.string('generateName'),
    namespace: r.string('namespace'),
    uid: r.string('uid'),
    resourceVersion: r.string('resourceVersion'),
    generation: r.integer('generation') ?? 0,
    creationTimestamp: r.string('creationTimestamp'),
    deletionTimestamp: r.string('deletionTimestamp'),
    deletionGracePeriodSeconds: r.integer('deletionGracePeriodSeconds'),
    labels: yield* r.stringMap('labels'),
    annotations: yield* r.stringMap('annotations'),
    finalizers: r.stringList('finalizers'),
    ownerReferences: r.objectList('ownerReferences').map((ref) => ({
      apiVersion: ref.string('apiVersion'),
      kind: ref.string('kind'),
      name: ref.string('name'),
      uid: ref.string('uid'),
      controller: ref.boolean('controller'),
      raw: ref.raw,
    })),
    ownerReferencesRaw: Object.hasOwn(meta, 'ownerReferences') ? meta['ownerReferences'] : undefined,
    managedFields: r.objectList('managedFields').map((e) => ({
      manager: e.string('manager'),
      operation: e.string('operation'),
      fieldsType: e.string('fieldsType'),
      subresource: e.string('subresource'),
    })),
  };
  return { ...view, mistyped: r.mistyped };
}

/** What Go's json.Unmarshal into a string says of a JSON value that is none (null excepted). */
function notAString(v: unknown): string | undefined {
  return typeof v === 'string' ? undefined : `json: cannot unmarshal ${jsonKind(v)} into Go value of type string`;
}

/** metav1.Time's UnmarshalJSON: null is the zero time, a string must be RFC 3339 (Go's time.Parse). */
function metaTimeError(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? goRFC3339ParseError(v) : notAString(v);
}

/**
 * The decoding error kube meets in ObjectMeta's metav1.Time fields (creationTimestamp,
 * deletionTimestamp, managedFields[].time), which is a 400 while the body is decoded, not a field
 * error: the first one in the order the decoder reads them (custom resources' metadata is marshalled
 * back to JSON first, so keys sorted). Undefined when they all decode.
 */
export function metaTimeDecodeError(meta: unknown): string | undefined {
  if (!isJsonObject(meta)) return undefined;
  const direct = metaTimeError(meta['creationTimestamp']) ?? metaTimeError(meta['deletionTimestamp']);
  if (direct) return direct;
  const entries = meta['managedFields'];
  if (!Array.isArray(entries)) return undefined;
  for (const e of entries) {
    const err = isJsonObject(e) ? metaTimeError(e['time']) : undefined;
    if (err) return err;
  }
  return undefined;
}

/** How a body reaches its Go type, which words its decoding errors. */
interface MetaDecoding {
  /** A built-in kind's body decodes whole (`ObjectMeta.metadata.labels`); a custom resource's metadata alone. */
  typed: boolean;
  /** runtime.DefaultUnstructuredConverter (a strategic merge patch) rather than JSON. */
  fromUnstructured?: boolean;
}

/** ObjectMeta's fields whose shape the decoder checks here, in the struct's order, with their Go types. */
const META_SHAPES: ReadonlyArray<readonly [field: string, shape: 'string' | 'stringMap' | 'stringList' | 'entries']> = [
  ['name', 'string'],
  ['generateName', 'string'],
  ['namespace', 'string'],
  ['selfLink', 'string'],
  ['uid', 'string'],
  ['resourceVersion', 'string'],
  ['labels', 'stringMap'],
  ['annotations', 'stringMap'],
  ['finalizers', 'stringList'],
  ['managedFields', 'entries'],
];
const GO_SHAPE_TYPES = {
  stringMap: 'map[string]string',
  stringList: '[]string',
  entries: '[]v1.ManagedFieldsEntry',
} as const;

/** reflect's Kind of a decoded JSON value, and its Type (DefaultUnstructuredConverter's texts). */
const goKindOf = (v: unknown): string =>
  Array.isArray(v)
    ? 'slice'
    : typeof v === 'object'
      ? 'map'
      : typeof v === 'boolean'
        ? 'bool'
        : typeof v === 'string'
          ? 'string'
          : Number.isInteger(v)
            ? 'int64'
            : 'float64';
const goTypeOf = (v: unknown): string =>
  ({ slice: '[]interface {}', map: 'map[string]interface {}' })[goKindOf(v)] ?? goKindOf(v);

/**
 * The first shape error kube's decoder meets in ObjectMeta's strings, maps and lists (a label that
 * is a string, managedFields that is no list of objects), in its own words: encoding/json's
 * UnmarshalTypeError (struct, field path, Go type), or DefaultUnstructuredConverter's "cannot
 * restore ..." for a strategic merge patch. JSON keeps the first in document order; the converter
 * stops at the first in the struct's.
 */
function metaShapeError(meta: JsonRecord, how: MetaDecoding): string | undefined {
  // The converter walks the struct's fields; JSON reads the document, whose keys a custom resource's
  // decoder sorts (it marshals the metadata map again). Only the fields with a shape are looked
  // at: sorted, they keep the order they have among all the keys, and a metadata of 200,000
  // unknown fields is not sorted whole.
  const order = how.fromUnstructured ? STRUCT_ORDER : how.typed ? Object.keys(meta) : SORTED_ORDER;
  for (const field of order) {
    const shape = SHAPES.get(field);
    const err = shape && shapeError(field, shape, meta[field], how);
    if (err) return err;
  }
  return undefined;
}

type Shape = (typeof META_SHAPES)[number][1];
const SHAPES = new Map(META_SHAPES);
const STRUCT_ORDER = META_SHAPES.map(([f]) => f);
const SORTED_ORDER = [...STRUCT_ORDER].sort();

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** metaShapeError's answer for one field. */
function shapeError(field: string, shape: Shape, v: unknown, how: MetaDecoding): string | undefined {
  if (!present(v)) return undefined;
  if (shape === 'string')
    return typeof v === 'string'
      ? undefined
      : how.fromUnstructured
        ? convertError(v)
        : jsonError(v, field, 'string', how);
  const isMap = shape === 'stringMap';
  if (isMap ? !isJsonObject(v) : !Array.isArray(v))
    return how.fromUnstructured
      ? restoreError(isMap ? 'map' : 'slice', v)
      : jsonError(v, field, GO_SHAPE_TYPES[shape], how);
  const isBad = (item: unknown): boolean =>
    present(item) && (shape === 'entries' ? !isJsonObject(item) : typeof item !== 'string');
  // A map's keys, then each value: Object.values of 200,000 labels takes twice as long.
  const map = v as JsonRecord;
  const badKey = isMap ? Object.keys(map).find((k) => isBad(map[k])) : undefined;
  const bad = isMap ? (badKey === undefined ? undefined : map[badKey]) : (v as unknown[]).find(isBad);
  if (bad === undefined) return undefined;
  if (shape === 'entries')
    return how.fromUnstructured ? restoreError('struct', bad) : jsonError(bad, field, 'v1.ManagedFieldsEntry', how);
  return how.fromUnstructured ? convertError(bad) : jsonError(bad, field, 'string', how);
}

const jsonError = (v: unknown, field: string, goType: string, how: MetaDecoding): string =>
  `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${how.typed ? 'metadata.' : ''}${field} of type ${goType}`;
const restoreError = (what: string, v: unknown): string =>
  `cannot restore ${what} from${what === 'struct' ? ':' : ''} ${goKindOf(v)}`;
const convertError = (v: unknown): string => `cannot convert ${goTypeOf(v)} to string`;

/**
 * The error kube's decoder meets in ObjectMeta, or undefined: a metav1.Time that does not parse
 * (which ends decoding wherever it is), else the first shape error.
 */
export function metaDecodeError(meta: unknown, how: MetaDecoding): string | undefined {
  if (!isJsonObject(meta)) return undefined;
  return metaTimeDecodeError(meta) ?? metaShapeError(meta, how);
}

/**
 * ValidateObjectMetaAccessor, for a create: generateName and name by the kind's validator, namespace
 * by scope, generation, labels, annotations, ownerReferences, finalizers and managedFields. Expects
 * name generation to have happened already (as kube does).
 */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions): FieldError[] {
  return runTask(validateObjectMetaTask(meta, opts));
}

/** validateObjectMeta as a task that pauses every PAUSE_EVERY labels or annotations: a request may send 200,000. */
export function* validateObjectMetaTask(meta: unknown, opts: ObjectMetaOptions): Task<FieldError[]> {
  const path = opts.path ?? 'metadata';
  if (meta === undefined || meta === null) meta = {};
  if (!isJsonObject(meta)) return [typeInvalid(path, 'object', meta)];
  const errs: FieldError[] = [];
  const m = yield* readMeta(meta, path, errs);

  if (m.generateName) {
    for (const msg of opts.validateName(m.generateName, true))
      errs.push(invalid(child(path, 'generateName'), m.generateName, msg));
  }
  if (m.name) {
    for (const msg of opts.validateName(m.name, false)) errs.push(invalid(child(path, 'name'), m.name, msg));
  } else if (!m.mistyped.has('name')) {
    errs.push(required(child(path, 'name'), 'name or generateName is required'));
  }

  if (opts.namespaced) {
    // ValidateNamespaceName is NameIsDNSLabel.
    if (m.namespace) {
      for (const msg of isDNS1123Label(m.namespace)) errs.push(invalid(child(path, 'namespace'), m.namespace, msg));
    } else if (!m.mistyped.has('namespace')) {
      errs.push(required(child(path, 'namespace')));
    }
  } else if (m.namespace) {
    errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }

  if (m.generation < 0)
    errs.push(invalid(child(path, 'generation'), m.generation, 'must be greater than or equal to 0'));
  // Each list as long as the request makes it (200,000 bad labels): appended, not spread.
  appendAll(errs, yield* labelErrors(m, path));
  appendAll(errs, yield* annotationErrors(m, path));
  for (const more of [ownerReferenceErrors, finalizerErrors, managedFieldsErrors]) appendAll(errs, more(m, path));
  return errs;
}

/**
 * ValidateObjectMetaAccessorUpdate: no new finalizers once deleting, resourceVersion present,
 * generation not decremented, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds immutable, then labels, annotations, ownerReferences and managedFields
 * of the new object. (Finalizer names are checked by validateObjectMeta, which kube runs beside it.)
 *
 * `old` is the stored object's metadata and is trusted. A `resourceVersion` error here means the
 * store did not carry the precondition over; for kinds that refuse unconditional updates (custom
 * resources, CRDs) kube's store answers an update without one before validation, with
 * `metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`.
 */
export function validateObjectMetaUpdate(newMeta: unknown, oldMeta: unknown, path = 'metadata'): FieldError[] {
  return runTask(validateObjectMetaUpdateTask(newMeta, oldMeta, path));
}

/** validateObjectMetaUpdate as a task that pauses every PAUSE_EVERY labels or annotations. */
export function* validateObjectMetaUpdateTask(
  newMeta: unknown,
  oldMeta: unknown,
  path = 'metadata',
): Task<FieldError[]> {
  if (newMeta === undefined || newMeta === null) newMeta = {};
  if (!isJsonObject(newMeta)) return [typeInvalid(path, 'object', newMeta)];
  const errs: FieldError[] = [];
  const m = yield* readMeta(newMeta, path, errs);
  const old = yield* readMeta(isJsonObject(oldMeta) ? oldMeta : {}, path, []);

  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers);
    const added = [...new Set(m.finalizers.filter((f) => !before.has(f)))].sort();
    if (added.length > 0) {
      // Go's %#v of a []string.
      const list = `[]string{${added.map(goQuote).join(', ')}}`;
      errs.push(
        forbidden(
          child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`,
        ),
      );
    }
  }
  if (!m.resourceVersion && !m.mistyped.has('resourceVersion'))
    errs.push(invalid(child(path, 'resourceVersion'), m.resourceVersion, 'must be specified for an update'));
  if (m.generation < old.generation && !m.mistyped.has('generation'))
    errs.push(invalid(child(path, 'generation'), m.generation, 'must not be decremented'));

  // ValidateImmutableField; kube prints the new value, an unset one as "null".
  const immutable = (field: string, now: unknown, same: boolean): void => {
    if (!same && !m.mistyped.has(field)) errs.push(invalid(child(path, field), now, FIELD_IMMUTABLE));
  };
  immutable('name', m.name, m.name === old.name);
  immutable('namespace', m.namespace, m.namespace === old.namespace);
  immutable('uid', m.uid, m.uid === old.uid);
  immutable('creationTimestamp', m.creationTimestamp || null, sameInstant(m.creationTimestamp, old.creationTimestamp));
  immutable('deletionTimestamp', m.deletionTimestamp || null, sameInstant(m.deletionTimestamp, old.deletionTimestamp));
  immutable(
    'deletionGracePeriodSeconds',
    m.deletionGracePeriodSeconds ?? null,
    m.deletionGracePeriodSeconds === old.deletionGracePeriodSeconds,
  );

  appendAll(errs, yield* labelErrors(m, path));
  appendAll(errs, yield* annotationErrors(m, path));
  for (const more of [ownerReferenceErrors, managedFieldsErrors]) appendAll(errs, more(m, path));
  return errs;
}

/** metav1.Time compares as an instant (apiequality.Semantic), so offsets and `.000` do not count. */
function sameInstant(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return !Number.isNaN(ta) && ta === tb;
}

function labelErrors(m: MetaView, path: string): Task<FieldError[]> {
  return labelsTask(m.labels, child(path, 'labels'));
}

/** v1validation.ValidateLabels: keys are qualified names; values label values. Errors name the map (`field`), not the key. */
export function validateLabels(labels: Iterable<[string, string]>, field: string): FieldError[] {
  return runTask(labelsTask(labels, field));
}

function* labelsTask(labels: Iterable<[string, string]>, field: string): Task<FieldError[]> {
  const errs: FieldError[] = [];
  let i = 0;
  for (const [k, v] of labels) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(field, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(field, v, msg));
    if (++i % PAUSE_EVERY === 0) yield pause();
  }
  return errs;
}

function annotationErrors(m: MetaView, path: string): Task<FieldError[]> {
  return annotationsTask(m.annotations, child(path, 'annotations'));
}

/** ValidateAnnotations: keys are qualified names regardless of case; keys plus values at most 256 KiB. */
export function validateAnnotations(annotations: Iterable<[string, string]>, field: string): FieldError[] {
  return runTask(annotationsTask(annotations, field));
}

function* annotationsTask(annotations: Iterable<[string, string]>, field: string): Task<FieldError[]> {
  const errs: FieldError[] = [];
  let total = 0;
  let i = 0;
  for (const [k, v] of annotations) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, msg));
    total += byteLength(k) + byteLength(v);
    if (++i % PAUSE_EVERY === 0) yield pause();
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** ValidateOwnerReferences. kube's paths do not index the list: `metadata.ownerReferences.uid`. */
function ownerReferenceErrors(m: MetaView, path: string): FieldError[] {
  const field = child(path, 'ownerReferences');
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of m.ownerReferences) {
    // As FromAPIVersionAndKind: an unparseable apiVersion has neither part.
    const { group, version } = parseGroupVersion(ref.apiVersion) ?? { group: '', version: '' };
    if (!version) errs.push(invalid(child(field, 'apiVersion'), ref.apiVersion, 'version must not be empty'));
    if (!ref.kind) errs.push(invalid(child(field, 'kind'), ref.kind, 'must not be empty'));
    if (!ref.name) errs.push(invalid(child(field, 'name'), ref.name, 'must not be empty'));
    if (!ref.uid) errs.push(invalid(child(field, 'uid'), ref.uid, 'must not be empty'));
    // BannedOwners: core/v1 Event may not own anything; the text is the GVK's String().
    if (group === '' && version === 'v1' && ref.kind === 'Event') {
      errs.push(
        invalid(field, ref.raw, `${gvkString({ group, version, kind: ref.kind })} is disallowed from being an owner`),
      );
    }
    if (ref.controller) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          invalid(
            field,
            m.ownerReferencesRaw,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
function finalizerErrors(m: MetaView, path: string): FieldError[] {
  const field = child(path, 'finalizers');
  const errs: FieldError[] = [];
  for (const f of m.finalizers) for (const msg of isQualifiedName(f)) errs.push(invalid(field, f, msg));
  if (m.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) && m.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      invalid(
        field,
        m.finalizers,
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
function fieldManagerErrors(manager: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(field, FIELD_MANAGER_MAX_LENGTH));
  let offset = 0; // Go ranges over a string by byte offset.
  for (const ch of manager) {
    if (!isGoPrintable(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(field, manager, `invalid character U+${code} (at position ${offset})`));
    }
    offset += byteLength(ch);
  }
  return errs;
}

/** v1validation.ValidateManagedFields. */
function managedFieldsErrors(m: MetaView, path: string): FieldError[] {
  const errs: FieldError[] = [];
  m.managedFields.forEach((entry, i) => {
    const field = index(child(path, 'managedFields'), i);
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      errs.push(invalid(child(field, 'operation'), entry.operation, 'must be `Apply` or `Update`'));
    }
    if (entry.fieldsType && entry.fieldsType !== 'FieldsV1')
      errs.push(invalid(child(field, 'fieldsType'), entry.fieldsType, 'must be `FieldsV1`'));
    errs.push(...fieldManagerErrors(entry.manager, child(field, 'manager')));
    if (byteLength(entry.subresource) > MAX_SUBRESOURCE_NAME_LENGTH)
      errs.push(tooLong(child(field, 'subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}
