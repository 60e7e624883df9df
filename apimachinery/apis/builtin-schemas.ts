// The schemas of the built-in kinds, as kube publishes them in its OpenAPI documents: served at
// /openapi/v2 and /openapi/v3 (`kubectl explain`, client-side tools), and the one description each
// kind's field ownership types, strategic merge patch metadata and known fields are derived from.
//
// Source: kubernetes/kubernetes api/openapi-spec/v3 (api__v1_openapi.json,
// apis__coordination.k8s.io__v1_openapi.json, apis__rbac.authorization.k8s.io__v1_openapi.json,
// apis__events.k8s.io__v1_openapi.json, apis__apiextensions.k8s.io__v1_openapi.json),
// admissionregistration.k8s.io/v1, core/v1 Service and meta/v1 Condition generated from k8s.io/api
// v0.33.0's types.go with openapi-gen's rules (below), components.schemas: descriptions, types,
// formats, defaults and the x-kubernetes-* extensions copied by hand from those documents (API
// definitions: data; no generator is checked in). Two fields kube added after that snapshot (Lease
// spec.strategy and spec.preferredHolder, served here) are described from kube's types.go. Every
// definition's properties and extensions were checked against v0.33.0's types and markers.
//
// Shape: each kind's schema is its kube definition without apiVersion, kind and metadata (the
// OpenAPI builder adds those, with ObjectMeta by reference), and `definitions` holds every named
// definition it reaches, referenced as `$ref: '#/definitions/<name>'`. The meta/v1 definitions the
// documents always emit (ObjectMeta, Time and their kin, in meta-schemas.ts) are referenced, not
// repeated here; the meta/v1 ones they do not emit (MicroTime, LabelSelector) are.
import type { JSONSchemaProps } from './apiextensions.js';
import type { PatchExtensions } from './patch-extensions.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const CORE = 'io.k8s.api.core.v1';
const RBAC = 'io.k8s.api.rbac.v1';
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const NAMES_DOC = 'https://kubernetes.io/docs/concepts/overview/working-with-objects/names/';

// ---- building blocks ---------------------------------------------------------------------------

export const str = (description: string, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'string',
  description,
  ...extra,
});
export const int32 = (description: string, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'integer',
  format: 'int32',
  description,
  ...extra,
});
const bool = (description: string): JSONSchemaProps => ({ type: 'boolean', description });
/** A reference to a named definition, with the siblings kube gives it (description, default). */
const ref = (name: string, description?: string, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  $ref: `#/definitions/${name}`,
  ...(description === undefined ? {} : { description }),
  ...extra,
});
const atomicStrings = (description: string): JSONSchemaProps => ({
  type: 'array',
  description,
  items: { type: 'string', default: '' },
  'x-kubernetes-list-type': 'atomic',
});
const stringMap = (description: string, value: JSONSchemaProps = { type: 'string', default: '' }): JSONSchemaProps => ({
  type: 'object',
  description,
  additionalProperties: value,
});
/** JSONSchemaProps plus kube's patch extensions (kept as JSON, read by the OpenAPI builder). */
const withPatch = (s: JSONSchemaProps, patch: PatchExtensions): JSONSchemaProps => Object.assign(s, patch);

// ---- meta/v1 definitions the documents do not already emit -------------------------------------

const MICRO_TIME = `${META}.MicroTime`;
const TIME = `${META}.Time`;
const LABEL_SELECTOR = `${META}.LabelSelector`;
const LABEL_SELECTOR_REQUIREMENT = `${META}.LabelSelectorRequirement`;

// metav1.Condition, which ValidatingAdmissionPolicyStatus reaches (apimachinery's types.go).
const CONDITION_DEF: JSONSchemaProps = {
  type: 'object',
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  properties: {
    lastTransitionTime: {
      $ref: `#/definitions/${META}.Time`,
      description:
        'lastTransitionTime is the last time the condition transitioned from one status to another. This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
    },
    message: {
      type: 'string',
      description:
        'message is a human readable message indicating details about the transition. This may be an empty string.',
      default: '',
    },
    observedGeneration: {
      type: 'integer',
      format: 'int64',
      description:
        'observedGeneration represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date with respect to the current state of the instance.',
    },
    reason: {
      type: 'string',
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition. Producers of specific condition types may define expected values and meanings for this field, and whether the values are considered a guaranteed API. The value should be a CamelCase string. This field may not be empty.",
      default: '',
    },
    status: {
      type: 'string',
      description: 'status of the condition, one of True, False, Unknown.',
      default: '',
    },
    type: {
      type: 'string',
      description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      default: '',
    },
  },
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
};

const META_DEFINITIONS: Record<string, JSONSchemaProps> = {
  [`${META}.Condition`]: CONDITION_DEF,
  [MICRO_TIME]: {
    type: 'string',
    format: 'date-time',
    description: 'MicroTime is version of Time with microsecond level precision.',
  },
  [LABEL_SELECTOR]: {
    type: 'object',
    description:
      'A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.',
    properties: {
      matchExpressions: {
        type: 'array',
        description: 'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
        items: ref(LABEL_SELECTOR_REQUIREMENT, undefined, { default: {} }),
        'x-kubernetes-list-type': 'atomic',
      },
      matchLabels: stringMap(
        'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.',
      ),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [LABEL_SELECTOR_REQUIREMENT]: {
    type: 'object',
    description:
      'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    properties: {
      key: str('key is the label key that the selector applies to.', { default: '' }),
      operator: str(
        "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
        { default: '' },
      ),
      values: atomicStrings(
        'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.',
      ),
    },
    required: ['key', 'operator'],
  },
};

// ---- core/v1 -------------------------------------------------------------------------------------

const OBJECT_REFERENCE = `${CORE}.ObjectReference`;
const LOCAL_OBJECT_REFERENCE = `${CORE}.LocalObjectReference`;
const EVENT_SOURCE = `${CORE}.EventSource`;

const CORE_DEFINITIONS: Record<string, JSONSchemaProps> = {
  [OBJECT_REFERENCE]: {
    type: 'object',
    description: 'ObjectReference contains enough information to let you inspect or modify the referred object.',
    properties: {
      apiVersion: str('API version of the referent.'),
      fieldPath: str(
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
      ),
      kind: str(`Kind of the referent. More info: ${CONVENTIONS}#types-kinds`),
      name: str(`Name of the referent. More info: ${NAMES_DOC}#names`),
      namespace: str(
        'Namespace of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/',
      ),
      resourceVersion: str(
        `Specific resourceVersion to which this reference is made, if any. More info: ${CONVENTIONS}#concurrency-control-and-consistency`,
      ),
      uid: str(`UID of the referent. More info: ${NAMES_DOC}#uids`),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [LOCAL_OBJECT_REFERENCE]: {
    type: 'object',
    description:
      'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
    properties: {
      name: str(
        `Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: ${NAMES_DOC}#names`,
        { default: '' },
      ),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [EVENT_SOURCE]: {
    type: 'object',
    description: 'EventSource contains information for an event.',
    properties: {
      component: str('Component from which the event is generated.'),
      host: str('Node name on which the event is generated.'),
    },
  },
  [`${CORE}.EventSeries`]: {
    type: 'object',
    description:
      'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
    properties: {
      count: int32('Number of occurrences in this series up to the last heartbeat time'),
      lastObservedTime: ref(MICRO_TIME, 'Time of the last occurrence observed'),
    },
  },
  [`${CORE}.NamespaceSpec`]: {
    type: 'object',
    description: 'NamespaceSpec describes the attributes on a Namespace.',
    properties: {
      finalizers: atomicStrings(
        'Finalizers is an opaque list of values that must be empty to permanently remove object from storage. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/',
      ),
    },
  },
  [`${CORE}.NamespaceStatus`]: {
    type: 'object',
    description: 'NamespaceStatus is information about the current status of a Namespace.',
    properties: {
      conditions: withPatch(
        {
          type: 'array',
          description: "Represents the latest available observations of a namespace's current state.",
          items: ref(`${CORE}.NamespaceCondition`, undefined, { default: {} }),
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge' },
      ),
      phase: str(
        'Phase is the current lifecycle phase of the namespace. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/\n\nPossible enum values:\n - `"Active"` means the namespace is available for use in the system\n - `"Terminating"` means the namespace is undergoing graceful termination',
        { enum: ['Active', 'Terminating'] },
      ),
    },
  },
  [`${CORE}.NamespaceCondition`]: {
    type: 'object',
    description: 'NamespaceCondition contains details about state of namespace.',
    properties: {
      lastTransitionTime: ref(TIME, 'Last time the condition transitioned from one status to another.'),
      message: str('Human-readable message indicating details about last transition.'),
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.', { default: '' }),
      type: str('Type of namespace controller condition.', { default: '' }),
    },
    required: ['type', 'status'],
  },
};

/** The kind's definition with the named definitions it reaches (transitively), from `pool`. */
function kind(schema: JSONSchemaProps, pool: Record<string, JSONSchemaProps>): JSONSchemaProps {
  const definitions: Record<string, JSONSchemaProps> = {};
  const stack: JSONSchemaProps[] = [schema];
  while (stack.length) {
    const s = stack.pop()!;
    if (s.$ref) {
      const name = s.$ref.slice('#/definitions/'.length);
      const def = pool[name];
      // names outside the pool are the meta/v1 definitions the documents always emit
      if (def && !definitions[name]) {
        definitions[name] = def;
        stack.push(def);
      }
    }
    if (s.properties) stack.push(...Object.values(s.properties));
    if (s.items && !Array.isArray(s.items)) stack.push(s.items);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') stack.push(s.additionalProperties);
  }
  return Object.keys(definitions).length ? { ...schema, definitions } : schema;
}

const POOL: Record<string, JSONSchemaProps> = { ...META_DEFINITIONS, ...CORE_DEFINITIONS };

export const configMapSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description: 'ConfigMap holds configuration data for pods to consume.',
    properties: {
      binaryData: stringMap(
        "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in BinaryData must not overlap with the ones in the Data field, this is enforced during validation process. Using this field will require 1.10+ apiserver and kubelet.",
        { type: 'string', format: 'byte' },
      ),
      data: stringMap(
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      ),
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
      ),
    },
  },
  POOL,
);

export const secretSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
    properties: {
      data: stringMap(
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
        { type: 'string', format: 'byte' },
      ),
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
      ),
      stringData: stringMap(
        'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API.',
      ),
      type: str(
        'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      ),
    },
  },
  POOL,
);

export const serviceAccountSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets',
    properties: {
      automountServiceAccountToken: bool(
        'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.',
      ),
      imagePullSecrets: {
        type: 'array',
        description:
          'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount. ImagePullSecrets are distinct from Secrets because Secrets can be mounted in the pod, but ImagePullSecrets are only accessed by the kubelet. More info: https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod',
        items: ref(LOCAL_OBJECT_REFERENCE, undefined, { default: {} }),
        'x-kubernetes-list-type': 'atomic',
      },
      secrets: withPatch(
        {
          type: 'array',
          description:
            'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
          items: ref(OBJECT_REFERENCE, undefined, { default: {} }),
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      ),
    },
  },
  POOL,
);

export const namespaceSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    properties: {
      spec: ref(
        `${CORE}.NamespaceSpec`,
        `Spec defines the behavior of the Namespace. More info: ${CONVENTIONS}#spec-and-status`,
        { default: {} },
      ),
      status: ref(
        `${CORE}.NamespaceStatus`,
        `Status describes the current status of a Namespace. More info: ${CONVENTIONS}#spec-and-status`,
        { default: {} },
      ),
    },
  },
  POOL,
);

export const coreEventSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'Event is a report of an event somewhere in the cluster.  Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.',
    properties: {
      action: str('What action was taken/failed regarding to the Regarding object.'),
      count: int32('The number of times this event has occurred.'),
      eventTime: ref(MICRO_TIME, 'Time when this Event was first observed.'),
      firstTimestamp: ref(
        TIME,
        'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      ),
      involvedObject: ref(OBJECT_REFERENCE, 'The object that this event is about.', { default: {} }),
      lastTimestamp: ref(TIME, 'The time at which the most recent occurrence of this event was recorded.'),
      message: str('A human-readable description of the status of this operation.'),
      reason: str(
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      related: ref(OBJECT_REFERENCE, 'Optional secondary object for more complex actions.'),
      reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.', {
        default: '',
      }),
      reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.', { default: '' }),
      series: ref(
        `${CORE}.EventSeries`,
        "Data about the Event series this event represents or nil if it's a singleton Event.",
      ),
      source: ref(
        EVENT_SOURCE,
        'The component reporting this event. Should be a short machine understandable string.',
        { default: {} },
      ),
      type: str('Type of this event (Normal, Warning), new types could be added in the future'),
    },
    required: ['metadata', 'involvedObject'],
  },
  POOL,
);

// ---- core/v1 Service ------------------------------------------------------------------------------
// Generated from k8s.io/api v0.33.0's types.go with openapi-gen's rules (descriptions, enums,
// defaults, required, extensions), as kube's published definitions have them.

