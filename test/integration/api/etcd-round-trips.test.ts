// A create on etcd is one transaction: nothing read before it, nothing written after it. Counted by
// etcd itself, on its /metrics (the gRPC requests it started, by method), around creates of a
// custom resource sent one after another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';
import { eventually } from '../../helpers/eventually.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';

const GROUP = 'trips.example.com';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const CREATES = 20;

let etcd: EtcdProcess;
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

/** etcd's count of the gRPC requests it started, by service and method. */
async function etcdRequests(): Promise<Map<string, number>> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^grpc_server_started_total\{grpc_method="(\w+)",grpc_service="([\w.]+)",grpc_type="\w+"\} (\d+)$/.exec(
      line,
    );
    if (m) counts.set(`${m[2]}/${m[1]}`, Number(m[3]));
  }
  return counts;
}

beforeAll(async () => {
  etcd = await startEtcd();
  // The controllers' Lease, taken at the start, is not renewed while the creates run.
  server = await startServer({
    etcdServers: [etcd.endpoint],
    leaderElection: { leaseDurationSeconds: 600, renewDeadlineMs: 400_000, retryPeriodMs: 300_000 },
  });
  call = apiClient(server);
  await installCrd(
    call,
    simpleCrd(GROUP, 'widgets', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.size <= self.maxSize', message: 'too big' }],
          properties: { size: { type: 'integer' }, maxSize: { type: 'integer', default: 100 } },
        },
      },
    }),
  );
});
afterAll(async () => {
  await server?.close();
  await etcd?.destroy();
});

describe('a create of a custom resource on etcd', () => {
  it('is one etcd request: its create transaction', async () => {
    // The CRD controller's status writes after the install end first.
    const before = await eventually('etcd quiet', async () => {
      const a = await etcdRequests();
      await new Promise((r) => setTimeout(r, 500));
      const b = await etcdRequests();
      return [...b].every(([k, n]) => a.get(k) === n) ? b : undefined;
    });
    for (let i = 0; i < CREATES; i++) {
      const r = await call('POST', WIDGETS, {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: 1 } },
      });
      expect(r.status).toBe(201);
    }
    const after = await etcdRequests();
    const made = [...after]
      .filter(([k, n]) => n !== (before.get(k) ?? 0))
      .map(([k, n]) => [k, n - (before.get(k) ?? 0)]);
    expect(Object.fromEntries(made)).toEqual({ 'etcdserverpb.KV/Txn': CREATES });
  });
});
