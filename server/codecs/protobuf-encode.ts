// Encoding of reply objects as kube's protobuf serializer writes them, for clients that prefer
// application/vnd.kubernetes.protobuf (kubectl 1.32+ typed clients, client-go controllers): the
// inverse of protobuf.ts's decoding, over the same definitions. An object is `k8s\0` + a
// runtime.Unknown naming its apiVersion and kind, the typed message in `raw`; a watch stream is
// frames of a 4-byte big-endian length and a bare meta/v1 WatchEvent whose object is such a body.
//
// Fields are written as gogo-protobuf writes kube's types: non-pointer scalars and structs always
// (zero when the JSON omits them), pointers, lists and maps only when set, map keys sorted, fields
// by number. A JSON field with no protobuf field cannot occur in a valid built-in object, so it is an
// error (UnencodableError), never dropped silently.
import type { Field, Type } from 'protobufjs';
import { compareGoStrings } from '../../apimachinery/go-sort.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { INT_OR_STRING_STRING, PROTOBUF_MAGIC } from './protobuf.js';
import {
  isInline,
  isJsonList,
  jsonFields,
  jsonFormOf,
  jsonKey,
  kubeProtos,
  protobuf,
} from '../../apimachinery/apis/kube-messages.js';
import { hasProtobufKind, protobufKind } from './messages.js';
import { stringifyJSON } from '../../apimachinery/json.js';

/** An object this server holds no (complete) protobuf definition for. */
export class UnencodableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnencodableError';
  }
}

/** The fields protobufjs encodes from: a plain object per message. */
type Wire = Record<string, unknown>;

/** `{apiVersion, kind}` of a JSON object, when both are strings. */
function typeMetaOf(value: unknown): { apiVersion: string; kind: string } | undefined {
  if (!isJsonObject(value)) return undefined;
  const { apiVersion, kind } = value;
  return typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
}

/** Whether `{apiVersion, kind}` is a kind with a protobuf encoding here. */
export function protobufKindKnown(typeMeta: { apiVersion: string; kind: string }): boolean {
  return hasProtobufKind(typeMeta.apiVersion, typeMeta.kind);
}

/** Whether a reply document (an object, a list, a Status) can go out as protobuf. */
export function canEncodeProtobuf(value: unknown): boolean {
  const typeMeta = typeMetaOf(value);
  return typeMeta !== undefined && protobufKindKnown(typeMeta);
}

/** A whole protobuf body: the magic, then runtime.Unknown carrying the typed message. */
export function encodeProtobufObject(value: unknown): Buffer {
  const typeMeta = typeMetaOf(value);
  const type = typeMeta && protobufKind(typeMeta.apiVersion, typeMeta.kind);
  if (!typeMeta || !type)
    throw new UnencodableError(
      `no protobuf encoding for ${typeMeta ? `${typeMeta.apiVersion}, Kind=${typeMeta.kind}` : 'an object without apiVersion and kind'}`,
    );
  return envelope(typeMeta, type.encode(toWire(type, value as Record<string, unknown>, '')).finish());
}

/** The magic, then runtime.Unknown naming the kind and carrying its typed message. */
function envelope(typeMeta: { apiVersion: string; kind: string }, raw: Uint8Array): Buffer {
  // gogo writes Unknown's two strings even when empty.
  const unknown = kubeProtos()
    .unknown.encode({
      typeMeta: { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind },
      raw,
      contentEncoding: '',
      contentType: '',
    })
    .finish();
  return Buffer.concat([PROTOBUF_MAGIC, unknown]);
}

/**
 * A list's body from its items' bodies (encodeProtobufObject's), as encodeProtobufObject writes the
 * whole list: its fields but items, then each item's typed message as an `items` element (gogo
 * writes fields by number, and items is a list's last).
 */
