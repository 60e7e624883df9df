// What kube's ValidatingAdmissionPolicy validation (pkg/apis/admissionregistration/validation/
// validation.go) does beyond the structural checks of apimachinery/admissionregistration: it
// compiles every expression at write, and answers what does not compile with kube's paths and
// messages. Compiled as kube compiles them there: variables in order, each seeing those before it
// (the composition compiler, whenever the policy has variables); matchConditions with the
// stateless compiler (no `variables`); messageExpression without `authorizer`; return types bool
// (expression, matchConditions), string (messageExpression), string or null (auditAnnotations).
// An expression the structural checks refuse (empty, too long) is not compiled, as kube's else
// branches do not.
//
// Update ratcheting: as the structural checks (policyUpdateOptions), matchConditions are not judged
// again when an update leaves paramKind and matchConditions alone. kube compiles expressions the
// stored object already had in its StoredExpressions environment; there is one environment here,
// so they are compiled as any other.
import { type FieldError, child, index, invalid } from '../../apimachinery/field-errors.js';
import {
  MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH,
  type PolicyValidationOptions,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicySpec,
} from '../../apimachinery/admissionregistration/validation.js';
import { byteLength } from '../../apimachinery/validation/names.js';
import { type AdmissionDeclarations, compileAdmissionExpression } from '../../crd/cel/admission.js';
import { isJsonObject } from '../../apimachinery/object.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const items = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map((e: unknown) => (isJsonObject(e) ? e : {})) : [];

function compileError(
  path: string,
  source: string,
  badValue: string,
  decls: AdmissionDeclarations,
  types: readonly string[],
): FieldError[] {
  const r = compileAdmissionExpression(source, decls, types);
  return r.error === undefined ? [] : [invalid(path, badValue, r.error)];
}

/**
 * The compile errors of a policy's expressions, in kube's order, at kube's paths and with its
 * messages (the invalid value is the expression as written). For an update, pass the options
 * policyUpdateOptions derives from the stored object.
 */
export function policyExpressionErrors(
  policy: ValidatingAdmissionPolicy,
  opts: PolicyValidationOptions = { ignoreMatchConditions: false },
): FieldError[] {
  const spec: ValidatingAdmissionPolicySpec = isJsonObject(policy.spec) ? policy.spec : {};
  const path = 'spec';
  const errs: FieldError[] = [];
  const params = spec.paramKind != null;
  if (!opts.ignoreMatchConditions) {
    items(spec.matchConditions).forEach((m, i) => {
      const expr = str(m['expression']).trim();
      if (expr !== '')
        errs.push(
          ...compileError(
            child(index(child(path, 'matchConditions'), i), 'expression'),
            expr,
            expr,
            { params, authorizer: true },
            ['bool'],
          ),
        );
    });
  }
  const variables = items(spec.variables);
  const vars: { name: string; type: string }[] = [];
  variables.forEach((v, i) => {
    const expr = str(v['expression']);
    if (expr.trim() === '') return;
    const r = compileAdmissionExpression(expr, { params, authorizer: true, variables: [...vars] });
    if (r.error !== undefined)
      errs.push(invalid(child(index(child(path, 'variables'), i), 'expression'), expr, r.error));
    vars.push({ name: str(v['name']), type: r.program?.type ?? 'dyn' });
  });
  const decls = (authorizer: boolean): AdmissionDeclarations => ({
    params,
    authorizer,
    ...(variables.length > 0 ? { variables: vars } : {}),
  });
  const validations = items(spec.validations);
  const audits = items(spec.auditAnnotations);
  validations.forEach((v, i) => {
    const at = index(child(path, 'validations'), i);
    const expr = str(v['expression']);
    if (expr.trim() !== '') errs.push(...compileError(child(at, 'expression'), expr, expr, decls(true), ['bool']));
    const msgExpr = str(v['messageExpression']);
    if (msgExpr.trim() !== '')
      errs.push(...compileError(child(at, 'messageExpression'), msgExpr, msgExpr, decls(false), ['string']));
  });
  audits.forEach((a, i) => {
    const value = str(a['valueExpression']);
    const trimmed = value.trim();
    if (trimmed === '' || byteLength(trimmed) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) return;
    errs.push(
      ...compileError(
        child(index(child(path, 'auditAnnotations'), i), 'valueExpression'),
        trimmed,
        value,
        decls(true),
        ['string', 'null'],
      ),
    );
  });
  return errs;
}

// Where kube's validateValidatingAdmissionPolicySpec says each error, as a sort key: the spec's
// fields in its order, then the item, then the item's checks in its order.
const SECTIONS = [
  'failurePolicy',
  'paramKind',
  'matchConstraints',
  'matchConditions',
  'variables',
  'validations',
  'auditAnnotations',
];
const WITHIN: Record<string, readonly string[]> = {
  matchConditions: ['expression', 'name'],
  variables: ['name', 'expression'],
  validations: ['expression', 'messageExpression', 'message', 'reason'],
  auditAnnotations: ['key', 'valueExpression', 'duplicateKey'],
};

function orderKey(e: FieldError): number[] {
  const m = /^spec\.(\w+)(?:\[(\d+)\])?(?:\.(\w+))?/.exec(e.field);
  const section = m ? SECTIONS.indexOf(m[1]!) : -1;
  if (!m || section < 0) return [SECTIONS.length];
  const item = m[2] === undefined ? -1 : Number(m[2]);
  const field = m[3] === 'key' && e.type === 'FieldValueDuplicate' ? 'duplicateKey' : (m[3] ?? '');
  return [section, item, WITHIN[m[1]!]?.indexOf(field) ?? 0];
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The structural errors (validateValidatingAdmissionPolicy) and the compile errors
 * (policyExpressionErrors) as one list in the order kube reports them: each compile error where
 * kube's single pass over the spec finds it.
 */
export function mergePolicyErrors(structural: readonly FieldError[], expression: readonly FieldError[]): FieldError[] {
  const out: FieldError[] = [];
  let j = 0;
  const keys = expression.map(orderKey);
  for (const e of structural) {
    const k = orderKey(e);
    while (j < expression.length && compareKeys(keys[j]!, k) < 0) out.push(expression[j++]!);
    out.push(e);
  }
  while (j < expression.length) out.push(expression[j++]!);
  return out;
}
