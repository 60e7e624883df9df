// A consistent list (no resourceVersion) on etcd shows every write made before it, also one the
// server's watch cache has not seen yet: written to etcd behind the server's back and listed at once.
// Where etcd's progress notifications are not exact (before 3.4.31 and 3.5.13, as Debian's 3.4.23
// that `make test` installs), the list is read from etcd, as kube's cacher delegates it: no
// consistent read from cache is counted, and start-up says so in one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogFields, createLogger } from '../../../apimachinery/log.js';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { EtcdStorage, requestWatchProgressSafe } from '../../../storage/etcd.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';
import { type EtcdProcess, etcdVersion, startEtcd } from '../../helpers/etcd.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const WRITES = 20;

let etcd: EtcdProcess;
let direct: EtcdStorage;
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
const logged: LogFields[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  direct = await EtcdStorage.connect([etcd.endpoint]);
  server = await startServer({
    etcdServers: [etcd.endpoint],
    logger: createLogger({ level: 'info', write: (line) => logged.push(JSON.parse(line) as LogFields) }),
  });
  call = apiClient(server);
});
afterAll(async () => {
  await server?.close();
  await direct?.close();
  await etcd?.destroy();
});

/** apiserver_watch_cache_consistent_read_total for configmaps, by its success and fallback labels. */
async function consistentReads(): Promise<Map<string, number>> {
  const text = (await call('GET', '/metrics')).text;
  const series =
    /^apiserver_watch_cache_consistent_read_total\{fallback="(\w+)",resource="\/configmaps",success="(\w+)"\} (\d+)$/gm;
  return new Map([...text.matchAll(series)].map((m) => [`success=${m[2]},fallback=${m[1]}`, Number(m[3])]));
}

describe('a consistent list on etcd', () => {
  const exact = requestWatchProgressSafe(etcdVersion());

  it('says at start where consistent lists are served from, and why', async () => {
    const line = await eventually('the start-up line', async () => logged.find((l) => l.msg === 'consistent lists'));
    expect(line.servedFrom).toBe(exact ? 'watch cache' : 'storage');
    expect(line.reason).toContain(`${etcd.endpoint} ${etcdVersion()}`);
  });

  it('shows a write made just before it, also one made behind the server’s back', async () => {
    const template = await call('POST', CONFIGMAPS, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'template' }, data: { a: 'b' } },
    });
    expect(template.status).toBe(201);
    const stored = await direct.get('/registry/configmaps/default/template');
    const before = await consistentReads();
    for (let i = 0; i < WRITES; i++) {
      const object = JSON.parse(stored!.value) as { metadata: { name: string; uid: string } };
      object.metadata.name = `direct-${i}`;
      object.metadata.uid = `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`;
      await direct.create(`/registry/configmaps/default/direct-${i}`, JSON.stringify(object));
      const list = await call('GET', CONFIGMAPS);
      expect(list.status).toBe(200);
      const names = (list.json as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name);
      expect(names).toContain(`direct-${i}`);
    }
    const after = await consistentReads();
    const served = [...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)]).filter(([, n]) => n !== 0);
    if (exact)
      expect(served.reduce((sum, [k, n]) => sum + (String(k).startsWith('success=true') ? Number(n) : 0), 0)).toBe(
        WRITES,
      );
    else expect(served).toEqual([]);
  });
});