export function encodeProtobufList(
  head: { apiVersion: string; kind: string; metadata: Record<string, unknown> },
  itemBodies: readonly Buffer[],
): Buffer {
  const type = protobufKind(head.apiVersion, head.kind);
  const items = type?.fields['items'];
  if (!type || !items) throw new UnencodableError(`no protobuf encoding for ${head.apiVersion}, Kind=${head.kind}`);
  if (type.fieldsArray.some((f) => f.id > items.id))
    throw new Error(`${type.fullName}: items is not its last field, so a list cannot be written item by item`);
  const writer = protobuf().Writer.create();
  for (const body of itemBodies) {
    const { raw } = kubeProtos().unknown.decode(body.subarray(PROTOBUF_MAGIC.length)) as unknown as { raw: Uint8Array };
    writer.uint32((items.id << 3) | 2).bytes(raw);
  }
  const fields = type.encode(toWire(type, { metadata: head.metadata }, '')).finish();
  return envelope(head, Buffer.concat([fields, writer.finish()]));
}

/** One frame of a protobuf watch stream: length, then WatchEvent{type, object: {raw: body}}. */
export function encodeProtobufWatchEvent(type: string, object: unknown): Buffer {
  const event = kubeProtos()
    .watchEvent.encode({ type, object: { raw: encodeProtobufObject(object) } })
    .finish();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

const isPointer = (field: Field): boolean => field.options?.['(go_pointer)'] === true;

/**
 * The protobufjs message for a JSON object of `type`; `path` names where, for errors. A message Go
 * embeds (`inlined`) reads its fields from its parent's object, which was checked whole.
 */
function toWire(type: Type, json: Record<string, unknown>, path: string, inlined = false): Wire {
  // apiVersion and kind of an object are its envelope's, or nowhere (list items, embedded in kube's
  // typed lists without them), never wire fields.
  const isObject = type.fields['metadata'] !== undefined;
  const known = jsonFields(type);
  if (!inlined)
    for (const key of Object.keys(json)) {
      if (!known.has(key) && json[key] !== undefined && !(isObject && (key === 'apiVersion' || key === 'kind'))) {
        throw new UnencodableError(`${join(path, key)}: no such field in ${type.fullName.replace(/^\./, '')}`);
      }
    }
  const out: Wire = {};
  for (const field of type.fieldsArray) {
    if (isInline(field)) {
      out[field.name] = toWire(field.resolvedType as Type, json, path, true);
      continue;
    }
    const key = jsonKey(field);
    const at = join(path, key);
    const value = json[key];
    if (value === undefined || value === null) {
      if (isPointer(field) || field.repeated || field.map) continue;
      out[field.name] = zeroOf(field, at);
      continue;
    }
    if (field.map) {
      if (!isJsonObject(value)) throw new UnencodableError(`${at}: expected an object`);
      const entries: Wire = {};
      for (const key of Object.keys(value).sort(compareGoStrings))
        entries[key] = elementWire(field, value[key], `${at}[${key}]`);
      out[field.name] = entries;
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new UnencodableError(`${at}: expected a list`);
      out[field.name] = value.map((item, i) => elementWire(field, item, `${at}[${i}]`));
    } else {
      out[field.name] = elementWire(field, value, at);
    }
  }
  return out;
}

const join = (path: string, name: string): string => (path ? `${path}.${name}` : name);

/** What gogo writes for a non-pointer field the JSON leaves out: the zero value, structs empty. */
function zeroOf(field: Field, path: string): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf().Type) {
    // Go's zero Time marshals to no bytes: an empty message, which decodes back to "unset".
    const { time, microTime, fieldsV1 } = kubeProtos();
    if (type === time || type === microTime || type === fieldsV1) return {};
    return toWire(type, {}, path);
  }
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return new Uint8Array();
    default:
      return 0;
  }
}

function elementWire(field: Field, value: unknown, path: string): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf().Type) return messageWire(type, value, path);
  if (value === null) return zeroOf(field, path);
  return scalarWire(field.type, value, path);
}

function messageWire(type: Type, value: unknown, path: string): Wire {
  const { time, microTime, fieldsV1 } = kubeProtos();
  if (type === time || type === microTime) return timeWire(value, type === microTime, path);
  // FieldsV1 holds its JSON document as bytes, compact, as kube keeps it.
  if (type === fieldsV1) return { Raw: Buffer.from(stringifyJSON(value), 'utf8') };
  if (isJsonList(type)) {
    const field = type.fieldsArray[0]!;
    if (!Array.isArray(value)) throw new UnencodableError(`${path}: expected a list`);
    return { [field.name]: value.map((item, i) => elementWire(field, item, `${path}[${i}]`)) };
  }
  const form = jsonFormOf(type);
  if (form) return formWire(form, type, value, path);
  if (value === null) return toWire(type, {}, path);
  if (!isJsonObject(value)) throw new UnencodableError(`${path}: expected an object`);
  return toWire(type, value, path);
}

