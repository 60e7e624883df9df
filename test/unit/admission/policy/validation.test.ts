// The compile checks kube runs on a ValidatingAdmissionPolicy's expressions at write
// (policyExpressionErrors), alone and merged with apimachinery/admissionregistration's structural
// checks in kube's order (mergePolicyErrors).
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import {
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicySpec,
  defaultValidatingAdmissionPolicy,
  policyUpdateOptions,
  validateValidatingAdmissionPolicy,
} from '../../../../apimachinery/admissionregistration/validation.js';
import { mergePolicyErrors, policyExpressionErrors } from '../../../../admission/policy/index.js';

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

/** Both checks, as the policy's registry strategy runs them. */
const allErrors = (p: ValidatingAdmissionPolicy): string[] =>
  mergePolicyErrors(validateValidatingAdmissionPolicy(p), policyExpressionErrors(p)).map(formatFieldError);

const cases: { name: string; p: ValidatingAdmissionPolicy; compile: string[]; all: string[] }[] = [
  { name: 'valid', p: good(), compile: [], all: [] },
  {
    name: 'params undeclared without paramKind',
    p: good({ validations: [{ expression: 'object.spec.size < params.max' }] }),
    compile: [
      "spec.validations[0].expression: Invalid value: \"object.spec.size < params.max\": compilation failed: ERROR: <input>:1:20: undeclared reference to 'params' (in container '')\n | object.spec.size < params.max\n | ...................^",
    ],
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
    compile: [],
    all: [],
  },
  {
    name: 'not a bool',
    p: good({ validations: [{ expression: '1' }] }),
    compile: ['spec.validations[0].expression: Invalid value: "1": must evaluate to bool'],
    all: ['spec.validations[0].expression: Invalid value: "1": must evaluate to bool'],
  },
  {
    name: 'messageExpression has no authorizer and must be a string',
    p: good({
      validations: [
        { expression: 'true', messageExpression: "authorizer.path('/').check('get').reason()" },
        { expression: 'true', messageExpression: '1' },
      ],
    }),
    compile: [
      "spec.validations[0].messageExpression: Invalid value: \"authorizer.path('/').check('get').reason()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/').check('get').reason()\n | ^",
      'spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string',
    ],
    all: [
      "spec.validations[0].messageExpression: Invalid value: \"authorizer.path('/').check('get').reason()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/').check('get').reason()\n | ^",
      'spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string',
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
    compile: [],
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
    compile: [
      'spec.variables[1].expression: Invalid value: "variables.a + variables.c": compilation failed: ERROR: <input>:1:24: undefined field \'c\'\n | variables.a + variables.c\n | .......................^',
      'spec.validations[0].expression: Invalid value: "variables.a < 3 && variables.nope": compilation failed: ERROR: <input>:1:29: undefined field \'nope\'\n | variables.a < 3 && variables.nope\n | ............................^',
    ],
    all: [
      'spec.variables[1].expression: Invalid value: "variables.a + variables.c": compilation failed: ERROR: <input>:1:24: undefined field \'c\'\n | variables.a + variables.c\n | .......................^',
      'spec.variables[2].name: Invalid value: "not-ident": name is not a valid CEL identifier',
      'spec.validations[0].expression: Invalid value: "variables.a < 3 && variables.nope": compilation failed: ERROR: <input>:1:29: undefined field \'nope\'\n | variables.a < 3 && variables.nope\n | ............................^',
    ],
  },
  {
    name: "a variable's name is judged before its expression",
    p: good({ variables: [{ name: '1x', expression: 'params.x' }] }),
    compile: [
      "spec.variables[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^",
    ],
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
    compile: ['spec.matchConditions[2].expression: Invalid value: "\'x\'": must evaluate to bool'],
    all: [
      'spec.matchConditions[1].expression: Required value',
      'spec.matchConditions[1].name: Duplicate value: "a"',
      'spec.matchConditions[2].expression: Invalid value: "\'x\'": must evaluate to bool',
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
    compile: [
      'spec.auditAnnotations[1].valueExpression: Invalid value: "1": must evaluate to one of [string null_type]',
    ],
    all: [
      'spec.auditAnnotations[1].valueExpression: Invalid value: "1": must evaluate to one of [string null_type]',
      'spec.auditAnnotations[1].key: Duplicate value: "k"',
      "spec.auditAnnotations[2].key: Invalid value: \"p/bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.auditAnnotations[3].valueExpression: Required value: must not exceed 5120 bytes in length',
    ],
  },
];

describe('policyExpressionErrors: the compile errors alone', () => {
  it.each(cases)('$name', ({ p, compile }) => {
    expect(policyExpressionErrors(p).map(formatFieldError)).toEqual(compile);
  });
});

describe("mergePolicyErrors: with the structural errors, in kube's order", () => {
  it.each(cases)('$name', ({ p, all }) => {
    expect(allErrors(p)).toEqual(all);
  });
});

describe('updates', () => {
  const stored = good({ matchConditions: [{ name: 'a', expression: "'x'" }] });

  it('an update that leaves paramKind and matchConditions alone does not compile matchConditions again', () => {
    const obj = good({ matchConditions: [{ name: 'a', expression: "'x'" }], validations: [{ expression: 'false' }] });
    expect(policyExpressionErrors(obj, policyUpdateOptions(obj, stored))).toEqual([]);
  });

  it('a changed paramKind compiles them again', () => {
    const obj = good({
      matchConditions: [{ name: 'a', expression: "'x'" }],
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    });
    expect(policyExpressionErrors(obj, policyUpdateOptions(obj, stored)).map(formatFieldError)).toEqual([
      'spec.matchConditions[0].expression: Invalid value: "\'x\'": must evaluate to bool',
    ]);
  });

  it('validations are compiled whatever the stored object held', () => {
    const old = good({ validations: [{ expression: 'params.x' }] });
    const obj = good({ validations: [{ expression: 'params.x' }] });
    expect(policyExpressionErrors(obj, policyUpdateOptions(obj, old))).toHaveLength(1);
  });
});
