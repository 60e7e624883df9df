// The compile checks kube runs on a ValidatingAdmissionPolicy's expressions at write
// (policyExpressionCompiler), called by apimachinery/admissionregistration's validation where kube
// compiles each expression, so that its errors come in kube's order among the structural ones.
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import {
  NEW_POLICY_OPTIONS,
  type PolicyValidationOptions,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicySpec,
  defaultValidatingAdmissionPolicy,
  policyUpdateOptions,
  validateValidatingAdmissionPolicy,
} from '../../../../apimachinery/admissionregistration/validation.js';
import { policyExpressionCompiler } from '../../../../admission/policy/index.js';

function policy(spec: ValidatingAdmissionPolicySpec, name = 'p'): ValidatingAdmissionPolicy {
  return { metadata: { name }, spec };
}
const rules = {
  resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
};
const good = (over: Partial<ValidatingAdmissionPolicySpec> = {}): ValidatingAdmissionPolicy => {
  const p = policy({
    matchConstraints: structuredClone(rules),
    validations: [{ expression: 'object.spec.size < 10' }],
    ...over,
  });
  defaultValidatingAdmissionPolicy(p as unknown as Record<string, unknown>);
  return p;
};

/** The validation with the compiler, as the policy's registry strategy runs it. */
const errors = (p: ValidatingAdmissionPolicy, opts: PolicyValidationOptions = NEW_POLICY_OPTIONS): string[] =>
  validateValidatingAdmissionPolicy(p, opts, policyExpressionCompiler(p)).map(formatFieldError);

const cases: { name: string; p: ValidatingAdmissionPolicy; all: string[] }[] = [
  { name: 'valid', p: good(), all: [] },
  {
    name: 'params undeclared without paramKind',
    p: good({ validations: [{ expression: 'object.spec.size < params.max' }] }),
    all: [
      "spec.validations[0].expression: Invalid value: \"object.spec.size < params.max\": compilation failed: ERROR: <input>:1:20: undeclared reference to 'params' (in container '')\n | object.spec.size < params.max\n | ...................^",
    ],
  },
  {
    name: 'params declared with paramKind',
    p: good({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.size < int(params.data.max)' }],
    }),
    all: [],
  },
  {
    name: 'not a bool',
    p: good({ validations: [{ expression: '1' }] }),
    all: ['spec.validations[0].expression: Invalid value: "1": must evaluate to bool but got int'],
  },
  {
    name: 'messageExpression has no authorizer and must be a string',
    p: good({
      validations: [
        { expression: 'true', messageExpression: "authorizer.path('/').check('get').reason()" },
        { expression: 'true', messageExpression: '1' },
      ],
    }),
    all: [
      "spec.validations[0].messageExpression: Invalid value: \"authorizer.path('/').check('get').reason()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/').check('get').reason()\n | ^",
      'spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string but got int',
    ],
  },
  {
    name: "empty expressions are the structural check's, not compiled",
    p: good({
      validations: [
        { expression: ' ', message: ' ', reason: 'Unauthorized' },
        { expression: 'true', message: 'a\nb', messageExpression: ' ' },
      ],
    }),
    all: [
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].message: Invalid value: " ": message must be non-empty if specified',
      'spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      'spec.validations[1].messageExpression: Invalid value: " ": must be non-empty if specified',
      'spec.validations[1].message: Invalid value: "a\\nb": message must not contain line breaks',
    ],
  },
  {
    name: 'variables compose in order',
    p: good({
      variables: [
        { name: 'a', expression: 'object.spec.size' },
        { name: 'b', expression: 'variables.a + variables.c' },
        { name: 'not-ident', expression: '1' },
      ],
      validations: [{ expression: 'variables.a < 3 && variables.nope' }],
    }),
    all: [
      'spec.variables[1].expression: Invalid value: "variables.a + variables.c": compilation failed: ERROR: <input>:1:24: undefined field \'c\'\n | variables.a + variables.c\n | .......................^',
      'spec.variables[2].name: Invalid value: "not-ident": name is not a valid CEL identifier',
      'spec.validations[0].expression: Invalid value: "variables.a < 3 && variables.nope": compilation failed: ERROR: <input>:1:29: undefined field \'nope\'\n | variables.a < 3 && variables.nope\n | ............................^',
    ],
  },
  {
    name: "a variable's name is judged before its expression",
    p: good({ variables: [{ name: '1x', expression: 'params.x' }] }),
    all: [
      'spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier',
      "spec.variables[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^",
    ],
  },
  {
    name: 'matchConditions (trimmed, without variables)',
    p: good({
      matchConditions: [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: '' },
        { name: 'b', expression: " 'x' " },
      ],
    }),
    all: [
      'spec.matchConditions[1].expression: Required value',
      'spec.matchConditions[1].name: Duplicate value: "a"',
      'spec.matchConditions[2].expression: Invalid value: "\'x\'": must evaluate to bool but got string',
    ],
  },
  {
    name: 'auditAnnotations',
    p: good({
      validations: [],
      auditAnnotations: [
        { key: 'k', valueExpression: "'v'" },
        { key: 'k', valueExpression: '1' },
        { key: 'bad key!', valueExpression: 'null' },
        { key: 'long', valueExpression: `'${'x'.repeat(5120)}'` },
      ],
    }),
    all: [
      'spec.auditAnnotations[1].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int',
      'spec.auditAnnotations[1].key: Duplicate value: "k"',
      "spec.auditAnnotations[2].key: Invalid value: \"p/bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.auditAnnotations[3].valueExpression: Required value: must not exceed 5120 bytes in length',
    ],
  },
];

