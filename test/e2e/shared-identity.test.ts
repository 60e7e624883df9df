// Replicas that share one identity (issue 28's "Done when"): two real server processes started at
// once from two empty data dirs on one real etcd, given the same cluster token, become one
// identity: either admin kubeconfig works against both (real kubectl), a ServiceAccount token from
// TokenRequest on one is accepted by the other, a client certificate signed by the shared CA (with
// openssl, from a data dir's pki/) works on both, a line added to one's tokens.csv reaches the
// other, and after `mini-apiserver rotate-service-account-key` new tokens carry the new key while
// the old ones still verify. A replica given another token on the same prefix does not start; one
// on another prefix is another cluster, sharing nothing.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTITY_KEY } from '../../server/identity/shared.js';
import { EtcdStorage } from '../../storage/etcd.js';
import { type EtcdProcess, startEtcd } from '../helpers/etcd.js';
import { eventually } from '../helpers/eventually.js';
import {
  type CommandResult,
  type ServerProcess,
  run,
  runBinary,
  startServerProcess,
} from '../helpers/server-process.js';

const NAMESPACE = 'shared-identity';

/** The `kid` of a JWS's protected header. */
const keyId = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;

/** kubectl as a user with only these credentials, against `server`. */
function kubectlAs(server: ServerProcess, ca: string, credentials: string[], args: string[]): Promise<CommandResult> {
  return run('kubectl', [
    '--kubeconfig=/dev/null',
    `--server=${server.url}`,
    `--certificate-authority=${ca}`,
    ...credentials,
    ...args,
  ]);
}

const ok = (r: CommandResult): string => {
  expect(r.code, `kubectl exited ${r.code}: ${r.stderr}`).toBe(0);
  return r.stdout.trim();
};

