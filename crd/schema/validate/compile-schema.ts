// Validation of a custom resource against its CRD version's openAPIV3Schema, as kube-apiserver does it:
//
//  1. kube-openapi's SchemaValidator (k8s.io/kube-openapi/pkg/validation/validate), fed the schema as
//     apiextensions-apiserver converts it (unsupported formats stripped, x-kubernetes-int-or-string
//     as type [integer, string]) and its errors turned into field errors as
//     kubeOpenAPIResultToFieldErrors does;
//  2. embedded resources (apiextensions-apiserver/pkg/apiserver/schema/objectmeta Validate):
//     apiVersion, kind and metadata of every x-kubernetes-embedded-resource;
//  3. list-type set/map uniqueness (pkg/apiserver/schema/listtype ValidateListSetsAndMaps).
//
// Each has its file (openapi-validator.ts, embedded-resources.ts, list-types.ts), over one compiled
// schema (schema-node.ts); compileSchema runs them in that order.
//
// validateUpdate adds kube's validation ratcheting (CRDValidationRatcheting, GA in 1.33): schema
// errors at a position whose value is unchanged from the old object (correlated through object
// keys and x-kubernetes-list-type=map keys) are dropped; list-type errors are skipped altogether when
// the old object had some; embedded resources are validated as on create.
//
// Error order follows kube: the validators of one schema node run in kube-openapi's order (type,
// allOf/anyOf/oneOf/not, string, format, number, array, enum, object) and errors are de-duplicated by
// message. Where kube iterates a Go map (object keys, schema properties) its order is random; we use
// the order of the keys in the object.
import type { FieldError } from '../../../apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import type { FloatLiterals } from '../../../apimachinery/float-literals.js';
import { type ValidationContext, dchild, floatContext } from './go-values.js';
import { isJsonObject } from '../../../apimachinery/object.js';
import { compileNode } from './schema-node.js';
import { finalize } from './openapi-errors.js';
import { validateEntry } from './openapi-validator.js';
import { Corr, type Correlation } from './ratcheting.js';

export type { Correlation } from './ratcheting.js';
import { embeddedErrors } from './embedded-resources.js';
import { listTypeErrors } from './list-types.js';
import { appendAll } from '../../../apimachinery/append.js';

/** The old object's context: stored, its literals unknown (numbers as plainFloat reads them). */
const OLD = floatContext(undefined);

export interface ValidateOptions {
  /**
   * Where the JSON literal was a number written with a fraction or exponent, such as 1.0: the
   * parser's, or paths (kube field.Path text, e.g. "spec.size").
   */
  floatLiterals?: FloatLiterals | ReadonlySet<string>;
  /** Where the value sits, for messages (a schema default: `...properties[size].default`); the object root when absent. */
  rootPath?: string;
}

export interface CompiledSchema {
  validate(obj: unknown, opts?: ValidateOptions): FieldError[];
  validateUpdate(obj: unknown, old: unknown, opts?: ValidateOptions): FieldError[];
  /** The root correlation of an update, as the CEL rules' ratcheting and oldSelf read it. */
  correlate(obj: unknown, old: unknown, opts?: ValidateOptions): Correlation;
  /**
   * A write to the status subresource (statusStrategy.ValidateUpdate): the status alone against
   * the status schema, its messages naming paths from the status and its fields under `status`,
   * then list sets and maps over the whole object, ratcheted on the old one.
   */
  validateStatusUpdate(obj: unknown, old: unknown, opts?: ValidateOptions): FieldError[];
}

/** Compiles a CRD version's openAPIV3Schema (expected structural) into a validator. */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  const root = compileNode(schema);
  const schemaErrors = (obj: unknown, at: string, ctx: ValidationContext, corr: Corr | null): FieldError[] =>
    finalize(validateEntry(root, obj, at, ctx.floats, ctx, corr).errs);
  const embedded = (obj: unknown, at: string, ctx: ValidationContext): FieldError[] => {
    const out: FieldError[] = [];
    embeddedErrors(obj, root, at, ctx.floats, ctx, out);
    return out;
  };
  const listTypes = (obj: unknown, at: string, { isFloat, floats }: ValidationContext): FieldError[] => {
    const out: FieldError[] = [];
    if (isJsonObject(obj)) listTypeErrors(obj, root, at, floats, isFloat, out);
    return out;
  };
  return {
    validate(obj, opts) {
      const at = opts?.rootPath ?? '';
      const ctx = floatContext(opts?.floatLiterals);
      return [...schemaErrors(obj, at, ctx, null), ...embedded(obj, at, ctx), ...listTypes(obj, at, ctx)];
    },
    validateUpdate(obj, old, opts) {
      const at = opts?.rootPath ?? '';
      const ctx = floatContext(opts?.floatLiterals);
      const corr = new Corr(old, obj, root, ctx.floats, ctx);
      const lists = listTypes(old, at, OLD).length > 0 ? [] : listTypes(obj, at, ctx);
      return [...schemaErrors(obj, at, ctx, corr), ...embedded(obj, at, ctx), ...lists];
    },
    correlate(obj, old, opts) {
      const ctx = floatContext(opts?.floatLiterals);
      return new Corr(old, obj, root, ctx.floats, ctx);
    },
    validateStatusUpdate(obj, old, opts) {
      const ctx = floatContext(opts?.floatLiterals);
      const statusNode = root.properties.get('status');
      const out: FieldError[] = [];
      if (statusNode && isJsonObject(obj) && Object.hasOwn(obj, 'status')) {
        const oldStatus = isJsonObject(old) && Object.hasOwn(old, 'status') ? old['status'] : undefined;
        // Ratcheting correlates the old object's status, when it has one.
        const corr =
          oldStatus === undefined
            ? null
            : new Corr(oldStatus, obj['status'], statusNode, dchild(ctx.floats, 'status'), ctx);
        appendAll(
          out,
          finalize(
            validateEntry(statusNode, obj['status'], '', dchild(ctx.floats, 'status'), ctx, corr).errs,
            'status',
          ),
        );
      }
      const lists = listTypes(old, '', OLD).length > 0 ? [] : listTypes(obj, '', ctx);
      return [...out, ...lists];
    },
  };
}
