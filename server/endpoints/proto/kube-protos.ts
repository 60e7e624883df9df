// The subset of Kubernetes' generated.proto files needed to decode the protobuf request bodies typed
// clients send (kubectl 1.32+: create namespace/configmap/secret/serviceaccount, auth can-i, auth
// can-i --list, auth whoami, and client-go controllers writing Leases), written
// from the published field numbers. Field names are the JSON names, so decoding yields kube's JSON
// spelling. Kept as TypeScript strings rather than .proto files because the build is plain `tsc`,
// which would not copy .proto files into dist/.
//
// Two field options (ignored by the wire format) carry what the Go types say about JSON:
//   (go_pointer)  the Go field is a pointer: present on the wire means set, even when zero
//                 (gracePeriodSeconds: 0 deletes now); absent means omitted, even for messages.
//   (json_always) the Go JSON tag has no omitempty, so the zero value is still written.
// Other scalars follow omitempty, and non-pointer messages are always written (Go writes structs),
// except Time and MicroTime, which are omitted when zero (Go writes null).
// Unknown fields are skipped, as gogo-protobuf does, so only fields we keep are listed.

const RUNTIME = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

// What follows the 4-byte magic: the type, then the typed message in raw.
message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
`;

const META_V1 = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

// Time drops nanos (kube truncates to seconds); MicroTime keeps microseconds.
message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9 [(go_pointer) = true];
  optional int64 deletionGracePeriodSeconds = 10 [(go_pointer) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message OwnerReference {
  optional string apiVersion = 5 [(json_always) = true];
  optional string kind = 1 [(json_always) = true];
  optional string name = 3 [(json_always) = true];
  optional string uid = 4 [(json_always) = true];
  optional bool controller = 6 [(go_pointer) = true];
  optional bool blockOwnerDeletion = 7 [(go_pointer) = true];
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4 [(go_pointer) = true];
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7 [(go_pointer) = true];
  optional string subresource = 8;
}

// Its JSON form is the raw JSON document it carries.
message FieldsV1 {
  optional bytes Raw = 1;
}

message LabelSelectorRequirement {
  optional string key = 1 [(json_always) = true];
  optional string operator = 2 [(json_always) = true];
  repeated string values = 3;
}

message Preconditions {
  optional string uid = 1 [(go_pointer) = true];
  optional string resourceVersion = 2 [(go_pointer) = true];
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(go_pointer) = true];
  optional Preconditions preconditions = 2 [(go_pointer) = true];
  optional bool orphanDependents = 3 [(go_pointer) = true];
  optional string propagationPolicy = 4 [(go_pointer) = true];
  repeated string dryRun = 5;
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6 [(go_pointer) = true];
}
`;

const CORE_V1 = `
syntax = "proto2";
package k8s.io.api.core.v1;

message Namespace {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message NamespaceCondition {
  optional string type = 1 [(json_always) = true];
  optional string status = 2 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11 [(go_pointer) = true];
  optional string action = 12;
  optional ObjectReference related = 13 [(go_pointer) = true];
  optional string reportingComponent = 14 [(json_always) = true];
  optional string reportingInstance = 15 [(json_always) = true];
}

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message EventSource {
  optional string component = 1;
  optional string host = 2;
}

message EventSeries {
  optional int32 count = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message ConfigMap {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4 [(go_pointer) = true];
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}

// stringData (4) is write-only; a typed client may still send it, and the server folds it into data.
message Secret {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 5 [(go_pointer) = true];
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}

message ServiceAccount {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(go_pointer) = true];
}

message LocalObjectReference {
  optional string name = 1;
}
`;

const COORDINATION_V1 = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message Lease {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

message LeaseSpec {
  optional string holderIdentity = 1 [(go_pointer) = true];
  optional int32 leaseDurationSeconds = 2 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4 [(go_pointer) = true];
  optional int32 leaseTransitions = 5 [(go_pointer) = true];
  optional string strategy = 6 [(go_pointer) = true];
  optional string preferredHolder = 7 [(go_pointer) = true];
}
`;

const AUTHORIZATION_V1 = `
syntax = "proto2";
package k8s.io.api.authorization.v1;

message SelfSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1 [(go_pointer) = true];
  optional NonResourceAttributes nonResourceAttributes = 2 [(go_pointer) = true];
}

message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8 [(go_pointer) = true];
  optional LabelSelectorAttributes labelSelector = 9 [(go_pointer) = true];
}

message FieldSelectorAttributes {
  optional string rawSelector = 1;
  repeated FieldSelectorRequirement requirements = 2;
}

message FieldSelectorRequirement {
  optional string key = 1 [(json_always) = true];
  optional string operator = 2 [(json_always) = true];
  repeated string values = 3;
}

message LabelSelectorAttributes {
  optional string rawSelector = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement requirements = 2;
}

message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1 [(json_always) = true];
  optional bool denied = 4;
  optional string reason = 2;
  optional string evaluationError = 3;
}

// The status (field 3) is left out: kube computes it and ignores what the client sent.
message SelfSubjectRulesReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}
`;

const AUTHENTICATION_V1 = `
syntax = "proto2";
package k8s.io.api.authentication.v1;

// The status (field 2) is left out: kube computes it and ignores what the client sent.
message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
}
`;

/** The definitions, keyed by the path of the upstream file they are taken from. */
export const KUBE_PROTOS: Readonly<Record<string, string>> = {
  'k8s.io/apimachinery/pkg/runtime/generated.proto': RUNTIME,
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto': META_V1,
  'k8s.io/api/core/v1/generated.proto': CORE_V1,
  'k8s.io/api/coordination/v1/generated.proto': COORDINATION_V1,
  'k8s.io/api/authorization/v1/generated.proto': AUTHORIZATION_V1,
  'k8s.io/api/authentication/v1/generated.proto': AUTHENTICATION_V1,
};
