// Faults against an in-process server over HTTPS: each action on the requests it matches and no
// others, a given number of times or with a chance; hits in the Fault's status and in /metrics;
// and the testing API itself never faulted.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, type TestingClient, startServer } from '../../../server/index.js';
import { createLogger } from '../../../apimachinery/log.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';
import { request } from '../../helpers/server-process.js';
import { type WatchEvent, openWatch } from '../../helpers/watch-stream.js';

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
let testing: TestingClient;
/** What the server logged, every level. */
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const logger = createLogger({ level: 'debug', write: (line) => logged.push(JSON.parse(line)) });
  server = await startServer({ testing: true, logger });
  call = apiClient(server);
  testing = server.testing!;
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  await testing.faults.clear();
});

/** A fresh namespace per test, so faults matching it touch nothing else. */
async function namespace(): Promise<string> {
  const name = `f-${randomUUID().slice(0, 8)}`;
  const r = await call('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  expect(r.status).toBe(201);
  return name;
}

const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

async function createConfigMap(ns: string, name: string): Promise<{ metadata: { resourceVersion: string } }> {
  const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name) });
  expect(r.status, r.text).toBe(201);
  return r.json as { metadata: { resourceVersion: string } };
}

async function metric(fault: string): Promise<number | undefined> {
  const text = (await call('GET', '/metrics')).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith('mini_apiserver_testing_fault_hits_total{') && l.includes(`fault="${fault}"`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

/** A watch over WebSocket, as a browser opens one: its events as they come, and the close code. */
async function webSocketWatch(path: string): Promise<{ events: Event[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${server.url.replace('https', 'wss')}${path}`, {
    ca: server.caCert,
    headers: { authorization: `Bearer ${server.token}` },
  });
  const events: Event[] = [];
  ws.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { events, closed };
}

describe('error', () => {
  it("answers the matching requests with kube's Status, `count` times, and counts them", async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('update-conflict', {
      match: { verbs: ['update', 'patch'], resources: ['configmaps'], namespaces: [ns], names: ['x'] },
      count: 2,
      action: { error: { code: 409 } },
    });
    const patch = () =>
      call('PATCH', `/api/v1/namespaces/${ns}/configmaps/x`, {
        raw: '{"data":{"k":"v"}}',
        contentType: 'application/merge-patch+json',
      });
    const first = await patch();
    expect(first.status).toBe(409);
    expect(first.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'x', kind: 'configmaps' },
      code: 409,
    });
    // Another object, and a read of this one: not matched.
    await createConfigMap(ns, 'y');
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(200);
    expect((await patch()).status).toBe(409);
    // Spent: the third goes through.
    expect((await patch()).status).toBe(200);
    expect(await testing.faults.hits('update-conflict')).toBe(2);
    expect(await metric('update-conflict')).toBe(2);
  });

  it('429 carries Retry-After', async () => {
    const ns = await namespace();
    await testing.faults.inject('throttle', {
      match: { namespaces: [ns], verbs: ['list'] },
      count: 1,
      action: { error: { code: 429, retryAfterSeconds: 3 } },
    });
    const r = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('3');
    expect((r.json as { reason: string }).reason).toBe('TooManyRequests');
  });

  it('of many requests at once, exactly `count` are acted on', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('five', {
      match: { namespaces: [ns], verbs: ['get'] },
      count: 5,
      action: { error: { code: 503 } },
    });
    const codes = await Promise.all(
      Array.from({ length: 20 }, () => call('GET', `/api/v1/namespaces/${ns}/configmaps/x`).then((r) => r.status)),
    );
    expect(codes.filter((c) => c === 503)).toHaveLength(5);
    expect(codes.filter((c) => c === 200)).toHaveLength(15);
    expect(await testing.faults.hits('five')).toBe(5);
  });

  it('with a chance, about that share of requests, each one counted', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('coin', {
      match: { namespaces: [ns], verbs: ['get'] },
      percent: 50,
      action: { error: { code: 500 } },
    });
    const codes: number[] = [];
    for (let i = 0; i < 200; i++) codes.push((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status);
    const failed = codes.filter((c) => c === 500).length;
    // Binomial(200, 1/2): outside 40..160 once in 10^18 runs.
    expect(failed).toBeGreaterThan(40);
    expect(failed).toBeLessThan(160);
    expect(await testing.faults.hits('coin')).toBe(failed);
  });

  it('the first Fault by name that matches acts; one that does not reach the request passes it on', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('b-error', { match: { namespaces: [ns] }, count: 1, action: { error: { code: 503 } } });
    // Listed first, but an endWatch Fault does not reach a get.
    await testing.faults.inject('a-end-watch', {
      match: { namespaces: [ns] },
      action: { endWatch: { afterEvents: 0 } },
    });
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(503);
    expect(await testing.faults.hits('a-end-watch')).toBe(0);
  });

  it('never acts on the testing API itself: a Fault matching everything can still be read and deleted', async () => {
    await testing.faults.inject('everything', { action: { error: { code: 500 } } });
    expect((await call('GET', '/apis/testing.mini-apiserver.io/v1alpha1/faults/everything')).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces')).status).toBe(500);
    await testing.faults.remove('everything');
    expect((await call('GET', '/api/v1/namespaces')).status).toBe(200);
  });

  it('refuses a watch over WebSocket with the Status, which is no server error in its log', async () => {
    const ns = await namespace();
    await testing.faults.inject('ws', {
      match: { namespaces: [ns], verbs: ['watch'] },
      action: { error: { code: 503 } },
    });
    const url = `${server.url.replace('https', 'wss')}/api/v1/namespaces/${ns}/configmaps?watch=true`;
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, { ca: server.caCert, headers: { authorization: `Bearer ${server.token}` } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => reject(new Error('upgraded')));
      ws.on('error', () => {});
    });
    expect(status).toBe(503);
    // As kube's httplog, which logs every answer at V(3): a client's refused upgrade is no error.
    const lines = logged.filter((l) => String(l['uri']).startsWith(`/api/v1/namespaces/${ns}/configmaps`));
    expect(lines.map((l) => [l['level'], l['msg'], l['code']])).toEqual([['debug', 'upgrade refused', 503]]);
  });
});

describe('delay', () => {
  it('alone: the request is served, no sooner than the delay', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('slow', { match: { namespaces: [ns], verbs: ['get'] }, count: 1, delay: '300ms' });
    const started = performance.now();
    const r = await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`);
    expect(r.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('before an action', async () => {
    const ns = await namespace();
    await testing.faults.inject('slow-error', {
      match: { namespaces: [ns], verbs: ['list'] },
      count: 1,
      delay: '200ms',
      action: { error: { code: 504 } },
    });
    const started = performance.now();
    const r = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(r.status).toBe(504);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  });
});

describe('resetConnection', () => {
  it('closes the connection without an answer; the next request is served', async () => {
    const ns = await namespace();
    await testing.faults.inject('reset', { match: { namespaces: [ns] }, count: 1, action: { resetConnection: {} } });
    const err = await request(`${server.url}/api/v1/namespaces/${ns}/configmaps`, {
      ca: server.caCert,
      token: server.token,
    }).catch((e: NodeJS.ErrnoException) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
  });
});

describe('errorAfterCommit', () => {
  it('the create is stored, the client is told it failed, and its retry finds it there', async () => {
    const ns = await namespace();
    await testing.faults.inject('ambiguous', {
      match: { namespaces: [ns], verbs: ['create'], resources: ['configmaps'] },
      count: 1,
      action: { errorAfterCommit: { code: 504 } },
    });
    const first = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('once', { a: '1' }) });
    expect(first.status).toBe(504);
    expect((first.json as { message: string }).message).toBe(
      'Timeout: request did not complete within the allotted timeout',
    );
    const stored = await call('GET', `/api/v1/namespaces/${ns}/configmaps/once`);
    expect(stored.status).toBe(200);
    expect((stored.json as { data: Record<string, string> }).data).toEqual({ a: '1' });
    const retry = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('once') });
    expect(retry.status).toBe(409);
    expect((retry.json as { reason: string }).reason).toBe('AlreadyExists');
  });

  it('a write that fails on its own answers its own error, and still counts', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'taken');
    await testing.faults.inject('ambiguous-taken', {
      match: { namespaces: [ns], verbs: ['create'] },
      count: 1,
      action: { errorAfterCommit: { code: 504 } },
    });
    const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('taken') });
    expect(r.status).toBe(409);
    expect(await testing.faults.hits('ambiguous-taken')).toBe(1);
  });
});

