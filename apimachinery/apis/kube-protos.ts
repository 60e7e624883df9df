// The subset of Kubernetes' generated.proto files needed for protobuf bodies both ways: the request
// bodies typed clients send (kubectl 1.32+: create namespace/configmap/secret/serviceaccount/service,
// create role/clusterrole/rolebinding/clusterrolebinding, auth can-i, auth can-i --list, auth whoami, create token, and client-go controllers writing Leases; the
// other access and token reviews of client-go's typed clients) and the replies kube gives clients
// that prefer protobuf (objects, their lists, CRDs, Status, watch events), written from the
// published field numbers. Field names are the JSON names (or (json_key) says it), so decoding
// yields kube's JSON spelling. Kept as TypeScript strings rather than .proto files because the
// build is plain `tsc`, which would not copy .proto files into dist/.
//
// Field options (ignored by the wire format) carry what the Go types say about JSON:
//   (go_pointer)  the Go field is a pointer: present on the wire means set, even when zero
//                 (gracePeriodSeconds: 0 deletes now); absent means omitted, even for messages.
//   (json_always) the Go JSON tag has no omitempty, so the zero value is still written.
//   (json_key)    the JSON name where it is not the proto name ($ref, x-kubernetes-...).
//   (json_inline) Go embeds the field's struct (`json:",inline"`): its fields are the parent's in JSON.
// Other scalars follow omitempty, and non-pointer messages are always written (Go writes structs),
// except Time and MicroTime, which are omitted when zero (Go writes null), or written as null when
// (json_always) says the Go tag has no omitempty (events.k8s.io/v1 eventTime).
// A message option, (json_list), marks a wrapper whose JSON form is its one repeated field as a bare
// array (authentication/v1 ExtraValue is a Go []string); (json_form) names the other Go types with
// their own JSON marshalling: "raw" (apiextensions JSON: the document its bytes hold), and the
// unions "schemaOrArray", "schemaOrBool", "schemaOrStringArray" (JSONSchemaPropsOr*), and
// "intOrString" (intstr.IntOrString: a bare number or string in JSON, {type, intVal, strVal} here).
// Decoding skips unknown fields, as gogo-protobuf does; replies must encode every field the JSON
// objects can hold, and typed decoding (unknown-fields.ts) drops from a client's object whatever
// its kind's message lacks, so the messages of the kinds served are complete. Compared field by
// field with kubernetes/api's and apiextensions-apiserver's generated.proto on 2026-11-25: absent
// are only fields newer than kube 1.33 (ListMeta.shardInfo, TokenRequestSpec.attestations, the
// CRD status' observedGeneration).

const RUNTIME = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message RawExtension {
  optional bytes raw = 1;
}

