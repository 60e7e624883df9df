// The admission webhook plugins against real HTTPS webhooks started here, with their own CA: what
// they are sent, and every way their answers (or their silence) end a request.
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Authorizer } from '../../../../apimachinery/authorization.js';
import { ApiError } from '../../../../apimachinery/errors.js';
import type { JsonObject, KubeObject } from '../../../../apimachinery/object.js';
import type { Attributes } from '../../../../admission/interface.js';
import {
  type WebhookAttributes,
  type WebhookPluginOptions,
  mutatingWebhookPlugin,
  validatingWebhookPlugin,
} from '../../../../admission/webhook/dispatcher.js';
import type { MutatingWebhookSpec } from '../../../../admission/webhook/types.js';
import { applyJsonPatchOperations } from '../../../../server/endpoints/patch/json-patch.js';
import { generatePki, type ServingTls } from '../../../../server/pki.js';
import { attributes } from './attributes.js';
import { timerFired } from '../../../helpers/timer-fired.js';

// ---------------------------------------------------------------------------------------------
// Webhooks

interface Review {
  apiVersion: string;
  kind: string;
  request: JsonObject & { uid: string; object: KubeObject | null; oldObject: KubeObject | null };
}

type Reply = { status?: number; headers?: Record<string, string>; body?: unknown } | 'hang';

interface Hook {
  url: string;
  reviews: Review[];
  paths: string[];
}

let pki: ServingTls;
let caBundle: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  pki = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost'] });
  caBundle = Buffer.from(pki.caCert).toString('base64');
});

afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function startWebhook(handle: (review: Review, hook: Hook) => Reply | Promise<Reply>): Promise<Hook> {
  const hook: Hook = { url: '', reviews: [], paths: [] };
  const server = createHttpsServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      hook.reviews.push(review);
      hook.paths.push(req.url ?? '');
      const reply = await handle(review, hook);
      if (reply === 'hang') return;
      const body =
        reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(body);
    });
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return hook;
}

const respond = (review: Review, response: JsonObject, version = 'admission.k8s.io/v1'): Reply => ({
  body: { apiVersion: version, kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } },
});
const allow = (review: Review): Reply => respond(review, { allowed: true });
const b64json = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');

// ---------------------------------------------------------------------------------------------
// Configurations and requests

function webhook(name: string, hook: Hook, over: Partial<MutatingWebhookSpec> = {}): MutatingWebhookSpec {
  return {
    name,
    clientConfig: { url: hook.url, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...over,
  };
}

const configuration = (kind: string, name: string, webhooks: MutatingWebhookSpec[]): KubeObject =>
  ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks }) as unknown as KubeObject;

function pod(labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
}

function podCreate(over: Partial<WebhookAttributes> = {}): WebhookAttributes {
  const userInfo = { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } };
  return attributes<WebhookAttributes>({
    kind: { group: '', name: 'Pod' },
    resource: { group: '', name: 'pods' },
    name: 'web',
    object: pod({ app: 'web' }),
    userInfo,
    ...over,
  });
}

interface Recorded {
  warnings: string[];
  annotations: Record<string, string>;
  ignored: string[];
}

function options(
  configs: () => KubeObject[],
  rec: Recorded,
  namespaces: Record<string, Record<string, string>> = { default: {} },
): WebhookPluginOptions & { applyJsonPatch: typeof applyJsonPatchOperations } {
  return {
    configurations: configs,
    namespaceLabels: async (name) => namespaces[name],
    warn: (_a: Attributes, m) => rec.warnings.push(m),
    annotate: (_a: Attributes, k, v) => {
      rec.annotations[k] = v;
    },
    onIgnoredError: (_w, m) => rec.ignored.push(m),
    applyJsonPatch: applyJsonPatchOperations,
  };
}

const recorder = (): Recorded => ({ warnings: [], annotations: {}, ignored: [] });

