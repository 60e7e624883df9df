// Kubernetes' API types as their protobuf messages describe them (kube-protos.ts): which kinds have
// one, each message's fields with their JSON names and Go's JSON forms. The wire codecs
// (server/codecs/protobuf*.ts) and typed decoding (unknown-fields.ts) read the same definitions.
import type * as Protobuf from 'protobufjs';
import type { FieldBase, Root, Type } from 'protobufjs';
import { lazyRequire } from '../lazy-require.js';
import { KUBE_PROTOS } from './kube-protos.js';

/** protobufjs, loaded with the first protobuf body or reply or the first typed decoding, not at start-up. */
export const protobuf = lazyRequire<typeof Protobuf>('protobufjs');

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const CORE = 'k8s.io.api.core.v1';
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const RBAC = 'k8s.io.api.rbac.v1';
const ADMREG = 'k8s.io.api.admissionregistration.v1';
/** The typed messages' names, by `apiVersion/kind` as the envelope's typeMeta names them. */
const KIND_MESSAGES = new Map<string, string>([
  ['v1/Namespace', `${CORE}.Namespace`],
  ['v1/NamespaceList', `${CORE}.NamespaceList`],
  ['v1/Event', `${CORE}.Event`],
  ['v1/EventList', `${CORE}.EventList`],
  ['v1/ConfigMap', `${CORE}.ConfigMap`],
  ['v1/ConfigMapList', `${CORE}.ConfigMapList`],
  ['v1/Secret', `${CORE}.Secret`],
  ['v1/SecretList', `${CORE}.SecretList`],
  ['v1/ServiceAccount', `${CORE}.ServiceAccount`],
  ['v1/ServiceAccountList', `${CORE}.ServiceAccountList`],
  ['v1/Service', `${CORE}.Service`],
  ['v1/ServiceList', `${CORE}.ServiceList`],
  ['v1/Status', `${META}.Status`],
  ['coordination.k8s.io/v1/Lease', 'k8s.io.api.coordination.v1.Lease'],
  ['coordination.k8s.io/v1/LeaseList', 'k8s.io.api.coordination.v1.LeaseList'],
  ['meta.k8s.io/v1/PartialObjectMetadata', `${META}.PartialObjectMetadata`],
  ['meta.k8s.io/v1/PartialObjectMetadataList', `${META}.PartialObjectMetadataList`],
  ['autoscaling/v1/Scale', 'k8s.io.api.autoscaling.v1.Scale'],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', 'k8s.io.api.authorization.v1.SelfSubjectAccessReview'],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', 'k8s.io.api.authorization.v1.SelfSubjectRulesReview'],
  ['authorization.k8s.io/v1/SubjectAccessReview', 'k8s.io.api.authorization.v1.SubjectAccessReview'],
  ['authorization.k8s.io/v1/LocalSubjectAccessReview', 'k8s.io.api.authorization.v1.LocalSubjectAccessReview'],
  ['authentication.k8s.io/v1/SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview'],
  ['authentication.k8s.io/v1/TokenRequest', 'k8s.io.api.authentication.v1.TokenRequest'],
  ['authentication.k8s.io/v1/TokenReview', 'k8s.io.api.authentication.v1.TokenReview'],
  ['rbac.authorization.k8s.io/v1/Role', `${RBAC}.Role`],
  ['rbac.authorization.k8s.io/v1/RoleList', `${RBAC}.RoleList`],
  ['rbac.authorization.k8s.io/v1/ClusterRole', `${RBAC}.ClusterRole`],
  ['rbac.authorization.k8s.io/v1/ClusterRoleList', `${RBAC}.ClusterRoleList`],
  ['rbac.authorization.k8s.io/v1/RoleBinding', `${RBAC}.RoleBinding`],
  ['rbac.authorization.k8s.io/v1/RoleBindingList', `${RBAC}.RoleBindingList`],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', `${RBAC}.ClusterRoleBinding`],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBindingList', `${RBAC}.ClusterRoleBindingList`],
  ['events.k8s.io/v1/Event', 'k8s.io.api.events.v1.Event'],
  ['events.k8s.io/v1/EventList', 'k8s.io.api.events.v1.EventList'],
  ['apiextensions.k8s.io/v1/CustomResourceDefinition', `${APIEXTENSIONS}.CustomResourceDefinition`],
  ['apiextensions.k8s.io/v1/CustomResourceDefinitionList', `${APIEXTENSIONS}.CustomResourceDefinitionList`],
  ['admissionregistration.k8s.io/v1/MutatingWebhookConfiguration', `${ADMREG}.MutatingWebhookConfiguration`],
  ['admissionregistration.k8s.io/v1/MutatingWebhookConfigurationList', `${ADMREG}.MutatingWebhookConfigurationList`],
  ['admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration', `${ADMREG}.ValidatingWebhookConfiguration`],
  [
    'admissionregistration.k8s.io/v1/ValidatingWebhookConfigurationList',
    `${ADMREG}.ValidatingWebhookConfigurationList`,
  ],
  ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy', `${ADMREG}.ValidatingAdmissionPolicy`],
  ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyList', `${ADMREG}.ValidatingAdmissionPolicyList`],
  ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding', `${ADMREG}.ValidatingAdmissionPolicyBinding`],
  [
    'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBindingList',
    `${ADMREG}.ValidatingAdmissionPolicyBindingList`,
  ],
]);

/** Every definition of KUBE_PROTOS, resolved, and the messages the codecs name; shared with the encoder. */
export interface KubeProtos {
  root: Root;
  unknown: Type;
  time: Type;
  microTime: Type;
  fieldsV1: Type;
  deleteOptions: Type;
  watchEvent: Type;
  rawExtension: Type;
  kinds: Map<string, Type>;
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
    kinds: new Map([...KIND_MESSAGES].map(([kind, message]) => [kind, root.lookupType(message)])),
  };
  return built;
}

/** Whether a kind (`apiVersion/kind`) can be written and read as protobuf, without loading the definitions. */
export const hasProtobufKind = (apiVersion: string, kind: string): boolean =>
  KIND_MESSAGES.has(`${apiVersion}/${kind}`);

/** The message of a kind (`apiVersion/kind`) this server can write and read as protobuf. */
export const protobufKind = (apiVersion: string, kind: string): Type | undefined =>
  hasProtobufKind(apiVersion, kind) ? kubeProtos().kinds.get(`${apiVersion}/${kind}`) : undefined;

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
