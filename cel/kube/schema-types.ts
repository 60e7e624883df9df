// A structural schema as CEL types, as kube declares `self` for a CRD's validation rules:
// k8s.io/apiserver/pkg/cel/common/schemas.go SchemaDeclType, types.go DeclType.MaybeAssignTypeName
// and DeclTypeProvider, and apiextensions-apiserver's compilation.go (self, oldSelf,
// optionalOldSelf, the per-CRD `selfType<n>` name) and model/schemas.go WithTypeAndObjectMeta.
import type { CheckedAst, TypeProvider } from '../checker.js';
import { type VariableDecl, variable } from '../decls.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  listType,
  mapType,
  objectType,
  optionalType,
  StringType,
  TimestampType,
  type Type,
} from '../types.js';
import { escapeFieldName } from './escaping.js';
import { additionalPropertiesOf, itemsOf, type KubeSchema, withTypeAndObjectMeta } from './sizes.js';
import { CEL_RESERVED_WORDS } from '../../apimachinery/cel-reserved.js';

/** The parts of a structural schema CEL's types and values depend on (JSON field names); JSONSchemaProps fits it. */
export interface CelSchema extends Omit<KubeSchema, 'items' | 'properties' | 'additionalProperties'> {
  readonly nullable?: boolean;
  readonly items?: CelSchema | readonly CelSchema[];
  readonly properties?: Readonly<Record<string, CelSchema>>;
  readonly additionalProperties?: CelSchema | boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

/** A schema node's CEL type; objects also carry their fields (by escaped name), lists and maps their element. */
export interface SchemaDeclType {
  readonly type: Type;
  readonly fields?: ReadonlyMap<string, SchemaDeclType>;
  readonly elem?: SchemaDeclType;
}

const isEmbedded = (s: CelSchema): boolean => s['x-kubernetes-embedded-resource'] === true;

/**
 * The CEL type kube declares for a schema node, or undefined where the node is not visible to
 * CEL (SchemaDeclType returns nil: no type and no int-or-string, lists and maps of such).
 * Objects are named by their path from `name` as MaybeAssignTypeName names them: `name.field`
 * through properties (escaped), `.@idx` through list items, `.@elem` through map values. A
 * preserve-unknown-fields object without properties is an object with no fields, as in kube:
 * rules cannot reach data the schema does not describe.
 */
export function schemaDeclType(schema: CelSchema, isResourceRoot: boolean, name: string): SchemaDeclType | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return { type: DynType };
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      const items = itemsOf(s);
      const elem = items === undefined ? undefined : schemaDeclType(items, isEmbedded(items), `${name}.@idx`);
      return elem === undefined ? undefined : { type: listType(elem.type), elem };
    }
    case 'object': {
      const ap = additionalPropertiesOf(s);
      if (ap !== undefined) {
        const elem = schemaDeclType(ap, isEmbedded(ap), `${name}.@elem`);
        return elem === undefined ? undefined : { type: mapType(StringType, elem.type), elem };
      }
      const fields = new Map<string, SchemaDeclType>();
      for (const [prop, ps] of Object.entries(s.properties ?? {})) {
        const celName = escapeFieldName(prop);
        if (celName === undefined) continue;
        const t = schemaDeclType(ps, isEmbedded(ps), `${name}.${celName}`);
        if (t !== undefined) fields.set(celName, t);
      }
      return { type: objectType(name), fields };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return { type: BytesType };
        case 'duration':
          return { type: DurationType };
        case 'date':
        case 'date-time':
          return { type: TimestampType };
        default:
          return { type: StringType };
      }
    case 'boolean':
      return { type: BoolType };
    case 'number':
      return { type: DoubleType };
    case 'integer':
      return { type: IntType };
    default:
      return undefined;
  }
}

/** Whether schemaDeclType gives the node a type (it is visible to CEL), without building the type. */
export function celVisible(s: CelSchema): boolean {
  if (s['x-kubernetes-int-or-string'] === true) return true;
  switch (s.type) {
    case 'array': {
      const items = itemsOf(s);
      return items !== undefined && celVisible(items);
    }
    case 'object': {
      const ap = additionalPropertiesOf(s);
      return ap === undefined || celVisible(ap);
    }
    case 'string':
    case 'boolean':
    case 'number':
    case 'integer':
      return true;
    default:
      return false;
  }
}

/**
 * A fresh type name as kube makes them: the prefix and the clock's nanoseconds within the second,
 * so that expressions cannot come to depend on it.
 */
export const uniqueTypeName = (prefix: string): string => `${prefix}${process.hrtime.bigint() % 1_000_000_000n}`;

/** A fresh name for a CRD's `self` type, as kube makes one per compilation. */
export const generateSelfTypeName = (): string => uniqueTypeName('selfType');

/** The checker's view of the object types under one or more roots (kube's DeclTypeProvider). */
export class SchemaTypeProvider implements TypeProvider {
  private readonly objects = new Map<string, SchemaDeclType>();

  constructor(...roots: readonly SchemaDeclType[]) {
    for (const r of roots) this.register(r);
  }

  private register(t: SchemaDeclType): void {
    if (t.fields !== undefined) this.objects.set(t.type.name, t);
    for (const f of t.fields?.values() ?? []) this.register(f);
    if (t.elem !== undefined) this.register(t.elem);
  }

  findStructType(name: string): Type | undefined {
    return this.objects.get(name)?.type;
  }

  /** A field by its escaped name; a reserved word finds its `__word__` field too (RecognizeKeywordAsFieldName). */
  findFieldType(structName: string, field: string): Type | undefined {
    const fields = this.objects.get(structName)?.fields;
    const f = fields?.get(field) ?? (CEL_RESERVED_WORDS.has(field) ? fields?.get(`__${field}__`) : undefined);
    return f?.type;
  }
}

const SELF = 'self';
const OLD_SELF = 'oldSelf';

/** `self` and `oldSelf` for a rule at a node of type t; with optionalOldSelf, oldSelf is optional_type(t). */
export function ruleVariables(t: Type, optionalOldSelf = false): VariableDecl[] {
  return [variable(SELF, t), variable(OLD_SELF, optionalOldSelf ? optionalType(t) : t)];
}

/** Whether a checked rule refers to oldSelf: kube runs such a rule on updates only (a transition rule). */
export function usesOldSelf(ast: CheckedAst): boolean {
  for (const ref of ast.referenceMap.values()) if (ref.name === OLD_SELF) return true;
  return false;
}
