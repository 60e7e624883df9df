// What every part of an OpenAPI document shares: the resources it describes, kube's definition
// names, the references a document makes (each flavor its own way), and the meta/v1 definitions
// those references reach.
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import type { JsonObject, JsonValue } from '../../../apimachinery/object.js';
import type { ResourceDescriptor } from '../../registry/catalog.js';
import { OBJECT_META } from '../../../apimachinery/apis/meta-schemas.js';

export { OBJECT_META };

/** What a document needs to know about a resource; the Catalog's descriptors are wider. */
export type OpenAPIResource = Pick<
  ResourceDescriptor,
  'group' | 'version' | 'names' | 'namespaced' | 'verbs' | 'subresources' | 'schema' | 'goPackage'
>;

/** Swagger 2.0 (`/openapi/v2`) or OpenAPI 3.0 (`/openapi/v3/...`). */
export type Flavor = 'v2' | 'v3';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

export const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
export const API_VERSION_DOC = `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`;
export const KIND_DOC = `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`;
export const METADATA_DOC = `Standard object's metadata. More info: ${CONVENTIONS}#metadata`;
export const LIST_METADATA_DOC = `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`;

/**
 * A kind compiled into kube-apiserver (it has a Go package): kube's own definition, and strategic
 * merge patch, which kube advertises on its PATCH operations.
 */
export const isCompiledIn = (r: Pick<OpenAPIResource, 'goPackage'>): boolean => r.goPackage !== undefined;

/**
 * kube's definition name of a resource's kind (or list kind): its Go package with the domain
 * reversed, as kube-openapi's ToRESTFriendlyName writes it (`io.k8s.api.core.v1.Namespace`), or for
 * a kind with none, its group reversed and its version (`com.example.cache.v1.Cache`).
 */
export function definitionName(r: Pick<OpenAPIResource, 'group' | 'version' | 'goPackage'>, kind: string): string {
  if (r.goPackage === undefined) return `${r.group.split('.').reverse().join('.')}.${r.version}.${kind}`;
  const [domain = '', ...path] = r.goPackage.split('/');
  return [...domain.split('.').reverse(), ...path, kind].join('.');
}

/** The index key and URL segment of a group version: `api/v1`, `apis/<group>/<version>`. */
export const groupVersionPath = (group: string, version: string): string =>
  group ? `apis/${group}/${version}` : `api/${version}`;

/** Records which definitions a document references, so exactly those get emitted. */
export class Refs {
  readonly used = new Set<string>();
  /** Named definitions built-in kinds' schemas bring along (their `definitions`), by name. */
  readonly carried = new Map<string, JSONSchemaProps>();
  constructor(readonly flavor: Flavor) {}

  to(name: string, siblings: JsonObject = {}): JsonObject {
    this.used.add(name);
    if (this.flavor === 'v2') return { $ref: `#/definitions/${name}`, ...siblings };
    const ref = { $ref: `#/components/schemas/${name}` };
    // OpenAPI 3.0 ignores siblings of $ref, so kube (builder3 WrapRefs) moves the $ref into allOf.
    return Object.keys(siblings).length === 0 ? ref : { allOf: [ref], ...siblings };
  }
}

export const str = (description: string): JsonObject => ({ type: 'string', description });
const int = (format: 'int32' | 'int64', description: string): JsonObject => ({ type: 'integer', format, description });
const bool = (description: string): JsonObject => ({ type: 'boolean', description });
export const gvkList = (group: string, version: string, kind: string): JsonValue => [{ group, kind, version }];

/**
 * The meta/v1 (and autoscaling/v1 Scale) definitions documents refer to; a faithful subset of kube's.
 * ObjectMeta and what it reaches are apimachinery's (apis/meta-schemas.ts), rendered as built-in kinds'
 * definitions are.
 */
