import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../../apimachinery/authorization.js';
import {
  type AuditEvent,
  type BeginInput,
  Auditor,
  auditIDFrom,
  authenticationFailedMessage,
  sourceIPs,
  truncateUserAgent,
} from '../../../../server/audit/event.js';
import { formatMicroTime } from '../../../../apimachinery/validation/micro-time.js';
import {
  type AuditLevel,
  type AuditStage,
  type PolicyRuleEvaluator,
  newPolicyEvaluator,
  parsePolicy,
} from '../../../../server/audit/policy.js';

/** A policy that gives every request one level (kube's FakeChecker). */
function fixedPolicyEvaluator(
  level: AuditLevel,
  omitStages: AuditStage[] = [],
  omitManagedFields = false,
): PolicyRuleEvaluator {
  return { evaluate: () => ({ level, omitStages: [...omitStages], omitManagedFields }) };
}

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0) * 1000 + 123456;

function setup(level: AuditLevel, omitStages: AuditStage[] = [], omitManagedFields = false) {
  const events: AuditEvent[] = [];
  let t = T0;
  const auditor = new Auditor({
    policy: fixedPolicyEvaluator(level, omitStages, omitManagedFields),
    sink: { processEvents: (evs) => events.push(...evs) },
    clock: () => (t += 1000),
  });
  return { auditor, events };
}

function attrs(over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
    verb: 'create',
    resourceRequest: true,
    apiGroup: 'example.com',
    apiVersion: 'v1',
    resource: 'widgets',
    subresource: '',
    namespace: 'default',
    name: '',
    path: '/apis/example.com/v1/namespaces/default/widgets',
    ...over,
  };
}

function input(over: Partial<BeginInput> = {}): BeginInput {
  return {
    attrs: attrs(),
    requestURI: '/apis/example.com/v1/namespaces/default/widgets?fieldManager=kubectl',
    sourceIPs: ['10.0.0.1'],
    userAgent: 'kubectl/v1.33.0',
    auditID: '11111111-2222-3333-4444-555555555555',
    requestReceived: T0,
    ...over,
  };
}

const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default', managedFields: [{ manager: 'kubectl' }] },
  spec: { size: 1 },
};

