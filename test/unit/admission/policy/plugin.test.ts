import { describe, expect, it } from 'vitest';
import type { Authorizer } from '../../../../apimachinery/authorization.js';
import { ApiError } from '../../../../apimachinery/errors.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import { labelSelectorFromMeta, matchesLabels } from '../../../../apimachinery/selectors/labels.js';
import type { Attributes } from '../../../../admission/interface.js';
import {
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  validatingAdmissionPolicy,
} from '../../../../admission/policy/index.js';
import { attributes } from '../webhook/attributes.js';
import { OUT_OF_BUDGET, PER_CALL_LIMIT } from '../../../../cel/kube/limits.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: a namespaced custom resource (widgets.example.com) whose spec.size a policy limits by
// a ConfigMap's data.max.

function widget(size: number, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...extra },
    spec: { size },
  };
}

function attrs(obj: KubeObject | undefined, over: Partial<Attributes> = {}): Attributes {
  const userInfo = { name: 'bob', groups: ['devs', 'system:authenticated'] };
  return attributes({
    kind: { group: 'example.com', name: 'Widget' },
    resource: { group: 'example.com', name: 'widgets' },
    name: 'w',
    object: obj,
    userInfo,
    ...over,
  });
}

type PolicySpec = ValidatingAdmissionPolicy['spec'];
type BindingSpec = ValidatingAdmissionPolicyBinding['spec'];

const widgetRules = {
  resourceRules: [
    { apiGroups: ['example.com'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] },
  ],
};

function policy(spec: Partial<PolicySpec> = {}, name = 'max-size'): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: widgetRules,
      validations: [
        {
          expression: 'object.spec.size <= int(params.data.max)',
          messageExpression: "'size ' + string(object.spec.size) + ' exceeds ' + params.data.max",
        },
      ],
      ...spec,
    },
  };
}

function binding(
  spec: Partial<BindingSpec> = {},
  name = 'max-size-binding',
  policyName = 'max-size',
): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: {
      policyName,
      paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny'],
      ...spec,
    },
  };
}

const limits: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'limits', namespace: 'default', labels: { tier: 'a' } },
  data: { max: '5' },
};
const limits2: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'limits2', namespace: 'default', labels: { tier: 'a' } },
  data: { max: '8' },
};
const namespaces: KubeObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default', labels: { env: 'prod' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { env: 'dev' } } },
];

const fakeAuthz: Authorizer = {
  authorize: (a) =>
    a.resourceRequest
      ? {
          decision: a.verb === 'get' && a.resource === 'secrets' && a.namespace === 'default' ? 'allow' : 'no-opinion',
          reason: `asked ${a.verb} ${a.apiGroup}/${a.resource}/${a.subresource} ${a.namespace}/${a.name} for ${a.user.name}`,
        }
      : { decision: a.path === '/healthz' ? 'allow' : 'deny', reason: `path ${a.path}` },
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
};

interface Outcome {
  error?: ApiError;
  warnings: string[];
  annotations: Record<string, string>;
}

async function run(
  policies: KubeObject[],
  bindings: KubeObject[],
  a: Attributes,
  o: { params?: KubeObject[]; budget?: number } = {},
): Promise<Outcome> {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const plugin = validatingAdmissionPolicy({
    policies: () => policies,
    bindings: () => bindings,
    params: async (kind, namespace, lookup) => {
      const all = (o.params ?? [limits]).filter(
        (p) => p.kind === kind.kind && (p.metadata.namespace ?? '') === namespace,
      );
      if ('name' in lookup) return all.filter((p) => p.metadata.name === lookup.name);
      const sel = labelSelectorFromMeta(lookup.selector);
      return all.filter((p) => matchesLabels(sel, p.metadata.labels));
    },
    namespace: async (name) => namespaces.find((n) => n.metadata.name === name),
    authorizer: fakeAuthz,
    warn: (_a, t) => warnings.push(t),
    annotate: (_a, k, v) => {
      annotations[k] = v;
    },
    budget: o.budget,
  });
  try {
    await plugin.validate!(a);
    return { warnings, annotations };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { error: e, warnings, annotations };
  }
}

const P = "ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding' denied request: ";
const forbiddenPrefix = 'widgets.example.com "w" is forbidden: ';

