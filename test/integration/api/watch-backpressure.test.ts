// Watchers whose clients do not read, beside watchers whose clients do, over HTTPS and WebSocket
// against an in-process server with a small watch budget: the slow ones are ended and counted in
// apiserver_terminated_watchers_total, the readers get every event in order, and the bytes the
// server holds for watchers (apiserver_watch_pending_bytes) never exceed the budget.
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_WATCH_BUDGET_BYTES, watchStats } from '../../../server/endpoints/watch/budget.js';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';
import { openWatch } from '../../helpers/watch-stream.js';

// A budget of fifty 10 KiB events and a short grace, so that a few watchers show it in seconds;
// the default budget's arithmetic is unit-tested (test/unit/server/endpoints/watch/budget.test.ts).
vi.mock('../../../server/endpoints/watch/budget.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../server/endpoints/watch/budget.js')>()),
  DEFAULT_WATCH_BUDGET_BYTES: 512 * 1024,
  TERMINATION_GRACE_MS: 300,
}));

const GROUP = 'backpressure.example.com';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};
const BASE = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const SLOW_HTTP = 4;
const SLOW_WS = 2;
/** Enough to end every slow watcher whatever the kernel buffers for it first; the test stops sooner. */
const MAX_WRITES = 3000;

interface WatchEvent {
  type: string;
  object: { metadata: { resourceVersion: string }; spec?: { i?: number } };
}

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD })).status).toBe(
    201,
  );
  await eventually('the CRD served', async () => ((await call('GET', BASE)).status === 200 ? true : undefined));
});

afterAll(async () => {
  await server?.close();
});

/** A WebSocket watch; with `stall`, its client stops reading once it is open. */
async function webSocketWatch(
  path: string,
  protocols: string[],
  stall: boolean,
): Promise<{ ws: WebSocket; events: WatchEvent[] }> {
  const ws = new WebSocket(`${server.url.replace('https', 'wss')}${path}`, protocols, {
    ca: server.caCert,
    ...(protocols.length ? {} : { headers: { authorization: `Bearer ${server.token}` } }),
  });
  const events: WatchEvent[] = [];
  ws.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as WatchEvent));
  ws.on('error', () => {});
  await once(ws, 'open');
  if (stall) ws.pause();
  return { ws, events };
}

/** Whether the server's side of the connection from `clientPort` is still established (Linux; undefined elsewhere). */
function serverSideEstablished(clientPort: number): boolean | undefined {
  if (!existsSync('/proc/net/tcp')) return undefined;
  const hex = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');
  const local = `:${hex(server.port)}`;
  const remote = `:${hex(clientPort)}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .some((f) => f[1]?.endsWith(local) && f[2]?.endsWith(remote) && f[3] === '01');
}

const terminated = (): number =>
  watchStats.terminatedWatchers().find((t) => t.group === GROUP && t.resource === 'widgets')?.count ?? 0;

async function metric(name: string): Promise<string | undefined> {
  const text = (await call('GET', '/metrics')).text;
  return text
    .split('\n')
    .find((line) => line.startsWith(name))
    ?.slice(name.length + 1);
}

/**
 * Hang guards, not speed bounds: the test is a few hundred sequential 10 KiB writes (until the
 * kernel's socket buffers of the stalled clients and then the server's budget fill) fanned out to
 * eight watchers; on a loaded machine that took more than the default 60 s.
 */
const TEST_TIMEOUT_MS = 300_000;
const WAIT_MS = 60_000;

describe('watch backpressure', () => {
  it('ends the watchers that do not read, holds no more than the budget for them, and readers get every event in order', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const created = await call('POST', BASE, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
    });
    expect(created.status).toBe(201);
    const from = (created.json as WatchEvent['object']).metadata.resourceVersion;
    const path = `${BASE}?watch=true&resourceVersion=${from}`;
    const httpReader = await openWatch<WatchEvent>(server, path);
    expect(httpReader.status).toBe(200);
    const httpEvents = httpReader.events;
    const tokenProtocol = `base64url.bearer.authorization.k8s.io.${Buffer.from(server.token).toString('base64url')}`;
    const wsReader = await webSocketWatch(path, [tokenProtocol, 'base64.binary.k8s.io'], false);
    expect(wsReader.ws.protocol).toBe('base64.binary.k8s.io');
    // Clients that send the request and then never read.
    const stalled = await Promise.all(
      Array.from({ length: SLOW_HTTP }, () => openWatch<WatchEvent>(server, path, { paused: true })),
    );
    const stalledWs = await Promise.all(Array.from({ length: SLOW_WS }, () => webSocketWatch(path, [], true)));

    const blob = 'x'.repeat(10 * 1024);
    const written: string[] = [];
    let maxPending = 0;
    const sample = (): void => void (maxPending = Math.max(maxPending, watchStats.pendingBytes));
    const sampler = setInterval(sample, 1);
    try {
      for (let i = 0; i < MAX_WRITES && terminated() < SLOW_HTTP + SLOW_WS; i++) {
        const r = await call('PATCH', `${BASE}/w`, {
          raw: JSON.stringify({ spec: { i, blob } }),
          contentType: 'application/merge-patch+json',
        });
        expect(r.status).toBe(200);
        written.push((r.json as WatchEvent['object']).metadata.resourceVersion);
        sample();
      }
    } finally {
      clearInterval(sampler);
    }

    expect(terminated()).toBe(SLOW_HTTP + SLOW_WS);
    expect(await metric(`apiserver_terminated_watchers_total{group="${GROUP}",resource="widgets"}`)).toBe(
      String(SLOW_HTTP + SLOW_WS),
    );
    expect(maxPending).toBeGreaterThan(0);
    expect(maxPending).toBeLessThanOrEqual(DEFAULT_WATCH_BUDGET_BYTES);

    const inOrder = (events: WatchEvent[]): string[] =>
      events.map((e) => `${e.type} ${e.object.metadata.resourceVersion} ${e.object.spec?.i}`);
    const want = written.map((rv, i) => `MODIFIED ${rv} ${i}`);
    await eventually(
      'the HTTPS reader has every event',
      async () => (httpEvents.length >= written.length ? true : undefined),
      WAIT_MS,
    );
    await eventually(
      'the WebSocket reader has every event',
      async () => (wsReader.events.length >= written.length ? true : undefined),
      WAIT_MS,
    );
    expect(inOrder(httpEvents)).toEqual(want);
    expect(inOrder(wsReader.events)).toEqual(want);
    // With the slow watchers gone, what is pending is what the readers' connections last held.
    expect(Number(await metric('apiserver_watch_pending_bytes'))).toBeLessThan(DEFAULT_WATCH_BUDGET_BYTES / 4);

    // A client that never takes the end of its stream loses its connection after the grace.
    for (const w of stalled) {
      const established = (): boolean | undefined => serverSideEstablished(w.localPort!);
      if (established() === undefined) break;
      await eventually(
        `the server closed its side of the connection from port ${w.localPort}`,
        async () => (established() ? undefined : true),
        WAIT_MS,
      );
    }
    // Reading now, each gets what was sent before its end, far from everything, then the close.
    for (const w of stalled) {
      w.resume();
      await w.closed;
      expect(w.bytesReceived()).toBeLessThan(written.length * blob.length);
    }
    for (const { ws, events } of stalledWs) {
      const closed = once(ws, 'close');
      ws.resume();
      await closed;
      expect(events.length).toBeLessThan(written.length);
    }
    wsReader.ws.close();
    httpReader.close();
  });
});
