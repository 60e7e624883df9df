// admissionregistration.k8s.io/v1's four kinds against kube's texts: webhook configurations as
// pkg/apis/admissionregistration/validation (with util/webhook's URL and service rules and Go's
// net/url errors), v1 defaulting, ValidatingAdmissionPolicy's status split, the binding, and the
// columns of pkg/printers/internalversion.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import { type FieldError, formatFieldError } from '../../../../../apimachinery/field-errors.js';
import {
  type ValidatingAdmissionPolicySpec,
  validateValidatingAdmissionPolicy,
} from '../../../../../apimachinery/admissionregistration/validation.js';
import {
  VALIDATING_ADMISSION_POLICY_BINDING_COLUMNS,
  VALIDATING_ADMISSION_POLICY_COLUMNS,
  WEBHOOK_CONFIGURATION_COLUMNS,
  bindingParamRef,
  goLabelSelectorString,
  mutatingWebhookConfigurationKind,
  mutatingWebhookConfigurationStrategy,
  policyParamKind,
  validatingAdmissionPolicyBindingKind,
  validatingAdmissionPolicyBindingStrategy,
  validatingAdmissionPolicyKind,
  validatingAdmissionPolicyStrategy,
  validatingWebhookConfigurationKind,
  validatingWebhookConfigurationStrategy,
  validationCount,
  webhookCount,
} from '../../../../../server/registry/builtin/admissionregistration.js';
import type { Strategy } from '../../../../../server/registry/strategy.js';
import { runStep } from '../../../../../apimachinery/structured-merge/trampoline.js';

const ctx = { dryRun: false };
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

type Json = Record<string, unknown>;

const RULE = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
const HOOK: Json = {
  name: 'hook.example.com',
  clientConfig: { url: 'https://example.com/hook' },
  rules: [RULE],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};

const config = (
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  webhooks: Json[],
): KubeObject =>
  clone({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'c' }, webhooks }) as KubeObject;

/** What the store does before judging: canonicalize (the v1 defaults), then the kind's create validation. */
function createFieldErrors(strategy: Strategy, obj: KubeObject): FieldError[] {
  strategy.canonicalize(obj, ctx);
  strategy.create.prepare(obj);
  return runStep(strategy.create.validate(obj, ctx));
}

const createErrors = (strategy: Strategy, obj: KubeObject): string[] =>
  createFieldErrors(strategy, obj).map(formatFieldError);

function updateErrors(strategy: Strategy, obj: KubeObject, old: KubeObject): string[] {
  strategy.canonicalize(old, ctx);
  strategy.canonicalize(obj, ctx);
  strategy.update.prepare(obj, old, ctx);
  return runStep(strategy.update.validate(obj, old, ctx)).map(formatFieldError);
}

const hook = (patch: Json): Json => ({ ...clone(HOOK), ...patch });
const DNS1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const FORM = '; desired format: https://host[/path]';

