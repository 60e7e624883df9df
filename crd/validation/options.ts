// What the CRD checks are told: how strict to be (kube relaxes rules an update's stored object
// already breaks) and the schema validator that plugs in the structural and CEL checks.
import type { FieldError } from '../../apimachinery/field-errors.js';
import type { Task } from '../../apimachinery/structured-merge/trampoline.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';

/** What a schema validator may need beyond the schema: the version and, on update, the old CRD. */
interface SchemaValidationContext {
  /** The version the schema belongs to; the first version for a schema all versions share. */
  version: string;
  /** The CRD before an update (kube relaxes some schema rules the stored CRD already broke). */
  old?: CustomResourceDefinition;
}

/**
 * Structural and CEL checks of one openAPIV3Schema; `path` is where kube reports it. A task: CEL's
 * compile of thousands of rules is run sliced by a request.
 */
export type SchemaValidator = (
  schema: JSONSchemaProps,
  path: string,
  ctx: SchemaValidationContext,
) => Task<FieldError[]>;

export interface ValidationOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireOpenAPISchema: boolean;
  allowInvalidCABundle: boolean;
  schemaValidator: SchemaValidator | undefined;
  old?: CustomResourceDefinition;
}
