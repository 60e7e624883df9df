// Kubernetes' API types as their protobuf messages describe them (kube-protos.ts): the messages of
// types no served kind owns, how a kind's message is named, each message's fields with their JSON
// names and Go's JSON forms. The wire codecs (server/codecs/protobuf*.ts) read them.
import type * as Protobuf from 'protobufjs';
import type { FieldBase, Root, Type } from 'protobufjs';
import { lazyRequire } from '../lazy-require.js';
import { KUBE_PROTOS } from './kube-protos.js';

/** protobufjs, loaded with the first protobuf body or reply or the first typed decoding, not at start-up. */
export const protobuf = lazyRequire<typeof Protobuf>('protobufjs');

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * The messages of types no served kind owns, by `apiVersion/kind` as the envelope's typeMeta names
 * them: meta's, and the subresources' and reviews' kinds; a served kind's are named after its Go
 * package (messageName).
 */
export const TYPE_MESSAGES: ReadonlyMap<string, string> = new Map([
  ['v1/Status', `${META}.Status`],
  ['meta.k8s.io/v1/PartialObjectMetadata', `${META}.PartialObjectMetadata`],
  ['meta.k8s.io/v1/PartialObjectMetadataList', `${META}.PartialObjectMetadataList`],
  ['autoscaling/v1/Scale', 'k8s.io.api.autoscaling.v1.Scale'],
  ['authentication.k8s.io/v1/TokenRequest', 'k8s.io.api.authentication.v1.TokenRequest'],
  ['authentication.k8s.io/v1/TokenReview', 'k8s.io.api.authentication.v1.TokenReview'],
]);

/** A kind's message in the generated.proto of its Go package: k8s.io/api/core/v1's Namespace is k8s.io.api.core.v1.Namespace. */
export const messageName = (goPackage: string, kind: string): string =>
  `${goPackage.replaceAll('/', '.').replaceAll('-', '_')}.${kind}`;

/** Every definition of KUBE_PROTOS, resolved, and the messages the codecs name; shared with the encoder. */
interface KubeProtos {
  root: Root;
  unknown: Type;
  time: Type;
  microTime: Type;
  fieldsV1: Type;
  deleteOptions: Type;
  watchEvent: Type;
  rawExtension: Type;
}

let built: KubeProtos | undefined;

/** The definitions, parsed on first use (tens of milliseconds: not at start-up). */
export function kubeProtos(): KubeProtos {
  if (built) return built;
  const pb = protobuf();
  const root = new pb.Root();
  for (const text of Object.values(KUBE_PROTOS)) pb.parse(text, root, { keepCase: true });
  root.resolveAll();
  built = {
    root,
    unknown: root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'),
    time: root.lookupType(`${META}.Time`),
    microTime: root.lookupType(`${META}.MicroTime`),
    fieldsV1: root.lookupType(`${META}.FieldsV1`),
    deleteOptions: root.lookupType(`${META}.DeleteOptions`),
    watchEvent: root.lookupType(`${META}.WatchEvent`),
    rawExtension: root.lookupType('k8s.io.apimachinery.pkg.runtime.RawExtension'),
  };
  return built;
}

/** A message whose JSON form is its single repeated field as a bare array (ExtraValue). */
export const isJsonList = (type: Type): boolean => type.options?.['(json_list)'] === true;

/** Messages with Go's own JSON marshalling (kube-protos.ts): the raw document, or a union. */
export type JsonForm = 'raw' | 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray' | 'intOrString';
export const jsonFormOf = (type: Type): JsonForm | undefined => type.options?.['(json_form)'] as JsonForm | undefined;

/** A field's name in JSON: the proto name, unless (json_key) says otherwise. */
export const jsonKey = (field: FieldBase): string =>
  (field.options?.['(json_key)'] as string | undefined) ?? field.name;

/** A field whose message Go embeds (`json:",inline"`): its fields are written into the parent's JSON object. */
export const isInline = (field: FieldBase): boolean => field.options?.['(json_inline)'] === true;

const jsonFieldsCache = new WeakMap<Type, ReadonlyMap<string, FieldBase>>();

/** A message's fields by JSON name, with those of the messages it embeds (isInline) in their place. */
export function jsonFields(type: Type): ReadonlyMap<string, FieldBase> {
  let fields = jsonFieldsCache.get(type);
  if (fields) return fields;
  const out = new Map<string, FieldBase>();
  for (const field of type.fieldsArray) {
    if (isInline(field)) for (const [key, f] of jsonFields(field.resolvedType as Type)) out.set(key, f);
    else out.set(jsonKey(field), field);
  }
  jsonFieldsCache.set(type, (fields = out));
  return fields;
}