describe('webhook configuration validation (both kinds)', () => {
  const cases: Array<[string, Json[], string[]]> = [
    ['a good webhook', [HOOK], []],
    ['no webhooks at all', [], []],
    [
      'a service client config (port defaulted to 443)',
      [hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/validate' } } })],
      [],
    ],
    [
      'a name of two segments',
      [hook({ name: 'hook.example' })],
      [
        'webhooks[0].name: Invalid value: "hook.example": should be a domain with at least three segments separated by dots',
      ],
    ],
    ['no name', [hook({ name: '' })], ['webhooks[0].name: Required value']],
    [
      'a name that is no subdomain',
      [hook({ name: 'Hook.example.com' })],
      [`webhooks[0].name: Invalid value: "Hook.example.com": ${DNS1123}`],
    ],
    ['duplicate names', [HOOK, HOOK], ['webhooks[1].name: Duplicate value: "hook.example.com"']],
    [
      'no sideEffects (no default in v1)',
      [hook({ sideEffects: undefined })],
      ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun'],
    ],
    [
      'sideEffects Some',
      [hook({ sideEffects: 'Some' })],
      ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ],
    ['sideEffects NoneOnDryRun', [hook({ sideEffects: 'NoneOnDryRun' })], []],
    [
      'no admissionReviewVersions (no default in v1)',
      [hook({ admissionReviewVersions: undefined })],
      ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'],
    ],
    [
      'only unknown review versions',
      [hook({ admissionReviewVersions: ['v2'] })],
      ['webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'],
    ],
    [
      'a duplicate review version',
      [hook({ admissionReviewVersions: ['v1', 'v1'] })],
      ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version'],
    ],
    ['v1beta1 and another', [hook({ admissionReviewVersions: ['v1beta1', 'v9'] })], []],
    [
      'timeout 0',
      [hook({ timeoutSeconds: 0 })],
      ['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds'],
    ],
    [
      'timeout 31',
      [hook({ timeoutSeconds: 31 })],
      ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
    ],
    ['timeout 30', [hook({ timeoutSeconds: 30 })], []],
    [
      'failurePolicy Maybe',
      [hook({ failurePolicy: 'Maybe' })],
      ['webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
    ],
    [
      'matchPolicy Fuzzy',
      [hook({ matchPolicy: 'Fuzzy' })],
      ['webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'],
    ],
    [
      'neither url nor service',
      [hook({ clientConfig: {} })],
      ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'both url and service',
      [hook({ clientConfig: { url: 'https://a.b', service: { namespace: 'n', name: 's' } } })],
      ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'an http url',
      [hook({ clientConfig: { url: 'http://example.com' } })],
      [`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`],
    ],
    [
      'a url without host',
      [hook({ clientConfig: { url: 'https:///hook' } })],
      [`webhooks[0].clientConfig.url: Invalid value: "": host must be provided${FORM}`],
    ],
    [
      'a url without scheme or host',
      [hook({ clientConfig: { url: 'example.com/hook' } })],
      [
        `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${FORM}`,
        `webhooks[0].clientConfig.url: Invalid value: "": host must be provided${FORM}`,
      ],
    ],
    [
      'a url with user info',
      [hook({ clientConfig: { url: 'https://me:pw@example.com' } })],
      ['webhooks[0].clientConfig.url: Invalid value: "me:pw": user information is not permitted in the URL'],
    ],
    [
      'a url with a fragment',
      [hook({ clientConfig: { url: 'https://example.com/x#top' } })],
      ['webhooks[0].clientConfig.url: Invalid value: "top": fragments are not permitted in the URL'],
    ],
    [
      'a url with a query',
      [hook({ clientConfig: { url: 'https://example.com/x?a=b' } })],
      ['webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL'],
    ],
    [
      'a url that does not parse',
      [hook({ clientConfig: { url: '://example.com' } })],
      [
        `webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "://example.com": missing protocol scheme${FORM}`,
      ],
    ],
    [
      'a service without name and namespace',
      [hook({ clientConfig: { service: {} } })],
      [
        'webhooks[0].clientConfig.service.name: Required value: service name is required',
        'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
      ],
    ],
    [
      'a service port of 0',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', port: 0 } } })],
      [
        'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'a service port of 65536',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', port: 65536 } } })],
      [
        'webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'a relative service path',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: 'foo' } } })],
      ['webhooks[0].clientConfig.service.path: Invalid value: "foo": must start with a \'/\''],
    ],
    [
      'a service path //',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: '//' } } })],
      ['webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty'],
    ],
    [
      'an empty segment',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: '/a//b' } } })],
      ['webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty'],
    ],
    [
      'a bad segment',
      [hook({ clientConfig: { service: { namespace: 'n', name: 's', path: '/ok/A/' } } })],
      [`webhooks[0].clientConfig.service.path: Invalid value: "/ok/A/": segment[1]: ${DNS1123}`],
    ],
    [
      'rule without operations',
      [hook({ rules: [{ ...RULE, operations: [] }] })],
      ['webhooks[0].rules[0].operations: Required value'],
    ],
    [
      "rule with '*' and another operation",
      [hook({ rules: [{ ...RULE, operations: ['*', 'CREATE'] }] })],
      [
        'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations',
      ],
    ],
    [
      'rule with an unknown operation',
      [hook({ rules: [{ ...RULE, operations: ['PATCH'] }] })],
      [
        'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      ],
    ],
    [
      'rule without groups, versions or resources',
      [hook({ rules: [{ operations: ['*'] }] })],
      [
        'webhooks[0].rules[0].apiGroups: Required value',
        'webhooks[0].rules[0].apiVersions: Required value',
        'webhooks[0].rules[0].resources: Required value',
      ],
    ],
    [
      "rule with '*' and another group",
      [hook({ rules: [{ ...RULE, apiGroups: ['*', 'apps'] }] })],
      [
        'webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
      ],
    ],
    [
      "rule with '*' and another version, and an empty one",
      [hook({ rules: [{ ...RULE, apiVersions: ['*', ''] }] })],
      [
        'webhooks[0].rules[0].apiVersions: Invalid value: []string{"*", ""}: if \'*\' is present, must not specify other API versions',
        'webhooks[0].rules[0].apiVersions[1]: Required value',
      ],
    ],
    [
      "rule with '*/*' and another resource",
      [hook({ rules: [{ ...RULE, resources: ['*/*', 'pods/status'] }] })],
      [
        'webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods/status"}: if \'*/*\' is present, must not specify other resources',
      ],
    ],
    [
      "rule with '*' and a resource",
      [hook({ rules: [{ ...RULE, resources: ['*', 'pods'] }] })],
      [
        'webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
      ],
    ],
    ["rule with '*' and a subresource", [hook({ rules: [{ ...RULE, resources: ['*', 'pods/status'] }] })], []],
    [
      "rule with 'pods/*' then 'pods/status'",
      [hook({ rules: [{ ...RULE, resources: ['pods/*', 'pods/status'] }] })],
      [
        'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status',
      ],
    ],
    [
      "rule with '*/status' then 'pods/status'",
      [hook({ rules: [{ ...RULE, resources: ['*/status', 'pods/status'] }] })],
      [
        'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'*/status\' is present, must not specify pods/status',
      ],
    ],
    [
      'rule with an empty resource',
      [hook({ rules: [{ ...RULE, resources: [''] }] })],
      ['webhooks[0].rules[0].resources[0]: Required value'],
    ],
    [
      'rule with an unknown scope',
      [hook({ rules: [{ ...RULE, scope: 'Galaxy' }] })],
      ['webhooks[0].rules[0].scope: Unsupported value: "Galaxy": supported values: "*", "Cluster", "Namespaced"'],
    ],
    [
      'a bad namespaceSelector operator',
      [hook({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } })],
      [
        'webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      ],
    ],
    [
      'an objectSelector In without values',
      [hook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })],
      [
        "webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'match conditions without name or expression',
      [hook({ matchConditions: [{ name: '', expression: '  ' }] })],
      [
        'webhooks[0].matchConditions[0].expression: Required value',
        'webhooks[0].matchConditions[0].name: Required value',
      ],
    ],
    [
      'duplicate match condition names',
      [
        hook({
          matchConditions: [
            { name: 'a', expression: 'true' },
            { name: 'a', expression: 'false' },
          ],
        }),
      ],
      ['webhooks[0].matchConditions[1].name: Duplicate value: "a"'],
    ],
    [
      'a match condition name that is no qualified name',
      [hook({ matchConditions: [{ name: 'a b', expression: 'true' }] })],
      [
        "webhooks[0].matchConditions[0].name: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      'match conditions compiled at write: request, object and authorizer, no params, a bool',
      [
        hook({
          matchConditions: [
            {
              name: 'ok',
              expression:
                "request.userInfo.username != 'x' && object.metadata.name != '' && authorizer.requestResource.check('get').allowed()",
            },
            { name: 'params', expression: 'params.x == 1' },
            { name: 'not-bool', expression: ' request.name ' },
          ],
        }),
      ],
      [
        "webhooks[0].matchConditions[1].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
        'webhooks[0].matchConditions[2].expression: Invalid value: "request.name": must evaluate to bool but got string',
      ],
    ],
    [
      '65 match conditions',
      [hook({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) })],
      ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items'],
    ],
  ];
  it.each(cases)('%s', (_name, webhooks, want) => {
    expect(
      createErrors(validatingWebhookConfigurationStrategy, config('ValidatingWebhookConfiguration', webhooks)),
    ).toEqual(want);
    expect(
      createErrors(mutatingWebhookConfigurationStrategy, config('MutatingWebhookConfiguration', webhooks)),
    ).toEqual(want);
  });

  it('reinvocationPolicy is judged for mutating webhooks only', () => {
    const webhooks = [hook({ reinvocationPolicy: 'Always' })];
    expect(
      createErrors(mutatingWebhookConfigurationStrategy, config('MutatingWebhookConfiguration', webhooks)),
    ).toEqual(['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']);
    expect(
      createErrors(validatingWebhookConfigurationStrategy, config('ValidatingWebhookConfiguration', webhooks)),
    ).toEqual([]);
  });
});