type Event = WatchEvent<{ metadata: { name: string; resourceVersion: string }; code?: number; message?: string }>;

describe('endWatch', () => {
  it('a new watch ends cleanly after N events', async () => {
    const ns = await namespace();
    for (const n of ['a', 'b', 'c']) await createConfigMap(ns, n);
    await testing.faults.inject('short', {
      match: { namespaces: [ns], verbs: ['watch'] },
      count: 1,
      action: { endWatch: { afterEvents: 2 } },
    });
    const w = await openWatch<Event>(server, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    await w.ended;
    expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    // The next watch is a whole one.
    const again = await openWatch<Event>(server, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    await again.next(3);
    again.close();
  });

  it('watches already open end when the Fault comes into force; others stay open', async () => {
    const ns = await namespace();
    const other = await namespace();
    const rv = (await createConfigMap(ns, 'a')).metadata.resourceVersion;
    const open = await openWatch<Event>(server, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`);
    const untouched = await openWatch<Event>(server, `/api/v1/namespaces/${other}/configmaps?watch=true`);
    await testing.faults.inject('end-open', {
      match: { namespaces: [ns], verbs: ['watch'] },
      action: { endWatch: { afterEvents: 1 } },
    });
    await createConfigMap(ns, 'b');
    await open.ended;
    expect(open.events.map((e) => e.object.metadata.name)).toEqual(['b']);
    await createConfigMap(other, 'c');
    await untouched.next(1);
    untouched.close();
    expect(await testing.faults.hits('end-open')).toBe(1);
  });

  it('ends watches over WebSocket too: a new one after N events, one already open when the Fault comes in', async () => {
    const ns = await namespace();
    for (const n of ['a', 'b', 'c']) await createConfigMap(ns, n);
    const open = await webSocketWatch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0`);
    await eventually('the open watch listed', async () => (open.events.length === 3 ? true : undefined));
    await testing.faults.inject('ws-end', {
      match: { namespaces: [ns], verbs: ['watch'] },
      count: 2,
      action: { endWatch: { afterEvents: 1 } },
    });
    await createConfigMap(ns, 'd');
    // Closed normally, as a watch whose time is up: the client watches again from where it was.
    expect(await open.closed).toBe(1000);
    expect(open.events.map((e) => e.object.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
    const fresh = await webSocketWatch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0`);
    expect(await fresh.closed).toBe(1000);
    expect(fresh.events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'a']]);
    expect(await testing.faults.hits('ws-end')).toBe(2);
  });

  it('afterEvents 0 ends an open watch at once', async () => {
    const ns = await namespace();
    const open = await openWatch<Event>(server, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    await testing.faults.inject('end-now', { match: { namespaces: [ns] }, action: { endWatch: { afterEvents: 0 } } });
    await open.ended;
    expect(open.events).toEqual([]);
  });
});

describe('expireHistory', () => {
  it("a watch resuming from before it gets kube's 410; one from now is served", async () => {
    const ns = await namespace();
    const seen = (await createConfigMap(ns, 'a')).metadata.resourceVersion;
    await createConfigMap(ns, 'b');
    await testing.faults.inject('expire', {
      match: { namespaces: [ns], verbs: ['watch'] },
      count: 1,
      action: { expireHistory: {} },
    });
    const resumed = await openWatch<Event>(
      server,
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${seen}`,
    );
    const [ev] = await resumed.next(1);
    expect(ev!.type).toBe('ERROR');
    expect(ev!.object.code).toBe(410);
    expect(ev!.object.message).toMatch(new RegExp(`^too old resource version: ${seen} \\(\\d+\\)$`));
    await resumed.ended;
    // A list, then a watch from its resourceVersion: as always.
    const list = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const rv = (list.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const fresh = await openWatch<Event>(
      server,
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`,
    );
    await createConfigMap(ns, 'c');
    const [next] = await fresh.next(1);
    expect(next!.object.metadata.name).toBe('c');
    fresh.close();
  });

  it('a watch over WebSocket resuming from before it gets the 410 as an ERROR event, and is closed', async () => {
    const ns = await namespace();
    const seen = (await createConfigMap(ns, 'a')).metadata.resourceVersion;
    await createConfigMap(ns, 'b');
    await testing.faults.inject('ws-expire', {
      match: { namespaces: [ns], verbs: ['watch'] },
      count: 1,
      action: { expireHistory: {} },
    });
    const resumed = await webSocketWatch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${seen}`);
    await resumed.closed;
    expect(resumed.events).toHaveLength(1);
    expect(resumed.events[0]!.type).toBe('ERROR');
    expect(resumed.events[0]!.object.code).toBe(410);
    expect(resumed.events[0]!.object.message).toMatch(new RegExp(`^too old resource version: ${seen} \\(\\d+\\)$`));
  });

  it("a list continuing from before it gets kube's 410 Expired", async () => {
    const ns = await namespace();
    for (const n of ['a', 'b', 'c']) await createConfigMap(ns, n);
    const page = await call('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
    const token = (page.json as { metadata: { continue: string } }).metadata.continue;
    await testing.faults.inject('expire-list', {
      match: { namespaces: [ns], verbs: ['list'] },
      count: 1,
      action: { expireHistory: {} },
    });
    const r = await call('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${encodeURIComponent(token)}`);
    expect(r.status).toBe(410);
    expect((r.json as { reason: string; message: string }).reason).toBe('Expired');
    expect((r.json as { message: string }).message).toMatch(/^The provided continue parameter is too old/);
  });
});

describe('a Fault changed', () => {
  it('comes into force at its new generation; its hits carry on', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    await testing.faults.inject('changing', {
      match: { namespaces: [ns], verbs: ['get'] },
      count: 1,
      action: { error: { code: 503 } },
    });
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(503);
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(200);
    const patched = await call('PATCH', '/apis/testing.mini-apiserver.io/v1alpha1/faults/changing', {
      raw: '{"spec":{"count":2}}',
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    const generation = (patched.json as { metadata: { generation: number } }).metadata.generation;
    expect(generation).toBe(2);
    for (;;) {
      const f = (await call('GET', '/apis/testing.mini-apiserver.io/v1alpha1/faults/changing')).json as {
        status?: { observedGeneration?: number };
      };
      if (f.status?.observedGeneration === 2) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(503);
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status).toBe(200);
    expect(await testing.faults.hits('changing')).toBe(2);
  });

  it('a spec that breaks the rules is refused with the field', async () => {
    const r = await call('POST', '/apis/testing.mini-apiserver.io/v1alpha1/faults', {
      body: {
        apiVersion: 'testing.mini-apiserver.io/v1alpha1',
        kind: 'Fault',
        metadata: { name: 'bad' },
        spec: { action: { error: { code: 200 }, resetConnection: {} } },
      },
    });
    expect(r.status).toBe(422);
    const causes = (r.json as { details: { causes: { field: string }[] } }).details.causes.map((c) => c.field);
    expect(causes).toEqual(['spec.action.error.code', 'spec.action']);
  });
});

describe("the server's own controllers", () => {
  it('are never faulted: a namespace is emptied while every client delete of its ConfigMaps fails', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    await testing.faults.inject('no-deletes', {
      match: { verbs: ['delete', 'deletecollection'], resources: ['configmaps'] },
      action: { error: { code: 500 } },
    });
    expect((await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`)).status).toBe(500);
    // The namespace controller deletes the ConfigMap through its store, not through the front door.
    expect((await call('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    await eventually('the namespace gone', async () =>
      (await call('GET', `/api/v1/namespaces/${ns}`)).status === 404 ? true : undefined,
    );
    expect(await testing.faults.hits('no-deletes')).toBe(1);
  });
});