function validating(
  webhooks: MutatingWebhookSpec[],
  rec = recorder(),
  namespaces?: Record<string, Record<string, string>>,
) {
  const configs = [configuration('ValidatingWebhookConfiguration', 'checks', webhooks)];
  return { plugin: validatingWebhookPlugin(options(() => configs, rec, namespaces)), rec };
}

function mutating(configs: KubeObject[], rec = recorder()) {
  return { plugin: mutatingWebhookPlugin(options(() => configs, rec)), rec };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the request to be refused');
}

// ---------------------------------------------------------------------------------------------

describe('the review sent', () => {
  it('is an admission.k8s.io/v1 AdmissionReview with kube request fields, POSTed with ?timeout', async () => {
    const hook = await startWebhook(allow);
    const { plugin } = validating([webhook('check.example.com', hook)]);
    const a = podCreate();
    await plugin.validate!(a);
    expect(hook.paths).toEqual(['/hook?timeout=10s']);
    const review = hook.reviews[0]!;
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    expect(Object.keys(review.request)).toEqual([
      'uid',
      'kind',
      'resource',
      'requestKind',
      'requestResource',
      'name',
      'namespace',
      'operation',
      'userInfo',
      'object',
      'oldObject',
      'dryRun',
      'options',
    ]);
    expect(review.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
      object: a.object,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names the subresource, the given version and options, and the old object of an update', async () => {
    const hook = await startWebhook(allow);
    const { plugin } = validating([
      webhook('check.example.com', hook, {
        rules: [{ operations: ['UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods/status'] }],
        timeoutSeconds: 3,
      }),
    ]);
    await plugin.validate!(
      podCreate({
        operation: 'UPDATE',
        subresource: 'status',
        oldObject: pod(),
        options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl' },
      }),
    );
    expect(hook.paths).toEqual(['/hook?timeout=3s']);
    expect(hook.reviews[0]!.request).toMatchObject({
      subResource: 'status',
      requestSubResource: 'status',
      operation: 'UPDATE',
      oldObject: pod(),
      options: { fieldManager: 'kubectl' },
    });
  });

  it('is v1beta1 when that is the first version the webhook takes', async () => {
    // v1beta1 answers are not checked for uid or kind.
    const hook = await startWebhook(() => ({ body: { response: { allowed: true } } }));
    const { plugin } = validating([
      webhook('check.example.com', hook, { admissionReviewVersions: ['v2', 'v1beta1', 'v1'] }),
    ]);
    await plugin.validate!(podCreate());
    expect(hook.reviews[0]!.apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  it('is not sent for writes of the webhook configurations themselves', async () => {
    const hook = await startWebhook(() => ({ status: 500 }));
    const { plugin } = validating([
      webhook('check.example.com', hook, {
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
      }),
    ]);
    const cfg = configuration('ValidatingWebhookConfiguration', 'x', []);
    await plugin.validate!(
      podCreate({
        kind: { group: 'admissionregistration.k8s.io', name: 'ValidatingWebhookConfiguration' },
        resource: { group: 'admissionregistration.k8s.io', name: 'validatingwebhookconfigurations' },
        namespace: '',
        object: cfg,
      }),
    );
    expect(hook.reviews).toHaveLength(0);
  });
});

describe('validating webhooks', () => {
  it('allow', async () => {
    const hook = await startWebhook(allow);
    await validating([webhook('check.example.com', hook)]).plugin.validate!(podCreate());
    expect(hook.reviews).toHaveLength(1);
  });

  it("deny with the webhook's message and code", async () => {
    const hook = await startWebhook((r) =>
      respond(r, {
        allowed: false,
        status: { code: 403, message: 'pods named web are not allowed', reason: 'Forbidden' },
      }),
    );
    const err = await refusal(validating([webhook('deny.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "deny.example.com" denied the request: pods named web are not allowed',
      reason: 'Forbidden',
      code: 403,
    });
  });

  it.each([
    [{ allowed: false }, 400, 'admission webhook "deny.example.com" denied the request without explanation'],
    [
      { allowed: false, status: { code: 200, reason: 'NotGood' } },
      400,
      'admission webhook "deny.example.com" denied the request: NotGood',
    ],
    [
      { allowed: false, status: { code: 422, message: 'bad' } },
      422,
      'admission webhook "deny.example.com" denied the request: bad',
    ],
  ])('deny %j: %i %s', async (response, code, message) => {
    const hook = await startWebhook((r) => respond(r, response));
    const err = await refusal(validating([webhook('deny.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.status.code).toBe(code);
    expect(err.message).toBe(message);
  });

  it('are called in parallel: each holds its answer until all three have their review', async () => {
    // Called one after another, the first would wait for reviews that never come, time out, and
    // fail the request (Fail is the default policy).
    let arrived = 0;
    let allArrived!: () => void;
    const together = new Promise<void>((resolve) => (allArrived = resolve));
    const barrier = async (r: Review): Promise<Reply> => {
      if (++arrived === 3) allArrived();
      await together;
      return allow(r);
    };
    const hooks = await Promise.all([startWebhook(barrier), startWebhook(barrier), startWebhook(barrier)]);
    const { plugin } = validating(hooks.map((h, i) => webhook(`w${i}.example.com`, h)));
    await plugin.validate!(podCreate());
    expect(hooks.map((h) => h.reviews.length)).toEqual([1, 1, 1]);
  });

  it('refuse with the first denial to arrive', async () => {
    const late = await startWebhook(
      (r) =>
        new Promise((resolve) =>
          setTimeout(() => resolve(respond(r, { allowed: false, status: { message: 'late' } })), 300),
        ),
    );
    const early = await startWebhook((r) => respond(r, { allowed: false, status: { message: 'early' } }));
    const err = await refusal(
      validating([webhook('late.example.com', late), webhook('early.example.com', early)]).plugin.validate!(
        podCreate(),
      ),
    );
    expect(err.message).toBe('admission webhook "early.example.com" denied the request: early');
  });

  it('may not patch', async () => {
    const hook = await startWebhook((r) => respond(r, { allowed: true, patchType: 'JSONPatch', patch: b64json([]) }));
    const err = await refusal(validating([webhook('v.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: validating webhook may not return response.patch',
    );
  });
});

describe('failures and failurePolicy', () => {
  it('a timeout under Ignore lets the request through, annotated as failed open', async () => {
    const hook = await startWebhook(() => 'hang');
    const { plugin, rec } = validating([
      webhook('slow.example.com', hook, { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
    ]);
    // Not before the 1 s deadline: a timer of half of it, set first, has fired by then (timers on
    // one loop fire in the order they expire, however loaded the machine).
    const halfway = timerFired(500);
    await plugin.validate!(podCreate());
    expect(halfway()).toBe(true);
    expect(rec.ignored).toEqual([
      `failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}?timeout=1s": context deadline exceeded`,
    ]);
    expect(rec.annotations).toEqual({
      'failed-open.validating.webhook.admission.k8s.io/round_0_index_0': 'slow.example.com',
    });
  });

  it("a timeout under Fail is kube's 500", async () => {
    const hook = await startWebhook(() => 'hang');
    const err = await refusal(
      validating([webhook('slow.example.com', hook, { timeoutSeconds: 1, failurePolicy: 'Fail' })]).plugin.validate!(
        podCreate(),
      ),
    );
    expect(err.status).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(err.message).toBe(
      `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}?timeout=1s": context deadline exceeded`,
    );
  });

  it('Fail is the default policy', async () => {
    const hook = await startWebhook(() => ({ body: 'this is not json' }));
    const err = await refusal(validating([webhook('garbage.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.message).toMatch(
      /^Internal error occurred: failed calling webhook "garbage.example.com": failed to call webhook: couldn't get version\/kind; json parse error: /,
    );
  });

  it.each([
    [
      'not JSON',
      { body: '{"response": ' },
      "failed to call webhook: couldn't get version/kind; json parse error: unexpected end of JSON input",
    ],
    [
      'allowed not a bool',
      { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { allowed: 'yes' } } },
      'failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool',
    ],
    [
      'no response',
      { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' } },
      'received invalid webhook response: webhook response was absent',
    ],
    ['an empty body', { body: '' }, '0-length response with status code: 200 and content type: application/json'],
    [
      'a 500',
      { status: 500, body: 'boom', headers: { 'Content-Type': 'text/plain' } },
      'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding',
    ],
    [
      'the wrong kind',
      {
        body: { apiVersion: 'admission.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'UID', allowed: true } },
      },
      'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1, Kind=ConversionReview',
    ],
  ])('a garbage answer (%s) fails calling the webhook', async (_name, reply, why) => {
    const hook = await startWebhook((r) => {
      const body =
        typeof reply.body === 'object'
          ? JSON.parse(JSON.stringify(reply.body).replace('"UID"', JSON.stringify(r.request.uid)))
          : reply.body;
      return { ...reply, body };
    });
    const err = await refusal(validating([webhook('garbage.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.message).toContain(`failed calling webhook "garbage.example.com": `);
    expect(err.message).toContain(why);
  });

  it('a response for another request (uid) is refused', async () => {
    const hook = await startWebhook(() => ({
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } },
    }));
    const err = await refusal(validating([webhook('w.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.message).toMatch(
      /received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "other"$/,
    );
  });

  it('a redirect is not followed', async () => {
    const target = await startWebhook(allow);
    const hook = await startWebhook(() => ({ status: 307, headers: { Location: target.url } }));
    const err = await refusal(validating([webhook('redirect.example.com', hook)]).plugin.validate!(podCreate()));
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "redirect.example.com": failed to call webhook: the server responded with the status code 307 but did not return more information',
    );
    expect(target.reviews).toHaveLength(0);
  });

  it("a webhook the server cannot trust fails in Go's words", async () => {
    const hook = await startWebhook(allow);
    const other = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost'] });
    const spec = webhook('tls.example.com', hook, {
      clientConfig: { url: hook.url, caBundle: Buffer.from(other.caCert).toString('base64') },
    });
    const err = await refusal(validating([spec]).plugin.validate!(podCreate()));
    expect(err.message).toMatch(
      /failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority/,
    );
  });

  it('a webhook that takes no known review version fails calling it', async () => {
    const hook = await startWebhook(allow);
    const err = await refusal(
      validating([webhook('old.example.com', hook, { admissionReviewVersions: ['v0'] })]).plugin.validate!(podCreate()),
    );
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "old.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
    );
    expect(hook.reviews).toHaveLength(0);
  });

  it('a slow webhook holds only the requests it is called for', async () => {
    const hook = await startWebhook(() => 'hang');
    const { plugin } = validating([webhook('slow.example.com', hook, { timeoutSeconds: 2, failurePolicy: 'Ignore' })]);
    let podDone = false;
    const slow = plugin.validate!(podCreate()).finally(() => (podDone = true));
    // A configmap is not for this webhook: it is admitted while the pod still waits on it.
    await plugin.validate!(
      podCreate({
        kind: { group: '', name: 'ConfigMap' },
        resource: { group: '', name: 'configmaps' },
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      }),
    );
    expect(podDone).toBe(false);
    await slow;
    expect(hook.reviews.map((r) => (r.request['kind'] as { kind: string }).kind)).not.toContain('ConfigMap');
  });

  // The webhook's call gets what is left of the request (under a second: `?timeout=1s`, not the
  // webhook's 30 s), and the request ends as kube's 504. The test's timeout is a hang guard below
  // the webhook's 30 s, for a dispatcher that would wait the webhook out.
  it('the request deadline cuts a webhook short', { timeout: 20_000 }, async () => {
    const hook = await startWebhook(() => 'hang');
    const { plugin } = validating([webhook('slow.example.com', hook, { timeoutSeconds: 30, failurePolicy: 'Ignore' })]);
    const err = await refusal(plugin.validate!(podCreate({ deadline: Date.now() + 1000 })));
    expect(err.status).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: 'Timeout: request did not complete within requested timeout',
    });
    expect(hook.paths).toEqual(['/hook?timeout=1s']);
  });
});

describe('selectors', () => {
  const selected = async (
    spec: Partial<MutatingWebhookSpec>,
    a: WebhookAttributes,
    namespaces?: Record<string, Record<string, string>>,
  ): Promise<number> => {
    const hook = await startWebhook(allow);
    await validating(
      [
        webhook('sel.example.com', hook, {
          rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
          ...spec,
        }),
      ],
      recorder(),
      namespaces,
    ).plugin.validate!(a);
    return hook.reviews.length;
  };
  const teams = { default: {}, 'team-a': { env: 'prod' }, 'team-b': { env: 'dev' } };

  it.each([
    [
      'namespace labels match',
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
      podCreate({ namespace: 'team-a' }),
      1,
    ],
    [
      'namespace labels do not match',
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
      podCreate({ namespace: 'team-b' }),
      0,
    ],
    [
      'a cluster-scoped object is never exempted',
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
      podCreate({
        namespace: '',
        kind: { group: 'rbac.authorization.k8s.io', name: 'ClusterRole' },
        resource: { group: 'rbac.authorization.k8s.io', name: 'clusterroles' },
        object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
      }),
      1,
    ],
    [
      "creating a namespace: the new namespace's own labels",
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
      podCreate({
        namespace: '',
        name: 'team-c',
        kind: { group: '', name: 'Namespace' },
        resource: { group: '', name: 'namespaces' },
        object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c', labels: { env: 'prod' } } },
      }),
      1,
    ],
    [
      'deleting a namespace: its stored labels',
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
      podCreate({
        operation: 'DELETE',
        namespace: '',
        name: 'team-b',
        kind: { group: '', name: 'Namespace' },
        resource: { group: '', name: 'namespaces' },
        object: undefined,
        oldObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } },
      }),
      0,
    ],
    ['object labels match', { objectSelector: { matchLabels: { app: 'web' } } }, podCreate(), 1],
    ['object labels do not match', { objectSelector: { matchLabels: { app: 'db' } } }, podCreate(), 0],
    [
      'old object labels match',
      { objectSelector: { matchLabels: { app: 'db' } } },
      podCreate({ operation: 'UPDATE', oldObject: pod({ app: 'db' }) }),
      1,
    ],
  ])('%s', async (_name, spec, a, calls) => {
    expect(await selected(spec, a, teams)).toBe(calls);
  });

  it("a namespace that does not exist is kube's 404, for a webhook whose rules match", async () => {
    const err = await refusal(
      selected({ namespaceSelector: { matchLabels: { env: 'prod' } } }, podCreate({ namespace: 'ghost' }), teams),
    );
    expect(err.status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "ghost" not found' });
    // Rules that do not match never see the error.
    expect(
      await selected(
        {
          namespaceSelector: { matchLabels: { env: 'prod' } },
          rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['*'] }],
        },
        podCreate({ namespace: 'ghost' }),
        teams,
      ),
    ).toBe(0);
  });
});

describe('matchConditions', () => {
  const cond = (expression: string) => [{ name: 'c', expression }];
  const calls = async (spec: Partial<MutatingWebhookSpec>, a = podCreate()): Promise<number> => {
    const hook = await startWebhook(allow);
    await validating([webhook('mc.example.com', hook, spec)]).plugin.validate!(a);
    return hook.reviews.length;
  };

  it.each([
    ["object.metadata.labels['app'] == 'web'", 1],
    ["object.metadata.labels['app'] == 'db'", 0],
    ["request.operation == 'CREATE' && request.userInfo.username == 'alice'", 1],
    ["request.userInfo.groups.exists(g, g == 'admins')", 0],
    ['oldObject == null', 1],
    ["request.namespace == 'default' && request.resource.resource == 'pods'", 1],
  ])('%s: %i call(s)', async (expression, want) => {
    expect(await calls({ matchConditions: cond(expression) })).toBe(want);
  });

  it('a false condition skips the webhook even when another errs', async () => {
    expect(
      await calls({
        matchConditions: [
          { name: 'err', expression: "object.metadata.nope == 'x'" },
          { name: 'f', expression: 'false' },
        ],
      }),
    ).toBe(0);
  });

  it('an error under Ignore skips the webhook', async () => {
    expect(await calls({ failurePolicy: 'Ignore', matchConditions: cond("object.metadata.nope == 'x'") })).toBe(0);
  });

  it("`authorizer` asks the server's authorizer as the requesting user (and `requestResource` is the request's)", async () => {
    const asked: string[] = [];
    const authz: Authorizer = {
      authorize: (x) => {
        asked.push(`${x.user.name} ${x.verb} ${x.apiGroup}/${x.resource}/${x.subresource} ${x.namespace}/${x.name}`);
        return { decision: x.verb === 'get' && x.resource === 'secrets' ? 'allow' : 'no-opinion', reason: '' };
      },
      rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
    };
    const callsWith = async (expression: string): Promise<number> => {
      const hook = await startWebhook(allow);
      const configs = [
        configuration('ValidatingWebhookConfiguration', 'checks', [
          webhook('mc.example.com', hook, { matchConditions: cond(expression) }),
        ]),
      ];
      await validatingWebhookPlugin({ ...options(() => configs, recorder()), authorizer: authz }).validate!(
        podCreate(),
      );
      return hook.reviews.length;
    };
    expect(
      await callsWith("authorizer.group('').resource('secrets').namespace('default').check('get').allowed()"),
    ).toBe(1);
    expect(await callsWith("authorizer.requestResource.check('delete').allowed()")).toBe(0);
    expect(asked).toEqual(['alice get /secrets/ default/', 'alice delete /pods/ default/web']);
  });

  it('an error under Fail refuses the request (403)', async () => {
    const err = await refusal(calls({ matchConditions: cond("object.metadata.nope == 'x'") }));
    expect(err.status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `pods "web" is forbidden: expression 'object.metadata.nope == 'x'' resulted in error: no such key: nope`,
      details: { name: 'web', kind: 'pods' },
    });
  });
});

describe('mutating webhooks', () => {
  const addLabel =
    (key: string, value: string) =>
    (r: Review): Reply => {
      const labels = r.request.object?.metadata.labels;
      const patch = labels
        ? [{ op: 'add', path: `/metadata/labels/${key}`, value }]
        : [{ op: 'add', path: '/metadata/labels', value: { [key]: value } }];
      return respond(r, { allowed: true, patchType: 'JSONPatch', patch: b64json(patch) });
    };

  it('apply a JSONPatch answer to the object in place', async () => {
    const hook = await startWebhook(addLabel('team', 'blue'));
    const { plugin, rec } = mutating([
      configuration('MutatingWebhookConfiguration', 'm', [webhook('label.example.com', hook)]),
    ]);
    const a = podCreate();
    const object = a.object!;
    const metadata = object.metadata;
    await plugin.admit!(a);
    expect(a.object).toBe(object);
    expect(object.metadata).toBe(metadata);
    expect(metadata.labels).toEqual({ app: 'web', team: 'blue' });
    expect(rec.annotations['mutation.webhook.admission.k8s.io/round_0_index_0']).toBe(
      '{"configuration":"m","webhook":"label.example.com","mutated":true}',
    );
    expect(JSON.parse(rec.annotations['patch.webhook.admission.k8s.io/round_0_index_0']!)).toEqual({
      configuration: 'm',
      webhook: 'label.example.com',
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'blue' }],
      patchType: 'JSONPatch',
    });
  });

  it('run in order, each seeing what the previous made; configurations by name', async () => {
    const first = await startWebhook(addLabel('first', '1'));
    const second = await startWebhook(addLabel('second', '2'));
    const { plugin } = mutating([
      configuration('MutatingWebhookConfiguration', 'b', [webhook('second.example.com', second)]),
      configuration('MutatingWebhookConfiguration', 'a', [webhook('first.example.com', first)]),
    ]);
    const a = podCreate();
    await plugin.admit!(a);
    expect(first.reviews[0]!.request.object!.metadata.labels).toEqual({ app: 'web' });
    expect(second.reviews[0]!.request.object!.metadata.labels).toEqual({ app: 'web', first: '1' });
    expect(a.object!.metadata.labels).toEqual({ app: 'web', first: '1', second: '2' });
  });

  it('a patch that does not apply is a 500', async () => {
    const hook = await startWebhook((r) =>
      respond(r, { allowed: true, patchType: 'JSONPatch', patch: b64json([{ op: 'remove', path: '/spec/nothing' }]) }),
    );
    const err = await refusal(
      mutating([
        configuration('MutatingWebhookConfiguration', 'm', [
          webhook('bad.example.com', hook, { failurePolicy: 'Ignore' }),
        ]),
      ]).plugin.admit!(podCreate()),
    );
    expect(err.status).toMatchObject({ code: 500, reason: 'InternalError' });
    // The patch library's own text, as kube's patchObj.Apply error is (not subject to failurePolicy).
    expect(err.message).toMatch(/^Internal error occurred: .*remove.*\/spec\/nothing/);
  });

  it.each([
    [
      { patch: b64json([{ op: 'add', path: '/x', value: 1 }]) },
      'received invalid webhook response: webhook returned response.patch but not response.patchType',
    ],
    [
      { patchType: 'JSONPatch' },
      'received invalid webhook response: webhook returned response.patchType but not response.patch',
    ],
    [
      { patchType: 'MergePatch', patch: b64json([{ op: 'add', path: '/x', value: 1 }]) },
      'unsupported patch type "MergePatch"',
    ],
    [
      { patchType: 'JSONPatch', patch: b64json({ op: 'add' }) },
      'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    ],
    [{ patchType: 'JSONPatch', patch: 'not base64!' }, 'failed to call webhook: illegal base64 data at input byte 3'],
  ])('a bad patch answer %j fails calling the webhook', async (response, why) => {
    const hook = await startWebhook((r) => respond(r, { allowed: true, ...response }));
    const err = await refusal(
      mutating([configuration('MutatingWebhookConfiguration', 'm', [webhook('bad.example.com', hook)])]).plugin.admit!(
        podCreate(),
      ),
    );
    expect(err.message).toBe(`Internal error occurred: failed calling webhook "bad.example.com": ${why}`);
  });

  it('a patch for a delete is refused', async () => {
    const hook = await startWebhook(addLabel('x', 'y'));
    const spec = webhook('del.example.com', hook, {
      rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    });
    const err = await refusal(
      mutating([configuration('MutatingWebhookConfiguration', 'm', [spec])]).plugin.admit!(
        podCreate({ operation: 'DELETE', object: undefined, oldObject: pod() }),
      ),
    );
    expect(err.message).toBe(
      'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation',
    );
  });

  it('a webhook with reinvocationPolicy IfNeeded runs again after a later one changed the object', async () => {
    const watcher = await startWebhook(allow);
    const labeler = await startWebhook(addLabel('team', 'blue'));
    const { plugin, rec } = mutating([
      configuration('MutatingWebhookConfiguration', 'a', [
        webhook('watch.example.com', watcher, { reinvocationPolicy: 'IfNeeded' }),
      ]),
      configuration('MutatingWebhookConfiguration', 'b', [webhook('label.example.com', labeler)]),
    ]);
    await plugin.admit!(podCreate());
    expect(watcher.reviews).toHaveLength(2);
    expect(watcher.reviews[1]!.request.object!.metadata.labels).toEqual({ app: 'web', team: 'blue' });
    expect(labeler.reviews).toHaveLength(1);
    expect(rec.annotations['mutation.webhook.admission.k8s.io/round_1_index_0']).toBe(
      '{"configuration":"a","webhook":"watch.example.com","mutated":false}',
    );
  });

  it('Never (the default) is not run again; nor is IfNeeded when nothing after it changed the object', async () => {
    const watcher = await startWebhook(allow);
    const labeler = await startWebhook(addLabel('team', 'blue'));
    const later = await startWebhook(allow);
    await mutating([
      configuration('MutatingWebhookConfiguration', 'a', [webhook('watch.example.com', watcher)]),
      configuration('MutatingWebhookConfiguration', 'b', [
        webhook('label.example.com', labeler, { reinvocationPolicy: 'IfNeeded' }),
      ]),
      configuration('MutatingWebhookConfiguration', 'c', [
        webhook('later.example.com', later, { reinvocationPolicy: 'IfNeeded' }),
      ]),
    ]).plugin.admit!(podCreate());
    expect([watcher.reviews.length, labeler.reviews.length, later.reviews.length]).toEqual([1, 1, 1]);
  });

  it('a timeout under Ignore leaves the object as it was', async () => {
    const hook = await startWebhook(() => 'hang');
    const { plugin, rec } = mutating([
      configuration('MutatingWebhookConfiguration', 'm', [
        webhook('slow.example.com', hook, { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
      ]),
    ]);
    const a = podCreate();
    await plugin.admit!(a);
    expect(a.object).toEqual(pod({ app: 'web' }));
    expect(rec.annotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_0']).toBe('slow.example.com');
  });
});

describe('sideEffects and dry run', () => {
  it.each(['Unknown', 'Some'])(
    '%s refuses a dry run without calling the webhook, whatever the failurePolicy',
    async (sideEffects) => {
      const hook = await startWebhook(allow);
      const err = await refusal(
        validating([webhook('fx.example.com', hook, { sideEffects, failurePolicy: 'Ignore' })]).plugin.validate!(
          podCreate({ dryRun: true }),
        ),
      );
      expect(err.status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: 'admission webhook "fx.example.com" does not support dry run',
      });
      expect(hook.reviews).toHaveLength(0);
    },
  );

  it.each(['None', 'NoneOnDryRun'])('%s is called with dryRun true', async (sideEffects) => {
    const hook = await startWebhook(allow);
    await validating([webhook('fx.example.com', hook, { sideEffects })]).plugin.validate!(podCreate({ dryRun: true }));
    expect(hook.reviews[0]!.request).toMatchObject({
      dryRun: true,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] },
    });
  });

  it('Unknown is fine without dry run', async () => {
    const hook = await startWebhook(allow);
    await validating([webhook('fx.example.com', hook, { sideEffects: 'Unknown' })]).plugin.validate!(podCreate());
    expect(hook.reviews).toHaveLength(1);
  });
});

describe('warnings and audit annotations', () => {
  it('are passed on, annotations under the webhook name', async () => {
    const hook = await startWebhook((r) =>
      respond(r, {
        allowed: true,
        warnings: ['image uses :latest', 'no limits'],
        auditAnnotations: { decision: 'ok' },
      }),
    );
    const { plugin, rec } = validating([webhook('warn.example.com', hook)]);
    await plugin.validate!(podCreate());
    expect(rec.warnings).toEqual(['image uses :latest', 'no limits']);
    expect(rec.annotations).toEqual({ 'warn.example.com/decision': 'ok' });
  });

  it('a denial still passes its warnings on', async () => {
    const hook = await startWebhook((r) => respond(r, { allowed: false, warnings: ['w'] }));
    const { plugin, rec } = validating([webhook('warn.example.com', hook)]);
    await refusal(plugin.validate!(podCreate()));
    expect(rec.warnings).toEqual(['w']);
  });
});
