// apiextensions.k8s.io/v1 CustomResourceDefinition, as it travels on the wire.
import type { KubeObject } from '../object.js';

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  $ref?: string;
  $schema?: string;
  id?: string;
  example?: unknown;
  externalDocs?: { description?: string; url?: string };
  definitions?: Record<string, JSONSchemaProps>;
  /** A value decoded from neither a schema nor a list is Go's zero JSONSchemaPropsOrStringArray: null. */
  dependencies?: Record<string, JSONSchemaProps | string[] | null>;
  additionalItems?: JSONSchemaProps | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CRDCondition {
  type:
    | 'Established'
    | 'NamesAccepted'
    | 'NonStructuralSchema'
    | 'Terminating'
    | 'KubernetesAPIApprovalPolicyConformant';
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CRDSpec {
  group: string;
  names: CRDNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CRDVersion[];
  conversion?: {
    strategy: 'None' | 'Webhook';
    webhook?: {
      clientConfig?: {
        url?: string;
        caBundle?: string;
        service?: { namespace: string; name: string; path?: string; port?: number };
      };
      conversionReviewVersions: string[];
    };
  };
  preserveUnknownFields?: boolean;
}

interface CRDStatus {
  acceptedNames: CRDNames;
  conditions?: CRDCondition[];
  storedVersions: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CRDSpec;
  status?: CRDStatus;
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The names a resource is served under: a CRD's accepted names, or a built-in kind's. */
export interface ResourceNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}
