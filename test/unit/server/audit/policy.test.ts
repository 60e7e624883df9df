import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../../apimachinery/authorization.js';
import {
  type AuditPolicy,
  type PolicyRule,
  AuditPolicyError,
  loadPolicyFile,
  newPolicyEvaluator,
  parsePolicy,
  validatePolicy,
} from '../../../../server/audit/policy.js';

function attrs(over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
    verb: 'get',
    resourceRequest: true,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'default',
    name: 'web',
    path: '/api/v1/namespaces/default/pods/web',
    ...over,
  };
}

const nonResource = (path: string, verb = 'get'): AuthorizationAttributes =>
  attrs({ resourceRequest: false, path, verb, apiVersion: '', resource: '', namespace: '', name: '' });

const policy = (rules: PolicyRule[], extra: Partial<AuditPolicy> = {}): AuditPolicy => ({
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  rules,
  ...extra,
});

// One rule per case, as kube's checker_test: does it match the request?
describe('rule matching', () => {
  const cases: [string, PolicyRule, AuthorizationAttributes, boolean][] = [
    ['empty rule matches all', { level: 'Metadata' }, attrs(), true],
    ['users match', { level: 'Metadata', users: ['alice'] }, attrs(), true],
    ['users miss', { level: 'Metadata', users: ['bob'] }, attrs(), false],
    ['userGroups match any', { level: 'Metadata', userGroups: ['ops', 'devs'] }, attrs(), true],
    ['userGroups miss', { level: 'Metadata', userGroups: ['ops'] }, attrs(), false],
    ['verbs match', { level: 'Metadata', verbs: ['get', 'list'] }, attrs(), true],
    ['verbs miss', { level: 'Metadata', verbs: ['create'] }, attrs(), false],
    ['namespace match', { level: 'Metadata', namespaces: ['default'] }, attrs(), true],
    ['namespace miss', { level: 'Metadata', namespaces: ['kube-system'] }, attrs(), false],
    [
      'cluster-scoped is namespace ""',
      { level: 'Metadata', namespaces: [''] },
      attrs({ namespace: '', resource: 'namespaces' }),
      true,
    ],
    ['namespaces never match non-resource', { level: 'Metadata', namespaces: [''] }, nonResource('/healthz'), false],
    ['group only', { level: 'Metadata', resources: [{ group: '' }] }, attrs(), true],
    ['group miss', { level: 'Metadata', resources: [{ group: 'apps' }] }, attrs(), false],
    ['resource match', { level: 'Metadata', resources: [{ resources: ['pods'] }] }, attrs(), true],
    [
      'resource does not match its subresource',
      { level: 'Metadata', resources: [{ resources: ['pods'] }] },
      attrs({ subresource: 'log' }),
      false,
    ],
    [
      'resource/subresource',
      { level: 'Metadata', resources: [{ resources: ['pods/log'] }] },
      attrs({ subresource: 'log' }),
      true,
    ],
    ['resource/subresource miss', { level: 'Metadata', resources: [{ resources: ['pods/log'] }] }, attrs(), false],
    [
      '*/status',
      { level: 'Metadata', resources: [{ resources: ['*/status'] }] },
      attrs({ subresource: 'status' }),
      true,
    ],
    ['*/status miss on main resource', { level: 'Metadata', resources: [{ resources: ['*/status'] }] }, attrs(), false],
    [
      'pods/* matches subresources',
      { level: 'Metadata', resources: [{ resources: ['pods/*'] }] },
      attrs({ subresource: 'exec' }),
      true,
    ],
    ['pods/* matches main resource', { level: 'Metadata', resources: [{ resources: ['pods/*'] }] }, attrs(), true],
    [
      '* matches everything in the group',
      { level: 'Metadata', resources: [{ resources: ['*'] }] },
      attrs({ subresource: 'log' }),
      true,
    ],
    [
      'resourceNames match',
      { level: 'Metadata', resources: [{ resources: ['pods'], resourceNames: ['web'] }] },
      attrs(),
      true,
    ],
    [
      'resourceNames miss',
      { level: 'Metadata', resources: [{ resources: ['pods'], resourceNames: ['db'] }] },
      attrs(),
      false,
    ],
    [
      'resourceNames miss on list',
      { level: 'Metadata', resources: [{ resources: ['pods'], resourceNames: ['web'] }] },
      attrs({ name: '', verb: 'list' }),
      false,
    ],
    [
      'custom group',
      { level: 'Metadata', resources: [{ group: 'example.com', resources: ['widgets'] }] },
      attrs({ apiGroup: 'example.com', resource: 'widgets' }),
      true,
    ],
    [
      'resources never match non-resource',
      { level: 'Metadata', resources: [{ group: '' }] },
      nonResource('/api'),
      false,
    ],
    ['nonResourceURLs exact', { level: 'Metadata', nonResourceURLs: ['/healthz'] }, nonResource('/healthz'), true],
    [
      'nonResourceURLs prefix*',
      { level: 'Metadata', nonResourceURLs: ['/healthz*'] },
      nonResource('/healthz/etcd'),
      true,
    ],
    ['nonResourceURLs *', { level: 'Metadata', nonResourceURLs: ['*'] }, nonResource('/version'), true],
    ['nonResourceURLs miss', { level: 'Metadata', nonResourceURLs: ['/healthz'] }, nonResource('/healthz/etcd'), false],
    ['nonResourceURLs never match resources', { level: 'Metadata', nonResourceURLs: ['*'] }, attrs(), false],
    [
      'all conditions',
      {
        level: 'Metadata',
        users: ['alice'],
        verbs: ['get'],
        namespaces: ['default'],
        resources: [{ resources: ['pods'] }],
      },
      attrs(),
      true,
    ],
  ];
  it.each(cases)('%s', (_name, rule, a, want) => {
    const level = newPolicyEvaluator(policy([rule])).evaluate(a).level;
    expect(level).toBe(want ? 'Metadata' : 'None');
  });
});

