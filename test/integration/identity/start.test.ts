// startServer with a cluster token, in process, on a real etcd: the parts a flag names stay the
// operator's on that replica (--token-auth-file, --service-account-signing-key-file), a data dir's
// own identity is what a first replica proposes, and tokens.csv edited on two replicas at once stops
// the second start with one line rather than letting either edit win unseen.
import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, StartupError, silentLogger, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { formatTokenRecord, generateAdminToken } from '../../../server/authn/token-file.js';
import { newServiceAccountKey } from '../../../server/identity/record.js';
import { SharedIdentity } from '../../../server/identity/shared.js';
import { generateCa } from '../../../server/pki.js';
import { EtcdStorage } from '../../../storage/etcd.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { request } from '../../helpers/server-process.js';

const status = async (server: ServerHandle, token: string): Promise<number> =>
  (await request(`${server.url}/api`, { ca: server.caCert, token })).status;

describe('startServer with a cluster token', () => {
  let etcd: EtcdProcess;
  let scratch: string;
  let prefixes = 0;
  const options = (prefix: string, extra: Parameters<typeof startServer>[0] = {}) => ({
    etcdServers: [etcd.endpoint],
    etcdPrefix: prefix,
    clusterToken: 'the-cluster-token',
    compactionIntervalMs: 0,
    logger: silentLogger,
    ...extra,
  });
  const freshPrefix = (): string => `/start-${prefixes++}`;

  beforeAll(async () => {
    etcd = await startEtcd();
    scratch = mkdtempSync(join(tmpdir(), 'identity-start-'));
  });
  afterAll(async () => {
    await etcd?.destroy();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("keeps what the flags name the operator's: that replica's token file and signing key", async () => {
    const prefix = freshPrefix();
    const tokenFile = join(scratch, 'tokens.csv');
    writeFileSync(tokenFile, 'operator-admin-token,ops,ops-uid,"system:masters"\n');
    const keyFile = join(scratch, 'sa.key');
    writeFileSync(
      keyFile,
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    const shared = await startServer(options(prefix));
    const own = await startServer(options(prefix, { tokenAuthFile: tokenFile, serviceAccountSigningKeyFile: keyFile }));
    try {
      // The shared CA serves both; the token files differ.
      expect(own.caCert).toBe(shared.caCert);
      expect(own.token).toBe('operator-admin-token');
      expect(await status(own, 'operator-admin-token')).toBe(200);
      expect(await status(own, shared.token)).toBe(401);
      expect(await status(shared, 'operator-admin-token')).toBe(401);
      // Each signs with its own key; the other does not verify it.
      const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } };
      expect((await apiClient(shared)('POST', '/api/v1/namespaces/default/serviceaccounts', { body: sa })).status).toBe(
        201,
      );
      const tokenFrom = async (server: ServerHandle): Promise<string> => {
        const r = await apiClient(server)('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
        });
        return (r.json as { status: { token: string } }).status.token;
      };
      const [fromShared, fromOwn] = [await tokenFrom(shared), await tokenFrom(own)];
      expect(await status(shared, fromShared)).not.toBe(401);
      expect(await status(own, fromOwn)).not.toBe(401);
      expect(await status(own, fromShared)).toBe(401);
      expect(await status(shared, fromOwn)).toBe(401);
    } finally {
      await Promise.all([shared.close(), own.close()]);
    }
  });

  it("proposes a data dir's own identity when it is the first replica: its kubeconfig keeps working", async () => {
    const dataDir = join(scratch, 'standalone');
    const before = await startServer({
      etcdServers: [etcd.endpoint],
      etcdPrefix: freshPrefix(),
      dataDir,
      compactionIntervalMs: 0,
      logger: silentLogger,
    });
    const { caCert, token } = before;
    await before.close();
    const after = await startServer(options(freshPrefix(), { dataDir }));
    try {
      expect(after.caCert).toBe(caCert);
      expect(after.token).toBe(token);
      expect(await status(after, token)).toBe(200);
    } finally {
      await after.close();
    }
  });

  it('stops the start of a replica whose tokens.csv was edited while another edit became the cluster’s', async () => {
    const prefix = freshPrefix();
    const [a, b] = [join(scratch, 'edit-a'), join(scratch, 'edit-b')];
    await Promise.all([
      startServer(options(prefix, { dataDir: a })),
      startServer(options(prefix, { dataDir: b })),
    ]).then((servers) => Promise.all(servers.map((s) => s.close())));
    appendFileSync(join(a, 'tokens.csv'), 'alice-token,alice,alice-uid,"devs"\n');
    appendFileSync(join(b, 'tokens.csv'), 'bob-token,bob,bob-uid,"devs"\n');
    const first = await startServer(options(prefix, { dataDir: a }));
    try {
      expect(await status(first, 'alice-token')).not.toBe(401);
      const second = startServer(options(prefix, { dataDir: b }));
      await expect(second).rejects.toThrow(
        new StartupError(
          `--token: ${join(b, 'tokens.csv')} was edited here while the cluster's token file changed too: move it aside to take the cluster's, then add the lines again`,
        ),
      );
      expect(readFileSync(join(b, 'tokens.csv'), 'utf8')).toContain('bob-token');
    } finally {
      await first.close();
    }
  });

  it('refuses a cluster identity whose CA cannot sign, before it writes anything into the data dir', async () => {
    const prefix = freshPrefix();
    const storage = await EtcdStorage.connect([etcd.endpoint], prefix);
    try {
      const longAgo = new Date(Date.now() - 11 * 365 * 24 * 3600 * 1000);
      await new SharedIdentity(storage, 'the-cluster-token', prefix).join(async () => ({
        ca: await generateCa(longAgo),
        serviceAccountKeys: [newServiceAccountKey()],
        tokenFile: formatTokenRecord(generateAdminToken()),
      }));
    } finally {
      await storage.close();
    }
    const dataDir = join(scratch, 'expired');
    await expect(startServer(options(prefix, { dataDir }))).rejects.toThrow(
      new StartupError("--token: the cluster identity's CA cannot sign: expired, not a CA, or not its key"),
    );
    expect(existsSync(join(dataDir, 'pki'))).toBe(false);
  });
});
