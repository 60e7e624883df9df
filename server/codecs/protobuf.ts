// Decoding of kube's protobuf bodies (Content-Type application/vnd.kubernetes.protobuf) into the JSON
// object kube would produce for them. kubectl 1.32+ sends its typed-client bodies this way (create
// namespace, create role and the like, auth can-i, auth can-i --list, auth whoami) and does not retry
// with JSON after a 415.
// Only the kinds messages.ts lists are known. The same definitions encode
// replies (protobuf-encode.ts), whose inverse this is: tests decode what the server answers with it.
import type { FieldBase, Long, Message, Type } from 'protobufjs';
import { badRequest, type ApiError } from '../../apimachinery/errors.js';
import { compareGoStrings } from '../../apimachinery/go-sort.js';
import { DecoderError } from './decode-error.js';
import {
  type JsonForm,
  isInline,
  isJsonList,
  jsonFormOf,
  jsonKey,
  kubeProtos,
  protobuf,
} from '../../apimachinery/apis/kube-messages.js';
import { protobufKind } from './messages.js';

/** kube's serializer prefix: "k8s" and an encoding byte, 0 for a runtime.Unknown envelope. */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const MAGIC = PROTOBUF_MAGIC;

/** intstr.String, IntOrString's type for strVal; intstr.Int, for intVal, is 0. */
export const INT_OR_STRING_STRING = 1;

/** Go's JSON for the union messages and the raw JSON message, from their decoded fields. */
function formJson(form: JsonForm, type: Type, fields: Record<string, unknown>, path: string): unknown {
  const schemaJson = (): unknown => {
    const schema = type.fields['schema']!;
    return Object.hasOwn(fields, 'schema')
      ? messageJson(schema.resolvedType as Type, fields['schema'] as Message, path)
      : null;
  };
  switch (form) {
    case 'raw': {
      const raw = fields['raw'];
      if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
      } catch {
        throw undecodable(`${path} is not valid JSON`);
      }
    }
    case 'schemaOrArray': {
      const many = fields['jSONSchemas'] as Message[];
      const item = type.fields['jSONSchemas']!.resolvedType as Type;
      return many.length > 0 ? many.map((m, i) => messageJson(item, m, `${path}[${i}]`)) : schemaJson();
    }
    case 'schemaOrBool':
      return Object.hasOwn(fields, 'schema') ? schemaJson() : fields['allows'] === true;
    case 'schemaOrStringArray': {
      const property = fields['property'] as string[];
      return property.length > 0 ? [...property] : schemaJson();
    }
    // Go decodes any type and fails only when writing JSON; anything but String is read as the int.
    case 'intOrString':
      return Number(scalarJson(fields['type'])) === INT_OR_STRING_STRING
        ? String(fields['strVal'])
        : Number(fields['intVal']);
  }
}

/** time.Time{}.Unix() in Go: a Time carrying it is Go's zero time, which kube writes as null. */
const GO_ZERO_UNIX = -62135596800;

const undecodable = (detail: string): ApiError =>
  badRequest(`the protobuf request body could not be decoded: ${detail}`);

/** Map and list members are own properties; for everything else, own means "was on the wire". */
const fieldsOf = (msg: Message): Record<string, unknown> => msg as unknown as Record<string, unknown>;

