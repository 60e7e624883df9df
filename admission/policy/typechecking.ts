// status.typeChecking of a ValidatingAdmissionPolicy, as kube's TypeChecker computes it
// (plugin/policy/validating/typechecking.go): the kinds named by matchConstraints.resourceRules
// without wildcards (subresources skipped; at most 10, sorted by group, version, kind), each
// validation's expression and messageExpression type-checked with `object` typed by that kind's
// schema and `params` by the paramKind's; one warning per expression naming every kind it fails
// for: `example.com/v1, Kind=Widget: ERROR: <input>:1:13: undefined field 'sise'\n | ...\n`.
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { typeCheckAdmissionExpressions } from '../../crd/cel/admission.js';
import { gvkString } from '../../apimachinery/versions.js';
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

/** kube's TypeChecker.Check: the policy's status.typeChecking.expressionWarnings (empty: none). */
export function typeCheckPolicy(p: ValidatingAdmissionPolicy, r: TypeCheckResolver): ExpressionWarning[] {
  const spec = p.spec ?? {};
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  let paramsSchema: JSONSchemaProps | undefined;
  if (hasParams) {
    const av = spec.paramKind!.apiVersion ?? '';
    const i = av.indexOf('/');
    paramsSchema = r.schemaFor({
      group: i < 0 ? '' : av.slice(0, i),
      version: i < 0 ? av : av.slice(i + 1),
      kind: spec.paramKind!.kind ?? '',
    });
  }
  const exprs: { fieldRef: string; expression: string }[] = [];
  (spec.validations ?? []).forEach((v, i) => {
    exprs.push({ fieldRef: `spec.validations[${i}].expression`, expression: v.expression ?? '' });
    if (v.messageExpression)
      exprs.push({ fieldRef: `spec.validations[${i}].messageExpression`, expression: v.messageExpression });
  });
  const perKind: { gvk: GroupVersionKind; issues: (string | undefined)[] }[] = [];
  for (const gvk of typesToCheck(p, r)) {
    const schema = r.schemaFor(gvk);
    if (!schema) continue;
    perKind.push({
      gvk,
      issues: typeCheckAdmissionExpressions(
        exprs.map((e) => e.expression),
        (spec.variables ?? []).map((v) => ({ name: v.name ?? '', expression: v.expression ?? '' })),
        hasParams,
        { object: schema, params: paramsSchema },
      ),
    });
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