// What follows the 4-byte magic: the type, then the typed message in raw.
message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
`;

const INTSTR = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

// type 0 is intVal, 1 is strVal; gogo writes all three (non-pointer scalars).
message IntOrString {
  option (json_form) = "intOrString";
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
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

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4 [(go_pointer) = true];
}

// The metadata-only view clients ask for with ;as=PartialObjectMetadata(List);g=meta.k8s.io;v=v1.
message PartialObjectMetadata {
  optional ObjectMeta metadata = 1;
}

message PartialObjectMetadataList {
  optional ListMeta metadata = 1;
  repeated PartialObjectMetadata items = 2;
}

// Status is unversioned: every group writes it as v1/Status.
message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5 [(go_pointer) = true];
  optional int32 code = 6;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

// A watch stream's frame holds this, unwrapped; object.raw is the object as a whole protobuf body.
message WatchEvent {
  optional string type = 1 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.runtime.RawExtension object = 2;
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

message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

// Go writes lastTransitionTime, reason and message without omitempty (a zero time as null).
message Condition {
  optional string type = 1 [(json_always) = true];
  optional string status = 2 [(json_always) = true];
  optional int64 observedGeneration = 3;
  optional Time lastTransitionTime = 4 [(json_always) = true];
  optional string reason = 5 [(json_always) = true];
  optional string message = 6 [(json_always) = true];
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

// Service is data here (no allocation), but its messages are kube's whole ServiceSpec and status.
message Service {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  map<string, string> selector = 2;
  optional string clusterIP = 3;
  repeated string clusterIPs = 18;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14 [(go_pointer) = true];
  repeated string ipFamilies = 19;
  optional string ipFamilyPolicy = 17 [(go_pointer) = true];
  optional bool allocateLoadBalancerNodePorts = 20 [(go_pointer) = true];
  optional string loadBalancerClass = 21 [(go_pointer) = true];
  optional string internalTrafficPolicy = 22 [(go_pointer) = true];
  optional string trafficDistribution = 23 [(go_pointer) = true];
}

// targetPort is a non-pointer struct: Go's omitempty never omits a struct, so unset is 0.
message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional string appProtocol = 6 [(go_pointer) = true];
  optional int32 port = 3 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1 [(go_pointer) = true];
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1 [(go_pointer) = true];
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 2;
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1;
}

message LoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  optional string ipMode = 3 [(go_pointer) = true];
  repeated PortStatus ports = 4;
}

message PortStatus {
  optional int32 port = 1 [(json_always) = true];
  optional string protocol = 2 [(json_always) = true];
  optional string error = 3 [(go_pointer) = true];
}

message ServiceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Service items = 2;
}

message NamespaceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}

message ConfigMapList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message SecretList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Secret items = 2;
}

message ServiceAccountList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
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

message LeaseList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
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

message SubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message LocalSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1 [(go_pointer) = true];
  optional NonResourceAttributes nonResourceAttributes = 2 [(go_pointer) = true];
  optional string user = 3;
  repeated string groups = 4;
  map<string, ExtraValue> extra = 5;
  optional string uid = 6;
}

message ExtraValue {
  option (json_list) = true;
  repeated string items = 1;
}

// kube computes the status and ignores what a client sent; a reply carries it.
message SelfSubjectRulesReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1;
  repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3 [(json_always) = true];
  optional string evaluationError = 4;
}

message ResourceRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}

message NonResourceRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 2;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}
`;

const AUTHENTICATION_V1 = `
syntax = "proto2";
package k8s.io.api.authentication.v1;

// kube computes the status and ignores what a client sent; a reply carries it.
message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

// kubectl create token (the serviceaccounts/token subresource).
message TokenRequest {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
  optional TokenRequestStatus status = 3;
}

message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4 [(go_pointer) = true];
  optional BoundObjectReference boundObjectRef = 3 [(go_pointer) = true];
}

message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uid = 4;
}

message TokenRequestStatus {
  optional string token = 1 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time expirationTimestamp = 2;
}

message TokenReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}

message TokenReviewSpec {
  optional string token = 1;
  repeated string audiences = 2;
}

message TokenReviewStatus {
  optional bool authenticated = 1;
  optional UserInfo user = 2;
  repeated string audiences = 4;
  optional string error = 3;
}

message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
  map<string, ExtraValue> extra = 4;
}

message ExtraValue {
  option (json_list) = true;
  repeated string items = 1;
}
`;

// The scale subresource's view of an object (custom resources with a scale subresource).
const AUTOSCALING_V1 = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;

message Scale {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ScaleSpec spec = 2;
  optional ScaleStatus status = 3;
}

message ScaleSpec {
  optional int32 replicas = 1;
}

message ScaleStatus {
  optional int32 replicas = 1 [(json_always) = true];
  optional string selector = 2;
}
`;

const APIEXTENSIONS_V1 = `
syntax = "proto2";
package k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1;

message CustomResourceDefinition {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CustomResourceDefinitionSpec spec = 2;
  optional CustomResourceDefinitionStatus status = 3;
}

message CustomResourceDefinitionList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated CustomResourceDefinition items = 2;
}