function decodeMessage(type: Type, bytes: Uint8Array, gvk?: { version: string; kind: string }): Message {
  const illegal = illegalTag(type, bytes);
  if (illegal) throw new DecoderError(illegal, gvk);
  try {
    return type.decode(bytes);
  } catch (err) {
    throw undecodable(`malformed ${type.name} message: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A varint at `at.pos` (advanced past it), or undefined when it runs past `end` or 64 bits. */
function readVarint(bytes: Uint8Array, at: { pos: number; end: number }): number | undefined {
  let value = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    if (at.pos >= at.end) return undefined;
    const b = bytes[at.pos++]!;
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return value;
  }
  return undefined;
}

/**
 * gogo protobuf's generated Unmarshal refuses field number 0, `proto: <Message>: illegal tag 0
 * (wire type N)`, where protobufjs reads on. Walks the message as gogo does, depth first in wire
 * order into fields of message type (map entries are skipped, as gogo skips theirs), on a stack:
 * the first such error, if any. What else is malformed is protobufjs's to report.
 */
function illegalTag(type: Type, bytes: Uint8Array): string | undefined {
  const stack = [{ type, pos: 0, end: bytes.length }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.pos >= top.end) {
      stack.pop();
      continue;
    }
    const tag = readVarint(bytes, top);
    if (tag === undefined) return undefined;
    const fieldNumber = Math.floor(tag / 8);
    if (fieldNumber === 0) return `proto: ${top.type.name}: illegal tag 0 (wire type ${tag})`;
    switch (tag % 8) {
      case 0:
        if (readVarint(bytes, top) === undefined) return undefined;
        break;
      case 1:
        top.pos += 8;
        break;
      case 5:
        top.pos += 4;
        break;
      case 2: {
        const length = readVarint(bytes, top);
        if (length === undefined || top.pos + length > top.end) return undefined;
        const start = top.pos;
        top.pos += length;
        const field = top.type.fieldsById[fieldNumber];
        const sub = field && !field.map ? field.resolvedType : null;
        if (sub && 'fieldsById' in sub) stack.push({ type: sub, pos: start, end: start + length });
        break;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

/**
 * Decodes a `k8s\0` + runtime.Unknown body into the object as kube's JSON spells it: apiVersion and
 * kind from the envelope, camelCase fields, RFC 3339 timestamps, int64 as numbers, empty fields
 * omitted. Anything undecodable, or a kind we hold no definition for, is a 400 BadRequest, the code
 * and reason kube answers with for a body its decoder rejects.
 */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length === 0) throw undecodable('the body is empty');
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw undecodable('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  if (body.length === MAGIC.length) throw undecodable('the body holds only the protobuf prefix');

  const envelope = fieldsOf(decodeMessage(kubeProtos().unknown, body.subarray(MAGIC.length)));
  const typeMeta = envelope['typeMeta'] ? fieldsOf(envelope['typeMeta'] as Message) : {};
  const apiVersion = typeof typeMeta['apiVersion'] === 'string' ? typeMeta['apiVersion'] : '';
  const kind = typeof typeMeta['kind'] === 'string' ? typeMeta['kind'] : '';
  if (kind === '') throw badRequest("Object 'Kind' is missing in the protobuf body's typeMeta");
  if (apiVersion === '') throw badRequest("Object 'apiVersion' is missing in the protobuf body's typeMeta");

  // DeleteOptions is registered in every group version, so clients name whichever they call.
  const type = kind === 'DeleteOptions' ? kubeProtos().deleteOptions : protobufKind(apiVersion, kind);
  if (!type) {
    throw badRequest(
      `no kind "${kind}" is registered for version "${apiVersion}" in this server's protobuf decoder; send the object as application/json`,
    );
  }
  const raw = envelope['raw'] instanceof Uint8Array ? envelope['raw'] : new Uint8Array();
  const slash = apiVersion.indexOf('/');
  return {
    apiVersion,
    kind,
    ...objectJson(type, decodeMessage(type, raw, { version: apiVersion.slice(slash + 1), kind }), ''),
  };
}

/**
 * One frame's payload of a protobuf watch stream (the 4-byte length already taken off): a bare
 * WatchEvent whose object is a whole `k8s\0` body, as client-go's watch decoder reads it.
 */
export function decodeProtobufWatchEvent(frame: Uint8Array): { type: string; object: Record<string, unknown> } {
  const event = fieldsOf(decodeMessage(kubeProtos().watchEvent, frame));
  const object = event['object'] ? fieldsOf(event['object'] as Message)['raw'] : undefined;
  return {
    type: typeof event['type'] === 'string' ? event['type'] : '',
    object: decodeProtobufObject(object instanceof Uint8Array ? Buffer.from(object) : Buffer.alloc(0)),
  };
}