describe('webhook configuration updates are judged as the stored object allows', () => {
  const s = validatingWebhookConfigurationStrategy;
  const K = 'ValidatingWebhookConfiguration' as const;
  it.each<[string, Json[], Json[], string[]]>([
    [
      'side effects Some stay allowed when a stored webhook has them',
      [hook({ sideEffects: 'Some' })],
      [hook({ sideEffects: 'Some', timeoutSeconds: 5 })],
      [],
    ],
    [
      'side effects Some are refused when every stored webhook has none',
      [HOOK],
      [hook({ sideEffects: 'Some' })],
      ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ],
    [
      'a stored webhook with unknown sideEffects lists every class',
      [hook({ sideEffects: 'Unknown' })],
      [hook({ sideEffects: 'Sometimes' })],
      [
        'webhooks[0].sideEffects: Unsupported value: "Sometimes": supported values: "None", "NoneOnDryRun", "Some", "Unknown"',
      ],
    ],
    ['duplicate names stay when stored ones were duplicated', [HOOK, HOOK], [HOOK, HOOK], []],
    [
      'unrecognized review versions stay when stored',
      [hook({ admissionReviewVersions: ['v2'] })],
      [hook({ admissionReviewVersions: ['v3'] })],
      [],
    ],
    [
      'invalid selector values stay when stored',
      [hook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['b c'] }] } })],
      [hook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['d e'] }] } })],
      [],
    ],
    [
      'unchanged match conditions are not judged again',
      [hook({ matchConditions: [{ name: 'a b', expression: 'x' }] })],
      [hook({ matchConditions: [{ name: 'a b', expression: 'x' }], timeoutSeconds: 3 })],
      [],
    ],
    [
      'changed match conditions are',
      [hook({ matchConditions: [{ name: 'ok', expression: 'x' }] })],
      [hook({ matchConditions: [{ name: '', expression: 'x' }] })],
      [
        "webhooks[0].matchConditions[0].expression: Invalid value: \"x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^",
        'webhooks[0].matchConditions[0].name: Required value',
      ],
    ],
  ])('%s', (_name, oldHooks, newHooks, want) => {
    expect(updateErrors(s, config(K, newHooks), config(K, oldHooks))).toEqual(want);
  });

  it('refuse a PUT without resourceVersion, as kube (AllowUnconditionalUpdate false)', () => {
    expect(validatingWebhookConfigurationStrategy.update.allowUnconditional).toBe(false);
    expect(mutatingWebhookConfigurationStrategy.update.allowUnconditional).toBe(false);
  });
});