message CustomResourceDefinitionSpec {
  optional string group = 1 [(json_always) = true];
  optional CustomResourceDefinitionNames names = 3;
  optional string scope = 4 [(json_always) = true];
  repeated CustomResourceDefinitionVersion versions = 7;
  optional CustomResourceConversion conversion = 9 [(go_pointer) = true];
  optional bool preserveUnknownFields = 10;
}

message CustomResourceDefinitionNames {
  optional string plural = 1 [(json_always) = true];
  optional string singular = 2;
  repeated string shortNames = 3;
  optional string kind = 4 [(json_always) = true];
  optional string listKind = 5;
  repeated string categories = 6;
}

message CustomResourceDefinitionVersion {
  optional string name = 1 [(json_always) = true];
  optional bool served = 2 [(json_always) = true];
  optional bool storage = 3 [(json_always) = true];
  optional bool deprecated = 7;
  optional string deprecationWarning = 8 [(go_pointer) = true];
  optional CustomResourceValidation schema = 4 [(go_pointer) = true];
  optional CustomResourceSubresources subresources = 5 [(go_pointer) = true];
  repeated CustomResourceColumnDefinition additionalPrinterColumns = 6;
  repeated SelectableField selectableFields = 9;
}

message CustomResourceValidation {
  optional JSONSchemaProps openAPIV3Schema = 1 [(go_pointer) = true];
}

message CustomResourceSubresources {
  optional CustomResourceSubresourceStatus status = 1 [(go_pointer) = true];
  optional CustomResourceSubresourceScale scale = 2 [(go_pointer) = true];
}

message CustomResourceSubresourceStatus {
}

message CustomResourceSubresourceScale {
  optional string specReplicasPath = 1 [(json_always) = true];
  optional string statusReplicasPath = 2 [(json_always) = true];
  optional string labelSelectorPath = 3 [(go_pointer) = true];
}

message CustomResourceColumnDefinition {
  optional string name = 1 [(json_always) = true];
  optional string type = 2 [(json_always) = true];
  optional string format = 3;
  optional string description = 4;
  optional int32 priority = 5;
  optional string jsonPath = 6 [(json_always) = true];
}

message SelectableField {
  optional string jsonPath = 1 [(json_always) = true];
}

message CustomResourceConversion {
  optional string strategy = 1 [(json_always) = true];
  optional WebhookConversion webhook = 2 [(go_pointer) = true];
}

message WebhookConversion {
  optional WebhookClientConfig clientConfig = 2 [(go_pointer) = true];
  repeated string conversionReviewVersions = 3;
}

message WebhookClientConfig {
  optional string url = 3 [(go_pointer) = true];
  optional ServiceReference service = 1 [(go_pointer) = true];
  optional bytes caBundle = 2;
}

message ServiceReference {
  optional string namespace = 1 [(json_always) = true];
  optional string name = 2 [(json_always) = true];
  optional string path = 3 [(go_pointer) = true];
  optional int32 port = 4 [(go_pointer) = true];
}

message CustomResourceDefinitionStatus {
  repeated CustomResourceDefinitionCondition conditions = 1;
  optional CustomResourceDefinitionNames acceptedNames = 2;
  repeated string storedVersions = 3;
}