interface Case {
  name: string;
  policies?: KubeObject[];
  bindings?: KubeObject[];
  attrs?: Attributes;
  params?: KubeObject[];
  budget?: number;
  /** The denial's message after `ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding' denied request: `, or a full message. */
  denied?: string;
  fullMessage?: string;
  code?: number;
  reason?: string;
  warnings?: string[];
  annotations?: Record<string, string>;
}

const hostile =
  '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))';

/** An expression that fails: under failurePolicy Fail the request is denied with `denied`; under Ignore admitted. */
const failingExpression = (name: string, expression: string, denied: string): Case[] => [
  {
    name: `${name}, failurePolicy Fail: denied`,
    policies: [policy({ validations: [{ expression }] })],
    attrs: attrs(widget(1)),
    denied,
  },
  {
    name: `${name}, failurePolicy Ignore: admitted`,
    policies: [policy({ failurePolicy: 'Ignore', validations: [{ expression }] })],
    attrs: attrs(widget(1)),
  },
];

/** Validates big widgets only: a matchCondition reading a variable. */
const bigOnly = policy({
  paramKind: undefined,
  variables: [{ name: 'big', expression: 'object.spec.size > 5' }],
  matchConditions: [{ name: 'big', expression: 'variables.big' }],
  validations: [{ expression: 'false', message: 'too big' }],
});