describe('policy evaluation', () => {
  it('takes the first matching rule and defaults to None with the policy omitStages', () => {
    const ev = newPolicyEvaluator(
      policy(
        [
          { level: 'None', users: ['system:kube-proxy'] },
          {
            level: 'RequestResponse',
            resources: [{ group: '', resources: ['secrets'] }],
            omitStages: ['ResponseStarted'],
          },
          { level: 'Metadata', resources: [{ group: '' }] },
        ],
        { omitStages: ['RequestReceived'] },
      ),
    );
    expect(ev.evaluate(attrs({ user: { name: 'system:kube-proxy', groups: [] } }))).toEqual({
      level: 'None',
      omitStages: ['RequestReceived'],
      omitManagedFields: false,
    });
    const secrets = ev.evaluate(attrs({ resource: 'secrets' }));
    expect(secrets.level).toBe('RequestResponse');
    expect([...secrets.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(ev.evaluate(attrs()).level).toBe('Metadata');
    expect(ev.evaluate(attrs({ apiGroup: 'apps', resource: 'deployments' }))).toEqual({
      level: 'None',
      omitStages: ['RequestReceived'],
      omitManagedFields: false,
    });
  });

  it('takes omitManagedFields from the rule, else the policy', () => {
    const ev = newPolicyEvaluator(
      policy(
        [
          { level: 'Request', verbs: ['create'], omitManagedFields: false },
          { level: 'Request', verbs: ['update'] },
        ],
        { omitManagedFields: true },
      ),
    );
    expect(ev.evaluate(attrs({ verb: 'create' })).omitManagedFields).toBe(false);
    expect(ev.evaluate(attrs({ verb: 'update' })).omitManagedFields).toBe(true);
    expect(ev.evaluate(attrs({ verb: 'get' })).omitManagedFields).toBe(true);
  });
});

describe('validation', () => {
  const cases: [string, AuditPolicy, string[]][] = [
    ['valid', policy([{ level: 'Metadata' }]), []],
    ['level required', policy([{ level: '' }]), ['rules[0].level: Required value']],
    [
      'level unsupported',
      policy([{ level: 'Everything' }]),
      [
        'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
      ],
    ],
    [
      'url without slash',
      policy([{ level: 'None', nonResourceURLs: ['healthz'] }]),
      [
        'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character',
      ],
    ],
    [
      'url wildcard inside',
      policy([{ level: 'None', nonResourceURLs: ['/a*/b'] }]),
      [
        'rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards \'*\' must be the final character of the rule',
      ],
    ],
    [
      'both kinds',
      policy([{ level: 'None', nonResourceURLs: ['/a'], namespaces: ['x'] }]),
      [
        'rules[0].nonResourceURLs: Invalid value: ["/a"]: rules cannot apply to both regular resources and non-resource URLs',
      ],
    ],
    [
      'group with version',
      policy([{ level: 'None', resources: [{ group: 'rbac.authorization.k8s.io/v1' }] }]),
      [
        "rules[0].resources.group: Invalid value: \"rbac.authorization.k8s.io/v1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'resourceNames without resources',
      policy([{ level: 'None', resources: [{ resourceNames: ['x'] }] }]),
      ['rules[0].resources.resourceNames: Invalid value: ["x"]: using resourceNames requires at least one resource'],
    ],
    [
      'rule omitStages',
      policy([{ level: 'None', omitStages: ['Started'] }]),
      [
        'rules[0].omitStages[0]: Invalid value: "Started": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
      ],
    ],
    [
      'policy omitStages',
      policy([{ level: 'None' }], { omitStages: ['Nope'] }),
      [
        'omitStages[0]: Invalid value: "Nope": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
      ],
    ],
  ];
  it.each(cases)('%s', async (_name, p, want) => {
    const { formatFieldError } = await import('../../../../apimachinery/field-errors.js');
    expect(validatePolicy(p).map(formatFieldError)).toEqual(want);
  });
});

describe('parsing and loading', () => {
  const ok = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods/log", "*/status"]
  - level: Metadata
    omitManagedFields: true
`;

  it('reads YAML and JSON', () => {
    const p = parsePolicy(ok);
    expect(p.rules).toHaveLength(3);
    expect(p.omitStages).toEqual(['RequestReceived']);
    expect(p.rules[1]!.resources).toEqual([{ group: '', resources: ['pods/log', '*/status'] }]);
    expect(p.rules[2]!.omitManagedFields).toBe(true);
    const j = parsePolicy(
      JSON.stringify({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        rules: [{ level: 'Metadata', unknownField: 1 }],
      }),
    );
    expect(j.rules).toEqual([{ level: 'Metadata' }]);
  });

  const bad: [string, string, string][] = [
    [
      'v1beta1 is gone',
      'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: Metadata}]',
      'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1"',
    ],
    [
      'wrong kind',
      'apiVersion: audit.k8s.io/v1\nkind: Event\nrules: [{level: Metadata}]',
      'failed decoding: no kind "Event" is registered for version "audit.k8s.io/v1"',
    ],
    ['no kind', 'apiVersion: audit.k8s.io/v1\nrules: []', "failed decoding: Object 'Kind' is missing in"],
    ['no rules', 'apiVersion: audit.k8s.io/v1\nkind: Policy\n', 'loaded illegal policy with 0 rules'],
    [
      'wrong type',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: {level: None}',
      'failed decoding: json: cannot unmarshal object into Go struct field Policy.rules of type []v1.PolicyRule',
    ],
    [
      'wrong element type',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, verbs: get}]',
      'failed decoding: json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string',
    ],
    [
      'bad YAML',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [',
      'failed decoding: error converting YAML to JSON',
    ],
    [
      'several errors aggregate',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{}, {level: Bad}]',
      '[rules[0].level: Required value, rules[1].level: Unsupported value: "Bad"',
    ],
  ];
  it.each(bad)('%s', (_name, text, want) => {
    let err: unknown;
    try {
      parsePolicy(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AuditPolicyError);
    expect((err as Error).message).toContain(want);
    expect((err as Error).message).not.toContain('\n');
  });

  const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a file and names it in errors, on one line', () => {
    const good = join(dir, 'good.yaml');
    writeFileSync(good, ok);
    expect(loadPolicyFile(good).rules).toHaveLength(3);
    const badFile = join(dir, 'bad.yaml');
    writeFileSync(badFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]\n');
    expect(() => loadPolicyFile(badFile)).toThrow(
      `loading audit policy file: rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${badFile}`,
    );
    expect(() => loadPolicyFile(join(dir, 'missing.yaml'))).toThrow(
      /^loading audit policy file: failed to read file path ".*missing\.yaml": ENOENT/,
    );
  });
});