/** The JSON forms Go unmarshals its own way: the raw document, IntOrString, and the JSONSchemaPropsOr* unions. */
function formWire(form: NonNullable<ReturnType<typeof jsonFormOf>>, type: Type, value: unknown, path: string): Wire {
  if (form === 'raw') return { raw: Buffer.from(stringifyJSON(value), 'utf8') };
  if (form === 'intOrString') return intOrStringWire(value, path);
  const schemaType = type.fields['schema']!.resolvedType as Type;
  const schema = (v: unknown): Wire => messageWire(schemaType, v, path);
  switch (form) {
    case 'schemaOrArray':
      if (Array.isArray(value))
        return { jSONSchemas: value.map((item, i) => messageWire(schemaType, item, `${path}[${i}]`)) };
      return value === null ? {} : { schema: schema(value) };
    case 'schemaOrBool':
      // An object allows what it describes (Go's UnmarshalJSON sets Allows with the schema).
      if (typeof value === 'boolean') return { allows: value };
      return { allows: true, schema: schema(value) };
    case 'schemaOrStringArray':
      if (Array.isArray(value))
        return { property: value.map((item, i) => scalarWire('string', item, `${path}[${i}]`)) };
      return value === null ? {} : { schema: schema(value) };
  }
}

/**
 * intstr.IntOrString from its JSON, a bare int32 or string (Go's UnmarshalJSON); all three fields,
 * as gogo writes non-pointer scalars. null is Go's zero value, the int 0.
 */
function intOrStringWire(value: unknown, path: string): Wire {
  if (typeof value === 'string') return { type: INT_OR_STRING_STRING, intVal: 0, strVal: value };
  if (value === null) return { type: 0, intVal: 0, strVal: '' };
  return { type: 0, intVal: scalarWire('int32', value, path), strVal: '' };
}

const INT32 = new Set(['int32', 'sint32', 'sfixed32', 'uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

function scalarWire(protoType: string, value: unknown, path: string): unknown {
  const wrong = (): UnencodableError => new UnencodableError(`${path}: ${typeof value} where ${protoType} is expected`);
  if (protoType === 'string') {
    if (typeof value !== 'string') throw wrong();
    return value;
  }
  if (protoType === 'bool') {
    if (typeof value !== 'boolean') throw wrong();
    return value;
  }
  // Go writes []byte in JSON as standard base64.
  if (protoType === 'bytes') {
    if (typeof value !== 'string') throw wrong();
    return Buffer.from(value, 'base64');
  }
  if (protoType === 'double' || protoType === 'float') {
    if (typeof value !== 'number') throw wrong();
    return value;
  }
  if (INT32.has(protoType)) {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw wrong();
    return value;
  }
  if (INT64.has(protoType)) {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    // Integers past 2^53 arrive as bigints (apimachinery/json.ts); protobufjs's writer takes any
    // {low, high} pair as a 64-bit value.
    if (typeof value === 'bigint') {
      const bits = BigInt.asUintN(64, value);
      return {
        low: Number(bits & 0xffffffffn) | 0,
        high: Number(bits >> 32n) | 0,
        unsigned: protoType.startsWith('u') || protoType === 'fixed64',
      };
    }
    throw wrong();
  }
  throw new UnencodableError(`${path}: unsupported field type ${protoType}`);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * kube's Time as seconds (fractions dropped, as its JSON has none); MicroTime keeps microseconds.
 * Offsets other than Z are honoured though kube's JSON never writes one.
 */
function timeWire(value: unknown, micro: boolean, path: string): Wire {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (!m) throw new UnencodableError(`${path}: ${JSON.stringify(value)} is not an RFC 3339 time`);
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = m;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let seconds = date.getTime() / 1000;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    seconds -= sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const nanos = micro ? Number(fraction.slice(1, 7).padEnd(6, '0')) * 1000 : 0;
  return { seconds, nanos };
}
