// status.typeChecking of a ValidatingAdmissionPolicy, as kube's TypeChecker computes it
// (plugin/policy/validating/typechecking.go): the kinds named by matchConstraints.resourceRules
// without wildcards (subresources skipped; at most 10, sorted by group, version, kind), each
// validation's expression and messageExpression type-checked with `object` typed by that kind's
// schema and `params` by the paramKind's (undeclared when it has none), the variables composed
// in that environment; one warning per expression naming every kind it fails for:
// `example.com/v1, Kind=Widget: ERROR: <input>:1:13: undefined field 'sise'\n | ...\n`.
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { gvkString, parseGroupVersion } from '../../apimachinery/versions.js';
import { type SchemaDeclType, schemaDeclType, uniqueTypeName } from '../../cel/kube/schema-types.js';
import { AdmissionCompiler } from '../cel/compile.js';
import type { GroupVersionKind, GroupVersionResource } from './matching.js';
import type { ExpressionWarning, ValidatingAdmissionPolicy } from './types.js';

const MAX_TYPES_TO_CHECK = 10;

export interface TypeCheckResolver {
  /** The kinds a resource resolves to (kube's RESTMapper.KindsFor). */
  kindsFor(gvr: GroupVersionResource): GroupVersionKind[];
  /** A kind's structural schema (for a CRD, its version's openAPIV3Schema); undefined: not checked. */
  schemaFor(gvk: GroupVersionKind): JSONSchemaProps | undefined;
}

function typesToCheck(p: ValidatingAdmissionPolicy, r: TypeCheckResolver): GroupVersionKind[] {
  const rules = p.spec?.matchConstraints?.resourceRules ?? [];
  const seen = new Map<string, GroupVersionKind>();
  for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.includes('*') || versions.length === 0 || versions.includes('*')) continue;
    const resources = (rule.resources ?? []).filter((x) => x !== '*' && !x.includes('/'));
    if (resources.length === 0) continue;
    for (const group of [...groups].sort())
      for (const version of [...versions].sort())
        for (const resource of [...resources].sort())
          for (const k of r.kindsFor({ group, version, resource })) {
            if (!k.kind) continue;
            seen.set(gvkString(k), k);
            if (seen.size > MAX_TYPES_TO_CHECK) return sorted([...seen.values()]);
          }
  }
  return sorted([...seen.values()]);
}

function sorted(l: GroupVersionKind[]): GroupVersionKind[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return l.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
}

/** The ObjectMeta fields a resource's published schema carries (kube resolves the full ObjectMeta). */
const OBJECT_META_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};

/** A kind's type as the TypeChecker declares it (declType): the resource's schema with ObjectMeta, named `<Kind><nanos>`. */
function declType(gvk: GroupVersionKind, r: TypeCheckResolver): SchemaDeclType | undefined {
  const s = r.schemaFor(gvk);
  if (s === undefined) return undefined;
  const resource: JSONSchemaProps = {
    ...s,
    type: 'object',
    properties: {
      ...s.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META_SCHEMA,
    },
  };
  return schemaDeclType(resource, true, uniqueTypeName(gvk.kind));
}

/** The paramKind's type, if it names a kind with a schema. */
function paramsType(p: ValidatingAdmissionPolicy, r: TypeCheckResolver): SchemaDeclType | undefined {
  const pk = p.spec.paramKind;
  const gv = pk ? parseGroupVersion(pk.apiVersion ?? '') : undefined;
  return pk && gv ? declType({ ...gv, kind: pk.kind ?? '' }, r) : undefined;
}

/** kube's TypeChecker.Check: the policy's status.typeChecking.expressionWarnings (empty: none). */
export function typeCheckPolicy(p: ValidatingAdmissionPolicy, r: TypeCheckResolver): ExpressionWarning[] {
  const spec = p.spec;
  const exprs: { fieldRef: string; expression: string }[] = [];
  (spec.validations ?? []).forEach((v, i) => {
    exprs.push({ fieldRef: `spec.validations[${i}].expression`, expression: v.expression ?? '' });
    if (v.messageExpression)
      exprs.push({ fieldRef: `spec.validations[${i}].messageExpression`, expression: v.messageExpression });
  });
  const params = paramsType(p, r);
  const perKind: { gvk: GroupVersionKind; issues: (string | undefined)[] }[] = [];
  for (const gvk of typesToCheck(p, r)) {
    const object = declType(gvk, r);
    if (object === undefined) continue;
    const compiler = new AdmissionCompiler(true, { object, params });
    for (const v of spec.variables ?? []) compiler.typeCheck(v.expression ?? '', v.name ?? '');
    perKind.push({ gvk, issues: exprs.map((e) => compiler.typeCheck(e.expression)) });
  }
  const warnings: ExpressionWarning[] = [];
  exprs.forEach((e, i) => {
    const messages = perKind
      .filter((k) => k.issues[i] !== undefined)
      .map((k) => `${gvkString(k.gvk)}: ${k.issues[i]}\n`);
    if (messages.length > 0) warnings.push({ fieldRef: e.fieldRef, warning: messages.join('\n') });
  });
  return warnings;
}