describe('webhook configuration defaults (admissionregistration/v1)', () => {
  it('fills failurePolicy, matchPolicy, selectors, timeout, reinvocationPolicy, rule scope and service port; not sideEffects nor review versions', () => {
    const obj = config('MutatingWebhookConfiguration', [
      {
        name: 'a.example.com',
        clientConfig: { service: { namespace: 'n', name: 's' } },
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
      },
    ]);
    mutatingWebhookConfigurationStrategy.canonicalize(obj, ctx);
    expect(obj['webhooks']).toEqual([
      {
        name: 'a.example.com',
        clientConfig: { service: { namespace: 'n', name: 's', port: 443 } },
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      },
    ]);
  });
  it('keeps what the client set, and gives validating webhooks no reinvocationPolicy', () => {
    const obj = config('ValidatingWebhookConfiguration', [
      hook({
        failurePolicy: 'Ignore',
        matchPolicy: 'Exact',
        timeoutSeconds: 3,
        namespaceSelector: { matchLabels: { a: 'b' } },
        rules: [{ ...RULE, scope: 'Namespaced' }],
      }),
    ]);
    validatingWebhookConfigurationStrategy.canonicalize(obj, ctx);
    const [w] = obj['webhooks'] as Json[];
    expect(w).toMatchObject({
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      timeoutSeconds: 3,
      namespaceSelector: { matchLabels: { a: 'b' } },
      objectSelector: {},
    });
    expect((w!['rules'] as Json[])[0]!['scope']).toBe('Namespaced');
    expect(w).not.toHaveProperty('reinvocationPolicy');
  });
  it('treats nulls as absent, as Go decodes them into nil pointers', () => {
    const obj = config('ValidatingWebhookConfiguration', [
      hook({
        failurePolicy: null,
        timeoutSeconds: null,
        objectSelector: null,
        clientConfig: { url: 'https://a.b.c', service: null },
      }),
    ]);
    validatingWebhookConfigurationStrategy.canonicalize(obj, ctx);
    expect(obj['webhooks']).toEqual([
      hook({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        namespaceSelector: {},
        objectSelector: {},
        clientConfig: { url: 'https://a.b.c' },
        rules: [{ ...RULE, scope: '*' }],
      }),
    ]);
    expect(runStep(validatingWebhookConfigurationStrategy.create.validate(obj, ctx))).toEqual([]);
  });
  it('omits an empty webhooks list (omitempty)', () => {
    const obj = config('ValidatingWebhookConfiguration', []);
    validatingWebhookConfigurationStrategy.canonicalize(obj, ctx);
    expect(obj).not.toHaveProperty('webhooks');
  });
});

describe("generation: a change to the webhooks (or a policy's spec) is a change of the spec", () => {
  it.each<[string, Strategy, KubeObject, KubeObject, boolean]>([
    [
      'webhooks changed',
      validatingWebhookConfigurationStrategy,
      config('ValidatingWebhookConfiguration', [HOOK]),
      config('ValidatingWebhookConfiguration', [hook({ timeoutSeconds: 5 })]),
      true,
    ],
    [
      'only labels changed',
      mutatingWebhookConfigurationStrategy,
      config('MutatingWebhookConfiguration', [HOOK]),
      { ...config('MutatingWebhookConfiguration', [HOOK]), metadata: { name: 'c', labels: { a: 'b' } } },
      false,
    ],
  ])('%s', (_name, strategy, old, obj, bumps) => {
    expect(strategy.generation?.specChanged(old, obj)).toBe(bumps);
  });
  it('every kind keeps a generation', () => {
    for (const s of [
      mutatingWebhookConfigurationStrategy,
      validatingWebhookConfigurationStrategy,
      validatingAdmissionPolicyStrategy,
      validatingAdmissionPolicyBindingStrategy,
    ]) {
      expect(s.generation).toBeDefined();
    }
  });
});

const RESOURCE_RULE = {
  operations: ['CREATE', 'UPDATE'],
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  resources: ['deployments'],
};
const POLICY_SPEC: Json = {
  matchConstraints: { resourceRules: [RESOURCE_RULE] },
  validations: [{ expression: 'object.spec.replicas <= 5' }],
};

const policy = (spec: Json | undefined, status?: Json): KubeObject =>
  clone({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec,
    ...(status ? { status } : {}),
  }) as KubeObject;