function objectJson(type: Type, msg: Message, path: string): Record<string, unknown> {
  const fields = fieldsOf(msg);
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const at = path ? `${path}.${field.name}` : field.name;
    const present = Object.hasOwn(fields, field.name);
    // Absent fields read the prototype's default, which "always" fields still print.
    const value = fields[field.name];
    const pointer = field.options?.['(go_pointer)'] === true;
    if (isInline(field)) {
      const inner = field.resolvedType as Type;
      Object.assign(out, objectJson(inner, present ? (value as Message) : inner.create(), at));
      continue;
    }
    let json: unknown;
    if (field.map) json = mapJson(field, value as Record<string, unknown>, at);
    else if (field.repeated) json = listJson(field, value as unknown[], at);
    else if (field.resolvedType instanceof protobuf().Type) {
      if (!present && pointer) continue;
      // Go writes non-pointer structs even when empty.
      json = messageJson(field.resolvedType, present ? (value as Message) : field.resolvedType.create(), at);
      // A zero Time or MicroTime is null in Go's JSON; written only where the tag has no omitempty.
      if (json === undefined && field.options?.['(json_always)'] === true) json = null;
    } else {
      if (pointer && !present) continue;
      json = scalarJson(value);
      if (!pointer && field.options?.['(json_always)'] !== true && (json === '' || json === 0 || json === false))
        continue;
    }
    if (json !== undefined) out[jsonKey(field)] = json;
  }
  return out;
}

function messageJson(type: Type, msg: Message, path: string): unknown {
  const { time, microTime, fieldsV1 } = kubeProtos();
  if (type === time || type === microTime) return timeJson(msg, type === microTime, path);
  if (type === fieldsV1) return fieldsV1Json(msg, path);
  if (isJsonList(type)) {
    const field = type.fieldsArray[0]!;
    return (fieldsOf(msg)[field.name] as unknown[]).map((item, i) => elementJson(field, item, `${path}[${i}]`));
  }
  const form = jsonFormOf(type);
  if (form) return formJson(form, type, fieldsOf(msg), path);
  return objectJson(type, msg, path);
}

function elementJson(field: FieldBase, value: unknown, path: string): unknown {
  return field.resolvedType instanceof protobuf().Type
    ? messageJson(field.resolvedType, value as Message, path)
    : scalarJson(value);
}

/** Lists are omitempty everywhere we decode; an empty list was nil or empty in Go either way. */
function listJson(field: FieldBase, items: unknown[], path: string): unknown[] | undefined {
  return items.length === 0 ? undefined : items.map((item, i) => elementJson(field, item, `${path}[${i}]`));
}

/** Keys sorted, as Go's encoding/json writes maps. */
function mapJson(
  field: FieldBase,
  entries: Record<string, unknown>,
  path: string,
): Record<string, unknown> | undefined {
  const keys = Object.keys(entries).sort(compareGoStrings);
  if (keys.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = elementJson(field, entries[key], `${path}[${key}]`);
  return out;
}

function isLong(value: unknown): value is Long {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Long>).low === 'number' &&
    typeof (value as Partial<Long>).high === 'number'
  );
}

/** int64 values come back as Long objects when the long package is present; JSON has numbers. */
function scalarJson(value: unknown): unknown {
  // bytes (a Secret's data): Go's encoding/json writes []byte as standard base64.
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return isLong(value) ? protobuf().util.LongBits.from(value).toNumber(value.unsigned) : value;
}

/**
 * kube's Time and MicroTime: an empty message is the zero time (omitted, where Go writes null);
 * Time keeps whole seconds only, as kube's unmarshalling does, MicroTime keeps microseconds.
 */
function timeJson(msg: Message, micro: boolean, path: string): string | undefined {
  const fields = fieldsOf(msg);
  if (!Object.hasOwn(fields, 'seconds') && !Object.hasOwn(fields, 'nanos')) return undefined;
  let seconds = Number(scalarJson(fields['seconds']));
  let nanos = micro ? Number(scalarJson(fields['nanos'])) : 0;
  // Go's time.Unix normalises nanos outside [0, 1e9) into the seconds.
  seconds += Math.floor(nanos / 1e9);
  nanos = ((nanos % 1e9) + 1e9) % 1e9;
  if (seconds === GO_ZERO_UNIX && nanos === 0) return undefined;
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 0 || year > 9999)
    throw undecodable(`${path} is outside the years 0000-9999`);
  const base = date.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

/** FieldsV1 is written as the JSON document its Raw bytes hold; no bytes is null, so omitted. */
function fieldsV1Json(msg: Message, path: string): unknown {
  const raw = fieldsOf(msg)['Raw'];
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
  } catch {
    throw undecodable(`${path} is not valid JSON`);
  }
}
