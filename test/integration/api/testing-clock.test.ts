// The Clock through the API: every time the server writes or checks follows it (creation and
// deletion times, managedFields, conditions, Table ages, TokenRequest issue and expiry, audit
// stamps, the compaction schedule), frozen, moved on, and back to real once deleted.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, installCrd, simpleCrd } from '../../helpers/crds.js';
import { eventually } from '../../helpers/eventually.js';
import { request } from '../../helpers/server-process.js';

const T0 = '2030-01-01T00:00:00Z';
const HOUR = 3_600_000;
const INTERVAL_MS = 60_000;

let dir: string;
let auditLog: string;
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'testing-clock-'));
  const policy = join(dir, 'policy.yaml');
  auditLog = join(dir, 'audit.log');
  await writeFile(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  server = await startServer({
    testing: true,
    auditPolicyFile: policy,
    auditLogPath: auditLog,
    compactionIntervalMs: INTERVAL_MS,
    // The ServiceAccount's requests are not system:masters': a busy machine must not refuse them.
    maxEventLoopUtilization: 1,
  });
  call = apiClient(server);
  await server.testing!.clock.freeze(T0);
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const meta = (r: { json: unknown }) =>
  (
    r.json as {
      metadata: {
        creationTimestamp: string;
        deletionTimestamp?: string;
        managedFields?: { time: string }[];
        resourceVersion: string;
      };
    }
  ).metadata;
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString().replace('.000Z', 'Z');

describe('a frozen clock', () => {
  it('stamps creation, managedFields and deletion times, and a CRD condition', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps?fieldManager=test', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'frozen', finalizers: ['x/y'] },
        data: { a: '1' },
      },
    });
    expect(meta(created).creationTimestamp).toBe(T0);
    expect(meta(created).managedFields?.[0]?.time).toBe(T0);
    const deleted = await call('DELETE', '/api/v1/namespaces/default/configmaps/frozen');
    expect(meta(deleted).deletionTimestamp).toBe(T0);
    await call('PATCH', '/api/v1/namespaces/default/configmaps/frozen', {
      raw: '{"metadata":{"finalizers":null}}',
      contentType: 'application/merge-patch+json',
    });

    await installCrd(call, simpleCrd('clock.example.com', 'ticks', { type: 'object' }));
    const crd = await call('GET', `${CRDS_PATH}/ticks.clock.example.com`);
    const conditions = (crd.json as { status: { conditions: { type: string; lastTransitionTime: string }[] } }).status
      .conditions;
    expect(conditions.find((c) => c.type === 'Established')?.lastTransitionTime).toBe(T0);
  });

  it('stamps audit events', async () => {
    const marker = `audit-${Date.now()}`;
    await call('GET', `/api/v1/namespaces/default/configmaps/${marker}`);
    // The log is written behind the requests.
    const event = await eventually('the audit event', async () =>
      (await readFile(auditLog, 'utf8'))
        .split('\n')
        .filter((l) => l.includes(marker))
        .map((l) => JSON.parse(l) as { stage: string; requestReceivedTimestamp: string; stageTimestamp: string })
        .find((e) => e.stage === 'ResponseComplete'),
    );
    expect(event.requestReceivedTimestamp).toBe('2030-01-01T00:00:00.000000Z');
    expect(event.stageTimestamp).toBe('2030-01-01T00:00:00.000000Z');
  });
});

describe('moved on', () => {
  it('later objects are stamped later; a Table counts ages on it', async () => {
    const testing = server.testing!;
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'older' } },
    });
    await testing.clock.advance(HOUR);
    const later = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } },
    });
    expect(meta(later).creationTimestamp).toBe(at(HOUR));
    const table = await call('GET', '/api/v1/namespaces/default/configmaps/older', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const row = (table.json as { rows: { cells: unknown[] }[] }).rows[0]!;
    expect(row.cells.at(-1)).toBe('60m');
    await testing.clock.advance(-HOUR);
  });

  it('a token is issued on it and expires on it', async () => {
    const testing = server.testing!;
    await call('POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } },
    });
    const issued = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    expect(issued.status).toBe(201);
    const status = (issued.json as { status: { token: string; expirationTimestamp: string } }).status;
    const base = Date.parse(meta(issued).creationTimestamp);
    expect(status.expirationTimestamp).toBe(new Date(base + HOUR).toISOString().replace('.000Z', 'Z'));
    const whoami = () =>
      request(`${server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST',
        ca: server.caCert,
        token: status.token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
    expect((await whoami()).status).toBe(201);
    await testing.clock.advance(2 * HOUR);
    expect((await whoami()).status).toBe(401);
    await testing.clock.advance(-2 * HOUR);
    expect((await whoami()).status).toBe(201);
  });

  it('compaction follows it: moved on by intervals, history older than them is compacted', async () => {
    const testing = server.testing!;
    const a = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'history-a' } },
    });
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'history-b' } },
    });
    const exact = `/api/v1/namespaces/default/configmaps?resourceVersion=${meta(a).resourceVersion}&resourceVersionMatch=Exact`;
    expect((await call('GET', exact)).status).toBe(200);
    // Each move is one tick of the compactor, which compacts what it saw a tick before.
    for (let moves = 1; (await call('GET', exact)).status !== 410; moves++) {
      expect(moves).toBeLessThan(50);
      await testing.clock.advance(INTERVAL_MS);
    }
  });
});

describe('back to real', () => {
  it('once the Clock is deleted; and there is one Clock, named cluster', async () => {
    const wrong = await call('POST', '/apis/testing.mini-apiserver.io/v1alpha1/clocks', {
      body: {
        apiVersion: 'testing.mini-apiserver.io/v1alpha1',
        kind: 'Clock',
        metadata: { name: 'mine' },
        spec: { mode: 'Real' },
      },
    });
    expect(wrong.status).toBe(422);
    expect((wrong.json as { message: string }).message).toBe(
      'Clock.testing.mini-apiserver.io "mine" is invalid: metadata.name: Unsupported value: "mine": supported values: "cluster"',
    );
    expect((await call('DELETE', '/apis/testing.mini-apiserver.io/v1alpha1/clocks/cluster')).status).toBe(200);
    // The Clock's removal reaches the server's clock through its informer.
    for (;;) {
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'real-' } },
      });
      const stamped = Date.parse(meta(r).creationTimestamp);
      if (stamped < Date.parse(T0)) {
        expect(Math.abs(stamped - Date.now())).toBeLessThan(HOUR);
        break;
      }
    }
  });
});