const policySpec = (patch: Json): Json => ({ ...clone(POLICY_SPEC), ...patch });

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe('ValidatingAdmissionPolicy validation', () => {
  it.each<[string, Json | undefined, string[]]>([
    ['a good policy', POLICY_SPEC, []],
    ['with a paramKind', policySpec({ paramKind: { apiVersion: 'example.com/v1', kind: 'ReplicaLimit' } }), []],
    [
      'no spec at all',
      undefined,
      [
        'spec.matchConstraints: Required value',
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ],
    ],
    [
      'matchConstraints without resourceRules',
      policySpec({ matchConstraints: {} }),
      ['spec.matchConstraints.resourceRules: Required value'],
    ],
    [
      'failurePolicy Maybe',
      policySpec({ failurePolicy: 'Maybe' }),
      ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
    ],
    [
      'matchPolicy Fuzzy',
      policySpec({ matchConstraints: { matchPolicy: 'Fuzzy', resourceRules: [RESOURCE_RULE] } }),
      ['spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'],
    ],
    [
      'a resource rule with duplicate and bad resource names',
      policySpec({ matchConstraints: { resourceRules: [{ ...RESOURCE_RULE, resourceNames: ['a', 'a', 'x/y'] }] } }),
      [
        'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"',
        'spec.matchConstraints.resourceRules[0].resourceNames[2]: Invalid value: "x/y": may not contain \'/\'',
      ],
    ],
    [
      'a bad exclude rule',
      policySpec({
        matchConstraints: {
          resourceRules: [RESOURCE_RULE],
          excludeResourceRules: [{ ...RESOURCE_RULE, operations: [] }],
        },
      }),
      ['spec.matchConstraints.excludeResourceRules[0].operations: Required value'],
    ],
    [
      'an empty paramKind',
      policySpec({ paramKind: {} }),
      ['spec.paramKind.apiVersion: Required value', 'spec.paramKind.kind: Required value'],
    ],
    [
      'a paramKind apiVersion of three parts',
      policySpec({ paramKind: { apiVersion: 'a/b/c', kind: 'K' } }),
      ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    ],
    [
      'a paramKind without version',
      policySpec({ paramKind: { apiVersion: 'example.com/', kind: 'K' } }),
      ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified'],
    ],
    [
      'a paramKind with a bad group',
      policySpec({ paramKind: { apiVersion: 'Example.com/v1', kind: 'K' } }),
      [`spec.paramKind.apiVersion: Invalid value: "Example.com": ${DNS1123}`],
    ],
    [
      'a paramKind with a bad version',
      policySpec({ paramKind: { apiVersion: 'v_1', kind: 'K' } }),
      [`spec.paramKind.apiVersion: Invalid value: "v_1": ${DNS1035}`],
    ],
    [
      'a paramKind with a bad kind',
      policySpec({ paramKind: { apiVersion: 'v1', kind: 'Config_Map' } }),
      [`spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: ${DNS1035}`],
    ],
    [
      'a validation without expression',
      policySpec({ validations: [{ expression: ' ' }] }),
      ['spec.validations[0].expression: Required value: expression is not specified'],
    ],
    [
      'a blank message',
      policySpec({ validations: [{ expression: 'true', message: '  ' }] }),
      ['spec.validations[0].message: Invalid value: "  ": message must be non-empty if specified'],
    ],
    [
      'a message with a line break',
      policySpec({ validations: [{ expression: 'true', message: 'a\nb' }] }),
      ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks'],
    ],
    [
      'a blank messageExpression',
      policySpec({ validations: [{ expression: 'true', messageExpression: ' ' }] }),
      ['spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified'],
    ],
    [
      'an unknown reason',
      policySpec({ validations: [{ expression: 'true', reason: 'Teapot' }] }),
      [
        'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      ],
    ],
    [
      'bad variables',
      policySpec({
        variables: [
          { name: '1x', expression: '' },
          { name: 'in', expression: 'true' },
          { name: ' ', expression: 'true' },
        ],
      }),
      [
        'spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier',
        'spec.variables[0].expression: Required value: expression is not specified',
        'spec.variables[1].name: Invalid value: "in": name is not a valid CEL identifier',
        'spec.variables[2].name: Required value: name is not specified',
      ],
    ],
    [
      'only auditAnnotations',
      policySpec({
        validations: undefined,
        auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
      }),
      [],
    ],
    [
      'a bad audit annotation key and no value',
      policySpec({ auditAnnotations: [{ key: 'a b', valueExpression: '' }] }),
      [
        "spec.auditAnnotations[0].key: Invalid value: \"p/a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified',
      ],
    ],
    [
      'duplicate audit annotation keys',
      policySpec({
        auditAnnotations: [
          { key: 'k', valueExpression: "'1'" },
          { key: 'k', valueExpression: "'2'" },
        ],
      }),
      ['spec.auditAnnotations[1].key: Duplicate value: "k"'],
    ],
    [
      'a too long valueExpression',
      policySpec({ auditAnnotations: [{ key: 'k', valueExpression: 'x'.repeat(5121) }] }),
      ['spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length'],
    ],
    [
      '21 audit annotations',
      policySpec({
        auditAnnotations: Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: 'null' })),
      }),
      [
        `spec.auditAnnotations: Invalid value: []admissionregistration.AuditAnnotation{${Array.from({ length: 21 }, (_, i) => `admissionregistration.AuditAnnotation{Key:"k${i}", ValueExpression:"null"}`).join(', ')}}: must not have more than 20 auditAnnotations`,
      ],
    ],
    [
      'bad match conditions',
      policySpec({
        matchConditions: [
          { name: 'a', expression: '' },
          { name: 'a', expression: 'true' },
        ],
      }),
      ['spec.matchConditions[0].expression: Required value', 'spec.matchConditions[1].name: Duplicate value: "a"'],
    ],
  ])('%s', (_name, spec, want) => {
    expect(createErrors(validatingAdmissionPolicyStrategy, policy(spec))).toEqual(want);
  });

  it('an update that leaves paramKind and matchConditions alone does not judge matchConditions again', () => {
    const stored = policySpec({ matchConditions: [{ name: 'a b', expression: 'true' }] });
    expect(
      updateErrors(
        validatingAdmissionPolicyStrategy,
        policy({ ...stored, validations: [{ expression: 'false' }] }),
        policy(stored),
      ),
    ).toEqual([]);
    expect(
      updateErrors(
        validatingAdmissionPolicyStrategy,
        policy({ ...stored, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }),
        policy(stored),
      ),
    ).toHaveLength(1);
  });

  it("compiles the expressions at write, and answers in kube's order", () => {
    const spec = policySpec({
      matchConditions: [{ name: 'm', expression: '1' }],
      variables: [{ name: 'v', expression: 'params.x' }],
      validations: [
        { expression: ' ', message: ' ' },
        { expression: 'variables.v', messageExpression: '1' },
      ],
    });
    expect(createErrors(validatingAdmissionPolicyStrategy, policy(spec))).toEqual([
      'spec.matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int',
      "spec.variables[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^",
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].message: Invalid value: " ": message must be non-empty if specified',
      // A variable that does not compile is declared dyn.
      'spec.validations[1].expression: Invalid value: "variables.v": must evaluate to bool but got dyn',
      'spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string but got int',
    ]);
  });

  it('an update compiles again all but unchanged matchConditions (with paramKind unchanged)', () => {
    const stored = policySpec({ matchConditions: [{ name: 'm', expression: '1' }] });
    expect(
      updateErrors(
        validatingAdmissionPolicyStrategy,
        policy({ ...stored, validations: [{ expression: '2' }] }),
        policy(stored),
      ),
    ).toEqual(['spec.validations[0].expression: Invalid value: "2": must evaluate to bool but got int']);
    expect(
      updateErrors(
        validatingAdmissionPolicyStrategy,
        policy({ ...stored, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }),
        policy(stored),
      ),
    ).toEqual(['spec.matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int']);
  });

  it('the status subresource judges the status only', () => {
    const stored = policy(policySpec({ validations: [{ expression: '1' }] }), {});
    const s = validatingAdmissionPolicyStrategy.subresources['status']!;
    const obj = policy(policySpec({ validations: [{ expression: '1' }] }), { observedGeneration: 1 });
    s.prepare(obj, stored, ctx);
    expect(runStep(s.validate(obj, stored, ctx))).toEqual([]);
  });

  // What the defaults fill in, judged as a request that has not been defaulted would be.
  it.each<[string, ValidatingAdmissionPolicySpec, string[]]>([
    [
      'an empty spec',
      {},
      [
        'spec.failurePolicy: Required value',
        'spec.matchConstraints: Required value',
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ],
    ],
    [
      'matchConstraints without defaults nor rules',
      { failurePolicy: 'Fail', matchConstraints: {}, validations: [{ expression: 'true' }] },
      [
        'spec.matchConstraints.matchPolicy: Required value',
        'spec.matchConstraints.namespaceSelector: Required value',
        'spec.matchConstraints.objectSelector: Required value',
        'spec.matchConstraints.resourceRules: Required value',
      ],
    ],
  ])('undefaulted: %s', (_name, spec, want) => {
    expect(validateValidatingAdmissionPolicy({ metadata: { name: 'p' }, spec }).map(formatFieldError)).toEqual(want);
  });
});