const cases: Case[] = [
  { name: 'within the param limit: admitted', attrs: attrs(widget(3)) },
  {
    name: 'over the limit, Deny: 422 with the messageExpression',
    attrs: attrs(widget(10)),
    denied: 'size 10 exceeds 5',
    code: 422,
    reason: 'Invalid',
  },
  {
    name: 'over the limit, Warn: admitted with kube warning',
    bindings: [binding({ validationActions: ['Warn'] })],
    attrs: attrs(widget(10)),
    warnings: [
      "Validation failed for ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding': size 10 exceeds 5",
    ],
  },
  {
    name: 'over the limit, Audit: validation_failure annotation',
    bindings: [binding({ validationActions: ['Audit'] })],
    attrs: attrs(widget(10)),
    annotations: {
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"message":"size 10 exceeds 5","policy":"max-size","binding":"max-size-binding","expressionIndex":0,"validationActions":["Audit"]}]',
    },
  },
  {
    name: 'Deny and Audit together',
    bindings: [binding({ validationActions: ['Deny', 'Audit'] })],
    attrs: attrs(widget(10)),
    denied: 'size 10 exceeds 5',
    annotations: {
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"message":"size 10 exceeds 5","policy":"max-size","binding":"max-size-binding","expressionIndex":0,"validationActions":["Deny","Audit"]}]',
    },
  },
  {
    name: 'missing param, parameterNotFoundAction Allow: admitted',
    params: [],
    bindings: [binding({ paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } })],
    attrs: attrs(widget(10)),
  },
  {
    name: 'missing param, parameterNotFoundAction Deny: denied',
    params: [],
    attrs: attrs(widget(10)),
    denied: 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
    code: 422,
  },
  {
    name: 'missing param under Deny, failurePolicy Ignore: admitted',
    policies: [policy({ failurePolicy: 'Ignore' })],
    params: [],
    attrs: attrs(widget(10)),
  },
  {
    name: 'param in another namespace by paramRef.namespace',
    params: [{ ...limits, metadata: { ...limits.metadata, namespace: 'dev' } }],
    bindings: [binding({ paramRef: { name: 'limits', namespace: 'dev', parameterNotFoundAction: 'Deny' } })],
    attrs: attrs(widget(10)),
    denied: 'size 10 exceeds 5',
  },
  {
    name: 'params by selector: every param validated, the first denial answers',
    params: [limits, limits2],
    bindings: [binding({ paramRef: { selector: { matchLabels: { tier: 'a' } }, parameterNotFoundAction: 'Deny' } })],
    attrs: attrs(widget(7)),
    denied: 'size 7 exceeds 5',
  },
  {
    name: 'namespaced param for a cluster-scoped resource without paramRef.namespace',
    policies: [
      policy({
        matchConstraints: {
          resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }],
        },
      }),
    ],
    attrs: attrs(
      { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } },
      {
        namespace: '',
        name: 'g',
        kind: { group: 'example.com', name: 'Gadget' },
        resource: { group: 'example.com', name: 'gadgets' },
      },
    ),
    fullMessage: `gadgets.example.com "g" is forbidden: ${P}failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources`,
  },
  ...failingExpression(
    'compile error',
    "object.spec.size <= 1 + 'a'",
    "compilation error: compilation failed: ERROR: <input>:1:23: found no matching overload for '_+_' applied to '(int, string)'\n | object.spec.size <= 1 + 'a'\n | ......................^",
  ),
  {
    name: 'expression of the wrong type',
    policies: [policy({ validations: [{ expression: 'object.spec.size + 1' }] })],
    attrs: attrs(widget(1)),
    denied: 'compilation error: must evaluate to bool but got int',
  },
  ...failingExpression(
    'runtime error',
    'object.spec.missing > 1',
    "expression 'object.spec.missing > 1' resulted in error: no such key: missing",
  ),
  ...failingExpression(
    'hostile expression over the per-call limit (kube error, not a hang)',
    hostile,
    `expression '${hostile}' resulted in error: operation cancelled: actual cost limit exceeded`,
  ),
  {
    name: 'hostile expression under Warn: the error is the warning',
    bindings: [binding({ validationActions: ['Warn'] })],
    policies: [policy({ validations: [{ expression: hostile }] })],
    attrs: attrs(widget(1)),
    warnings: [
      `Validation failed for ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding': expression '${hostile}' resulted in error: operation cancelled: actual cost limit exceeded`,
    ],
  },
  {
    name: 'the request budget runs out',
    policies: [
      policy({ validations: [{ expression: '[1,2,3].all(x, x > 0)' }, { expression: '[1,2,3].all(x, x > 0)' }] }),
    ],
    budget: 30,
    attrs: attrs(widget(1)),
    denied: 'validation failed due to running out of cost budget, no further validation rules will be run',
  },
  {
    name: 'static message',
    policies: [policy({ validations: [{ expression: 'object.spec.size < 2', message: '  too big  ' }] })],
    attrs: attrs(widget(3)),
    denied: 'too big',
  },
  {
    name: 'no message: failed expression',
    policies: [policy({ validations: [{ expression: ' object.spec.size < 2 ' }] })],
    attrs: attrs(widget(3)),
    denied: 'failed expression: object.spec.size < 2',
  },
  {
    name: 'messageExpression erroring falls back to message',
    policies: [
      policy({
        validations: [
          { expression: 'object.spec.size < 2', message: 'fallback', messageExpression: 'object.spec.nope' },
        ],
      }),
    ],
    attrs: attrs(widget(3)),
    denied: 'fallback',
  },
  {
    name: 'reason Forbidden → 403',
    policies: [policy({ validations: [{ expression: 'false', reason: 'Forbidden' }] })],
    attrs: attrs(widget(3)),
    denied: 'failed expression: false',
    code: 403,
    reason: 'Forbidden',
  },
  {
    name: 'reason RequestEntityTooLarge → 413',
    policies: [policy({ validations: [{ expression: 'false', reason: 'RequestEntityTooLarge' }] })],
    attrs: attrs(widget(3)),
    code: 413,
    reason: 'RequestEntityTooLarge',
    denied: 'failed expression: false',
  },
  {
    name: 'reason Unauthorized → 401',
    policies: [policy({ validations: [{ expression: 'false', reason: 'Unauthorized' }] })],
    attrs: attrs(widget(3)),
    code: 401,
    reason: 'Unauthorized',
    denied: 'failed expression: false',
  },
  {
    name: 'the policy kinds are exempt',
    policies: [
      policy({
        matchConstraints: {
          resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }],
        },
        validations: [{ expression: 'false' }],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(policy(), {
      namespace: '',
      name: 'max-size',
      kind: { group: 'admissionregistration.k8s.io', name: 'ValidatingAdmissionPolicy' },
      resource: { group: 'admissionregistration.k8s.io', name: 'validatingadmissionpolicies' },
    }),
  },
  {
    name: 'other resources do not match',
    attrs: attrs(widget(10), { resource: { group: 'example.com', name: 'gizmos' } }),
  },
  { name: 'DELETE not in operations', attrs: attrs(undefined, { operation: 'DELETE', oldObject: widget(10) }) },
  {
    name: 'excludeResourceRules',
    policies: [
      policy({
        matchConstraints: {
          ...widgetRules,
          excludeResourceRules: [
            {
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              operations: ['*'],
              resources: ['widgets'],
              resourceNames: ['w'],
            },
          ],
        },
      }),
    ],
    attrs: attrs(widget(10)),
  },
  {
    name: 'resourceNames not matching',
    policies: [
      policy({ matchConstraints: { resourceRules: [{ ...widgetRules.resourceRules[0]!, resourceNames: ['other'] }] } }),
    ],
    attrs: attrs(widget(10)),
  },
  {
    name: 'scope Cluster does not match a namespaced request',
    policies: [
      policy({ matchConstraints: { resourceRules: [{ ...widgetRules.resourceRules[0]!, scope: 'Cluster' }] } }),
    ],
    attrs: attrs(widget(10)),
  },
  {
    name: 'namespaceSelector matches',
    policies: [policy({ matchConstraints: { ...widgetRules, namespaceSelector: { matchLabels: { env: 'prod' } } } })],
    attrs: attrs(widget(10)),
    denied: 'size 10 exceeds 5',
  },
  {
    name: 'namespaceSelector does not match',
    policies: [policy({ matchConstraints: { ...widgetRules, namespaceSelector: { matchLabels: { env: 'dev' } } } })],
    attrs: attrs(widget(10)),
  },
  {
    name: 'objectSelector does not match',
    policies: [policy({ matchConstraints: { ...widgetRules, objectSelector: { matchLabels: { checked: 'yes' } } } })],
    attrs: attrs(widget(10)),
  },
  {
    name: 'objectSelector matches',
    policies: [policy({ matchConstraints: { ...widgetRules, objectSelector: { matchLabels: { checked: 'yes' } } } })],
    attrs: attrs(widget(10, { labels: { checked: 'yes' } })),
    denied: 'size 10 exceeds 5',
  },
  {
    name: 'binding matchResources narrows',
    bindings: [binding({ matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } } } })],
    attrs: attrs(widget(10)),
  },
  { name: 'binding for another policy', bindings: [binding({}, 'b', 'other')], attrs: attrs(widget(10)) },
  {
    name: 'matchConditions false: skipped',
    policies: [policy({ matchConditions: [{ name: 'big', expression: 'object.spec.size > 100' }] })],
    attrs: attrs(widget(10)),
  },
  {
    name: 'matchConditions true: validated',
    policies: [policy({ matchConditions: [{ name: 'small', expression: 'object.spec.size < 100' }] })],
    attrs: attrs(widget(10)),
    denied: 'size 10 exceeds 5',
  },
  {
    name: 'matchConditions error under Fail',
    policies: [policy({ matchConditions: [{ name: 'bad', expression: 'object.spec.nope == 1' }] })],
    attrs: attrs(widget(10)),
    denied: "expression 'object.spec.nope == 1' resulted in error: no such key: nope",
  },
  {
    // kube's matcher is given no namespace.
    name: 'matchConditions see no namespaceObject, validations do',
    policies: [
      policy({
        paramKind: undefined,
        matchConditions: [{ name: 'ns', expression: 'namespaceObject == null' }],
        validations: [{ expression: 'namespaceObject == null', message: 'has a namespace' }],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(1)),
    denied: 'has a namespace',
  },
  {
    name: "matchConditions read the policy's variables",
    policies: [bigOnly],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(6)),
    denied: 'too big',
  },
  {
    name: "matchConditions read the policy's variables (not matching)",
    policies: [bigOnly],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
  },
  {
    name: 'variables: lazily evaluated, composed',
    policies: [
      policy({
        paramKind: undefined,
        variables: [
          { name: 'unused', expression: 'object.spec.nope' },
          { name: 'size', expression: 'object.spec.size' },
          { name: 'double', expression: 'variables.size * 2' },
        ],
        validations: [
          { expression: 'variables.double < 10', messageExpression: "'double is ' + string(variables.double)" },
        ],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(6)),
    denied: 'double is 12',
  },
  {
    name: 'a variable that errors fails the expression reading it',
    policies: [
      policy({
        paramKind: undefined,
        variables: [{ name: 'bad', expression: 'object.spec.nope' }],
        validations: [{ expression: 'variables.bad == 1' }],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(6)),
    denied:
      'expression \'variables.bad == 1\' resulted in error: composited variable "bad" fails to evaluate: no such key: nope',
  },
  {
    name: 'request, namespaceObject, oldObject',
    policies: [
      policy({
        paramKind: undefined,
        matchConstraints: { resourceRules: [{ ...widgetRules.resourceRules[0]!, operations: ['*'] }] },
        validations: [
          {
            expression:
              "request.operation == 'UPDATE' && request.userInfo.username == 'bob' && 'devs' in request.userInfo.groups && request.kind.kind == 'Widget' && request.resource.version == 'v1' && request.namespace == 'default' && namespaceObject.metadata.labels.env == 'prod' && namespaceObject.status.phase == 'Active' && oldObject.spec.size == 1 && object.spec.size == 2 && request.dryRun == false",
          },
        ],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2), { operation: 'UPDATE', oldObject: widget(1) }),
  },
  {
    name: 'authorizer',
    policies: [
      policy({
        paramKind: undefined,
        validations: [
          {
            expression:
              "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()",
          },
          { expression: "!authorizer.group('').resource('secrets').namespace('dev').check('get').allowed()" },
          { expression: "authorizer.path('/healthz').check('get').allowed()" },
        ],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
  },
  {
    name: 'authorizer reason, requestResource and serviceAccount',
    policies: [
      policy({
        paramKind: undefined,
        validations: [
          {
            expression:
              "authorizer.requestResource.check('create').reason() == 'asked create example.com/widgets/ default/w for bob'",
          },
          {
            expression:
              "authorizer.serviceAccount('kube-system', 'ctrl').group('apps').resource('deployments').subresource('scale').name('d').check('update').reason() == 'asked update apps/deployments/scale /d for system:serviceaccount:kube-system:ctrl'",
            message: 'sa',
          },
        ],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
  },
  {
    name: 'auditAnnotations published as policy/key',
    policies: [
      policy({
        paramKind: undefined,
        validations: undefined,
        auditAnnotations: [
          { key: 'size', valueExpression: "'size=' + string(object.spec.size)" },
          { key: 'none', valueExpression: 'null' },
        ],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
    annotations: { 'max-size/size': 'size=2' },
  },
  {
    name: 'auditAnnotation error under Fail denies',
    policies: [
      policy({
        paramKind: undefined,
        validations: undefined,
        auditAnnotations: [{ key: 'bad', valueExpression: 'string(object.spec.nope)' }],
      }),
    ],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
    denied: "expression 'string(object.spec.nope)' resulted in error: no such key: nope",
  },
  {
    name: 'params undeclared without paramKind',
    policies: [policy({ paramKind: undefined })],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
    denied:
      "compilation error: compilation failed: ERROR: <input>:1:25: undeclared reference to 'params' (in container '')\n | object.spec.size <= int(params.data.max)\n | ........................^",
  },
  {
    name: 'paramKind without paramRef: params is null',
    policies: [policy({ validations: [{ expression: 'params == null' }] })],
    bindings: [binding({ paramRef: undefined })],
    attrs: attrs(widget(2)),
  },
  {
    name: 'generated name in the denial',
    attrs: attrs({ ...widget(10), metadata: { generateName: 'w-', namespace: 'default' } }, { name: '' }),
    fullMessage: `widgets.example.com "w-" is forbidden: ${P}size 10 exceeds 5`,
  },
];

describe('ValidatingAdmissionPolicy plugin', () => {
  it.each(cases)('$name', async (c) => {
    const out = await run(c.policies ?? [policy()], c.bindings ?? [binding()], c.attrs ?? attrs(widget(1)), {
      params: c.params,
      budget: c.budget,
    });
    if (c.denied === undefined && c.fullMessage === undefined) {
      expect(out.error?.message).toBeUndefined();
    } else {
      expect(out.error).toBeDefined();
      const full = c.fullMessage ?? `${forbiddenPrefix}${P}${c.denied}`;
      expect(out.error!.message).toBe(full);
      expect(out.error!.code).toBe(c.code ?? (c.reason === 'Forbidden' ? 403 : 422));
      expect(out.error!.status.reason).toBe(c.reason ?? 'Invalid');
      expect(out.error!.status.details?.causes?.[0]?.message).toBe(
        full.slice(full.indexOf('ValidatingAdmissionPolicy ')),
      );
    }
    expect(out.warnings).toEqual(c.warnings ?? []);
    expect(out.annotations).toEqual(c.annotations ?? {});
  });

  it('status shape of a denial', async () => {
    const out = await run([policy()], [binding()], attrs(widget(10)));
    expect(out.error!.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `${forbiddenPrefix}${P}size 10 exceeds 5`,
      reason: 'Invalid',
      details: { name: 'w', group: 'example.com', kind: 'widgets', causes: [{ message: `${P}size 10 exceeds 5` }] },
      code: 422,
    });
  });

  it('the first denial wins, in policy then binding order', async () => {
    const out = await run(
      [
        policy({ validations: [{ expression: 'false', message: 'from b' }] }, 'b-policy'),
        policy({ validations: [{ expression: 'false', message: 'from a' }] }, 'a-policy'),
      ],
      [binding({}, 'x', 'b-policy'), binding({}, 'y', 'a-policy')],
      attrs(widget(1)),
    );
    expect(out.error!.message).toBe(
      `${forbiddenPrefix}ValidatingAdmissionPolicy 'a-policy' with binding 'y' denied request: from a`,
    );
  });

  // The per-call limit cancels the expression where it passes 1,000,000, not at the end of the
  // 25,000,000 iterations: a set budget only just over the limit still covers what was charged,
  // so the answer is the per-call cancellation, not the budget's refusal (an evaluator that
  // charged the whole loop would run out of that budget).
  it('a hostile object is cancelled at the per-call limit, charged no more than the limit', async () => {
    const big = widget(1);
    (big.spec as Record<string, unknown>).items = Array.from({ length: 5000 }, (_, i) => i);
    const hostile = [
      policy({
        paramKind: undefined,
        validations: [{ expression: 'object.spec.items.all(x, object.spec.items.all(y, x + y >= 0))' }],
      }),
    ];
    const out = await run(hostile, [binding({ paramRef: undefined })], attrs(big), {
      budget: Number(PER_CALL_LIMIT) + 100,
    });
    expect(out.error!.message).toContain('resulted in error: operation cancelled: actual cost limit exceeded');
    // One unit of budget fewer than the limit itself: now the set's budget is what refuses.
    const short = await run(hostile, [binding({ paramRef: undefined })], attrs(big), {
      budget: Number(PER_CALL_LIMIT) - 1,
    });
    expect(short.error!.message).toContain(OUT_OF_BUDGET);
  });

  it('compiles a policy once per version', async () => {
    const p = policy();
    const plugin = validatingAdmissionPolicy({
      policies: () => [p],
      bindings: () => [binding()],
      params: async () => [limits],
      namespace: async (n) => namespaces.find((x) => x.metadata.name === n),
    });
    expect(plugin.compiled(p)).toBe(plugin.compiled(p));
    expect(plugin.compiled(p)).not.toBe(plugin.compiled({ ...p, spec: { ...p.spec, failurePolicy: 'Ignore' } }));
  });
});

describe('variables and cost', () => {
  // ~135,000 cost units: under the per-call limit once, over it nine times.
  const costly =
    '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, a + b + c + d > 0))))';
  const nine = <T>(x: T): T[] => Array.from({ length: 9 }, () => x);

  it('a variable read twice is evaluated once, its cost apart from the expression', async () => {
    const p = policy({
      paramKind: undefined,
      variables: [{ name: 'v', expression: costly }],
      validations: [{ expression: nine('variables.v').join(' && '), message: 'no' }],
    });
    const out = await run([p], [binding({ paramRef: undefined })], attrs(widget(1)));
    expect(out.error).toBeUndefined();
  });

  it('the same work inline exceeds the per-call limit', async () => {
    const p = policy({ paramKind: undefined, validations: [{ expression: nine(costly).join(' && ') }] });
    const out = await run([p], [binding({ paramRef: undefined })], attrs(widget(1)));
    expect(out.error!.message).toContain('resulted in error: operation cancelled: actual cost limit exceeded');
  });

  it('variables count against the request budget', async () => {
    const p = policy({
      paramKind: undefined,
      variables: [{ name: 'v', expression: '[1,2,3].all(x, x > 0)' }],
      validations: [{ expression: 'variables.v' }],
    });
    const out = await run([p], [binding({ paramRef: undefined })], attrs(widget(1)), { budget: 5 });
    expect(out.error!.message).toBe(
      `${forbiddenPrefix}${P}validation failed due to running out of cost budget, no further validation rules will be run`,
    );
  });

  it('warnings and annotations through the Attributes hooks', async () => {
    const warnings: string[] = [];
    const notes: string[] = [];
    const plugin = validatingAdmissionPolicy({
      policies: () => [policy({ auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] })],
      bindings: () => [binding({ validationActions: ['Warn'] })],
      params: async () => [limits],
      namespace: async (n) => namespaces.find((x) => x.metadata.name === n),
    });
    await plugin.validate!({
      ...attrs(widget(10)),
      warn: (t: string) => warnings.push(t),
      annotate: (k: string, v: string) => notes.push(`${k}=${v}`),
    } as Attributes);
    expect(warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding': size 10 exceeds 5",
    ]);
    expect(notes).toEqual(['max-size/k=v']);
  });
});