describe('two replicas on one etcd with one cluster token', () => {
  let etcd: EtcdProcess;
  let scratch: string;
  let tokenFile: string;
  let args: string[];
  const dirs = { a: '', b: '' };
  let a: ServerProcess;
  let b: ServerProcess;
  const caFile = (): string => join(dirs.a, 'pki', 'ca.crt');
  const whoami = (server: ServerProcess, credentials: string[]): Promise<CommandResult> =>
    kubectlAs(server, caFile(), credentials, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);

  beforeAll(async () => {
    etcd = await startEtcd();
    scratch = mkdtempSync(join(tmpdir(), 'shared-identity-'));
    tokenFile = join(scratch, 'cluster-token');
    writeFileSync(tokenFile, `${execFileSync('openssl', ['rand', '-hex', '32'], { encoding: 'utf8' })}\n`, {
      mode: 0o600,
    });
    dirs.a = join(scratch, 'a');
    dirs.b = join(scratch, 'b');
    args = ['--etcd-servers', etcd.endpoint, '--etcd-prefix', '/cluster-one', '--token-file', tokenFile];
    // At once, on an empty etcd: both race to found the identity.
    [a, b] = await Promise.all([
      startServerProcess({ dataDir: dirs.a, args }),
      startServerProcess({ dataDir: dirs.b, args }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.destroy();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('resolves the start-up race to one identity: one founded it, the other joined', () => {
    const logs = [a.stderr(), b.stderr()];
    expect(logs.filter((l) => l.includes('founded the cluster identity'))).toHaveLength(1);
    expect(logs.filter((l) => l.includes('joined the cluster identity'))).toHaveLength(1);
    for (const file of ['pki/ca.crt', 'pki/ca.key', 'pki/sa.key', 'tokens.csv'])
      expect(readFileSync(join(dirs.b, file), 'utf8'), file).toBe(readFileSync(join(dirs.a, file), 'utf8'));
    expect(a.token).toBe(b.token);
    expect(a.ca).toBe(b.ca);
    // Each replica's own serving certificate, from the shared CA.
    expect(readFileSync(join(dirs.a, 'pki/apiserver.crt'), 'utf8')).not.toBe(
      readFileSync(join(dirs.b, 'pki/apiserver.crt'), 'utf8'),
    );
  });

  it('lets either admin kubeconfig work against both replicas', async () => {
    for (const kubeconfig of [a.kubeconfigPath, b.kubeconfigPath]) {
      for (const server of [a, b]) {
        const r = await run('kubectl', [
          '--kubeconfig',
          kubeconfig,
          `--server=${server.url}`,
          'get',
          'namespace',
          'default',
          '-o',
          'name',
        ]);
        expect(ok(r)).toBe('namespace/default');
      }
    }
    ok(await a.kubectl(['create', 'namespace', NAMESPACE]));
    ok(await a.kubectl(['create', 'serviceaccount', 'robot', '-n', NAMESPACE]));
  });

  it('accepts a ServiceAccount token from TokenRequest on one replica on the other, both ways', async () => {
    for (const [issuer, verifier] of [
      [a, b],
      [b, a],
    ] as const) {
      const token = ok(await issuer.kubectl(['create', 'token', 'robot', '-n', NAMESPACE]));
      expect(ok(await whoami(verifier, [`--token=${token}`]))).toBe(`system:serviceaccount:${NAMESPACE}:robot`);
    }
  });

  it('authenticates a client certificate signed by the shared CA on both replicas', async () => {
    const key = join(scratch, 'carol.key');
    const csr = join(scratch, 'carol.csr');
    const cert = join(scratch, 'carol.crt');
    const pki = join(dirs.a, 'pki');
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=carol/O=devs',
        '-keyout',
        key,
        '-out',
        csr,
      ],
      { stdio: 'ignore' },
    );
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        join(pki, 'ca.crt'),
        '-CAkey',
        join(pki, 'ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    for (const server of [a, b])
      expect(ok(await whoami(server, [`--client-certificate=${cert}`, `--client-key=${key}`]))).toBe('carol');
  });

  it('shares the token file: a line added on one replica, which restarts, works on the other without a restart', async () => {
    appendFileSync(join(dirs.a, 'tokens.csv'), 'alice-secret-token,alice,alice-uid,"devs"\n');
    await a.stop();
    a = await startServerProcess({ dataDir: dirs.a, args });
    for (const server of [a, b])
      await eventually(`alice on ${server.url}`, async () =>
        (await whoami(server, ['--token=alice-secret-token'])).stdout === 'alice' ? true : undefined,
      );
    await eventually("b's tokens.csv", async () =>
      readFileSync(join(dirs.b, 'tokens.csv'), 'utf8').includes('alice-secret-token') ? true : undefined,
    );
  });

  it('rotates the signing key: new tokens carry the new key on both replicas, old tokens still verify', async () => {
    const before = [
      ok(await a.kubectl(['create', 'token', 'robot', '-n', NAMESPACE])),
      ok(await b.kubectl(['create', 'token', 'robot', '-n', NAMESPACE])),
    ];
    expect(keyId(before[0]!)).toBe(keyId(before[1]!));
    const r = await runBinary([
      'rotate-service-account-key',
      '--etcd-servers',
      etcd.endpoint,
      '--etcd-prefix=/cluster-one',
      '--token-file',
      tokenFile,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rotated = /new key id (\S+); 2 keys verify/.exec(r.stdout)?.[1];
    expect(rotated, r.stdout).toBeDefined();
    expect(rotated).not.toBe(keyId(before[0]!));
    for (const [issuer, verifier] of [
      [a, b],
      [b, a],
    ] as const) {
      const token = await eventually(`a token with the new key from ${issuer.url}`, async () => {
        const t = ok(await issuer.kubectl(['create', 'token', 'robot', '-n', NAMESPACE]));
        return keyId(t) === rotated ? t : undefined;
      });
      expect(ok(await whoami(verifier, [`--token=${token}`]))).toBe(`system:serviceaccount:${NAMESPACE}:robot`);
    }
    for (const token of before)
      for (const server of [a, b])
        expect(ok(await whoami(server, [`--token=${token}`]))).toBe(`system:serviceaccount:${NAMESPACE}:robot`);
  });

  it('refuses a replica given another token on the same prefix: it does not start, and the cluster is unchanged', async () => {
    const etcdClient = await EtcdStorage.connect([etcd.endpoint], '/cluster-one');
    const record = await etcdClient.get(IDENTITY_KEY);
    expect(record).toBeDefined();
    const dir = join(scratch, 'intruder');
    const r = await runBinary([
      '--data-dir',
      dir,
      '--secure-port',
      '0',
      '--etcd-servers',
      etcd.endpoint,
      '--etcd-prefix',
      '/cluster-one',
      '--token',
      'not-the-token',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mini-apiserver: --token: the cluster identity at etcd prefix "/cluster-one" was sealed with another token (or under another prefix): this server shares nothing with it\n',
    );
    expect(await etcdClient.get(IDENTITY_KEY)).toEqual(record);
    await etcdClient.close();
    expect(existsSync(join(dir, 'pki')), 'keys written by a replica that did not start').toBe(false);
    expect(existsSync(join(dir, 'tokens.csv'))).toBe(false);
  });

  it('keeps a cluster on another prefix apart, even with the same token: nothing of one works on the other', async () => {
    const other = await startServerProcess({
      args: ['--etcd-servers', etcd.endpoint, '--etcd-prefix', '/cluster-two', '--token-file', tokenFile],
    });
    try {
      expect(other.ca).not.toBe(a.ca);
      expect(other.token).not.toBe(a.token);
      ok(await other.kubectl(['create', 'namespace', NAMESPACE]));
      ok(await other.kubectl(['create', 'serviceaccount', 'robot', '-n', NAMESPACE]));
      const theirs = ok(await other.kubectl(['create', 'token', 'robot', '-n', NAMESPACE]));
      const ours = ok(await a.kubectl(['create', 'token', 'robot', '-n', NAMESPACE]));
      // Tokens of one are 401 on the other, both ways (the other's CA trusted, so TLS is not what refuses).
      for (const [server, token] of [
        [a, other.token],
        [a, theirs],
        [other, a.token],
        [other, ours],
      ] as const) {
        const status = (await server.request('/api', { token })).status;
        expect(status, `${server.url}`).toBe(401);
      }
      // And neither CA verifies the other's serving certificate.
      await expect(
        run('kubectl', ['--kubeconfig', a.kubeconfigPath, `--server=${other.url}`, 'get', 'ns']),
      ).resolves.toMatchObject({
        code: 1,
      });
    } finally {
      await other.stop();
    }
  });
});