describe('ValidatingAdmissionPolicy defaults and its status', () => {
  it('defaults failurePolicy, and matchPolicy, selectors and rule scopes of matchConstraints', () => {
    const obj = policy(POLICY_SPEC);
    validatingAdmissionPolicyStrategy.canonicalize(obj, ctx);
    expect(obj['spec']).toEqual({
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ ...RESOURCE_RULE, scope: '*' }],
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    });
  });

  it('a create starts with an empty status, whatever the client sent', () => {
    const obj = policy(POLICY_SPEC, { observedGeneration: 7, conditions: [] });
    validatingAdmissionPolicyStrategy.create.prepare(obj);
    expect(obj['status']).toEqual({});
  });

  it('an update of the main resource keeps the stored status', () => {
    const stored = policy(POLICY_SPEC, { observedGeneration: 1, typeChecking: {} });
    const obj = policy(policySpec({ failurePolicy: 'Ignore' }), { observedGeneration: 99 });
    validatingAdmissionPolicyStrategy.update.prepare(obj, stored, ctx);
    expect(obj['status']).toEqual({ observedGeneration: 1, typeChecking: {} });
    expect(obj['spec']).toMatchObject({ failurePolicy: 'Ignore' });
    expect(validatingAdmissionPolicyStrategy.update.resetFields).toEqual(['status']);
    expect(validatingAdmissionPolicyStrategy.update.allowUnconditional).toBe(false);
    expect(validatingAdmissionPolicyStrategy.generation?.specChanged(stored, obj)).toBe(true);
  });

  it('a status write keeps the stored spec and takes the status', () => {
    const status = validatingAdmissionPolicyStrategy.subresources['status']!;
    const stored = policy(POLICY_SPEC, {});
    const obj = policy(policySpec({ failurePolicy: 'Ignore' }), {
      observedGeneration: 1,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'no such field' }] },
    });
    status.prepare(obj, stored, ctx);
    expect(obj['spec']).toEqual(stored['spec']);
    expect(obj['status']).toMatchObject({ observedGeneration: 1 });
    expect(status.validate(obj, stored, ctx)).toEqual([]);
    expect(status.resetFields).toEqual(['spec', 'metadata']);
  });

  it.each<[string, Json, string[]]>([
    [
      'an expression warning without text or fieldRef',
      { typeChecking: { expressionWarnings: [{ fieldRef: ' ', warning: '' }] } },
      [
        'status.typeChecking.expressionWarnings[0].warning: Required value',
        'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
      ],
    ],
    [
      'a good condition',
      {
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Checked' }],
      },
      [],
    ],
    [
      'a bad condition',
      { conditions: [{ type: 'Ready', status: 'Yes', observedGeneration: -1, reason: '1bad' }] },
      [
        'status.conditions[0].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
        'status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
        'status.conditions[0].lastTransitionTime: Required value: must be set',
        "status.conditions[0].reason: Invalid value: \"1bad\": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
      ],
    ],
    [
      'duplicate condition types without reasons',
      {
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'A' },
          { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' },
        ],
      },
      [
        'status.conditions[1].type: Duplicate value: "Ready"',
        'status.conditions[1].reason: Required value: must be set',
      ],
    ],
  ])('status validation: %s', (_name, status, want) => {
    const s = validatingAdmissionPolicyStrategy.subresources['status']!;
    expect(runStep(s.validate(policy(POLICY_SPEC, status), policy(POLICY_SPEC), ctx)).map(formatFieldError)).toEqual(
      want,
    );
  });
});

const binding = (spec: Json | undefined): KubeObject =>
  clone({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'b' },
    spec,
  }) as KubeObject;