const SERVICE_POOL: Record<string, JSONSchemaProps> = {
  ...POOL,
  [`${CORE}.ClientIPConfig`]: {
    type: 'object',
    description: 'ClientIPConfig represents the configurations of Client IP based session affinity.',
    properties: {
      timeoutSeconds: {
        type: 'integer',
        format: 'int32',
        description:
          'timeoutSeconds specifies the seconds of ClientIP type session sticky time. The value must be >0 && <=86400(for 1 day) if ServiceAffinity == "ClientIP". Default value is 10800(for 3 hours).',
      },
    },
  },
  [`${CORE}.LoadBalancerIngress`]: {
    type: 'object',
    description:
      'LoadBalancerIngress represents the status of a load-balancer ingress point: traffic intended for the service should be sent to an ingress point.',
    properties: {
      ip: {
        type: 'string',
        description:
          'IP is set for load-balancer ingress points that are IP based (typically GCE or OpenStack load-balancers)',
      },
      hostname: {
        type: 'string',
        description:
          'Hostname is set for load-balancer ingress points that are DNS based (typically AWS load-balancers)',
      },
      ipMode: {
        type: 'string',
        description:
          'IPMode specifies how the load-balancer IP behaves, and may only be specified when the ip field is specified. Setting this to "VIP" indicates that traffic is delivered to the node with the destination set to the load-balancer\'s IP and port. Setting this to "Proxy" indicates that traffic is delivered to the node or pod with the destination set to the node\'s IP and node port or the pod\'s IP and port. Service implementations may use this information to adjust traffic routing.',
      },
      ports: {
        type: 'array',
        items: {
          $ref: `#/definitions/${CORE}.PortStatus`,
          default: {},
        },
        description:
          'Ports is a list of records of service ports If used, every port defined in the service should have an entry in it',
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [`${CORE}.LoadBalancerStatus`]: {
    type: 'object',
    description: 'LoadBalancerStatus represents the status of a load-balancer.',
    properties: {
      ingress: {
        type: 'array',
        items: {
          $ref: `#/definitions/${CORE}.LoadBalancerIngress`,
          default: {},
        },
        description:
          'Ingress is a list containing ingress points for the load-balancer. Traffic intended for the service should be sent to these ingress points.',
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [`${CORE}.PortStatus`]: {
    type: 'object',
    description: 'PortStatus represents the error condition of a service port',
    properties: {
      port: {
        type: 'integer',
        format: 'int32',
        default: 0,
        description: 'Port is the port number of the service port of which status is recorded here',
      },
      protocol: {
        type: 'string',
        enum: ['SCTP', 'TCP', 'UDP'],
        default: '',
        description:
          'Protocol is the protocol of the service port of which status is recorded here The supported values are: "TCP", "UDP", "SCTP"\n\nPossible enum values:\n - `"SCTP"` is the SCTP protocol.\n - `"TCP"` is the TCP protocol.\n - `"UDP"` is the UDP protocol.',
      },
      error: {
        type: 'string',
        description:
          'Error is to record the problem with the service port The format of the error shall comply with the following rules: - built-in error values shall be specified in this file and those shall use\n  CamelCase names\n- cloud provider specific error values must have names that comply with the\n  format foo.example.com/CamelCase.',
      },
    },
    required: ['port', 'protocol'],
  },
  [`${CORE}.ServicePort`]: {
    type: 'object',
    description: "ServicePort contains information on service's port.",
    properties: {
      name: {
        type: 'string',
        description:
          "The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names. When considering the endpoints for a Service, this must match the 'name' field in the EndpointPort. Optional if only one ServicePort is defined on this service.",
      },
      protocol: {
        type: 'string',
        enum: ['SCTP', 'TCP', 'UDP'],
        default: 'TCP',
        description:
          'The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.\n\nPossible enum values:\n - `"SCTP"` is the SCTP protocol.\n - `"TCP"` is the TCP protocol.\n - `"UDP"` is the UDP protocol.',
      },
      appProtocol: {
        type: 'string',
        description:
          "The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax. Valid values are either:\n\n* Un-prefixed protocol names - reserved for IANA standard service names (as per RFC-6335 and https://www.iana.org/assignments/service-names).\n\n* Kubernetes-defined prefixed names:\n  * 'kubernetes.io/h2c' - HTTP/2 prior knowledge over cleartext as described in https://www.rfc-editor.org/rfc/rfc9113.html#name-starting-http-2-with-prior-\n  * 'kubernetes.io/ws'  - WebSocket over cleartext as described in https://www.rfc-editor.org/rfc/rfc6455\n  * 'kubernetes.io/wss' - WebSocket over TLS as described in https://www.rfc-editor.org/rfc/rfc6455\n\n* Other protocols should use implementation-defined prefixed names such as mycompany.com/my-custom-protocol.",
      },
      port: {
        type: 'integer',
        format: 'int32',
        default: 0,
        description: 'The port that will be exposed by this service.',
      },
      targetPort: {
        $ref: '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString',
        description:
          "Number or name of the port to access on the pods targeted by the service. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME. If this is a string, it will be looked up as a named port in the target Pod's container ports. If this is not specified, the value of the 'port' field is used (an identity map). This field is ignored for services with clusterIP=None, and should be omitted or set equal to the 'port' field. More info: https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service",
      },
      nodePort: {
        type: 'integer',
        format: 'int32',
        description:
          'The port on each node on which this service is exposed when type is NodePort or LoadBalancer.  Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail.  If not specified, a port will be allocated if this Service requires one.  If this field is specified when creating a Service which does not need it, creation will fail. This field will be wiped when updating a Service to no longer need it (e.g. changing type from NodePort to ClusterIP). More info: https://kubernetes.io/docs/concepts/services-networking/service/#type-nodeport',
      },
    },
    required: ['port'],
  },
  [`${CORE}.ServiceSpec`]: {
    type: 'object',
    description: 'ServiceSpec describes the attributes that a user creates on a service.',
    properties: {
      ports: withPatch(
        {
          type: 'array',
          items: {
            $ref: `#/definitions/${CORE}.ServicePort`,
            default: {},
          },
          description:
            'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'port' },
      ),
      selector: {
        type: 'object',
        additionalProperties: {
          type: 'string',
          default: '',
        },
        description:
          'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
        'x-kubernetes-map-type': 'atomic',
      },
      clusterIP: {
        type: 'string',
        description:
          'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
      },
      clusterIPs: {
        type: 'array',
        items: {
          type: 'string',
          default: '',
        },
        description:
          'ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly.  If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be empty) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address.  Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName.  If this field is not specified, it will be initialized from the clusterIP field.  If this field is specified, clients must ensure that clusterIPs[0] and clusterIP have the same value.\n\nThis field may hold a maximum of two entries (dual-stack IPs, in either order). These IPs must correspond to the values of the ipFamilies field. Both clusterIPs and ipFamilies are governed by the ipFamilyPolicy field. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
        'x-kubernetes-list-type': 'atomic',
      },
      type: {
        type: 'string',
        enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
        description:
          'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types\n\nPossible enum values:\n - `"ClusterIP"` means a service will only be accessible inside the cluster, via the cluster IP.\n - `"ExternalName"` means a service consists of only a reference to an external name that kubedns or equivalent will return as a CNAME record, with no exposing or proxying of any pods involved.\n - `"LoadBalancer"` means a service will be exposed via an external load balancer (if the cloud provider supports it), in addition to \'NodePort\' type.\n - `"NodePort"` means a service will be exposed on one port of every node, in addition to \'ClusterIP\' type.',
      },
      externalIPs: {
        type: 'array',
        items: {
          type: 'string',
          default: '',
        },
        description:
          'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
        'x-kubernetes-list-type': 'atomic',
      },
      sessionAffinity: {
        type: 'string',
        enum: ['ClientIP', 'None'],
        description:
          'Supports "ClientIP" and "None". Used to maintain session affinity. Enable client IP based session affinity. Must be ClientIP or None. Defaults to None. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies\n\nPossible enum values:\n - `"ClientIP"` is the Client IP based.\n - `"None"` - no session affinity.',
      },
      loadBalancerIP: {
        type: 'string',
        description:
          'Only applies to Service Type: LoadBalancer. This feature depends on whether the underlying cloud-provider supports specifying the loadBalancerIP when a load balancer is created. This field will be ignored if the cloud-provider does not support the feature. Deprecated: This field was under-specified and its meaning varies across implementations. Using it is non-portable and it may not support dual-stack. Users are encouraged to use implementation-specific annotations when available.',
      },
      loadBalancerSourceRanges: {
        type: 'array',
        items: {
          type: 'string',
          default: '',
        },
        description:
          'If specified and supported by the platform, this will restrict traffic through the cloud-provider load-balancer will be restricted to the specified client IPs. This field will be ignored if the cloud-provider does not support the feature." More info: https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/',
        'x-kubernetes-list-type': 'atomic',
      },
      externalName: {
        type: 'string',
        description:
          'externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record). No proxying will be involved.  Must be a lowercase RFC-1123 hostname (https://tools.ietf.org/html/rfc1123) and requires `type` to be "ExternalName".',
      },
      externalTrafficPolicy: {
        type: 'string',
        enum: ['Cluster', 'Local'],
        description:
          'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses (NodePorts, ExternalIPs, and LoadBalancer IPs). If set to "Local", the proxy will configure the service in a way that assumes that external load balancers will take care of balancing the service traffic between nodes, and so each node will deliver traffic only to the node-local endpoints of the service, without masquerading the client source IP. (Traffic mistakenly sent to a node with no endpoints will be dropped.) The default value, "Cluster", uses the standard behavior of routing to all endpoints evenly (possibly modified by topology and other features). Note that traffic sent to an External IP or LoadBalancer IP from within the cluster will always get "Cluster" semantics, but clients sending to a NodePort from within the cluster may need to take traffic policy into account when picking a node.\n\nPossible enum values:\n - `"Cluster"` routes traffic to all endpoints.\n - `"Local"` preserves the source IP of the traffic by routing only to endpoints on the same node as the traffic was received on (dropping the traffic if there are no local endpoints).',
      },
      healthCheckNodePort: {
        type: 'integer',
        format: 'int32',
        description:
          'healthCheckNodePort specifies the healthcheck nodePort for the service. This only applies when type is set to LoadBalancer and externalTrafficPolicy is set to Local. If a value is specified, is in-range, and is not in use, it will be used.  If not specified, a value will be automatically allocated.  External systems (e.g. load-balancers) can use this port to determine if a given node holds endpoints for this service or not.  If this field is specified when creating a Service which does not need it, creation will fail. This field will be wiped when updating a Service to no longer need it (e.g. changing type). This field cannot be updated once set.',
      },
      publishNotReadyAddresses: {
        type: 'boolean',
        description:
          'publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready. The primary use case for setting this field is for a StatefulSet\'s Headless Service to propagate SRV DNS records for its Pods for the purpose of peer discovery. The Kubernetes controllers that generate Endpoints and EndpointSlice resources for Services interpret this to mean that all endpoints are considered "ready" even if the Pods themselves are not. Agents which consume only Kubernetes generated endpoints through the Endpoints or EndpointSlice resources can safely assume this behavior.',
      },
      sessionAffinityConfig: {
        $ref: `#/definitions/${CORE}.SessionAffinityConfig`,
        description: 'sessionAffinityConfig contains the configurations of session affinity.',
      },
      ipFamilies: {
        type: 'array',
        items: {
          type: 'string',
          enum: ['', 'IPv4', 'IPv6'],
          default: '',
        },
        description:
          'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service. This field is usually assigned automatically based on cluster configuration and the ipFamilyPolicy field. If this field is specified manually, the requested family is available in the cluster, and ipFamilyPolicy allows it, it will be used; otherwise creation of the service will fail. This field is conditionally mutable: it allows for adding or removing a secondary IP family, but it does not allow changing the primary IP family of the Service. Valid values are "IPv4" and "IPv6".  This field only applies to Services of types ClusterIP, NodePort, and LoadBalancer, and does apply to "headless" services. This field will be wiped when updating a Service to type ExternalName.\n\nThis field may hold a maximum of two entries (dual-stack families, in either order).  These families must correspond to the values of the clusterIPs field, if specified. Both clusterIPs and ipFamilies are governed by the ipFamilyPolicy field.',
        'x-kubernetes-list-type': 'atomic',
      },
      ipFamilyPolicy: {
        type: 'string',
        enum: ['PreferDualStack', 'RequireDualStack', 'SingleStack'],
        description:
          'IPFamilyPolicy represents the dual-stack-ness requested or required by this Service. If there is no value provided, then this field will be set to SingleStack. Services can be "SingleStack" (a single IP family), "PreferDualStack" (two IP families on dual-stack configured clusters or a single IP family on single-stack clusters), or "RequireDualStack" (two IP families on dual-stack configured clusters, otherwise fail). The ipFamilies and clusterIPs fields depend on the value of this field. This field will be wiped when updating a service to type ExternalName.\n\nPossible enum values:\n - `"PreferDualStack"` indicates that this service prefers dual-stack when the cluster is configured for dual-stack. If the cluster is not configured for dual-stack the service will be assigned a single IPFamily. If the IPFamily is not set in service.spec.ipFamilies then the service will be assigned the default IPFamily configured on the cluster\n - `"RequireDualStack"` indicates that this service requires dual-stack. Using IPFamilyPolicyRequireDualStack on a single stack cluster will result in validation errors. The IPFamilies (and their order) assigned to this service is based on service.spec.ipFamilies. If service.spec.ipFamilies was not provided then it will be assigned according to how they are configured on the cluster. If service.spec.ipFamilies has only one entry then the alternative IPFamily will be added by apiserver\n - `"SingleStack"` indicates that this service is required to have a single IPFamily. The IPFamily assigned is based on the default IPFamily used by the cluster or as identified by service.spec.ipFamilies field',
      },
      allocateLoadBalancerNodePorts: {
        type: 'boolean',
        description:
          'allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer.  Default is "true". It may be set to "false" if the cluster load-balancer does not rely on NodePorts.  If the caller requests specific NodePorts (by specifying a value), those requests will be respected, regardless of this field. This field may only be set for services with type LoadBalancer and will be cleared if the type is changed to any other type.',
      },
      loadBalancerClass: {
        type: 'string',
        description:
          "loadBalancerClass is the class of the load balancer implementation this Service belongs to. If specified, the value of this field must be a label-style identifier, with an optional prefix, e.g. \"internal-vip\" or \"example.com/internal-vip\". Unprefixed names are reserved for end-users. This field can only be set when the Service type is 'LoadBalancer'. If not set, the default load balancer implementation is used, today this is typically done through the cloud provider integration, but should apply for any default implementation. If set, it is assumed that a load balancer implementation is watching for Services with a matching class. Any default load balancer implementation (e.g. cloud providers) should ignore Services that set this field. This field can only be set when creating or updating a Service to type 'LoadBalancer'. Once set, it can not be changed. This field will be wiped when a service is updated to a non 'LoadBalancer' type.",
      },
      internalTrafficPolicy: {
        type: 'string',
        enum: ['Cluster', 'Local'],
        description:
          'InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP. If set to "Local", the proxy will assume that pods only want to talk to endpoints of the service on the same node as the pod, dropping the traffic if there are no local endpoints. The default value, "Cluster", uses the standard behavior of routing to all endpoints evenly (possibly modified by topology and other features).\n\nPossible enum values:\n - `"Cluster"` routes traffic to all endpoints.\n - `"Local"` routes traffic only to endpoints on the same node as the client pod (dropping the traffic if there are no local endpoints).',
      },
      trafficDistribution: {
        type: 'string',
        description:
          'TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints. Implementations can use this field as a hint, but are not required to guarantee strict adherence. If the field is not set, the implementation will apply its default routing strategy. If set to "PreferClose", implementations should prioritize endpoints that are in the same zone.',
      },
    },
  },
  [`${CORE}.ServiceStatus`]: {
    type: 'object',
    description: 'ServiceStatus represents the current status of a service.',
    properties: {
      loadBalancer: {
        $ref: `#/definitions/${CORE}.LoadBalancerStatus`,
        default: {},
        description: 'LoadBalancer contains the current status of the load-balancer, if one is present.',
      },
      conditions: withPatch(
        {
          type: 'array',
          items: {
            $ref: `#/definitions/${META}.Condition`,
            default: {},
          },
          description: 'Current service state',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type' },
      ),
    },
  },
  [`${CORE}.SessionAffinityConfig`]: {
    type: 'object',
    description: 'SessionAffinityConfig represents the configurations of session affinity.',
    properties: {
      clientIP: {
        $ref: `#/definitions/${CORE}.ClientIPConfig`,
        description: 'clientIP contains the configurations of Client IP based session affinity.',
      },
    },
  },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    type: 'string',
    format: 'int-or-string',
    description: 'IntOrString is a type that can hold an int32 or a string.',
  },
};

export const serviceSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
    properties: {
      spec: {
        $ref: `#/definitions/${CORE}.ServiceSpec`,
        default: {},
        description:
          'Spec defines the behavior of a service. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
      },
      status: {
        $ref: `#/definitions/${CORE}.ServiceStatus`,
        default: {},
        description:
          'Most recently observed status of the service. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
      },
    },
  },
  SERVICE_POOL,
);

// ---- events.k8s.io/v1 ----------------------------------------------------------------------------

const EVENTS_POOL: Record<string, JSONSchemaProps> = {
  ...POOL,
  'io.k8s.api.events.v1.EventSeries': {
    type: 'object',
    description:
      'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time. How often to update the EventSeries is up to the event reporters. The default event reporter in "k8s.io/client-go/tools/events/event_broadcaster.go" shows how this struct is updated on heartbeats and can guide customized reporter implementations.',
    properties: {
      count: int32('count is the number of occurrences in this series up to the last heartbeat time.', { default: 0 }),
      lastObservedTime: ref(
        MICRO_TIME,
        'lastObservedTime is the time when last Event from the series was seen before last heartbeat.',
      ),
    },
    required: ['count', 'lastObservedTime'],
  },
};

const COMPAT = 'the deprecated field assuring backward compatibility with core.v1 Event type.';

export const eventsV1EventSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.',
    properties: {
      action: str(
        'action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      deprecatedCount: int32(`deprecatedCount is ${COMPAT}`),
      deprecatedFirstTimestamp: ref(TIME, `deprecatedFirstTimestamp is ${COMPAT}`),
      deprecatedLastTimestamp: ref(TIME, `deprecatedLastTimestamp is ${COMPAT}`),
      deprecatedSource: ref(EVENT_SOURCE, `deprecatedSource is ${COMPAT}`, { default: {} }),
      eventTime: ref(MICRO_TIME, 'eventTime is the time when this Event was first observed. It is required.'),
      note: str(
        'note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.',
      ),
      reason: str(
        'reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      regarding: ref(
        OBJECT_REFERENCE,
        "regarding contains the object this Event is about. In most cases it's an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event is emitted because it acts on some changes in a ReplicaSet object.",
        { default: {} },
      ),
      related: ref(
        OBJECT_REFERENCE,
        'related is the optional secondary object for more complex actions. E.g. when regarding object triggers a creation or deletion of related object.',
      ),
      reportingController: str(
        'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.',
      ),
      reportingInstance: str(
        'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.',
      ),
      series: ref(
        'io.k8s.api.events.v1.EventSeries',
        "series is data about the Event series this event represents or nil if it's a singleton Event.",
      ),
      type: str(
        'type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.',
      ),
    },
    required: ['eventTime'],
  },
  EVENTS_POOL,
);

// ---- coordination.k8s.io/v1 ----------------------------------------------------------------------

const LEASE_POOL: Record<string, JSONSchemaProps> = {
  ...META_DEFINITIONS,
  'io.k8s.api.coordination.v1.LeaseSpec': {
    type: 'object',
    description: 'LeaseSpec is a specification of a Lease.',
    properties: {
      acquireTime: ref(MICRO_TIME, 'acquireTime is a time when the current lease was acquired.'),
      holderIdentity: str('holderIdentity contains the identity of the holder of a current lease.'),
      leaseDurationSeconds: int32(
        'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measure against time of last observed renewTime.',
      ),
      leaseTransitions: int32('leaseTransitions is the number of transitions of a lease between holders.'),
      preferredHolder: str(
        'PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set.',
      ),
      renewTime: ref(MICRO_TIME, 'renewTime is a time when the current holder of a lease has last updated the lease.'),
      strategy: str(
        'Strategy indicates the strategy for picking the leader for coordinated leader election. If the field is not specified, there is no active coordinated election. Valid options are: "OldestEmulationVersion".',
      ),
    },
  },
};

export const leaseSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description: 'Lease defines a lease concept.',
    properties: {
      spec: ref(
        'io.k8s.api.coordination.v1.LeaseSpec',
        `spec contains the specification of the Lease. More info: ${CONVENTIONS}#spec-and-status`,
        { default: {} },
      ),
    },
  },
  LEASE_POOL,
);

// ---- rbac.authorization.k8s.io/v1 ----------------------------------------------------------------

const RBAC_POOL: Record<string, JSONSchemaProps> = {
  ...META_DEFINITIONS,
  [`${RBAC}.PolicyRule`]: {
    type: 'object',
    description:
      'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
    properties: {
      apiGroups: atomicStrings(
        'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
      ),
      nonResourceURLs: atomicStrings(
        'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path Since non-resource URLs are not namespaced, this field is only applicable for ClusterRoles referenced from a ClusterRoleBinding. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"),  but not both.',
      ),
      resourceNames: atomicStrings(
        'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.',
      ),
      resources: atomicStrings("Resources is a list of resources this rule applies to. '*' represents all resources."),
      verbs: atomicStrings(
        "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
      ),
    },
    required: ['verbs'],
  },
  [`${RBAC}.AggregationRule`]: {
    type: 'object',
    description: 'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole',
    properties: {
      clusterRoleSelectors: {
        type: 'array',
        description:
          "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
        items: ref(LABEL_SELECTOR, undefined, { default: {} }),
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [`${RBAC}.RoleRef`]: {
    type: 'object',
    description: 'RoleRef contains information that points to the role being used',
    properties: {
      apiGroup: str('APIGroup is the group for the resource being referenced', { default: '' }),
      kind: str('Kind is the type of resource being referenced', { default: '' }),
      name: str('Name is the name of resource being referenced', { default: '' }),
    },
    required: ['apiGroup', 'kind', 'name'],
    'x-kubernetes-map-type': 'atomic',
  },
  [`${RBAC}.Subject`]: {
    type: 'object',
    description:
      'Subject contains a reference to the object or user identities a role binding applies to.  This can either hold a direct API object reference, or a value for non-objects such as user and group names.',
    properties: {
      apiGroup: str(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
      ),
      kind: str(
        'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognized the kind value, the Authorizer should report an error.',
        { default: '' },
      ),
      name: str('Name of the object being referenced.', { default: '' }),
      namespace: str(
        'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
      ),
    },
    required: ['kind', 'name'],
    'x-kubernetes-map-type': 'atomic',
  },
};

const rules = (holder: string): JSONSchemaProps => ({
  type: 'array',
  description: `Rules holds all the PolicyRules for this ${holder}`,
  items: ref(`${RBAC}.PolicyRule`, undefined, { default: {} }),
  'x-kubernetes-list-type': 'atomic',
});

const subjects: JSONSchemaProps = {
  type: 'array',
  description: 'Subjects holds references to the objects the role applies to.',
  items: ref(`${RBAC}.Subject`, undefined, { default: {} }),
  'x-kubernetes-list-type': 'atomic',
};

export const roleSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
    properties: { rules: rules('Role') },
  },
  RBAC_POOL,
);

export const clusterRoleSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    properties: {
      aggregationRule: ref(
        `${RBAC}.AggregationRule`,
        'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.',
      ),
      rules: rules('ClusterRole'),
    },
  },
  RBAC_POOL,
);

export const roleBindingSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.',
    properties: {
      roleRef: ref(
        `${RBAC}.RoleRef`,
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
        { default: {} },
      ),
      subjects,
    },
    required: ['roleRef'],
  },
  RBAC_POOL,
);