export const LIBRARY: Record<string, (r: Refs) => JsonObject> = {
  [LIST_META]: () => ({
    type: 'object',
    description:
      'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      continue: str(
        'Set if the user set a limit on the number of items returned; the token to pass as continue to get the next page.',
      ),
      remainingItemCount: int(
        'int64',
        'The number of subsequent items in the list which are not included in this list response, when known.',
      ),
      resourceVersion: str('The version of the list, for watches and optimistic concurrency. Read-only.'),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    },
  }),
  [STATUS]: (r) => ({
    type: 'object',
    description: "Status is a return value for calls that don't return other objects.",
    properties: {
      apiVersion: str(API_VERSION_DOC),
      code: int('int32', 'Suggested HTTP return code for this status, 0 if not set.'),
      details: r.to(`${META}.StatusDetails`, {
        description: 'Extended data associated with the reason. Each reason may define its own extended details.',
      }),
      kind: str(KIND_DOC),
      message: str('A human-readable description of the status of this operation.'),
      metadata: r.to(LIST_META, { description: LIST_METADATA_DOC }),
      reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
      status: str('Status of the operation. One of: "Success" or "Failure".'),
    },
    'x-kubernetes-group-version-kind': gvkList('', 'v1', 'Status'),
  }),
  [`${META}.StatusDetails`]: (r) => ({
    type: 'object',
    description:
      'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    properties: {
      causes: {
        type: 'array',
        items: r.to(`${META}.StatusCause`),
        description: 'The Causes array includes more details associated with the StatusReason failure.',
        'x-kubernetes-list-type': 'atomic',
      },
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str(
        'The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).',
      ),
      retryAfterSeconds: int('int32', 'If specified, the time in seconds before the operation should be retried.'),
      uid: str('UID of the resource (when there is a single resource which can be described).'),
    },
  }),
  [`${META}.StatusCause`]: () => ({
    type: 'object',
    description:
      'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
    properties: {
      field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  }),
  [DELETE_OPTIONS]: (r) => ({
    type: 'object',
    description: 'DeleteOptions may be provided when deleting an API object.',
    properties: {
      apiVersion: str(API_VERSION_DOC),
      dryRun: {
        type: 'array',
        items: { type: 'string' },
        description: 'When present, indicates that modifications should not be persisted. The only valid value is All.',
        'x-kubernetes-list-type': 'atomic',
      },
      gracePeriodSeconds: int(
        'int64',
        'The duration in seconds before the object should be deleted; zero means delete immediately.',
      ),
      kind: str(KIND_DOC),
      orphanDependents: bool('Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned.'),
      preconditions: r.to(`${META}.Preconditions`, {
        description: 'Must be fulfilled before a deletion is carried out.',
      }),
      propagationPolicy: str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
    },
    'x-kubernetes-group-version-kind': gvkList('', 'v1', 'DeleteOptions'),
  }),
  [`${META}.Preconditions`]: () => ({
    type: 'object',
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    properties: {
      resourceVersion: str('Specifies the target ResourceVersion.'),
      uid: str('Specifies the target UID.'),
    },
  }),
  [PATCH]: () => ({
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  }),
  [SCALE]: (r) => ({
    type: 'object',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: str(API_VERSION_DOC),
      kind: str(KIND_DOC),
      metadata: r.to(OBJECT_META, { description: METADATA_DOC }),
      spec: r.to('io.k8s.api.autoscaling.v1.ScaleSpec', { description: 'Defines the behavior of the scale.' }),
      status: r.to('io.k8s.api.autoscaling.v1.ScaleStatus', {
        description: 'The current status of the scale. Read-only.',
      }),
    },
    'x-kubernetes-group-version-kind': gvkList('autoscaling', 'v1', 'Scale'),
  }),
  'io.k8s.api.autoscaling.v1.ScaleSpec': () => ({
    type: 'object',
    description: 'ScaleSpec describes the attributes of a scale subresource.',
    properties: { replicas: int('int32', 'The desired number of instances for the scaled object.') },
  }),
  'io.k8s.api.autoscaling.v1.ScaleStatus': () => ({
    type: 'object',
    description: 'ScaleStatus represents the current status of a scale subresource.',
    properties: {
      replicas: int('int32', 'The actual number of observed instances of the scaled object.'),
      selector: str(
        'Label query over pods that should match the replicas count, in the serialized form of a label selector.',
      ),
    },
    required: ['replicas'],
  }),
};
