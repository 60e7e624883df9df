// ?watch=true over HTTPS against an in-process server on the embedded store: the stream format,
// where a watch starts (resourceVersion unset, 0, N, compacted), selector transitions, bookmarks,
// watch-list and timeoutSeconds.
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { type ServerHandle, type ServerOptions, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';
import { type WatchStream, openWatch } from '../../helpers/watch-stream.js';
import { timerFired } from '../../helpers/timer-fired.js';

interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    code?: number;
    reason?: string;
    message?: string;
    metadata: {
      name?: string;
      resourceVersion: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
  };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.watch.example.com' },
  spec: {
    group: 'watch.example.com',
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
const BASE = '/apis/watch.example.com/v1/namespaces/default/widgets';

let server: ServerHandle;

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  target: ServerHandle = server,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await apiClient(target)(method, path, { body, contentType });
  return { status: r.status, json: r.json as Record<string, unknown> };
}

const watch = (query: string, base = BASE, target: ServerHandle = server): Promise<WatchStream<WatchEvent>> =>
  openWatch<WatchEvent>(target, `${base}?watch=true&${query}`);

const widget = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'watch.example.com/v1',
  kind: 'Widget',
  metadata: { name, labels },
  spec: {},
});

const summary = (events: WatchEvent[]): string[] =>
  events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`.trim());

/**
 * How long a read waits for the watch cache to reach its revision before kube's 504 (kube's 3 s),
 * shortened, with room left for a cache on etcd behind by a moment on a busy machine.
 */
const FRESHNESS_TIMEOUT_MS = 1500;

/** Each backend's server options; etcd's start a real etcd first. */
const backends: { name: string; options(compactionIntervalMs: number): Promise<ServerOptions> }[] = [
  { name: 'sqlite', options: async (compactionIntervalMs) => ({ storage: 'memory', compactionIntervalMs }) },
  {
    name: 'etcd',
    options: async (compactionIntervalMs) => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/${randomUUID()}`, compactionIntervalMs };
    },
  },
];
let etcd: EtcdProcess | undefined;
afterAll(async () => {
  await etcd?.destroy();
});