describe('event shape', () => {
  it('builds RequestReceived and ResponseComplete with kube field names and order', () => {
    const { auditor, events } = setup('RequestResponse');
    const rec = auditor.begin(input());
    rec.authorized({ decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "x"' });
    rec.requestObject(widget);
    const stored = { ...widget, metadata: { ...widget.metadata, uid: 'uid-1', resourceVersion: '42' } };
    rec.complete(201, undefined, stored);

    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [rr, done] = events as [AuditEvent, AuditEvent];
    expect(rr).toEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: '11111111-2222-3333-4444-555555555555',
      stage: 'RequestReceived',
      requestURI: '/apis/example.com/v1/namespaces/default/widgets?fieldManager=kubectl',
      verb: 'create',
      user: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
      sourceIPs: ['10.0.0.1'],
      userAgent: 'kubectl/v1.33.0',
      objectRef: { resource: 'widgets', namespace: 'default', apiGroup: 'example.com', apiVersion: 'v1' },
      requestReceivedTimestamp: '2026-11-24T12:00:00.123456Z',
      stageTimestamp: '2026-11-24T12:00:00.123456Z',
    });
    expect(Object.keys(done)).toEqual([
      'kind',
      'apiVersion',
      'level',
      'auditID',
      'stage',
      'requestURI',
      'verb',
      'user',
      'sourceIPs',
      'userAgent',
      'objectRef',
      'responseStatus',
      'requestObject',
      'responseObject',
      'requestReceivedTimestamp',
      'stageTimestamp',
      'annotations',
    ]);
    // The name comes from the request body; uid and resourceVersion only from it too (none on create).
    expect(done.objectRef).toEqual({
      resource: 'widgets',
      namespace: 'default',
      name: 'w1',
      apiGroup: 'example.com',
      apiVersion: 'v1',
    });
    expect(JSON.stringify(done.responseStatus)).toBe('{"metadata":{},"code":201}');
    expect(done.requestObject).toEqual(widget);
    expect(done.responseObject).toEqual(stored);
    expect(done.stageTimestamp).toBe('2026-11-24T12:00:00.124456Z');
    expect(done.annotations).toEqual({
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x"',
    });
  });

  it('keeps bodies out below their levels', () => {
    for (const [level, hasReq, hasResp] of [
      ['Metadata', false, false],
      ['Request', true, false],
      ['RequestResponse', true, true],
    ] as const) {
      const { auditor, events } = setup(level);
      const rec = auditor.begin(input());
      rec.requestObject(widget);
      rec.complete(201, undefined, widget);
      const done = events.at(-1)!;
      expect('requestObject' in done, level).toBe(hasReq);
      expect('responseObject' in done, level).toBe(hasResp);
      expect(done.objectRef?.name, level).toBe('w1');
    }
  });

  it('emits nothing at None, yet keeps the audit ID', () => {
    const { auditor, events } = setup('None');
    const rec = auditor.begin(input());
    rec.annotate('a', 'b');
    rec.complete(200);
    expect(events).toEqual([]);
    expect(rec.enabled).toBe(false);
    expect(rec.auditID).toBe('11111111-2222-3333-4444-555555555555');
  });

  it('copies a failure Status into responseStatus, bounded', () => {
    const { auditor, events } = setup('Metadata');
    const rec = auditor.begin(input({ attrs: attrs({ verb: 'get', name: 'w9' }) }));
    rec.authorized({ decision: 'deny', reason: '' });
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'widgets "w9" is forbidden',
      reason: 'Forbidden',
      details: { name: 'w9', kind: 'widgets' },
      code: 403,
    };
    rec.complete(403, status);
    const done = events.at(-1)!;
    expect(JSON.stringify(done.responseStatus)).toBe(
      '{"metadata":{},"status":"Failure","message":"widgets \\"w9\\" is forbidden","reason":"Forbidden","details":{"name":"w9","kind":"widgets"},"code":403}',
    );
    expect(done.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
    expect(done.objectRef).toEqual({
      resource: 'widgets',
      namespace: 'default',
      name: 'w9',
      apiGroup: 'example.com',
      apiVersion: 'v1',
    });
  });

  it('treats a Status response object as the responseStatus', () => {
    const { auditor, events } = setup('RequestResponse');
    const rec = auditor.begin(input({ attrs: attrs({ verb: 'delete', name: 'w1' }) }));
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'w1', group: 'example.com', kind: 'widgets', uid: 'x' },
    };
    rec.complete(200, undefined, status);
    const done = events.at(-1)!;
    expect(done.responseStatus).toEqual({ metadata: {}, status: 'Success', details: status.details, code: 200 });
    expect(done.responseObject).toEqual(status);
  });

  it('sends ResponseStarted only for long-running requests', () => {
    const short = setup('Metadata');
    const r1 = short.auditor.begin(input());
    r1.responseStarted(200);
    r1.complete(200);
    expect(short.events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);

    const long = setup('Metadata');
    const r2 = long.auditor.begin(input({ longRunning: true, attrs: attrs({ verb: 'watch' }) }));
    r2.responseStarted(200);
    r2.complete(200);
    expect(long.events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(long.events[1]!.responseStatus).toEqual({ metadata: {}, code: 200 });

    // complete() without responseStarted() still sends ResponseStarted first for long-running.
    const long2 = setup('Metadata');
    long2.auditor.begin(input({ longRunning: true })).complete(200);
    expect(long2.events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  });

  it('fakes kube\'s "Connection closed early" status when no code was sent', () => {
    const { auditor, events } = setup('Metadata');
    auditor.begin(input({ longRunning: true, attrs: attrs({ verb: 'watch' }) })).complete();
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    for (const e of events.slice(1))
      expect(e.responseStatus).toEqual({
        metadata: {},
        status: 'Success',
        message: 'Connection closed early',
        code: 200,
      });

    const started = setup('Metadata');
    const rec = started.auditor.begin(input({ longRunning: true }));
    rec.responseStarted(101);
    rec.complete();
    expect(started.events.map((e) => e.responseStatus?.code)).toEqual([undefined, 101, 101]);
  });

  it('omits stages the policy omits', () => {
    const { auditor, events } = setup('Metadata', ['RequestReceived', 'ResponseStarted']);
    const rec = auditor.begin(input({ longRunning: true }));
    rec.complete(200);
    expect(events.map((e) => e.stage)).toEqual(['ResponseComplete']);
  });

  it('reports a panic as kube does, with no ResponseComplete', () => {
    const { auditor, events } = setup('Metadata');
    const rec = auditor.begin(input());
    rec.panic(new Error('boom'));
    rec.complete(500);
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(events[1]!.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: "APIServer panic'd: boom",
      reason: 'InternalError',
      code: 500,
    });
  });

  it('drops managedFields when the policy says so, without touching the object', () => {
    const { auditor, events } = setup('RequestResponse', [], true);
    const rec = auditor.begin(input());
    rec.requestObject(widget);
    const list = { kind: 'WidgetList', apiVersion: 'example.com/v1', metadata: {}, items: [widget] };
    rec.complete(200, undefined, list);
    const done = events.at(-1)!;
    expect(done.requestObject).toEqual({ ...widget, metadata: { name: 'w1', namespace: 'default' } });
    expect((done.responseObject as { items: unknown[] }).items[0]).toEqual({
      ...widget,
      metadata: { name: 'w1', namespace: 'default' },
    });
    expect(widget.metadata.managedFields).toHaveLength(1);
  });

  it('keeps the request body as it was logged, int64s exact', () => {
    const { auditor, events } = setup('Request');
    const rec = auditor.begin(input());
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { big: 9007199254740993n },
    };
    rec.requestObject(body);
    (body.metadata as Record<string, unknown>).uid = 'set-later';
    rec.complete(201);
    expect(events.at(-1)!.requestObject).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { big: 9007199254740993n },
    });
  });

  it('records the impersonated user and the patch', () => {
    const { auditor, events } = setup('Request');
    const rec = auditor.begin(input({ attrs: attrs({ verb: 'patch', name: 'w1' }) }));
    rec.impersonated({ name: 'bob', groups: ['system:authenticated'] });
    rec.requestPatch({ spec: { size: 2 } });
    rec.complete(200);
    const done = events.at(-1)!;
    expect(done.impersonatedUser).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(done.requestObject).toEqual({ spec: { size: 2 } });
  });

  it('keeps the first value of an annotation', () => {
    const warnings: string[] = [];
    const events: AuditEvent[] = [];
    const auditor = new Auditor({
      policy: fixedPolicyEvaluator('Metadata'),
      sink: { processEvents: (e) => events.push(...e) },
      warn: (m) => warnings.push(m),
    });
    const rec = auditor.begin(input());
    rec.annotate('k', 'v1');
    rec.annotate('k', 'v1');
    rec.annotate('k', 'v2');
    rec.complete(200);
    expect(events.at(-1)!.annotations).toEqual({ k: 'v1' });
    expect(warnings).toHaveLength(1);
  });

  it('gives non-resource requests no objectRef', () => {
    const { auditor, events } = setup('Metadata');
    const rec = auditor.begin(
      input({
        requestURI: '/healthz',
        attrs: attrs({
          resourceRequest: false,
          verb: 'get',
          path: '/healthz',
          apiGroup: '',
          apiVersion: '',
          resource: '',
          namespace: '',
        }),
      }),
    );
    rec.complete(200);
    expect(events.at(-1)!.objectRef).toBeUndefined();
    expect(events.at(-1)!.verb).toBe('get');
  });

  it('records a failed authentication as one ResponseStarted event with no user', () => {
    const { auditor, events } = setup('Metadata');
    auditor.failedAuthentication(input({ attrs: attrs({ user: { name: '', groups: [] } }) }), { bearer: true });
    expect(events).toHaveLength(1);
    expect(events[0]!.stage).toBe('ResponseStarted');
    expect(events[0]!.user).toEqual({});
    expect(events[0]!.responseStatus).toEqual({
      metadata: {},
      message: 'Authentication failed, attempted: bearer',
      code: 401,
    });

    const withStatus = setup('Metadata');
    withStatus.auditor.failedAuthentication(
      input({ attrs: attrs({ user: { name: '', groups: [] } }) }),
      {},
      { status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
    );
    expect(withStatus.events[0]!.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('evaluates the policy with the request attributes', () => {
    const events: AuditEvent[] = [];
    const auditor = new Auditor({
      policy: newPolicyEvaluator(
        parsePolicy(
          'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  verbs: [get]\n- level: Metadata\n',
        ),
      ),
      sink: { processEvents: (e) => events.push(...e) },
    });
    auditor.begin(input({ attrs: attrs({ verb: 'get' }) })).complete(200);
    auditor.begin(input()).complete(201);
    expect(events.map((e) => `${e.verb}:${e.stage}`)).toEqual(['create:RequestReceived', 'create:ResponseComplete']);
  });
});

describe('helpers', () => {
  it('formats MicroTime with six digits in UTC', () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 7)).toBe('2026-01-02T03:04:05.000007Z');
  });

  it('takes the client Audit-ID or makes a UUID', () => {
    expect(auditIDFrom('abc')).toBe('abc');
    expect(auditIDFrom(['x', 'y'])).toBe('x');
    expect(auditIDFrom(undefined)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(auditIDFrom('')).not.toBe('');
  });

  it.each([
    ['connection only', {}, '::ffff:127.0.0.1', ['127.0.0.1']],
    [
      'forwarded chain then connection',
      { xForwardedFor: '1.2.3.4, 5.6.7.8' },
      '10.0.0.1',
      ['1.2.3.4', '5.6.7.8', '10.0.0.1'],
    ],
    ['invalid entries skipped', { xForwardedFor: 'junk, 1.2.3.4,' }, '10.0.0.1', ['1.2.3.4', '10.0.0.1']],
    ['connection not repeated when last', { xForwardedFor: '1.2.3.4, 10.0.0.1' }, '10.0.0.1', ['1.2.3.4', '10.0.0.1']],
    ['real ip added once', { xForwardedFor: '1.2.3.4', xRealIp: '1.2.3.4' }, '10.0.0.1', ['1.2.3.4', '10.0.0.1']],
    ['real ip added', { xRealIp: '9.9.9.9' }, '10.0.0.1', ['9.9.9.9', '10.0.0.1']],
    ['IPv6 canonical', { xForwardedFor: '2001:DB8:0:0:0:0:0:1' }, '::1', ['2001:db8::1', '::1']],
    ['sloppy IPv4', { xForwardedFor: '010.001.0.1' }, '10.0.0.2', ['10.1.0.1', '10.0.0.2']],
    ['host:port remote', {}, '[::1]:443', ['::1']],
  ] as const)('sourceIPs: %s', (_n, headers, remote, want) => {
    expect(sourceIPs({ ...headers, remoteAddress: remote })).toEqual(want);
  });

  it('truncates long user agents as kube', () => {
    expect(truncateUserAgent('a'.repeat(1025))).toBe('a'.repeat(1024) + '...TRUNCATED');
    expect(truncateUserAgent('a'.repeat(1024))).toBe('a'.repeat(1024));
  });

  it('names the attempted credentials', () => {
    expect(authenticationFailedMessage({})).toBe('Authentication failed, no credentials provided');
    expect(authenticationFailedMessage({ bearer: true, x509: true })).toBe(
      'Authentication failed, attempted: bearer, x509',
    );
  });
});