const BINDING_SPEC: Json = { policyName: 'p', validationActions: ['Deny'] };
const bindingSpec = (patch: Json): Json => ({ ...clone(BINDING_SPEC), ...patch });

describe('ValidatingAdmissionPolicyBinding validation', () => {
  it.each<[string, Json | undefined, string[]]>([
    ['a good binding', BINDING_SPEC, []],
    [
      'with a named paramRef',
      bindingSpec({ paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }),
      [],
    ],
    [
      'with a paramRef selector',
      bindingSpec({ paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Allow' } }),
      [],
    ],
    ['with matchResources and no rules', bindingSpec({ matchResources: {} }), []],
    [
      'no spec',
      undefined,
      [
        'spec.policyName: Required value',
        'spec.validationActions: Required value: at least one validation action is required',
      ],
    ],
    ['a bad policyName', bindingSpec({ policyName: 'P_' }), [`spec.policyName: Invalid value: "P_": ${DNS1123}`]],
    [
      'no validation actions',
      bindingSpec({ validationActions: [] }),
      ['spec.validationActions: Required value: at least one validation action is required'],
    ],
    [
      'Deny and Warn',
      bindingSpec({ validationActions: ['Deny', 'Warn'] }),
      [
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    [
      'Deny twice',
      bindingSpec({ validationActions: ['Deny', 'Deny'] }),
      ['spec.validationActions[1]: Duplicate value: "Deny"'],
    ],
    [
      'an unknown action',
      bindingSpec({ validationActions: ['Block'] }),
      ['spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"'],
    ],
    [
      'an empty paramRef',
      bindingSpec({ paramRef: {} }),
      [
        'spec.paramRef: Required value: one of name or selector must be specified',
        'spec.paramRef.parameterNotFoundAction: Required value',
      ],
    ],
    [
      'a paramRef with name and selector',
      bindingSpec({ paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } }),
      [
        'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      ],
    ],
    [
      'a paramRef name with a slash',
      bindingSpec({ paramRef: { name: 'a/b', parameterNotFoundAction: 'Deny' } }),
      ['spec.paramRef.name: Invalid value: "a/b": may not contain \'/\''],
    ],
    [
      'an unknown parameterNotFoundAction',
      bindingSpec({ paramRef: { name: 'a', parameterNotFoundAction: 'Ignore' } }),
      ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"'],
    ],
    [
      "matchResources with a bad matchPolicy (at kube's misspelled path)",
      bindingSpec({ matchResources: { matchPolicy: 'Fuzzy' } }),
      ['spec.matchResouces.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'],
    ],
  ])('%s', (_name, spec, want) => {
    expect(createErrors(validatingAdmissionPolicyBindingStrategy, binding(spec))).toEqual(want);
    expect(updateErrors(validatingAdmissionPolicyBindingStrategy, binding(spec), binding(BINDING_SPEC))).toEqual(want);
  });

  it('defaults matchResources when present, and always has a spec', () => {
    const obj = binding(bindingSpec({ matchResources: { resourceRules: [RESOURCE_RULE] } }));
    validatingAdmissionPolicyBindingStrategy.canonicalize(obj, ctx);
    expect(obj['spec']).toEqual({
      ...BINDING_SPEC,
      matchResources: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ ...RESOURCE_RULE, scope: '*' }],
      },
    });
    const bare = binding(undefined);
    validatingAdmissionPolicyBindingStrategy.canonicalize(bare, ctx);
    expect(bare['spec']).toEqual({});
  });

  it("several bad validation actions at once, in kube's order", () => {
    expect(
      createErrors(
        validatingAdmissionPolicyBindingStrategy,
        binding(bindingSpec({ policyName: 'P', validationActions: ['Deny', 'Warn', 'Deny', 'Nope'] })),
      ),
    ).toEqual([
      `spec.policyName: Invalid value: "P": ${DNS1123}`,
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions[3]: Unsupported value: "Nope": supported values: "Audit", "Deny", "Warn"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", "Nope"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });
});

describe('kind infos', () => {
  it('are cluster-scoped kinds of admissionregistration.k8s.io', () => {
    expect([
      mutatingWebhookConfigurationKind,
      validatingWebhookConfigurationKind,
      validatingAdmissionPolicyKind,
      validatingAdmissionPolicyBindingKind,
    ]).toEqual([
      {
        group: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
        kind: 'MutatingWebhookConfiguration',
        listKind: 'MutatingWebhookConfigurationList',
        namespaced: false,
      },
      {
        group: 'admissionregistration.k8s.io',
        resource: 'validatingwebhookconfigurations',
        kind: 'ValidatingWebhookConfiguration',
        listKind: 'ValidatingWebhookConfigurationList',
        namespaced: false,
      },
      {
        group: 'admissionregistration.k8s.io',
        resource: 'validatingadmissionpolicies',
        kind: 'ValidatingAdmissionPolicy',
        listKind: 'ValidatingAdmissionPolicyList',
        namespaced: false,
      },
      {
        group: 'admissionregistration.k8s.io',
        resource: 'validatingadmissionpolicybindings',
        kind: 'ValidatingAdmissionPolicyBinding',
        listKind: 'ValidatingAdmissionPolicyBindingList',
        namespaced: false,
      },
    ]);
  });
  it('select on metadata.name only', () => {
    expect(validatingAdmissionPolicyStrategy.selectableFields(policy(POLICY_SPEC))).toEqual({ 'metadata.name': 'p' });
  });
});

describe('printing', () => {
  it("declares kube's columns", () => {
    expect(WEBHOOK_CONFIGURATION_COLUMNS.map((c) => [c.name, c.type])).toEqual([
      ['Webhooks', 'integer'],
      ['Age', 'string'],
    ]);
    expect(VALIDATING_ADMISSION_POLICY_COLUMNS.map((c) => [c.name, c.type])).toEqual([
      ['Validations', 'integer'],
      ['ParamKind', 'string'],
      ['Age', 'string'],
    ]);
    expect(VALIDATING_ADMISSION_POLICY_BINDING_COLUMNS.map((c) => [c.name, c.type])).toEqual([
      ['PolicyName', 'string'],
      ['ParamRef', 'string'],
      ['Age', 'string'],
    ]);
  });

  it('counts webhooks and validations', () => {
    expect(webhookCount(config('ValidatingWebhookConfiguration', [HOOK, hook({ name: 'b.example.com' })]))).toBe(2);
    expect(webhookCount(config('ValidatingWebhookConfiguration', []))).toBe(0);
    expect(validationCount(policy(POLICY_SPEC))).toBe(1);
    expect(validationCount(policy(undefined))).toBe(0);
  });

  it.each<[string, Json | undefined, string]>([
    ['no paramKind', POLICY_SPEC, '<unset>'],
    ['a paramKind', policySpec({ paramKind: { apiVersion: 'example.com/v1', kind: 'Limit' } }), 'example.com/v1/Limit'],
  ])('PARAMKIND with %s', (_name, spec, want) => {
    expect(policyParamKind(policy(spec))).toBe(want);
  });

  it.each<[string, Json, string]>([
    ['no paramRef', BINDING_SPEC, '<unset>'],
    ['a namespaced name', bindingSpec({ paramRef: { name: 'l', namespace: 'ns' } }), 'ns/l'],
    ['a name without namespace', bindingSpec({ paramRef: { name: 'l' } }), '*/l'],
    [
      'an empty selector',
      bindingSpec({ paramRef: { selector: {} } }),
      '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}',
    ],
    [
      'a selector',
      bindingSpec({
        paramRef: {
          selector: {
            matchLabels: { z: '1', a: '2' },
            matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }],
          },
        },
      }),
      '&LabelSelector{MatchLabels:map[string]string{a: 2,z: 1,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},},}',
    ],
    ['neither', bindingSpec({ paramRef: { parameterNotFoundAction: 'Deny' } }), '<unset>'],
  ])('PARAMREF with %s', (_name, spec, want) => {
    expect(bindingParamRef(binding(spec))).toBe(want);
  });

  it("prints selectors as Go's LabelSelector.String()", () => {
    expect(goLabelSelectorString({ matchExpressions: [{ key: 'k', operator: 'Exists' }] })).toBe(
      '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:Exists,Values:[],},},}',
    );
  });
});

// Lists longer than a function call takes arguments (V8 refuses a spread of about 100,000 and more
// with a RangeError): each error is appended, so the validation ends in kube's 422, not a 500.
// test/integration/api/long-lists.test.ts takes one such 422 through HTTP.
describe("lists past a call's arguments: one error each", () => {
  const M = 150_000;
  /** `{ "-f0": "v", ... }`: M label keys, each refused once. */
  const badLabels = (): Record<string, string> =>
    Object.fromEntries(Array.from({ length: M }, (_, i) => [`-f${i}`, 'v']));
  const NAME_PART_F0 =
    "Invalid value: \"-f0\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

  it("a binding's namespaceSelector of bad label keys", () => {
    const errs = createFieldErrors(
      validatingAdmissionPolicyBindingStrategy,
      binding(bindingSpec({ matchResources: { namespaceSelector: { matchLabels: badLabels() } } })),
    );
    expect(errs).toHaveLength(M);
    expect(formatFieldError(errs[0]!)).toBe(`spec.matchResouces.namespaceSelector.matchLabels: ${NAME_PART_F0}`);
  });

  it("a binding's excluded rule of unknown operations", () => {
    const excluded = { ...RULE, operations: Array<string>(M).fill('x') };
    const errs = createFieldErrors(
      validatingAdmissionPolicyBindingStrategy,
      binding(bindingSpec({ matchResources: { excludeResourceRules: [excluded] } })),
    );
    expect(errs).toHaveLength(M);
    expect(formatFieldError(errs[0]!)).toBe(
      'spec.matchResouces.excludeResourceRules[0].operations[0]: Unsupported value: "x": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    );
  });

  it("a policy's objectSelector of bad label keys", () => {
    const spec = policySpec({
      matchConstraints: { resourceRules: [RULE], objectSelector: { matchLabels: badLabels() } },
      validations: [{ expression: 'true' }],
    });
    const errs = createFieldErrors(validatingAdmissionPolicyStrategy, policy(spec));
    expect(errs).toHaveLength(M);
    expect(formatFieldError(errs[0]!)).toBe(`spec.matchConstraints.objectSelector.matchLabels: ${NAME_PART_F0}`);
  });

  it("a webhook's unnamed, empty matchConditions: past the limit and each one's two", () => {
    const webhook = hook({
      name: 'w.example.com',
      rules: undefined,
      matchConditions: Array.from({ length: M }, () => ({})),
    });
    const errs = createFieldErrors(
      validatingWebhookConfigurationStrategy,
      config('ValidatingWebhookConfiguration', [webhook]),
    );
    expect(errs).toHaveLength(1 + 2 * M);
    expect(formatFieldError(errs[0]!)).toBe(
      'webhooks[0].matchConditions: Too many: 150000: must have at most 64 items',
    );
  });
});