describe.each(backends)('on $name', ({ options }) => {
  beforeAll(async () => {
    server = await startServer({ ...(await options(0)), watchCacheFreshnessTimeoutMs: FRESHNESS_TIMEOUT_MS });
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status).toBe(201);
    const deadline = Date.now() + 5000;
    while ((await call('GET', BASE)).status !== 200) {
      if (Date.now() > deadline) throw new Error('the CRD was not served');
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('watch', () => {
    it('streams JSON lines: ADDED for what exists, then every change in order', async () => {
      await call('POST', BASE, widget('pre'));
      const w = await watch('');
      expect([w.status, w.headers['content-type']]).toEqual([200, 'application/json']);
      expect(summary(await w.next(1))).toEqual(['ADDED pre']);
      await call('POST', BASE, widget('a'));
      await call('PATCH', `${BASE}/a`, { spec: { x: 1 } }, 'application/merge-patch+json');
      await call('DELETE', `${BASE}/a`);
      expect(summary(await w.next(4))).toEqual(['ADDED pre', 'ADDED a', 'MODIFIED a', 'DELETED a']);
      const rvs = w.events.slice(1).map((e) => Number(e.object.metadata.resourceVersion));
      expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
      expect(new Set(rvs).size).toBe(3);
      expect(w.events[1]!.object.kind).toBe('Widget');
      w.close();
      await call('DELETE', `${BASE}/pre`);
    });

    it('from resourceVersion N: exactly the changes after N', async () => {
      const created = await call('POST', BASE, widget('b'));
      const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
      await call('PATCH', `${BASE}/b`, { spec: { y: 1 } }, 'application/merge-patch+json');
      await call('DELETE', `${BASE}/b`);
      const w = await watch(`resourceVersion=${rv}`);
      expect(summary(await w.next(2))).toEqual(['MODIFIED b', 'DELETED b']);
      w.close();
    });

    it('ends with an ERROR 410 Expired event when N was compacted', async () => {
      // A server that compacts every 100 ms, up to what it saw one interval before.
      const compacting = await startServer(await options(100));
      try {
        const namespaces = '/api/v1/namespaces';
        await call('POST', namespaces, { metadata: { name: 'gone-soon' } }, 'application/json', compacting);
        // A later write, so that compaction can move well past revision 1 (the newest is always kept).
        await call(
          'PATCH',
          `${namespaces}/gone-soon`,
          { metadata: { labels: { a: 'b' } } },
          'application/merge-patch+json',
          compacting,
        );
        const expired = await eventually('the compaction', async () => {
          // Revision 1 predates the watch cache (it started with the server), so the watch falls
          // back to storage, which has compacted it away.
          const w = await watch('resourceVersion=1', namespaces, compacting);
          await Promise.race([w.ended, new Promise((r) => setTimeout(r, 300))]);
          if (w.events[0]?.type === 'ERROR') return w;
          w.close();
          return undefined;
        });
        await expired.ended;
        expect(expired.status).toBe(200);
        expect(expired.events).toHaveLength(1);
        expect(expired.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
        expect(expired.events[0]!.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
      } finally {
        await compacting.close();
      }
    });

    it('turns selector transitions into ADDED and DELETED for that watcher', async () => {
      const w = await watch('labelSelector=color%3Dred');
      await call('POST', BASE, widget('d', { color: 'blue' }));
      await call('PATCH', `${BASE}/d`, { metadata: { labels: { color: 'red' } } }, 'application/merge-patch+json');
      await call('PATCH', `${BASE}/d`, { spec: { z: 1 } }, 'application/merge-patch+json');
      await call('PATCH', `${BASE}/d`, { metadata: { labels: { color: 'green' } } }, 'application/merge-patch+json');
      await call('DELETE', `${BASE}/d`);
      const events = await w.next(3);
      expect(summary(events)).toEqual(['ADDED d', 'MODIFIED d', 'DELETED d']);
      // The DELETED of an object that stopped matching shows it as it was, at the new resourceVersion.
      expect(events[2]!.object.metadata.labels).toEqual({ color: 'red' });
      await new Promise((r) => setTimeout(r, 100));
      expect(w.events).toHaveLength(3);
      w.close();
    });

    it('watch-list: initial events, then a BOOKMARK marking their end', async () => {
      await call('POST', BASE, widget('e1'));
      await call('POST', BASE, widget('e2'));
      const w = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      const events = await w.next(3);
      expect(summary(events)).toEqual(['ADDED e1', 'ADDED e2', 'BOOKMARK']);
      expect(events[2]!.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
      expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
        Number(events[1]!.object.metadata.resourceVersion),
      );
      w.close();
    });

    it('refuses inconsistent watch options with kube’s 422', async () => {
      const r = await call('GET', `${BASE}?watch=true&sendInitialEvents=true`);
      expect(r.status).toBe(422);
      expect(r.json['message']).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
    });

    it('honours timeoutSeconds, with a last BOOKMARK when bookmarks are allowed', async () => {
      // Ended by the server (cleanly), not before: a timer of half the second, set before the
      // watch was asked for, has fired by then (the server runs in this process, and timers on
      // one loop fire in the order they expire).
      const halfway = timerFired(500);
      const w = await watch('timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=0');
      await w.ended;
      expect(halfway()).toBe(true);
      expect(w.events[w.events.length - 1]!.type).toBe('BOOKMARK');
    });

    it('streams the same events over a WebSocket, and refuses system:anonymous an upgrade', async () => {
      const url = `${server.url.replace('https', 'wss')}${BASE}?watch=true&resourceVersion=0&labelSelector=ws%3Dyes`;
      const ws = new WebSocket(url, { ca: server.caCert, headers: { authorization: `Bearer ${server.token}` } });
      const messages: WatchEvent[] = [];
      ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WatchEvent));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      await call('POST', BASE, widget('over-ws', { ws: 'yes' }));
      await call('DELETE', `${BASE}/over-ws`);
      await eventually('two messages', async () => (messages.length >= 2 ? true : undefined));
      expect(summary(messages)).toEqual(['ADDED over-ws', 'DELETED over-ws']);
      ws.close();

      const anonymous = new WebSocket(url, { ca: server.caCert });
      const status = await new Promise<number>((resolve) =>
        anonymous.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
      );
      // system:anonymous, whom RBAC lets read health and version only.
      expect(status).toBe(403);
    });

    it('cuts off a watcher that does not read once its buffer is full, and goes on serving', async () => {
      const stalled = await openWatch(server, `${BASE}?watch=true&resourceVersion=0`, { paused: true }); // a client that does not read
      const blob = 'x'.repeat(1024 * 1024);
      const writes = 30; // 30 MiB of events, beyond the 16 MiB the server buffers for a watcher
      for (let i = 0; i < writes; i++) await call('POST', BASE, { ...widget(`big-${i}`), spec: { blob } });
      // Reading now: a watcher that was cut off ends after what was buffered, not after everything.
      stalled.resume();
      await stalled.closed;
      expect(stalled.bytesReceived()).toBeLessThan(writes * blob.length);
      expect((await call('GET', '/version')).status).toBe(200);
      for (let i = 0; i < writes; i++) await call('DELETE', `${BASE}/big-${i}`);
    });

    it('ends the watches of a CRD that is deleted, after the DELETED events of its objects', async () => {
      await call('POST', BASE, widget('last'));
      const w = await watch('resourceVersion=0');
      await w.next(1);
      expect(
        (await call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`)).status,
      ).toBe(200);
      await w.ended;
      expect(summary(w.events).filter((e) => e.endsWith(' last'))).toEqual(['ADDED last', 'DELETED last']);
    });
  });

  describe('resourceVersion on a list', () => {
    it('0 and a past revision answer at once; a future one waits, then 504 as kube', async () => {
      const nsList = '/api/v1/namespaces';
      const now = await call('GET', nsList);
      const rv = Number((now.json['metadata'] as { resourceVersion: string }).resourceVersion);
      expect((await call('GET', `${nsList}?resourceVersion=0`)).status).toBe(200);
      const one = await call('GET', '/api/v1/namespaces/default?resourceVersion=0');
      expect([one.status, (one.json['metadata'] as { name: string }).name]).toEqual([200, 'default']);
      expect((await call('GET', '/api/v1/namespaces/absent?resourceVersion=0')).status).toBe(404);
      const notOlder = await call('GET', `${nsList}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
      expect(Number((notOlder.json['metadata'] as { resourceVersion: string }).resourceVersion)).toBeGreaterThanOrEqual(
        rv,
      );

      // The server waits FRESHNESS_TIMEOUT_MS (kube: 3 s) for the cache to catch up before its 504:
      // a timer of half that, set before the request, has fired when the answer comes.
      const future = rv + 1000;
      const halfway = timerFired(FRESHNESS_TIMEOUT_MS / 2);
      const tooNew = await call('GET', `${nsList}?resourceVersion=${future}`);
      expect(halfway()).toBe(true);
      expect(tooNew.status).toBe(504);
      expect(tooNew.json).toMatchObject({
        reason: 'Timeout',
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
      });
      expect(tooNew.json['message']).toMatch(
        new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`),
      );
    });
  });
});