export const clusterRoleBindingSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
    properties: {
      roleRef: ref(
        `${RBAC}.RoleRef`,
        'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
        { default: {} },
      ),
      subjects,
    },
    required: ['roleRef'],
  },
  RBAC_POOL,
);

// ---- apiextensions.k8s.io/v1 ---------------------------------------------------------------------
// From apis__apiextensions.k8s.io__v1_openapi.json. JSON, JSONSchemaPropsOrArray, -OrBool and
// -OrStringArray have no type there (any JSON value), and JSONSchemaProps refers to itself.

const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const PROPS = `${APIEXT}.JSONSchemaProps`;
const atomicOf = (name: string, description?: string): JSONSchemaProps => ({
  type: 'array',
  ...(description === undefined ? {} : { description }),
  items: ref(name, undefined, { default: {} }),
  'x-kubernetes-list-type': 'atomic',
});
const mapOf = (name: string): JSONSchemaProps => ({
  type: 'object',
  additionalProperties: ref(name, undefined, { default: {} }),
});
const typed = (type: string, format?: string): JSONSchemaProps => ({ type, ...(format ? { format } : {}) });
const undescribedStrings: JSONSchemaProps = {
  type: 'array',
  items: { type: 'string', default: '' },
  'x-kubernetes-list-type': 'atomic',
};