message CustomResourceDefinitionCondition {
  optional string type = 1 [(json_always) = true];
  optional string status = 2 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message JSONSchemaProps {
  optional string id = 1;
  optional string schema = 2 [(json_key) = "$schema"];
  optional string ref = 3 [(json_key) = "$ref", (go_pointer) = true];
  optional string description = 4;
  optional string type = 5;
  optional string format = 6;
  optional string title = 7;
  optional JSON default = 8 [(go_pointer) = true];
  optional double maximum = 9 [(go_pointer) = true];
  optional bool exclusiveMaximum = 10;
  optional double minimum = 11 [(go_pointer) = true];
  optional bool exclusiveMinimum = 12;
  optional int64 maxLength = 13 [(go_pointer) = true];
  optional int64 minLength = 14 [(go_pointer) = true];
  optional string pattern = 15;
  optional int64 maxItems = 16 [(go_pointer) = true];
  optional int64 minItems = 17 [(go_pointer) = true];
  optional bool uniqueItems = 18;
  optional double multipleOf = 19 [(go_pointer) = true];
  repeated JSON enum = 20;
  optional int64 maxProperties = 21 [(go_pointer) = true];
  optional int64 minProperties = 22 [(go_pointer) = true];
  repeated string required = 23;
  optional JSONSchemaPropsOrArray items = 24 [(go_pointer) = true];
  repeated JSONSchemaProps allOf = 25;
  repeated JSONSchemaProps oneOf = 26;
  repeated JSONSchemaProps anyOf = 27;
  optional JSONSchemaProps not = 28 [(go_pointer) = true];
  map<string, JSONSchemaProps> properties = 29;
  optional JSONSchemaPropsOrBool additionalProperties = 30 [(go_pointer) = true];
  map<string, JSONSchemaProps> patternProperties = 31;
  map<string, JSONSchemaPropsOrStringArray> dependencies = 32;
  optional JSONSchemaPropsOrBool additionalItems = 33 [(go_pointer) = true];
  map<string, JSONSchemaProps> definitions = 34;
  optional ExternalDocumentation externalDocs = 35 [(go_pointer) = true];
  optional JSON example = 36 [(go_pointer) = true];
  optional bool nullable = 37;
  optional bool xKubernetesPreserveUnknownFields = 38 [(json_key) = "x-kubernetes-preserve-unknown-fields", (go_pointer) = true];
  optional bool xKubernetesEmbeddedResource = 39 [(json_key) = "x-kubernetes-embedded-resource"];
  optional bool xKubernetesIntOrString = 40 [(json_key) = "x-kubernetes-int-or-string"];
  repeated string xKubernetesListMapKeys = 41 [(json_key) = "x-kubernetes-list-map-keys"];
  optional string xKubernetesListType = 42 [(json_key) = "x-kubernetes-list-type", (go_pointer) = true];
  optional string xKubernetesMapType = 43 [(json_key) = "x-kubernetes-map-type", (go_pointer) = true];
  repeated ValidationRule xKubernetesValidations = 44 [(json_key) = "x-kubernetes-validations"];
}

message JSON {
  option (json_form) = "raw";
  optional bytes raw = 1;
}

message JSONSchemaPropsOrArray {
  option (json_form) = "schemaOrArray";
  optional JSONSchemaProps schema = 1 [(go_pointer) = true];
  repeated JSONSchemaProps jSONSchemas = 2;
}

message JSONSchemaPropsOrBool {
  option (json_form) = "schemaOrBool";
  optional bool allows = 1;
  optional JSONSchemaProps schema = 2 [(go_pointer) = true];
}

message JSONSchemaPropsOrStringArray {
  option (json_form) = "schemaOrStringArray";
  optional JSONSchemaProps schema = 1 [(go_pointer) = true];
  repeated string property = 2;
}

message ExternalDocumentation {
  optional string description = 1;
  optional string url = 2;
}

message ValidationRule {
  optional string rule = 1 [(json_always) = true];
  optional string message = 2;
  optional string messageExpression = 3;
  optional string reason = 4 [(go_pointer) = true];
  optional string fieldPath = 5;
  optional bool optionalOldSelf = 6 [(go_pointer) = true];
}
`;

// kubectl create role, clusterrole, rolebinding, clusterrolebinding. Go writes rules and verbs
// without omitempty (null when nil); like every list here they are omitted when empty.
const RBAC_V1 = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

message AggregationRule {
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1;
}

message ClusterRole {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3 [(go_pointer) = true];
}

message ClusterRoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}

message ClusterRoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}

message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message Role {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message RoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message RoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}

message RoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2;
}

message RoleRef {
  optional string apiGroup = 1 [(json_always) = true];
  optional string kind = 2 [(json_always) = true];
  optional string name = 3 [(json_always) = true];
}

message Subject {
  optional string kind = 1 [(json_always) = true];
  optional string apiGroup = 2;
  optional string name = 3 [(json_always) = true];
  optional string namespace = 4;
}
`;

// events.k8s.io/v1: eventTime and the series' fields have no omitempty, so a zero time is null.
const EVENTS_V1 = `
syntax = "proto2";
package k8s.io.api.events.v1;

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 2 [(json_always) = true];
  optional EventSeries series = 3 [(go_pointer) = true];
  optional string reportingController = 4;
  optional string reportingInstance = 5;
  optional string action = 6;
  optional string reason = 7;
  optional .k8s.io.api.core.v1.ObjectReference regarding = 8;
  optional .k8s.io.api.core.v1.ObjectReference related = 9 [(go_pointer) = true];
  optional string note = 10;
  optional string type = 11;
  optional .k8s.io.api.core.v1.EventSource deprecatedSource = 12;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedFirstTimestamp = 13;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15;
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}

message EventSeries {
  optional int32 count = 1 [(json_always) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2 [(json_always) = true];
}
`;

// admissionregistration.k8s.io/v1's four served kinds. RuleWithOperations embeds Rule, and
// NamedRuleWithOperations embeds RuleWithOperations, Go's `json:",inline"`: (json_inline) says a
// field's message is written into its parent's JSON object. Go writes sideEffects (a pointer) and
// admissionReviewVersions without omitempty; a nil pointer and an empty list are omitted here too.
const ADMISSIONREGISTRATION_V1 = `
syntax = "proto2";
package k8s.io.api.admissionregistration.v1;

message AuditAnnotation {
  optional string key = 1 [(json_always) = true];
  optional string valueExpression = 2 [(json_always) = true];
}

message ExpressionWarning {
  optional string fieldRef = 2 [(json_always) = true];
  optional string warning = 3 [(json_always) = true];
}

message MatchCondition {
  optional string name = 1 [(json_always) = true];
  optional string expression = 2 [(json_always) = true];
}

message MatchResources {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 1 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector objectSelector = 2 [(go_pointer) = true];
  repeated NamedRuleWithOperations resourceRules = 3;
  repeated NamedRuleWithOperations excludeResourceRules = 4;
  optional string matchPolicy = 7 [(go_pointer) = true];
}

message MutatingWebhook {
  optional string name = 1 [(json_always) = true];
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3;
  optional string failurePolicy = 4 [(go_pointer) = true];
  optional string matchPolicy = 9 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 5 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector objectSelector = 11 [(go_pointer) = true];
  optional string sideEffects = 6 [(go_pointer) = true];
  optional int32 timeoutSeconds = 7 [(go_pointer) = true];
  repeated string admissionReviewVersions = 8;
  optional string reinvocationPolicy = 10 [(go_pointer) = true];
  repeated MatchCondition matchConditions = 12;
}

message MutatingWebhookConfiguration {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated MutatingWebhook Webhooks = 2 [(json_key) = "webhooks"];
}

message MutatingWebhookConfigurationList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated MutatingWebhookConfiguration items = 2;
}

message NamedRuleWithOperations {
  repeated string resourceNames = 1;
  optional RuleWithOperations ruleWithOperations = 2 [(json_inline) = true];
}

message ParamKind {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message ParamRef {
  optional string name = 1;
  optional string namespace = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 3 [(go_pointer) = true];
  optional string parameterNotFoundAction = 4 [(go_pointer) = true];
}

message Rule {
  repeated string apiGroups = 1;
  repeated string apiVersions = 2;
  repeated string resources = 3;
  optional string scope = 4 [(go_pointer) = true];
}

message RuleWithOperations {
  repeated string operations = 1;
  optional Rule rule = 2 [(json_inline) = true];
}

message ServiceReference {
  optional string namespace = 1 [(json_always) = true];
  optional string name = 2 [(json_always) = true];
  optional string path = 3 [(go_pointer) = true];
  optional int32 port = 4 [(go_pointer) = true];
}

message TypeChecking {
  repeated ExpressionWarning expressionWarnings = 1;
}

message ValidatingAdmissionPolicy {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ValidatingAdmissionPolicySpec spec = 2;
  optional ValidatingAdmissionPolicyStatus status = 3;
}

message ValidatingAdmissionPolicyBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ValidatingAdmissionPolicyBindingSpec spec = 2;
}

message ValidatingAdmissionPolicyBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ValidatingAdmissionPolicyBinding items = 2;
}

message ValidatingAdmissionPolicyBindingSpec {
  optional string policyName = 1;
  optional ParamRef paramRef = 2 [(go_pointer) = true];
  optional MatchResources matchResources = 3 [(go_pointer) = true];
  repeated string validationActions = 4;
}

message ValidatingAdmissionPolicyList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ValidatingAdmissionPolicy items = 2;
}

message ValidatingAdmissionPolicySpec {
  optional ParamKind paramKind = 1 [(go_pointer) = true];
  optional MatchResources matchConstraints = 2 [(go_pointer) = true];
  repeated Validation validations = 3;
  optional string failurePolicy = 4 [(go_pointer) = true];
  repeated AuditAnnotation auditAnnotations = 5;
  repeated MatchCondition matchConditions = 6;
  repeated Variable variables = 7;
}

message ValidatingAdmissionPolicyStatus {
  optional int64 observedGeneration = 1;
  optional TypeChecking typeChecking = 2 [(go_pointer) = true];
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 3;
}

message ValidatingWebhook {
  optional string name = 1 [(json_always) = true];
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3;
  optional string failurePolicy = 4 [(go_pointer) = true];
  optional string matchPolicy = 9 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 5 [(go_pointer) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector objectSelector = 10 [(go_pointer) = true];
  optional string sideEffects = 6 [(go_pointer) = true];
  optional int32 timeoutSeconds = 7 [(go_pointer) = true];
  repeated string admissionReviewVersions = 8;
  repeated MatchCondition matchConditions = 11;
}

message ValidatingWebhookConfiguration {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ValidatingWebhook Webhooks = 2 [(json_key) = "webhooks"];
}

message ValidatingWebhookConfigurationList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ValidatingWebhookConfiguration items = 2;
}

message Validation {
  optional string Expression = 1 [(json_key) = "expression", (json_always) = true];
  optional string message = 2;
  optional string reason = 3 [(go_pointer) = true];
  optional string messageExpression = 4;
}

message Variable {
  optional string Name = 1 [(json_key) = "name", (json_always) = true];
  optional string Expression = 2 [(json_key) = "expression", (json_always) = true];
}

message WebhookClientConfig {
  optional string url = 3 [(go_pointer) = true];
  optional ServiceReference service = 1 [(go_pointer) = true];
  optional bytes caBundle = 2;
}
`;

/** The definitions, keyed by the path of the upstream file they are taken from. */
export const KUBE_PROTOS: Readonly<Record<string, string>> = {
  'k8s.io/apimachinery/pkg/runtime/generated.proto': RUNTIME,
  'k8s.io/apimachinery/pkg/util/intstr/generated.proto': INTSTR,
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto': META_V1,
  'k8s.io/api/core/v1/generated.proto': CORE_V1,
  'k8s.io/api/coordination/v1/generated.proto': COORDINATION_V1,
  'k8s.io/api/authorization/v1/generated.proto': AUTHORIZATION_V1,
  'k8s.io/api/authentication/v1/generated.proto': AUTHENTICATION_V1,
  'k8s.io/api/autoscaling/v1/generated.proto': AUTOSCALING_V1,
  'k8s.io/api/rbac/v1/generated.proto': RBAC_V1,
  'k8s.io/api/events/v1/generated.proto': EVENTS_V1,
  'k8s.io/api/admissionregistration/v1/generated.proto': ADMISSIONREGISTRATION_V1,
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto': APIEXTENSIONS_V1,
};