describe("the policy's compile errors among its structural ones, in kube's order", () => {
  it.each(cases)('$name', ({ p, all }) => {
    expect(errors(p)).toEqual(all);
  });
});

describe('updates', () => {
  const stored = good({ matchConditions: [{ name: 'a', expression: "'x'" }] });

  it('an update that leaves paramKind and matchConditions alone does not compile matchConditions again', () => {
    const obj = good({ matchConditions: [{ name: 'a', expression: "'x'" }], validations: [{ expression: 'false' }] });
    expect(errors(obj, policyUpdateOptions(obj, stored))).toEqual([]);
  });

  it('a changed paramKind compiles them again', () => {
    const obj = good({
      matchConditions: [{ name: 'a', expression: "'x'" }],
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    });
    expect(errors(obj, policyUpdateOptions(obj, stored))).toEqual([
      'spec.matchConditions[0].expression: Invalid value: "\'x\'": must evaluate to bool but got string',
    ]);
  });

  it('validations are compiled whatever the stored object held', () => {
    const old = good({ validations: [{ expression: 'params.x' }] });
    const obj = good({ validations: [{ expression: 'params.x' }] });
    expect(errors(obj, policyUpdateOptions(obj, old))).toHaveLength(1);
  });

  // Kube 1.33 compiles new expressions at compatibility version 1.32, before the semver library;
  // those the stored policy already had compile with every library.
  const semver = (over: Partial<ValidatingAdmissionPolicySpec>): ValidatingAdmissionPolicy =>
    good({
      matchConditions: [{ name: 'm', expression: "isSemver('1.0.0')" }],
      variables: [{ name: 'v', expression: "isSemver('1.0.0')" }],
      validations: [{ expression: "isSemver('1.0.0')", messageExpression: "semver('1.0.0').major() > 0 ? 'a' : 'b'" }],
      auditAnnotations: [{ key: 'k', valueExpression: "isSemver('1.0.0') ? 'a' : 'b'" }],
      ...over,
    });

  it('a new policy may not call what kube 1.33 added', () => {
    expect(errors(semver({}))).toEqual([
      "spec.matchConditions[0].expression: Invalid value: \"isSemver('1.0.0')\": compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n | isSemver('1.0.0')\n | ........^",
      "spec.variables[0].expression: Invalid value: \"isSemver('1.0.0')\": compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n | isSemver('1.0.0')\n | ........^",
      "spec.validations[0].expression: Invalid value: \"isSemver('1.0.0')\": compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n | isSemver('1.0.0')\n | ........^",
      "spec.validations[0].messageExpression: Invalid value: \"semver('1.0.0').major() > 0 ? 'a' : 'b'\": compilation failed: ERROR: <input>:1:7: undeclared reference to 'semver' (in container '')\n | semver('1.0.0').major() > 0 ? 'a' : 'b'\n | ......^\nERROR: <input>:1:22: undeclared reference to 'major' (in container '')\n | semver('1.0.0').major() > 0 ? 'a' : 'b'\n | .....................^",
      "spec.auditAnnotations[0].valueExpression: Invalid value: \"isSemver('1.0.0') ? 'a' : 'b'\": compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n | isSemver('1.0.0') ? 'a' : 'b'\n | ........^",
    ]);
  });

  it('an update keeps what the stored policy had compiling (a variable by the stored validations)', () => {
    const old = semver({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } });
    const obj = semver({});
    expect(errors(obj, policyUpdateOptions(obj, old))).toEqual([]);
  });
});