const APIEXT_POOL: Record<string, JSONSchemaProps> = {
  [`${APIEXT}.CustomResourceColumnDefinition`]: {
    type: 'object',
    description: 'CustomResourceColumnDefinition specifies a column for server side printing.',
    properties: {
      description: str('description is a human readable description of this column.'),
      format: str(
        "format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.",
      ),
      jsonPath: str(
        'jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.',
        { default: '' },
      ),
      name: str('name is a human readable name for the column.', { default: '' }),
      priority: int32(
        'priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0.',
      ),
      type: str(
        'type is an OpenAPI type definition for this column. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.',
        { default: '' },
      ),
    },
    required: ['name', 'type', 'jsonPath'],
  },
  [`${APIEXT}.CustomResourceConversion`]: {
    type: 'object',
    description: 'CustomResourceConversion describes how to convert different versions of a CR.',
    properties: {
      strategy: str(
        'strategy specifies how custom resources are converted between versions. Allowed values are: - `"None"`: The converter only change the apiVersion and would not touch any other field in the custom resource. - `"Webhook"`: API Server will call to an external webhook to do the conversion. Additional information\n  is needed for this option. This requires spec.preserveUnknownFields to be false, and spec.conversion.webhook to be set.',
        { default: '' },
      ),
      webhook: ref(
        `${APIEXT}.WebhookConversion`,
        'webhook describes how to call the conversion webhook. Required when `strategy` is set to `"Webhook"`.',
      ),
    },
    required: ['strategy'],
  },
  [`${APIEXT}.CustomResourceDefinitionCondition`]: {
    type: 'object',
    description: 'CustomResourceDefinitionCondition contains details for the current condition of this pod.',
    properties: {
      lastTransitionTime: ref(
        TIME,
        'lastTransitionTime last time the condition transitioned from one status to another.',
      ),
      message: str('message is a human-readable message indicating details about last transition.'),
      reason: str("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('status is the status of the condition. Can be True, False, Unknown.', { default: '' }),
      type: str('type is the type of the condition. Types include Established, NamesAccepted and Terminating.', {
        default: '',
      }),
    },
    required: ['type', 'status'],
  },
  [`${APIEXT}.CustomResourceDefinitionNames`]: {
    type: 'object',
    description: 'CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition',
    properties: {
      categories: atomicStrings(
        "categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`.",
      ),
      kind: str(
        'kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls.',
        { default: '' },
      ),
      listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
      plural: str(
        'plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase.',
        { default: '' },
      ),
      shortNames: atomicStrings(
        'shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.',
      ),
      singular: str(
        'singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.',
      ),
    },
    required: ['plural', 'kind'],
  },
  [`${APIEXT}.CustomResourceDefinitionSpec`]: {
    type: 'object',
    description: 'CustomResourceDefinitionSpec describes how a user wants their resource to appear',
    properties: {
      conversion: ref(`${APIEXT}.CustomResourceConversion`, 'conversion defines conversion settings for the CRD.'),
      group: str(
        'group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
        { default: '' },
      ),
      names: ref(
        `${APIEXT}.CustomResourceDefinitionNames`,
        'names specify the resource and kind names for the custom resource.',
        { default: {} },
      ),
      preserveUnknownFields: bool(
        'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields inside metadata are always preserved. This field is deprecated in favor of setting `x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`. See https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#field-pruning for details.',
      ),
      scope: str(
        'scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.',
        { default: '' },
      ),
      versions: atomicOf(
        `${APIEXT}.CustomResourceDefinitionVersion`,
        'versions is the list of all API versions of the defined custom resource. Version names are used to compute the order in which served versions are listed in API discovery. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
      ),
    },
    required: ['group', 'names', 'scope', 'versions'],
  },
  [`${APIEXT}.CustomResourceDefinitionStatus`]: {
    type: 'object',
    description: 'CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition',
    properties: {
      acceptedNames: ref(
        `${APIEXT}.CustomResourceDefinitionNames`,
        'acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.',
        { default: {} },
      ),
      conditions: {
        type: 'array',
        description: 'conditions indicate state for particular aspects of a CustomResourceDefinition',
        items: ref(`${APIEXT}.CustomResourceDefinitionCondition`, undefined, { default: {} }),
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
      },
      storedVersions: atomicStrings(
        'storedVersions lists all versions of CustomResources that were ever persisted. Tracking these versions allows a migration path for stored versions in etcd. The field is mutable so a migration controller can finish a migration to another version (ensuring no old objects are left in storage), and then remove the rest of the versions from this list. Versions may not be removed from `spec.versions` while they exist in this list.',
      ),
    },
  },
  [`${APIEXT}.CustomResourceDefinitionVersion`]: {
    type: 'object',
    description: 'CustomResourceDefinitionVersion describes a version for CRD.',
    properties: {
      additionalPrinterColumns: atomicOf(
        `${APIEXT}.CustomResourceColumnDefinition`,
        'additionalPrinterColumns specifies additional columns returned in Table output. See https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables for details. If no columns are specified, a single column displaying the age of the custom resource is used.',
      ),
      deprecated: bool(
        'deprecated indicates this version of the custom resource API is deprecated. When set to true, API requests to this version receive a warning header in the server response. Defaults to false.',
      ),
      deprecationWarning: str(
        'deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true. The default warning indicates this version is deprecated and recommends use of the newest served version of equal or greater stability, if one exists.',
      ),
      name: str(
        'name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true.',
        { default: '' },
      ),
      schema: ref(
        `${APIEXT}.CustomResourceValidation`,
        'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.',
      ),
      selectableFields: atomicOf(
        `${APIEXT}.SelectableField`,
        'selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed. See https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors',
      ),
      served: {
        type: 'boolean',
        default: false,
        description: 'served is a flag enabling/disabling this version from being served via REST APIs',
      },
      storage: {
        type: 'boolean',
        default: false,
        description:
          'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      },
      subresources: ref(
        `${APIEXT}.CustomResourceSubresources`,
        'subresources specify what subresources this version of the defined custom resource have.',
      ),
    },
    required: ['name', 'served', 'storage'],
  },
  [`${APIEXT}.CustomResourceSubresourceScale`]: {
    type: 'object',
    description: 'CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.',
    properties: {
      labelSelectorPath: str(
        'labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status` or `.spec`. Must be set to work with HorizontalPodAutoscaler. The field pointed by this JSON path must be a string field (not a complex selector struct) which contains a serialized label selector in string form. More info: https://kubernetes.io/docs/tasks/access-kubernetes-api/custom-resources/custom-resource-definitions#scale-subresource If there is no value under the given path in the custom resource, the `status.selector` value in the `/scale` subresource will default to the empty string.',
      ),
      specReplicasPath: str(
        'specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.spec`. If there is no value under the given path in the custom resource, the `/scale` subresource will return an error on GET.',
        { default: '' },
      ),
      statusReplicasPath: str(
        'statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status`. If there is no value under the given path in the custom resource, the `status.replicas` value in the `/scale` subresource will default to 0.',
        { default: '' },
      ),
    },
    required: ['specReplicasPath', 'statusReplicasPath'],
  },
  [`${APIEXT}.CustomResourceSubresourceStatus`]: {
    type: 'object',
    description:
      'CustomResourceSubresourceStatus defines how to serve the status subresource for CustomResources. Status is represented by the `.status` JSON path inside of a CustomResource. When set, * exposes a /status subresource for the custom resource * PUT requests to the /status subresource take a custom resource object, and ignore changes to anything except the status stanza * PUT/POST/PATCH requests to the custom resource ignore changes to the status stanza',
    // An empty Go struct, which kube publishes without properties, as it publishes free-form
    // objects (FieldsV1, RawExtension): said here, so that decoding drops what the struct has no
    // field for. Structured merge treats both the same.
    properties: {},
  },
  [`${APIEXT}.CustomResourceSubresources`]: {
    type: 'object',
    description: 'CustomResourceSubresources defines the status and scale subresources for CustomResources.',
    properties: {
      scale: ref(
        `${APIEXT}.CustomResourceSubresourceScale`,
        'scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.',
      ),
      status: ref(
        `${APIEXT}.CustomResourceSubresourceStatus`,
        'status indicates the custom resource should serve a `/status` subresource. When enabled: 1. requests to the custom resource primary endpoint ignore changes to the `status` stanza of the object. 2. requests to the custom resource `/status` subresource ignore changes to anything other than the `status` stanza of the object.',
      ),
    },
  },
  [`${APIEXT}.CustomResourceValidation`]: {
    type: 'object',
    description: 'CustomResourceValidation is a list of validation methods for CustomResources.',
    properties: {
      openAPIV3Schema: ref(PROPS, 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.'),
    },
  },
  [`${APIEXT}.ExternalDocumentation`]: {
    type: 'object',
    description: 'ExternalDocumentation allows referencing an external resource for extended documentation.',
    properties: { description: typed('string'), url: typed('string') },
  },
  [`${APIEXT}.JSON`]: {
    description:
      'JSON represents any valid JSON value. These types are supported: bool, int64, float64, string, []interface{}, map[string]interface{} and nil.',
  },
  [PROPS]: {
    type: 'object',
    description: 'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).',
    properties: {
      $ref: typed('string'),
      $schema: typed('string'),
      additionalItems: ref(`${APIEXT}.JSONSchemaPropsOrBool`),
      additionalProperties: ref(`${APIEXT}.JSONSchemaPropsOrBool`),
      allOf: atomicOf(PROPS),
      anyOf: atomicOf(PROPS),
      default: ref(
        `${APIEXT}.JSON`,
        'default is a default value for undefined object fields. Defaulting is a beta feature under the CustomResourceDefaulting feature gate. Defaulting requires spec.preserveUnknownFields to be false.',
      ),
      definitions: mapOf(PROPS),
      dependencies: { type: 'object', additionalProperties: ref(`${APIEXT}.JSONSchemaPropsOrStringArray`) },
      description: typed('string'),
      enum: { type: 'array', items: ref(`${APIEXT}.JSON`), 'x-kubernetes-list-type': 'atomic' },
      example: ref(`${APIEXT}.JSON`),
      exclusiveMaximum: typed('boolean'),
      exclusiveMinimum: typed('boolean'),
      externalDocs: ref(`${APIEXT}.ExternalDocumentation`),
      format: str(
        'format is an OpenAPI v3 format string. Unknown formats are ignored. The following formats are validated:\n\n- bsonobjectid: a bson object ID, i.e. a 24 characters hex string - uri: an URI as parsed by Golang net/url.ParseRequestURI - email: an email address as parsed by Golang net/mail.ParseAddress - hostname: a valid representation for an Internet host name, as defined by RFC 1034, section 3.1 [RFC1034]. - ipv4: an IPv4 IP as parsed by Golang net.ParseIP - ipv6: an IPv6 IP as parsed by Golang net.ParseIP - cidr: a CIDR as parsed by Golang net.ParseCIDR - mac: a MAC address as parsed by Golang net.ParseMAC - uuid: an UUID that allows uppercase defined by the regex (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$ - uuid3: an UUID3 that allows uppercase defined by the regex (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$ - uuid4: an UUID4 that allows uppercase defined by the regex (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$ - uuid5: an UUID5 that allows uppercase defined by the regex (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$ - isbn: an ISBN10 or ISBN13 number string like "0321751043" or "978-0321751041" - isbn10: an ISBN10 number string like "0321751043" - isbn13: an ISBN13 number string like "978-0321751041" - creditcard: a credit card number defined by the regex ^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\\\d{3})\\\\d{11})$ with any non digit characters mixed in - ssn: a U.S. social security number following the regex ^\\\\d{3}[- ]?\\\\d{2}[- ]?\\\\d{4}$ - hexcolor: an hexadecimal color code like "#FFFFFF: following the regex ^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$ - rgbcolor: an RGB color code like rgb like "rgb(255,255,2559" - byte: base64 encoded binary data - password: any kind of string - date: a date string like "2006-01-02" as defined by full-date in RFC3339 - duration: a duration string like "22 ns" as parsed by Golang time.ParseDuration or compatible with Scala duration format - datetime: a date time string like "2014-12-15T19:30:20.000Z" as defined by date-time in RFC3339.',
      ),
      id: typed('string'),
      items: ref(`${APIEXT}.JSONSchemaPropsOrArray`),
      maxItems: typed('integer', 'int64'),
      maxLength: typed('integer', 'int64'),
      maxProperties: typed('integer', 'int64'),
      maximum: typed('number', 'double'),
      minItems: typed('integer', 'int64'),
      minLength: typed('integer', 'int64'),
      minProperties: typed('integer', 'int64'),
      minimum: typed('number', 'double'),
      multipleOf: typed('number', 'double'),
      not: ref(PROPS),
      nullable: typed('boolean'),
      oneOf: atomicOf(PROPS),
      pattern: typed('string'),
      patternProperties: mapOf(PROPS),
      properties: mapOf(PROPS),
      required: undescribedStrings,
      title: typed('string'),
      type: typed('string'),
      uniqueItems: typed('boolean'),
      'x-kubernetes-embedded-resource': bool(
        'x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta. The type must be object. It is allowed to further restrict the embedded object. kind, apiVersion and metadata are validated automatically. x-kubernetes-preserve-unknown-fields is allowed to be true, but does not have to be if the object is fully specified (up to kind, apiVersion, metadata).',
      ),
      'x-kubernetes-int-or-string': bool(
        'x-kubernetes-int-or-string specifies that this value is either an integer or a string. If this is true, an empty type is allowed and type as child of anyOf is permitted if following one of the following patterns:\n\n1) anyOf:\n   - type: integer\n   - type: string\n2) allOf:\n   - anyOf:\n     - type: integer\n     - type: string\n   - ... zero or more',
      ),
      'x-kubernetes-list-map-keys': atomicStrings(
        'x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map.\n\nThis tag MUST only be used on lists that have the "x-kubernetes-list-type" extension set to "map". Also, the values specified for this attribute must be a scalar typed field of the child structure (no nesting is supported).\n\nThe properties specified must either be required or have a default value, to ensure those properties are present for all list items.',
      ),
      'x-kubernetes-list-type': str(
        'x-kubernetes-list-type annotates an array to further describe its topology. This extension must only be used on lists and may have 3 possible values:\n\n1) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic lists will be entirely replaced when updated. This extension\n     may be used on any type of list (struct, scalar, ...).\n2) `set`:\n     Sets are lists that must not have multiple items with the same value. Each\n     value must be a scalar, an object with x-kubernetes-map-type `atomic` or an\n     array with x-kubernetes-list-type `atomic`.\n3) `map`:\n     These lists are like maps in that their elements have a non-index key\n     used to identify them. Order is preserved upon merge. The map tag\n     must only be used on a list with elements of type object.\nDefaults to atomic for arrays.',
      ),
      'x-kubernetes-map-type': str(
        'x-kubernetes-map-type annotates an object to further describe its topology. This extension must only be used when type is object and may have 2 possible values:\n\n1) `granular`:\n     These maps are actual maps (key-value pairs) and each fields are independent\n     from each other (they can each be manipulated by separate actors). This is\n     the default behaviour for all maps.\n2) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic maps will be entirely replaced when updated.',
      ),
      'x-kubernetes-preserve-unknown-fields': bool(
        'x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema. This affects fields recursively, but switches back to normal pruning behaviour if nested properties or additionalProperties are specified in the schema. This can either be true or undefined. False is forbidden.',
      ),
      'x-kubernetes-validations': withPatch(
        {
          type: 'array',
          description:
            'x-kubernetes-validations describes a list of validation rules written in the CEL expression language. This field is an alpha-level. Using this field requires the feature gate `CustomResourceValidationExpressions` to be enabled.',
          items: ref(`${APIEXT}.ValidationRule`, undefined, { default: {} }),
          'x-kubernetes-list-map-keys': ['rule'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-merge-key': 'rule', 'x-kubernetes-patch-strategy': 'merge' },
      ),
    },
  },
  [`${APIEXT}.JSONSchemaPropsOrArray`]: {
    description:
      'JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of JSONSchemaProps. Mainly here for serialization purposes.',
  },
  [`${APIEXT}.JSONSchemaPropsOrBool`]: {
    description:
      'JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the boolean property.',
  },
  [`${APIEXT}.JSONSchemaPropsOrStringArray`]: {
    description: 'JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array.',
  },
  [`${APIEXT}.SelectableField`]: {
    type: 'object',
    description: 'SelectableField specifies the JSON path of a field that may be used with field selectors.',
    properties: {
      jsonPath: str(
        'jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. Only JSON paths without the array notation are allowed. Must point to a field of type string, boolean or integer. Types with enum values and strings with formats are allowed. If jsonPath refers to absent field in a resource, the jsonPath evaluates to an empty string. Must not point to metdata fields. Required.',
        { default: '' },
      ),
    },
    required: ['jsonPath'],
  },
  [`${APIEXT}.ServiceReference`]: {
    type: 'object',
    description: 'ServiceReference holds a reference to Service.legacy.k8s.io',
    properties: {
      name: str('name is the name of the service. Required', { default: '' }),
      namespace: str('namespace is the namespace of the service. Required', { default: '' }),
      path: str('path is an optional URL path at which the webhook will be contacted.'),
      port: int32(
        'port is an optional service port at which the webhook will be contacted. `port` should be a valid port number (1-65535, inclusive). Defaults to 443 for backward compatibility.',
      ),
    },
    required: ['namespace', 'name'],
  },
  [`${APIEXT}.ValidationRule`]: {
    type: 'object',
    description: 'ValidationRule describes a validation rule written in the CEL expression language.',
    properties: {
      fieldPath: str(
        "fieldPath represents the field path returned when the validation fails. It must be a relative JSON path (i.e. with array notation) scoped to the location of this x-kubernetes-validations extension in the schema and refer to an existing field. e.g. when validation checks if a specific attribute `foo` under a map `testMap`, the fieldPath could be set to `.testMap.foo` If the validation checks two lists must have unique attributes, the fieldPath could be set to either of the list: e.g. `.testList` It does not support list numeric index. It supports child operation to refer to an existing field currently. Refer to [JSONPath support in Kubernetes](https://kubernetes.io/docs/reference/kubectl/jsonpath/) for more info. Numeric index of array is not supported. For field name which contains special characters, use `['specialName']` to refer the field name. e.g. for attribute `foo.34$` appears in a list `testList`, the fieldPath could be set to `.testList['foo.34$']`",
      ),
      message: str(
        'Message represents the message displayed when validation fails. The message is required if the Rule contains line breaks. The message must not contain line breaks. If unset, the message is "failed rule: {Rule}". e.g. "must be a URL with the host matching spec.host"',
      ),
      messageExpression: str(
        'MessageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails. Since messageExpression is used as a failure message, it must evaluate to a string. If both message and messageExpression are present on a rule, then messageExpression will be used if validation fails. If messageExpression results in a runtime error, the runtime error is logged, and the validation failure message is produced as if the messageExpression field were unset. If messageExpression evaluates to an empty string, a string with only spaces, or a string that contains line breaks, then the validation failure message will also be produced as if the messageExpression field were unset, and the fact that messageExpression produced an empty string/string with only spaces/string with line breaks will be logged. messageExpression has access to all the same variables as the rule; the only difference is the return type. Example: "x must be less than max ("+string(self.max)+")"',
      ),
      optionalOldSelf: bool(
        'optionalOldSelf is used to opt a transition rule into evaluation even when the object is first created, or if the old object is missing the value.\n\nWhen enabled `oldSelf` will be a CEL optional whose value will be `None` if there is no old value, or when the object is initially created.\n\nYou may check for presence of oldSelf using `oldSelf.hasValue()` and unwrap it after checking using `oldSelf.value()`. Check the CEL documentation for Optional types for more information: https://pkg.go.dev/github.com/google/cel-go/cel#OptionalTypes\n\nMay not be set unless `oldSelf` is used in `rule`.',
      ),
      reason: str(
        'reason provides a machine-readable validation failure reason that is returned to the caller when a request fails this validation rule. The HTTP status code returned to the caller will match the reason of the reason of the first failed validation rule. The currently supported reasons are: "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate". If not set, default to use "FieldValueInvalid". All future added reasons must be accepted by clients when reading this value and unknown reasons should be treated as FieldValueInvalid.',
      ),
      rule: str(
        'Rule represents the expression which will be evaluated by CEL. ref: https://github.com/google/cel-spec The Rule is scoped to the location of the x-kubernetes-validations extension in the schema. The `self` variable in the CEL expression is bound to the scoped value. Example: - Rule scoped to the root of a resource with a status subresource: {"rule": "self.status.actual <= self.spec.maxDesired"}\n\nIf the Rule is scoped to an object with properties, the accessible properties of the object are field selectable via `self.field` and field presence can be checked via `has(self.field)`. Null valued fields are treated as absent fields in CEL expressions. If the Rule is scoped to an object with additionalProperties (i.e. a map) the value of the map are accessible via `self[mapKey]`, map containment can be checked via `mapKey in self` and all entries of the map are accessible via CEL macros and functions such as `self.all(...)`. If the Rule is scoped to an array, the elements of the array are accessible via `self[i]` and also by macros and functions. If the Rule is scoped to a scalar, `self` is bound to the scalar value. Examples: - Rule scoped to a map of objects: {"rule": "self.components[\'Widget\'].priority < 10"} - Rule scoped to a list of integers: {"rule": "self.values.all(value, value >= 0 && value < 100)"} - Rule scoped to a string value: {"rule": "self.startsWith(\'kube\')"}\n\nThe `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` are always accessible from the root of the object and from any x-kubernetes-embedded-resource annotated objects. No other metadata properties are accessible.\n\nUnknown data preserved in custom resources via x-kubernetes-preserve-unknown-fields is not accessible in CEL expressions. This includes: - Unknown field values that are preserved by object schemas with x-kubernetes-preserve-unknown-fields. - Object properties where the property schema is of an "unknown type". An "unknown type" is recursively defined as:\n  - A schema with no type and x-kubernetes-preserve-unknown-fields set to true\n  - An array where the items schema is of an "unknown type"\n  - An object where the additionalProperties schema is of an "unknown type"\n\nOnly property names of the form `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are accessible. Accessible property names are escaped according to the following rules when accessed in the expression: - \'__\' escapes to \'__underscores__\' - \'.\' escapes to \'__dot__\' - \'-\' escapes to \'__dash__\' - \'/\' escapes to \'__slash__\' - Property names that exactly match a CEL RESERVED keyword escape to \'__{keyword}__\'. The keywords are:\n\t  "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",\n\t  "import", "let", "loop", "package", "namespace", "return".\nExamples:\n  - Rule accessing a property named "namespace": {"rule": "self.__namespace__ > 0"}\n  - Rule accessing a property named "x-prop": {"rule": "self.x__dash__prop > 0"}\n  - Rule accessing a property named "redact__d": {"rule": "self.redact__underscores__d > 0"}\n\nEquality on arrays with x-kubernetes-list-type of \'set\' or \'map\' ignores element order, i.e. [1, 2] == [2, 1]. Concatenation on arrays with x-kubernetes-list-type use the semantics of the list type:\n  - \'set\': `X + Y` performs a union where the array positions of all elements in `X` are preserved and\n    non-intersecting elements in `Y` are appended, retaining their partial order.\n  - \'map\': `X + Y` performs a merge where the array positions of all keys in `X` are preserved but the values\n    are overwritten by values in `Y` when the key sets of `X` and `Y` intersect. Elements in `Y` with\n    non-intersecting keys are appended, retaining their partial order.\n\nIf `rule` makes use of the `oldSelf` variable it is implicitly a `transition rule`.\n\nBy default, the `oldSelf` variable is the same type as `self`. When `optionalOldSelf` is true, the `oldSelf` variable is a CEL optional\n variable whose value() is the same type as `self`.\nSee the documentation for the `optionalOldSelf` field for details.\n\nTransition rules by default are applied only on UPDATE requests and are skipped if an old value could not be found. You can opt a transition rule into unconditional evaluation by setting `optionalOldSelf` to true.',
        { default: '' },
      ),
    },
    required: ['rule'],
  },
  [`${APIEXT}.WebhookClientConfig`]: {
    type: 'object',
    description: 'WebhookClientConfig contains the information to make a TLS connection with the webhook.',
    properties: {
      caBundle: str(
        "caBundle is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
        { format: 'byte' },
      ),
      service: ref(
        `${APIEXT}.ServiceReference`,
        'service is a reference to the service for this webhook. Either service or url must be specified.\n\nIf the webhook is running within the cluster, then you should use `service`.',
      ),
      url: str(
        'url gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified.\n\nThe `host` should not refer to a service running in the cluster; use the `service` field instead. The host might be resolved via external DNS in some apiservers (e.g., `kube-apiserver` cannot resolve in-cluster DNS as that would be a layering violation). `host` may also be an IP address.\n\nPlease note that using `localhost` or `127.0.0.1` as a `host` is risky unless you take great care to run this webhook on all hosts which run an apiserver which might need to make calls to this webhook. Such installs are likely to be non-portable, i.e., not easy to turn up in a new cluster.\n\nThe scheme must be "https"; the URL must begin with "https://".\n\nA path is optional, and if present may be any string permissible in a URL. You may use the path to pass an arbitrary string to the webhook, for example, a cluster identifier.\n\nAttempting to use a user or basic auth e.g. "user:password@" is not allowed. Fragments ("#...") and query parameters ("?...") are not allowed, either.',
      ),
    },
  },
  [`${APIEXT}.WebhookConversion`]: {
    type: 'object',
    description: 'WebhookConversion describes how to call a conversion webhook',
    properties: {
      clientConfig: ref(
        `${APIEXT}.WebhookClientConfig`,
        'clientConfig is the instructions for how to call the webhook if strategy is `Webhook`.',
      ),
      conversionReviewVersions: atomicStrings(
        'conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects. The API server will use the first version in the list which it supports. If none of the versions specified in this list are supported by API server, conversion will fail for the custom resource. If a persisted Webhook configuration specifies allowed versions and does not include any versions known to the API Server, calls to the webhook will fail.',
      ),
    },
    required: ['conversionReviewVersions'],
  },
};

export const customResourceDefinitionSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
    properties: {
      spec: ref(`${APIEXT}.CustomResourceDefinitionSpec`, 'spec describes how the user wants the resources to appear', {
        default: {},
      }),
      status: ref(
        `${APIEXT}.CustomResourceDefinitionStatus`,
        'status indicates the actual state of the CustomResourceDefinition',
        { default: {} },
      ),
    },
    required: ['spec'],
  },
  APIEXT_POOL,
);

// ---- admissionregistration.k8s.io/v1 -------------------------------------------------------------
// Generated, not hand-copied: kube-openapi's openapi-gen rules (descriptions from the Go doc comments,
// "Possible enum values" for +enum types, defaults for non-pointer fields, +listType/+listMapKey/
// +patchStrategy/+patchMergeKey/+structType as x-kubernetes-*) applied to k8s.io/api v0.33.0
// admissionregistration/v1/types.go, so these are kube 1.33's definitions.

const ADMREG = 'io.k8s.api.admissionregistration.v1';

const ADMREG_POOL: Record<string, JSONSchemaProps> = {
  ...META_DEFINITIONS,
  [`${ADMREG}.AuditAnnotation`]: {
    type: 'object',
    description: 'AuditAnnotation describes how to produce an audit annotation for an API request.',
    properties: {
      key: {
        type: 'string',
        description:
          'key specifies the audit annotation key. The audit annotation keys of a ValidatingAdmissionPolicy must be unique. The key must be a qualified name ([A-Za-z0-9][-A-Za-z0-9_.]*) no more than 63 bytes in length.\n\nThe key is combined with the resource name of the ValidatingAdmissionPolicy to construct an audit annotation key: "{ValidatingAdmissionPolicy name}/{key}".\n\nIf an admission webhook uses the same resource name as this ValidatingAdmissionPolicy and the same audit annotation key, the annotation key will be identical. In this case, the first annotation written with the key will be included in the audit event and all subsequent annotations with the same key will be discarded.\n\nRequired.',
        default: '',
      },
      valueExpression: {
        type: 'string',
        description:
          'valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value. The expression must evaluate to either a string or null value. If the expression evaluates to a string, the audit annotation is included with the string value. If the expression evaluates to null or empty string the audit annotation will be omitted. The valueExpression may be no longer than 5kb in length. If the result of the valueExpression is more than 10kb in length, it will be truncated to 10kb.\n\nIf multiple ValidatingAdmissionPolicyBinding resources match an API request, then the valueExpression will be evaluated for each binding. All unique values produced by the valueExpressions will be joined together in a comma-separated list.\n\nRequired.',
        default: '',
      },
    },
    required: ['key', 'valueExpression'],
  },
  [`${ADMREG}.ExpressionWarning`]: {
    type: 'object',
    description: 'ExpressionWarning is a warning information that targets a specific expression.',
    properties: {
      fieldRef: {
        type: 'string',
        description:
          'The path to the field that refers the expression. For example, the reference to the expression of the first item of validations is "spec.validations[0].expression"',
        default: '',
      },
      warning: {
        type: 'string',
        description:
          'The content of type checking information in a human-readable form. Each line of the warning contains the type that the expression is checked against, followed by the type check error from the compiler.',
        default: '',
      },
    },
    required: ['fieldRef', 'warning'],
  },
  [`${ADMREG}.MatchCondition`]: {
    type: 'object',
    description: 'MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.',
    properties: {
      expression: {
        type: 'string',
        description:
          "Expression represents the expression which will be evaluated by CEL. Must evaluate to bool. CEL expressions have access to the contents of the AdmissionRequest and Authorizer, organized into CEL variables:\n\n'object' - The object from the incoming request. The value is null for DELETE requests. 'oldObject' - The existing object. The value is null for CREATE requests. 'request' - Attributes of the admission request(/pkg/apis/admission/types.go#AdmissionRequest). 'authorizer' - A CEL Authorizer. May be used to perform authorization checks for the principal (user or service account) of the request.\n  See https://pkg.go.dev/k8s.io/apiserver/pkg/cel/library#Authz\n'authorizer.requestResource' - A CEL ResourceCheck constructed from the 'authorizer' and configured with the\n  request resource.\nDocumentation on CEL: https://kubernetes.io/docs/reference/using-api/cel/\n\nRequired.",
        default: '',
      },
      name: {
        type: 'string',
        description:
          "Name is an identifier for this match condition, used for strategic merging of MatchConditions, as well as providing an identifier for logging purposes. A good name should be descriptive of the associated expression. Name must be a qualified name consisting of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')\n\nRequired.",
        default: '',
      },
    },
    required: ['name', 'expression'],
  },
  [`${ADMREG}.MatchResources`]: {
    type: 'object',
    description:
      'MatchResources decides whether to run the admission control policy on an object based on whether it meets the match criteria. The exclude rules take precedence over include rules (if a resource matches both, it is excluded)',
    properties: {
      excludeResourceRules: {
        type: 'array',
        description:
          'ExcludeResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy should not care about. The exclude rules take precedence over include rules (if a resource matches both, it is excluded)',
        items: {
          $ref: `#/definitions/${ADMREG}.NamedRuleWithOperations`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
      matchPolicy: {
        type: 'string',
        description:
          'matchPolicy defines how the "MatchResources" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent".\n\n- Exact: match a request only if it exactly matches a specified rule. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, but "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would not be sent to the ValidatingAdmissionPolicy.\n\n- Equivalent: match a request if modifies a resource listed in rules, even via another API group or version. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, and "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would be converted to apps/v1 and sent to the ValidatingAdmissionPolicy.\n\nDefaults to "Equivalent"\n\nPossible enum values:\n - `"Equivalent"` means requests should be sent to the webhook if they modify a resource listed in rules via another API group or version.\n - `"Exact"` means requests should only be sent to the webhook if they exactly match a given rule.',
        enum: ['Equivalent', 'Exact'],
      },
      namespaceSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'NamespaceSelector decides whether to run the admission control policy on an object based on whether the namespace for that object matches the selector. If the object itself is a namespace, the matching is performed on object.metadata.labels. If the object is another cluster scoped resource, it never skips the policy.\n\nFor example, to run the webhook on any objects whose namespace is not associated with "runlevel" of "0" or "1";  you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "runlevel",\n      "operator": "NotIn",\n      "values": [\n        "0",\n        "1"\n      ]\n    }\n  ]\n}\n\nIf instead you want to only run the policy on any objects whose namespace is associated with the "environment" of "prod" or "staging"; you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "environment",\n      "operator": "In",\n      "values": [\n        "prod",\n        "staging"\n      ]\n    }\n  ]\n}\n\nSee https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/ for more examples of label selectors.\n\nDefault to the empty LabelSelector, which matches everything.',
      },
      objectSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'ObjectSelector decides whether to run the validation based on if the object has matching labels. objectSelector is evaluated against both the oldObject and newObject that would be sent to the cel validation, and is considered to match if either object matches the selector. A null object (oldObject in the case of create, or newObject in the case of delete) or an object that cannot have labels (like a DeploymentRollback or a PodProxyOptions object) is not considered to match. Use the object selector only if the webhook is opt-in, because end users may skip the admission webhook by setting the labels. Default to the empty LabelSelector, which matches everything.',
      },
      resourceRules: {
        type: 'array',
        description:
          'ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy matches. The policy cares about an operation if it matches _any_ Rule.',
        items: {
          $ref: `#/definitions/${ADMREG}.NamedRuleWithOperations`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${ADMREG}.MutatingWebhook`]: {
    type: 'object',
    description: 'MutatingWebhook describes an admission webhook and the resources and operations it applies to.',
    properties: {
      admissionReviewVersions: {
        type: 'array',
        description:
          'AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. API server will try to use first version in the list which it supports. If none of the versions specified in this list supported by API server, validation will fail for this object. If a persisted webhook configuration specifies allowed versions and does not include any versions known to the API Server, calls to the webhook will fail and be subject to the failure policy.',
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      clientConfig: {
        $ref: `#/definitions/${ADMREG}.WebhookClientConfig`,
        description: 'ClientConfig defines how to communicate with the hook. Required',
        default: {},
      },
      failurePolicy: {
        type: 'string',
        description:
          'FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.\n\nPossible enum values:\n - `"Fail"` means that an error calling the webhook causes the admission to fail.\n - `"Ignore"` means that an error calling the webhook is ignored.',
        enum: ['Fail', 'Ignore'],
      },
      matchConditions: withPatch(
        {
          type: 'array',
          description:
            'MatchConditions is a list of conditions that must be met for a request to be sent to this webhook. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests. There are a maximum of 64 match conditions allowed.\n\nThe exact matching logic is (in order):\n  1. If ANY matchCondition evaluates to FALSE, the webhook is skipped.\n  2. If ALL matchConditions evaluate to TRUE, the webhook is called.\n  3. If any matchCondition evaluates to an error (but none are FALSE):\n     - If failurePolicy=Fail, reject the request\n     - If failurePolicy=Ignore, the error is ignored and the webhook is skipped',
          items: {
            $ref: `#/definitions/${ADMREG}.MatchCondition`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
      matchPolicy: {
        type: 'string',
        description:
          'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent".\n\n- Exact: match a request only if it exactly matches a specified rule. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, but "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would not be sent to the webhook.\n\n- Equivalent: match a request if modifies a resource listed in rules, even via another API group or version. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, and "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would be converted to apps/v1 and sent to the webhook.\n\nDefaults to "Equivalent"\n\nPossible enum values:\n - `"Equivalent"` means requests should be sent to the webhook if they modify a resource listed in rules via another API group or version.\n - `"Exact"` means requests should only be sent to the webhook if they exactly match a given rule.',
        enum: ['Equivalent', 'Exact'],
      },
      name: {
        type: 'string',
        description:
          'The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io, where "imagepolicy" is the name of the webhook, and kubernetes.io is the name of the organization. Required.',
        default: '',
      },
      namespaceSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector. If the object itself is a namespace, the matching is performed on object.metadata.labels. If the object is another cluster scoped resource, it never skips the webhook.\n\nFor example, to run the webhook on any objects whose namespace is not associated with "runlevel" of "0" or "1";  you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "runlevel",\n      "operator": "NotIn",\n      "values": [\n        "0",\n        "1"\n      ]\n    }\n  ]\n}\n\nIf instead you want to only run the webhook on any objects whose namespace is associated with the "environment" of "prod" or "staging"; you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "environment",\n      "operator": "In",\n      "values": [\n        "prod",\n        "staging"\n      ]\n    }\n  ]\n}\n\nSee https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/ for more examples of label selectors.\n\nDefault to the empty LabelSelector, which matches everything.',
      },
      objectSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'ObjectSelector decides whether to run the webhook based on if the object has matching labels. objectSelector is evaluated against both the oldObject and newObject that would be sent to the webhook, and is considered to match if either object matches the selector. A null object (oldObject in the case of create, or newObject in the case of delete) or an object that cannot have labels (like a DeploymentRollback or a PodProxyOptions object) is not considered to match. Use the object selector only if the webhook is opt-in, because end users may skip the admission webhook by setting the labels. Default to the empty LabelSelector, which matches everything.',
      },
      reinvocationPolicy: {
        type: 'string',
        description:
          'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation. Allowed values are "Never" and "IfNeeded".\n\nNever: the webhook will not be called more than once in a single admission evaluation.\n\nIfNeeded: the webhook will be called at least one additional time as part of the admission evaluation if the object being admitted is modified by other admission plugins after the initial webhook call. Webhooks that specify this option *must* be idempotent, able to process objects they previously admitted. Note: * the number of additional invocations is not guaranteed to be exactly one. * if additional invocations result in further modifications to the object, webhooks are not guaranteed to be invoked again. * webhooks that use this option may be reordered to minimize the number of additional invocations. * to validate an object after all mutations are guaranteed complete, use a validating admission webhook instead.\n\nDefaults to "Never".\n\nPossible enum values:\n - `"IfNeeded"` indicates that the webhook may be called at least one additional time as part of the admission evaluation if the object being admitted is modified by other admission plugins after the initial webhook call.\n - `"Never"` indicates that the webhook must not be called more than once in a single admission evaluation.',
        enum: ['IfNeeded', 'Never'],
      },
      rules: {
        type: 'array',
        description:
          'Rules describes what operations on what resources/subresources the webhook cares about. The webhook cares about an operation if it matches _any_ Rule. However, in order to prevent ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks from putting the cluster in a state which cannot be recovered from without completely disabling the plugin, ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks are never called on admission requests for ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects.',
        items: {
          $ref: `#/definitions/${ADMREG}.RuleWithOperations`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
      sideEffects: {
        type: 'string',
        description:
          'SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun (webhooks created via v1beta1 may also specify Some or Unknown). Webhooks with side effects MUST implement a reconciliation system, since a request may be rejected by a future step in the admission chain and the side effects therefore need to be undone. Requests with the dryRun attribute will be auto-rejected if they match a webhook with sideEffects == Unknown or Some.\n\nPossible enum values:\n - `"None"` means that calling the webhook will have no side effects.\n - `"NoneOnDryRun"` means that calling the webhook will possibly have side effects, but if the request being reviewed has the dry-run attribute, the side effects will be suppressed.\n - `"Some"` means that calling the webhook will possibly have side effects. If a request with the dry-run attribute would trigger a call to this webhook, the request will instead fail.\n - `"Unknown"` means that no information is known about the side effects of calling the webhook. If a request with the dry-run attribute would trigger a call to this webhook, the request will instead fail.',
        enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'],
      },
      timeoutSeconds: {
        type: 'integer',
        format: 'int32',
        description:
          'TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.',
      },
    },
    required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'],
  },
  [`${ADMREG}.NamedRuleWithOperations`]: {
    type: 'object',
    description: 'NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.',
    properties: {
      apiGroups: {
        type: 'array',
        description:
          "APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      apiVersions: {
        type: 'array',
        description:
          "APIVersions is the API versions the resources belong to. '*' is all versions. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      operations: {
        type: 'array',
        description:
          "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
          enum: ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
        },
        'x-kubernetes-list-type': 'atomic',
      },
      resourceNames: {
        type: 'array',
        description:
          'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.',
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      resources: {
        type: 'array',
        description:
          "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      scope: {
        type: 'string',
        description:
          'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".\n\n\nPossible enum values:\n - `"*"` means that all scopes are included.\n - `"Cluster"` means that scope is limited to cluster-scoped objects. Namespace objects are cluster-scoped.\n - `"Namespaced"` means that scope is limited to namespaced objects.',
        enum: ['*', 'Cluster', 'Namespaced'],
      },
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${ADMREG}.ParamKind`]: {
    type: 'object',
    description: 'ParamKind is a tuple of Group Kind and Version.',
    properties: {
      apiVersion: str(
        'APIVersion is the API group version the resources belong to. In format of "group/version". Required.',
      ),
      kind: str('Kind is the API kind the resources belong to. Required.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${ADMREG}.ParamRef`]: {
    type: 'object',
    description:
      'ParamRef describes how to locate the params to be used as input to expressions of rules applied by a policy binding.',
    properties: {
      name: {
        type: 'string',
        description:
          'name is the name of the resource being referenced.\n\nOne of `name` or `selector` must be set, but `name` and `selector` are mutually exclusive properties. If one is set, the other must be unset.\n\nA single parameter used for all admission requests can be configured by setting the `name` field, leaving `selector` blank, and setting namespace if `paramKind` is namespace-scoped.',
      },
      namespace: {
        type: 'string',
        description:
          'namespace is the namespace of the referenced resource. Allows limiting the search for params to a specific namespace. Applies to both `name` and `selector` fields.\n\nA per-namespace parameter may be used by specifying a namespace-scoped `paramKind` in the policy and leaving this field empty.\n\n- If `paramKind` is cluster-scoped, this field MUST be unset. Setting this field results in a configuration error.\n\n- If `paramKind` is namespace-scoped, the namespace of the object being evaluated for admission will be used when this field is left unset. Take care that if this is left empty the binding must not match any cluster-scoped resources, which will result in an error.',
      },
      parameterNotFoundAction: {
        type: 'string',
        description:
          '`parameterNotFoundAction` controls the behavior of the binding when the resource exists, and name or selector is valid, but there are no parameters matched by the binding. If the value is set to `Allow`, then no matched parameters will be treated as successful validation by the binding. If set to `Deny`, then no matched parameters will be subject to the `failurePolicy` of the policy.\n\nAllowed values are `Allow` or `Deny`\n\nRequired',
      },
      selector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'selector can be used to match multiple param objects based on their labels. Supply selector: {} to match all resources of the ParamKind.\n\nIf multiple params are found, they are all evaluated with the policy expressions and the results are ANDed together.\n\nOne of `name` or `selector` must be set, but `name` and `selector` are mutually exclusive properties. If one is set, the other must be unset.',
      },
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${ADMREG}.RuleWithOperations`]: {
    type: 'object',
    description:
      'RuleWithOperations is a tuple of Operations and Resources. It is recommended to make sure that all the tuple expansions are valid.',
    properties: {
      apiGroups: {
        type: 'array',
        description:
          "APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      apiVersions: {
        type: 'array',
        description:
          "APIVersions is the API versions the resources belong to. '*' is all versions. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      operations: {
        type: 'array',
        description:
          "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added. If '*' is present, the length of the slice must be one. Required.",
        items: {
          type: 'string',
          default: '',
          enum: ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
        },
        'x-kubernetes-list-type': 'atomic',
      },
      resources: {
        type: 'array',
        description:
          "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      scope: {
        type: 'string',
        description:
          'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".\n\n\nPossible enum values:\n - `"*"` means that all scopes are included.\n - `"Cluster"` means that scope is limited to cluster-scoped objects. Namespace objects are cluster-scoped.\n - `"Namespaced"` means that scope is limited to namespaced objects.',
        enum: ['*', 'Cluster', 'Namespaced'],
      },
    },
  },
  [`${ADMREG}.ServiceReference`]: {
    type: 'object',
    description: 'ServiceReference holds a reference to Service.legacy.k8s.io',
    properties: {
      name: {
        type: 'string',
        description: '`name` is the name of the service. Required',
        default: '',
      },
      namespace: {
        type: 'string',
        description: '`namespace` is the namespace of the service. Required',
        default: '',
      },
      path: {
        type: 'string',
        description: '`path` is an optional URL path which will be sent in any request to this service.',
      },
      port: {
        type: 'integer',
        format: 'int32',
        description:
          'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
      },
    },
    required: ['namespace', 'name'],
  },
  [`${ADMREG}.TypeChecking`]: {
    type: 'object',
    description: 'TypeChecking contains results of type checking the expressions in the ValidatingAdmissionPolicy',
    properties: {
      expressionWarnings: {
        type: 'array',
        description: 'The type checking warnings for each expression.',
        items: {
          $ref: `#/definitions/${ADMREG}.ExpressionWarning`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
    },
  },
  [`${ADMREG}.ValidatingAdmissionPolicyBindingSpec`]: {
    type: 'object',
    description: 'ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding.',
    properties: {
      matchResources: {
        $ref: `#/definitions/${ADMREG}.MatchResources`,
        description:
          "MatchResources declares what resources match this binding and will be validated by it. Note that this is intersected with the policy's matchConstraints, so only requests that are matched by the policy can be selected by this. If this is unset, all resources matched by the policy are validated by this binding When resourceRules is unset, it does not constrain resource matching. If a resource is matched by the other fields of this object, it will be validated. Note that this is differs from ValidatingAdmissionPolicy matchConstraints, where resourceRules are required.",
      },
      paramRef: {
        $ref: `#/definitions/${ADMREG}.ParamRef`,
        description:
          'paramRef specifies the parameter resource used to configure the admission control policy. It should point to a resource of the type specified in ParamKind of the bound ValidatingAdmissionPolicy. If the policy specifies a ParamKind and the resource referred to by ParamRef does not exist, this binding is considered mis-configured and the FailurePolicy of the ValidatingAdmissionPolicy applied. If the policy does not specify a ParamKind then this field is ignored, and the rules are evaluated without a param.',
      },
      policyName: {
        type: 'string',
        description:
          'PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to. If the referenced resource does not exist, this binding is considered invalid and will be ignored Required.',
      },
      validationActions: {
        type: 'array',
        description:
          'validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced. If a validation evaluates to false it is always enforced according to these actions.\n\nFailures defined by the ValidatingAdmissionPolicy\'s FailurePolicy are enforced according to these actions only if the FailurePolicy is set to Fail, otherwise the failures are ignored. This includes compilation errors, runtime errors and misconfigurations of the policy.\n\nvalidationActions is declared as a set of action values. Order does not matter. validationActions may not contain duplicates of the same action.\n\nThe supported actions values are:\n\n"Deny" specifies that a validation failure results in a denied request.\n\n"Warn" specifies that a validation failure is reported to the request client in HTTP Warning headers, with a warning code of 299. Warnings can be sent both for allowed or denied admission responses.\n\n"Audit" specifies that a validation failure is included in the published audit event for the request. The audit event will contain a `validation.policy.admission.k8s.io/validation_failure` audit annotation with a value containing the details of the validation failures, formatted as a JSON list of objects, each with the following fields: - message: The validation failure message string - policy: The resource name of the ValidatingAdmissionPolicy - binding: The resource name of the ValidatingAdmissionPolicyBinding - expressionIndex: The index of the failed validations in the ValidatingAdmissionPolicy - validationActions: The enforcement actions enacted for the validation failure Example audit annotation: `"validation.policy.admission.k8s.io/validation_failure": "[{\\"message\\": \\"Invalid value\\", {\\"policy\\": \\"policy.example.com\\", {\\"binding\\": \\"policybinding.example.com\\", {\\"expressionIndex\\": \\"1\\", {\\"validationActions\\": [\\"Audit\\"]}]"`\n\nClients should expect to handle additional values by ignoring any values not recognized.\n\n"Deny" and "Warn" may not be used together since this combination needlessly duplicates the validation failure both in the API response body and the HTTP warning headers.\n\nRequired.',
        items: {
          type: 'string',
          default: '',
          enum: ['Audit', 'Deny', 'Warn'],
        },
        'x-kubernetes-list-type': 'set',
      },
    },
  },
  [`${ADMREG}.ValidatingAdmissionPolicySpec`]: {
    type: 'object',
    description: 'ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy.',
    properties: {
      auditAnnotations: {
        type: 'array',
        description:
          'auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event of the API request. validations and auditAnnotations may not both be empty; a least one of validations or auditAnnotations is required.',
        items: {
          $ref: `#/definitions/${ADMREG}.AuditAnnotation`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
      failurePolicy: {
        type: 'string',
        description:
          'failurePolicy defines how to handle failures for the admission policy. Failures can occur from CEL expression parse errors, type check errors, runtime errors and invalid or mis-configured policy definitions or bindings.\n\nA policy is invalid if spec.paramKind refers to a non-existent Kind. A binding is invalid if spec.paramRef.name refers to a non-existent resource.\n\nfailurePolicy does not define how validations that evaluate to false are handled.\n\nWhen failurePolicy is set to Fail, ValidatingAdmissionPolicyBinding validationActions define how failures are enforced.\n\nAllowed values are Ignore or Fail. Defaults to Fail.\n\nPossible enum values:\n - `"Fail"` means that an error calling the webhook causes the admission to fail.\n - `"Ignore"` means that an error calling the webhook is ignored.',
        enum: ['Fail', 'Ignore'],
      },
      matchConditions: withPatch(
        {
          type: 'array',
          description:
            'MatchConditions is a list of conditions that must be met for a request to be validated. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests. There are a maximum of 64 match conditions allowed.\n\nIf a parameter object is provided, it can be accessed via the `params` handle in the same manner as validation expressions.\n\nThe exact matching logic is (in order):\n  1. If ANY matchCondition evaluates to FALSE, the policy is skipped.\n  2. If ALL matchConditions evaluate to TRUE, the policy is evaluated.\n  3. If any matchCondition evaluates to an error (but none are FALSE):\n     - If failurePolicy=Fail, reject the request\n     - If failurePolicy=Ignore, the policy is skipped',
          items: {
            $ref: `#/definitions/${ADMREG}.MatchCondition`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
      matchConstraints: {
        $ref: `#/definitions/${ADMREG}.MatchResources`,
        description:
          'MatchConstraints specifies what resources this policy is designed to validate. The AdmissionPolicy cares about a request if it matches _all_ Constraints. However, in order to prevent clusters from being put into an unstable state that cannot be recovered from via the API ValidatingAdmissionPolicy cannot match ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding. Required.',
      },
      paramKind: {
        $ref: `#/definitions/${ADMREG}.ParamKind`,
        description:
          'ParamKind specifies the kind of resources used to parameterize this policy. If absent, there are no parameters for this policy and the param CEL variable will not be provided to validation expressions. If ParamKind refers to a non-existent kind, this policy definition is mis-configured and the FailurePolicy is applied. If paramKind is specified but paramRef is unset in ValidatingAdmissionPolicyBinding, the params variable will be null.',
      },
      validations: {
        type: 'array',
        description:
          'Validations contain CEL expressions which is used to apply the validation. Validations and AuditAnnotations may not both be empty; a minimum of one Validations or AuditAnnotations is required.',
        items: {
          $ref: `#/definitions/${ADMREG}.Validation`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
      variables: withPatch(
        {
          type: 'array',
          description:
            'Variables contain definitions of variables that can be used in composition of other expressions. Each variable is defined as a named CEL expression. The variables defined here will be available under `variables` in other expressions of the policy except MatchConditions because MatchConditions are evaluated before the rest of the policy.\n\nThe expression of a variable can refer to other variables defined earlier in the list but not those after. Thus, Variables must be sorted by the order of first appearance and acyclic.',
          items: {
            $ref: `#/definitions/${ADMREG}.Variable`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
    },
  },
  [`${ADMREG}.ValidatingAdmissionPolicyStatus`]: {
    type: 'object',
    description: 'ValidatingAdmissionPolicyStatus represents the status of an admission validation policy.',
    properties: {
      conditions: {
        type: 'array',
        description: "The conditions represent the latest available observations of a policy's current state.",
        items: {
          $ref: `#/definitions/${META}.Condition`,
          default: {},
        },
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-list-type': 'map',
      },
      observedGeneration: {
        type: 'integer',
        format: 'int64',
        description: 'The generation observed by the controller.',
      },
      typeChecking: {
        $ref: `#/definitions/${ADMREG}.TypeChecking`,
        description:
          'The results of type checking for each expression. Presence of this field indicates the completion of the type checking.',
      },
    },
  },
  [`${ADMREG}.ValidatingWebhook`]: {
    type: 'object',
    description: 'ValidatingWebhook describes an admission webhook and the resources and operations it applies to.',
    properties: {
      admissionReviewVersions: {
        type: 'array',
        description:
          'AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. API server will try to use first version in the list which it supports. If none of the versions specified in this list supported by API server, validation will fail for this object. If a persisted webhook configuration specifies allowed versions and does not include any versions known to the API Server, calls to the webhook will fail and be subject to the failure policy.',
        items: {
          type: 'string',
          default: '',
        },
        'x-kubernetes-list-type': 'atomic',
      },
      clientConfig: {
        $ref: `#/definitions/${ADMREG}.WebhookClientConfig`,
        description: 'ClientConfig defines how to communicate with the hook. Required',
        default: {},
      },
      failurePolicy: {
        type: 'string',
        description:
          'FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.\n\nPossible enum values:\n - `"Fail"` means that an error calling the webhook causes the admission to fail.\n - `"Ignore"` means that an error calling the webhook is ignored.',
        enum: ['Fail', 'Ignore'],
      },
      matchConditions: withPatch(
        {
          type: 'array',
          description:
            'MatchConditions is a list of conditions that must be met for a request to be sent to this webhook. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests. There are a maximum of 64 match conditions allowed.\n\nThe exact matching logic is (in order):\n  1. If ANY matchCondition evaluates to FALSE, the webhook is skipped.\n  2. If ALL matchConditions evaluate to TRUE, the webhook is called.\n  3. If any matchCondition evaluates to an error (but none are FALSE):\n     - If failurePolicy=Fail, reject the request\n     - If failurePolicy=Ignore, the error is ignored and the webhook is skipped',
          items: {
            $ref: `#/definitions/${ADMREG}.MatchCondition`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
      matchPolicy: {
        type: 'string',
        description:
          'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent".\n\n- Exact: match a request only if it exactly matches a specified rule. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, but "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would not be sent to the webhook.\n\n- Equivalent: match a request if modifies a resource listed in rules, even via another API group or version. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, and "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would be converted to apps/v1 and sent to the webhook.\n\nDefaults to "Equivalent"\n\nPossible enum values:\n - `"Equivalent"` means requests should be sent to the webhook if they modify a resource listed in rules via another API group or version.\n - `"Exact"` means requests should only be sent to the webhook if they exactly match a given rule.',
        enum: ['Equivalent', 'Exact'],
      },
      name: {
        type: 'string',
        description:
          'The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io, where "imagepolicy" is the name of the webhook, and kubernetes.io is the name of the organization. Required.',
        default: '',
      },
      namespaceSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector. If the object itself is a namespace, the matching is performed on object.metadata.labels. If the object is another cluster scoped resource, it never skips the webhook.\n\nFor example, to run the webhook on any objects whose namespace is not associated with "runlevel" of "0" or "1";  you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "runlevel",\n      "operator": "NotIn",\n      "values": [\n        "0",\n        "1"\n      ]\n    }\n  ]\n}\n\nIf instead you want to only run the webhook on any objects whose namespace is associated with the "environment" of "prod" or "staging"; you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "environment",\n      "operator": "In",\n      "values": [\n        "prod",\n        "staging"\n      ]\n    }\n  ]\n}\n\nSee https://kubernetes.io/docs/concepts/overview/working-with-objects/labels for more examples of label selectors.\n\nDefault to the empty LabelSelector, which matches everything.',
      },
      objectSelector: {
        $ref: `#/definitions/${META}.LabelSelector`,
        description:
          'ObjectSelector decides whether to run the webhook based on if the object has matching labels. objectSelector is evaluated against both the oldObject and newObject that would be sent to the webhook, and is considered to match if either object matches the selector. A null object (oldObject in the case of create, or newObject in the case of delete) or an object that cannot have labels (like a DeploymentRollback or a PodProxyOptions object) is not considered to match. Use the object selector only if the webhook is opt-in, because end users may skip the admission webhook by setting the labels. Default to the empty LabelSelector, which matches everything.',
      },
      rules: {
        type: 'array',
        description:
          'Rules describes what operations on what resources/subresources the webhook cares about. The webhook cares about an operation if it matches _any_ Rule. However, in order to prevent ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks from putting the cluster in a state which cannot be recovered from without completely disabling the plugin, ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks are never called on admission requests for ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects.',
        items: {
          $ref: `#/definitions/${ADMREG}.RuleWithOperations`,
          default: {},
        },
        'x-kubernetes-list-type': 'atomic',
      },
      sideEffects: {
        type: 'string',
        description:
          'SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun (webhooks created via v1beta1 may also specify Some or Unknown). Webhooks with side effects MUST implement a reconciliation system, since a request may be rejected by a future step in the admission chain and the side effects therefore need to be undone. Requests with the dryRun attribute will be auto-rejected if they match a webhook with sideEffects == Unknown or Some.\n\nPossible enum values:\n - `"None"` means that calling the webhook will have no side effects.\n - `"NoneOnDryRun"` means that calling the webhook will possibly have side effects, but if the request being reviewed has the dry-run attribute, the side effects will be suppressed.\n - `"Some"` means that calling the webhook will possibly have side effects. If a request with the dry-run attribute would trigger a call to this webhook, the request will instead fail.\n - `"Unknown"` means that no information is known about the side effects of calling the webhook. If a request with the dry-run attribute would trigger a call to this webhook, the request will instead fail.',
        enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'],
      },
      timeoutSeconds: {
        type: 'integer',
        format: 'int32',
        description:
          'TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.',
      },
    },
    required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'],
  },
  [`${ADMREG}.Validation`]: {
    type: 'object',
    description: 'Validation specifies the CEL expression which is used to apply the validation.',
    properties: {
      expression: {
        type: 'string',
        description:
          'Expression represents the expression which will be evaluated by CEL. ref: https://github.com/google/cel-spec CEL expressions have access to the contents of the API request/response, organized into CEL variables as well as some other useful variables:\n\n- \'object\' - The object from the incoming request. The value is null for DELETE requests. - \'oldObject\' - The existing object. The value is null for CREATE requests. - \'request\' - Attributes of the API request([ref](/pkg/apis/admission/types.go#AdmissionRequest)). - \'params\' - Parameter resource referred to by the policy binding being evaluated. Only populated if the policy has a ParamKind. - \'namespaceObject\' - The namespace object that the incoming object belongs to. The value is null for cluster-scoped resources. - \'variables\' - Map of composited variables, from its name to its lazily evaluated value.\n  For example, a variable named \'foo\' can be accessed as \'variables.foo\'.\n- \'authorizer\' - A CEL Authorizer. May be used to perform authorization checks for the principal (user or service account) of the request.\n  See https://pkg.go.dev/k8s.io/apiserver/pkg/cel/library#Authz\n- \'authorizer.requestResource\' - A CEL ResourceCheck constructed from the \'authorizer\' and configured with the\n  request resource.\n\nThe `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` are always accessible from the root of the object. No other metadata properties are accessible.\n\nOnly property names of the form `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are accessible. Accessible property names are escaped according to the following rules when accessed in the expression: - \'__\' escapes to \'__underscores__\' - \'.\' escapes to \'__dot__\' - \'-\' escapes to \'__dash__\' - \'/\' escapes to \'__slash__\' - Property names that exactly match a CEL RESERVED keyword escape to \'__{keyword}__\'. The keywords are:\n\t  "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",\n\t  "import", "let", "loop", "package", "namespace", "return".\nExamples:\n  - Expression accessing a property named "namespace": {"Expression": "object.__namespace__ > 0"}\n  - Expression accessing a property named "x-prop": {"Expression": "object.x__dash__prop > 0"}\n  - Expression accessing a property named "redact__d": {"Expression": "object.redact__underscores__d > 0"}\n\nEquality on arrays with list type of \'set\' or \'map\' ignores element order, i.e. [1, 2] == [2, 1]. Concatenation on arrays with x-kubernetes-list-type use the semantics of the list type:\n  - \'set\': `X + Y` performs a union where the array positions of all elements in `X` are preserved and\n    non-intersecting elements in `Y` are appended, retaining their partial order.\n  - \'map\': `X + Y` performs a merge where the array positions of all keys in `X` are preserved but the values\n    are overwritten by values in `Y` when the key sets of `X` and `Y` intersect. Elements in `Y` with\n    non-intersecting keys are appended, retaining their partial order.\nRequired.',
        default: '',
      },
      message: {
        type: 'string',
        description:
          'Message represents the message displayed when validation fails. The message is required if the Expression contains line breaks. The message must not contain line breaks. If unset, the message is "failed rule: {Rule}". e.g. "must be a URL with the host matching spec.host" If the Expression contains line breaks. Message is required. The message must not contain line breaks. If unset, the message is "failed Expression: {Expression}".',
      },
      messageExpression: {
        type: 'string',
        description:
          'messageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails. Since messageExpression is used as a failure message, it must evaluate to a string. If both message and messageExpression are present on a validation, then messageExpression will be used if validation fails. If messageExpression results in a runtime error, the runtime error is logged, and the validation failure message is produced as if the messageExpression field were unset. If messageExpression evaluates to an empty string, a string with only spaces, or a string that contains line breaks, then the validation failure message will also be produced as if the messageExpression field were unset, and the fact that messageExpression produced an empty string/string with only spaces/string with line breaks will be logged. messageExpression has access to all the same variables as the `expression` except for \'authorizer\' and \'authorizer.requestResource\'. Example: "object.x must be less than max ("+string(params.max)+")"',
      },
      reason: {
        type: 'string',
        description:
          'Reason represents a machine-readable description of why this validation failed. If this is the first validation in the list to fail, this reason, as well as the corresponding HTTP response code, are used in the HTTP response to the client. The currently supported reasons are: "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge". If not set, StatusReasonInvalid is used in the response to the client.',
      },
    },
    required: ['expression'],
  },
  [`${ADMREG}.Variable`]: {
    type: 'object',
    description:
      'Variable is the definition of a variable that is used for composition. A variable is defined as a named expression.',
    properties: {
      expression: {
        type: 'string',
        description:
          'Expression is the expression that will be evaluated as the value of the variable. The CEL expression has access to the same identifiers as the CEL expressions in Validation.',
        default: '',
      },
      name: {
        type: 'string',
        description:
          'Name is the name of the variable. The name must be a valid CEL identifier and unique among all variables. The variable can be accessed in other expressions through `variables` For example, if name is "foo", the variable will be available as `variables.foo`',
        default: '',
      },
    },
    required: ['name', 'expression'],
    'x-kubernetes-map-type': 'atomic',
  },
  [`${ADMREG}.WebhookClientConfig`]: {
    type: 'object',
    description: 'WebhookClientConfig contains the information to make a TLS connection with the webhook',
    properties: {
      caBundle: {
        type: 'string',
        format: 'byte',
        description:
          "`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
      },
      service: {
        $ref: `#/definitions/${ADMREG}.ServiceReference`,
        description:
          '`service` is a reference to the service for this webhook. Either `service` or `url` must be specified.\n\nIf the webhook is running within the cluster, then you should use `service`.',
      },
      url: {
        type: 'string',
        description:
          '`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified.\n\nThe `host` should not refer to a service running in the cluster; use the `service` field instead. The host might be resolved via external DNS in some apiservers (e.g., `kube-apiserver` cannot resolve in-cluster DNS as that would be a layering violation). `host` may also be an IP address.\n\nPlease note that using `localhost` or `127.0.0.1` as a `host` is risky unless you take great care to run this webhook on all hosts which run an apiserver which might need to make calls to this webhook. Such installs are likely to be non-portable, i.e., not easy to turn up in a new cluster.\n\nThe scheme must be "https"; the URL must begin with "https://".\n\nA path is optional, and if present may be any string permissible in a URL. You may use the path to pass an arbitrary string to the webhook, for example, a cluster identifier.\n\nAttempting to use a user or basic auth e.g. "user:password@" is not allowed. Fragments ("#...") and query parameters ("?...") are not allowed, either.',
      },
    },
  },
};

export const mutatingWebhookConfigurationSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'MutatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and may change the object.',
    properties: {
      webhooks: withPatch(
        {
          type: 'array',
          description: 'Webhooks is a list of webhooks and the affected resources and operations.',
          items: {
            $ref: `#/definitions/${ADMREG}.MutatingWebhook`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
    },
  },
  ADMREG_POOL,
);

export const validatingWebhookConfigurationSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'ValidatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and object without changing it.',
    properties: {
      webhooks: withPatch(
        {
          type: 'array',
          description: 'Webhooks is a list of webhooks and the affected resources and operations.',
          items: {
            $ref: `#/definitions/${ADMREG}.ValidatingWebhook`,
            default: {},
          },
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-list-type': 'map',
        },
        { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      ),
    },
  },
  ADMREG_POOL,
);

export const validatingAdmissionPolicySchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.',
    properties: {
      spec: {
        $ref: `#/definitions/${ADMREG}.ValidatingAdmissionPolicySpec`,
        description: 'Specification of the desired behavior of the ValidatingAdmissionPolicy.',
        default: {},
      },
      status: {
        $ref: `#/definitions/${ADMREG}.ValidatingAdmissionPolicyStatus`,
        description:
          'The status of the ValidatingAdmissionPolicy, including warnings that are useful to determine if the policy behaves in the expected way. Populated by the system. Read-only.',
        default: {},
      },
    },
  },
  ADMREG_POOL,
);

export const validatingAdmissionPolicyBindingSchema: JSONSchemaProps = kind(
  {
    type: 'object',
    description:
      "ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources. ValidatingAdmissionPolicyBinding and parameter CRDs together define how cluster administrators configure policies for clusters.\n\nFor a given admission request, each binding will cause its policy to be evaluated N times, where N is 1 for policies/bindings that don't use params, otherwise N is the number of parameters selected by the binding.\n\nThe CEL expressions of a policy must have a computed CEL cost below the maximum CEL budget. Each evaluation of the policy is given an independent CEL cost budget. Adding/removing policies, bindings, or params can not affect whether a given (policy, binding, param) combination is within its own CEL budget.",
    properties: {
      spec: {
        $ref: `#/definitions/${ADMREG}.ValidatingAdmissionPolicyBindingSpec`,
        description: 'Specification of the desired behavior of the ValidatingAdmissionPolicyBinding.',
        default: {},
      },
    },
  },
  ADMREG_POOL,
);

/**
 * The access reviews and SelfSubjectReview: created, never stored, their spec (the access reviews')
 * and status as kube defines them but described here only as objects, which is what client-side
 * validation needs to find the kind (without it kubectl 1.27 looks the kind up among the CRDs,
 * which most users may not).
 */
export function reviewSchema(description: string, withSpec = true): JSONSchemaProps {
  const open = (what: string): JSONSchemaProps => ({
    type: 'object',
    description: what,
    'x-kubernetes-preserve-unknown-fields': true,
  });
  const status = open('Status is filled in by the server');
  return {
    type: 'object',
    description,
    // SelfSubjectReview has no spec: the request is all it asks about.
    properties: withSpec
      ? { spec: open('Spec holds information about the request being evaluated'), status }
      : { status },
  };
}
