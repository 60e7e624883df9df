// The real binary (dist/, built by `make test` or `npx tsc -p tsconfig.json`) with real curl and
// kubectl: start-up, credentials on disk, authentication, failures an operator can cause, and a
// graceful stop. Plus the library entry point, startServer({ storage: 'memory' }).
import { createServer, type Server } from 'node:net';
import { existsSync, readdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServer } from '../../server/index.js';
import { generatePki, servingHosts } from '../../server/pki.js';
import { loadLog } from '../helpers/load-log.js';
import {
  REPO_ROOT,
  type ServerProcess,
  request,
  run,
  runBinary,
  startServerProcess,
} from '../helpers/server-process.js';

const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

const scratch = mkdtempSync(join(tmpdir(), 'serving-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: { token: string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  'current-context': string;
}

describe('the binary, first start on an empty data dir', () => {
  const dataDir = join(scratch, 'first');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ dataDir });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints one serving line with the kubeconfig path, and logs it structured', () => {
    expect(server.stdout()).toBe(
      `mini-apiserver serving on ${server.url} (sqlite); kubeconfig: ${join(dataDir, 'admin.kubeconfig')}\n`,
    );
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const logs = server
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'serving',
        url: server.url,
        storage: 'sqlite',
        kubeconfig: server.kubeconfigPath,
      }),
    );
  });

  it('writes the PKI, the token file and a kubeconfig that names them', () => {
    const pki = join(dataDir, 'pki');
    for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']) expect(existsSync(join(pki, f))).toBe(true);
    for (const secret of ['pki/ca.key', 'pki/apiserver.key', 'tokens.csv', 'admin.kubeconfig'])
      expect(statSync(join(dataDir, secret)).mode & 0o777).toBe(0o600);
    const csv = readFileSync(join(dataDir, 'tokens.csv'), 'utf8');
    expect(csv).toMatch(/^[A-Za-z0-9_-]{43},admin,[0-9a-f-]{36},"system:masters"\n$/);

    const kc = parseYaml(readFileSync(server.kubeconfigPath, 'utf8')) as Kubeconfig;
    expect(kc['current-context']).toBe('mini-apiserver');
    expect(kc.contexts).toEqual([{ name: 'mini-apiserver', context: { cluster: 'mini-apiserver', user: 'admin' } }]);
    expect(kc.clusters[0]!.cluster.server).toBe(server.url);
    expect(Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString()).toBe(
      readFileSync(join(pki, 'ca.crt'), 'utf8'),
    );
    expect(kc.users[0]!.user.token).toBe(csv.split(',')[0]);
  });

  it('real curl reads /version with the CA and the token', async () => {
    const r = await run('curl', [
      '-sS',
      '--fail',
      '--cacert',
      join(dataDir, 'pki', 'ca.crt'),
      '-H',
      `Authorization: Bearer ${server.token}`,
      `${server.url}/version`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      major: '1',
      minor: '33',
      gitVersion: expect.stringMatching(/^v1\.33\.0\+mini-apiserver\./),
    });
  });

  it('curl against localhost verifies the certificate too', async () => {
    const r = await run('curl', [
      '-sS',
      '--fail',
      '--cacert',
      join(dataDir, 'pki', 'ca.crt'),
      '--resolve',
      `localhost:${server.port}:127.0.0.1`,
      `https://localhost:${server.port}/healthz`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok');
  });

  it('real kubectl version -o json works with the admin kubeconfig', async () => {
    const r = await server.kubectl(['version', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { serverVersion: Record<string, string> };
    expect(out.serverVersion).toMatchObject({
      major: '1',
      minor: '33',
      gitVersion: expect.stringMatching(/^v1\.33\.0\+/),
    });
  });

  it('health endpoints answer without a token', async () => {
    for (const path of ['/healthz', '/livez', '/readyz'])
      expect(await server.request(path, { token: null })).toMatchObject({ status: 200, body: 'ok' });
    const verbose = await server.request('/readyz?verbose', { token: null });
    expect(verbose.body).toBe('[+]ping ok\n[+]sqlite ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  it("no token: system:anonymous, whom RBAC refuses everything but health and version, with kube's 403", async () => {
    for (const path of ['/api', '/apis', '/metrics']) {
      const r = await server.request(path, { token: null });
      expect(r.status).toBe(403);
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toMatchObject({
        kind: 'Status',
        reason: 'Forbidden',
        message: `forbidden: User "system:anonymous" cannot get path "${path}"`,
        code: 403,
      });
    }
    const r = await server.request('/api/v1/namespaces', { token: null });
    expect(JSON.parse(r.body)).toMatchObject({
      message:
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    });
  });

  it('wrong token: 401, on public paths too', async () => {
    for (const path of ['/api', '/version', '/readyz']) {
      const r = await server.request(path, { token: 'not-the-token' });
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body)).toEqual(UNAUTHORIZED);
    }
  });

  it('/metrics with the token: Prometheus text with request counts', async () => {
    const r = await server.request('/metrics');
    expect(r.status).toBe(200);
    // A 401 is counted without what its path named (group, version, resource, subresource).
    expect(r.body).toMatch(
      /^apiserver_request_total\{code="401",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""\} \d+$/m,
    );
    // The most in flight since the last scrape: this very request at least.
    expect(r.body).toMatch(/^apiserver_current_inflight_requests\{request_kind="readOnly"\} [1-9]\d*$/m);
    expect(r.body).toMatch(/^process_start_time_seconds \d+/m);
    // Storage timed on the embedded store too, and objects counted in it.
    expect(r.body).toMatch(/^etcd_request_duration_seconds_count\{operation="get",type="[^"]+"\} [1-9]\d*$/m);
    expect(r.body).toMatch(
      /^apiserver_storage_objects\{resource="clusterroles\.rbac\.authorization\.k8s\.io"\} [1-9]\d*$/m,
    );
  });

  it('SIGTERM: exit 0 and the store closed cleanly', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.stderr()).not.toMatch(/^\s+at /m);
    const dbPath = join(dataDir, 'state.db');
    // A clean close checkpoints and removes the WAL; the exclusive lock is gone, so it reopens.
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    const db = new Database(dbPath, { fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('a second start reuses the CA, serving certificate and token byte for byte', async () => {
    const files = ['pki/ca.crt', 'pki/ca.key', 'pki/apiserver.crt', 'pki/apiserver.key', 'tokens.csv'];
    const before = files.map((f) => readFileSync(join(dataDir, f)));
    const again = await startServerProcess({ dataDir });
    try {
      expect(files.map((f) => readFileSync(join(dataDir, f)))).toEqual(before);
      expect(again.token).toBe(server.token);
      expect(again.ca).toBe(server.ca);
      expect((await again.kubectl(['version', '-o', 'json'])).code).toBe(0);
    } finally {
      expect(await again.stop('SIGINT')).toBe(0);
    }
  });
});

describe('the binary, start-up failures: one line, non-zero exit', () => {
  let blocker: Server;
  let busyPort: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    busyPort = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  /** Files the cases name, made in the scratch dir. */
  const file = (name: string, text: string): string => {
    const path = join(scratch, name);
    writeFileSync(path, text);
    return path;
  };
  const missing = join(scratch, 'no-such-file');
  const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  const NOPE = '/proc/mini-apiserver-nope';
  const policy = (level: string): string => `apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: ${level}\n`;
  const junkCert = '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n';
  const notWritable = (dir: string, why: string): string => `--data-dir: data directory ${dir} is not writable: ${why}`;

  // Each: the flags (beside a fresh --data-dir unless one is given), and the one line expected.
  const cases: [string, () => string[], () => string | RegExp][] = [
    [
      'port in use',
      () => ['--secure-port', String(busyPort)],
      () => `--secure-port: port ${busyPort} on 127.0.0.1 is already in use`,
    ],
    [
      'bind address not of this host',
      () => ['--bind-address', '192.0.2.1'],
      () => '--bind-address: address 192.0.2.1 is not an address of this host',
    ],
    // procfs refuses children with ENOENT: Node's recursive mkdir spun on it forever.
    ['data dir under /proc', () => ['--data-dir', NOPE], () => notWritable(NOPE, 'no such file or directory')],
    [
      'data dir under a regular file',
      () => ['--data-dir', join(file('a-file', ''), 'data')],
      () => notWritable(join(scratch, 'a-file', 'data'), 'a path component is not a directory'),
    ],
    [
      'audit log under /proc',
      () => ['--audit-policy-file', file('policy.yaml', policy('Metadata')), '--audit-log-path', `${NOPE}/audit.log`],
      () => `--audit-log-path: ensureLogFile: mkdir ${NOPE}: no such file or directory`,
    ],
    [
      'invalid audit policy file',
      () => ['--audit-policy-file', file('bad-policy.yaml', policy('Loud'))],
      () =>
        new RegExp(
          '^--audit-policy-file: loading audit policy file: rules\\[0\\]\\.level: Unsupported value: "Loud": supported values: .*: ' +
            `from file ${esc(join(scratch, 'bad-policy.yaml'))}$`,
        ),
    ],
    [
      'unreadable certificate file',
      () => ['--tls-cert-file', missing, '--tls-private-key-file', missing],
      () => `--tls-cert-file: cannot read TLS certificate file ${missing}: no such file or directory`,
    ],
    [
      'invalid certificate file',
      () => ['--tls-cert-file', file('junk.crt', junkCert), '--tls-private-key-file', join(scratch, 'junk.crt')],
      () => new RegExp(`^--tls-cert-file: invalid TLS certificate file ${esc(join(scratch, 'junk.crt'))}: .+`),
    ],
    [
      'missing token file',
      () => ['--token-auth-file', missing],
      () => `--token-auth-file: cannot read token file ${missing}: no such file or directory`,
    ],
    [
      'invalid token file',
      () => ['--token-auth-file', file('bad-tokens.csv', 'only,two\n')],
      () =>
        `--token-auth-file: invalid token file ${join(scratch, 'bad-tokens.csv')}: ` +
        'must have at least 3 columns (token, user name, user uid), found 2',
    ],
    [
      'missing client CA file',
      () => ['--client-ca-file', missing],
      () => `--client-ca-file: cannot read ${missing}: no such file or directory`,
    ],
    [
      'invalid ServiceAccount signing key',
      () => ['--service-account-signing-key-file', file('bad-sa.key', 'not a key\n')],
      () => /^--service-account-signing-key-file: failed to parse service-account-issuer-key-file: .+/,
    ],
    [
      'invalid ServiceAccount verification key',
      () => ['--service-account-key-file', file('bad-sa.pub', 'not a key\n')],
      () =>
        `--service-account-key-file: failed to parse key file "${join(scratch, 'bad-sa.pub')}": ` +
        'data does not contain any valid RSA or ECDSA public keys',
    ],
    [
      'etcd unreachable',
      () => ['--etcd-servers', 'http://127.0.0.1:1'],
      () => /^--etcd-servers: cannot reach etcd at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    ],
  ];

  it.each(cases)('%s: exit 1, exactly one line naming the flag, nothing generated', async (name, flags, expected) => {
    const dataDir = join(scratch, `failure-${name.replaceAll(' ', '-')}`);
    const args = flags();
    // A generous hang detector: each case fails in a second or two, the etcd one within its dial deadline.
    const r = await runBinary(
      [...(args.includes('--data-dir') ? [] : ['--data-dir', dataDir]), '--secure-port', '0', ...args],
      60_000,
    );
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const want = expected();
    const line = lines[0]!.replace(/^mini-apiserver: /, '');
    expect(lines[0]).toMatch(/^mini-apiserver: --/);
    if (typeof want === 'string') expect(line).toBe(want);
    else expect(line).toMatch(want);
    // Every failure comes before the data dir's keys and credentials are made.
    for (const made of [
      'pki/ca.crt',
      'pki/ca.key',
      'pki/apiserver.key',
      'pki/sa.key',
      'tokens.csv',
      'admin.kubeconfig',
    ]) {
      expect(existsSync(join(dataDir, made)), made).toBe(false);
    }
  });

  it('unknown flag: exit 2 and one line', async () => {
    const r = await runBinary(['--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mini-apiserver: unknown flag: --no-such-flag (see --help)\n');
  });

  it('--help prints usage and exits 0', async () => {
    const r = await runBinary(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: mini-apiserver [flags]');
    expect(r.stdout).toContain('--etcd-servers');
  });
});

describe('the binary with operator-supplied certificate and tokens', () => {
  it('serves that certificate and authenticates those tokens', async () => {
    const dir = join(scratch, 'custom');
    const pki = await generatePki(servingHosts('127.0.0.1'));
    const files = {
      cert: join(scratch, 'custom.crt'),
      key: join(scratch, 'custom.key'),
      ca: join(scratch, 'custom-ca.crt'),
      tokens: join(scratch, 'custom-tokens.csv'),
    };
    writeFileSync(files.cert, pki.cert + pki.caCert); // leaf, then its chain
    writeFileSync(files.key, pki.key);
    writeFileSync(files.ca, pki.caCert);
    writeFileSync(files.tokens, 'viewer-token,viewer,v1,"dev"\nroot-token,root,r1,"system:masters,ops"\n');
    const server = await startServerProcess({
      dataDir: dir,
      args: ['--tls-cert-file', files.cert, '--tls-private-key-file', files.key, '--token-auth-file', files.tokens],
    });
    try {
      expect(server.token).toBe('root-token');
      // No CA, serving certificate or token file generated: only the ServiceAccount signing key.
      expect(readdirSync(join(dir, 'pki'))).toEqual(['sa.key']);
      expect(existsSync(join(dir, 'tokens.csv'))).toBe(false);
      const curl = await run('curl', [
        '-sS',
        '--fail',
        '--cacert',
        files.ca,
        '-H',
        'Authorization: Bearer viewer-token',
        `${server.url}/version`,
      ]);
      expect(curl.code).toBe(0);
      // /metrics is kube's system:monitoring's, not every user's.
      const metrics = await run('curl', [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--cacert',
        files.ca,
        '-H',
        'Authorization: Bearer viewer-token',
        `${server.url}/metrics`,
      ]);
      expect(metrics.stdout).toBe('403');
      expect((await server.kubectl(['version', '-o', 'json'])).code).toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('the library: startServer({ storage: "memory" })', () => {
  // How fast is bench/start.ts's to measure; here, what a start does. The event-loop saturation
  // guard (429 past 90% utilization, test/unit/server/pipeline/saturation.test.ts) is off: on a
  // loaded machine it refuses these requests, and it is not what this test is about.
  it('starts with in-memory credentials, serves, and closes, three times in one process', async () => {
    for (let i = 0; i < 3; i++) {
      const handle = await startServer({ storage: 'memory', maxEventLoopUtilization: 1 });
      try {
        expect(handle).toMatchObject({ storage: 'memory', kubeconfigPath: undefined });
        expect(handle.url).toBe(`https://127.0.0.1:${handle.port}`);
        const ready = await request(`${handle.url}/readyz`, { ca: handle.caCert, token: handle.token });
        expect(ready).toMatchObject({ status: 200, body: 'ok' });
        const version = await request(`${handle.url}/version`, { ca: handle.caCert, token: handle.token });
        expect(JSON.parse(version.body)).toMatchObject({ major: '1', minor: '33' });
        const kc = parseYaml(handle.kubeconfig) as Kubeconfig;
        expect(kc.clusters[0]!.cluster.server).toBe(handle.url);
        expect(kc.users[0]!.user.token).toBe(handle.token);
        const anonymous = await request(`${handle.url}/api`, { ca: handle.caCert });
        expect(anonymous.status).toBe(403);
        const stranger = await request(`${handle.url}/api`, { ca: handle.caCert, token: 'not-a-token' });
        expect(stranger.status).toBe(401);
      } finally {
        await handle.close();
      }
      await expect(request(`${handle.url}/readyz`, { ca: handle.caCert })).rejects.toThrow(/ECONNREFUSED/);
    }
  });

  // What "starts in milliseconds" stood for, as work not done: the package's entry point (dist/,
  // what 'mini-apiserver' resolves to) started on memory in a fresh process answers /readyz
  // without loading the etcd client or the packages only some requests need
  // (apimachinery/lazy-require.ts).
  it('a memory start, in a fresh process, loads neither the etcd client nor the lazily loaded packages', async () => {
    const dir = mkdtempSync(join(scratch, 'library-loads-'));
    const script = join(dir, 'start.mjs');
    writeFileSync(
      script,
      `const m = await import(process.argv[2]);
const s = await m.startServer({ storage: 'memory', logger: m.silentLogger, maxEventLoopUtilization: 1 });
const https = await import('node:https');
const status = await new Promise((resolve, reject) =>
  https.get(s.url + '/readyz', { ca: s.caCert }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }).on('error', reject),
);
await s.close();
console.log('readyz ' + status);
`,
    );
    const { hook, log, read } = loadLog(dir);
    const r = await run(process.execPath, ['--require', hook, script, join(REPO_ROOT, 'dist/server/index.js')], {
      env: { ...process.env, LOAD_LOG: log },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('readyz 200');
    const loaded = read();
    // The hook sees the start's own loads: it works.
    expect(loaded.has('prom-client')).toBe(true);
    expect(
      ['etcd3', '@grpc/grpc-js', 'protobufjs', 'yaml', 'ws', 're2js', 'jose'].filter((p) => loaded.has(p)),
    ).toEqual([]);
  });

  it('two servers side by side get their own ports and credentials', async () => {
    const [a, b] = await Promise.all([startServer({ storage: 'memory' }), startServer({ storage: 'memory' })]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.token).not.toBe(b.token);
      expect((await request(`${a.url}/api`, { ca: a.caCert, token: b.token })).status).toBe(401);
      await expect(request(`${a.url}/readyz`, { ca: b.caCert })).rejects.toThrow();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('rejects inconsistent options before touching anything', async () => {
    await expect(startServer({ storage: 'sqlite' })).rejects.toThrow("storage 'sqlite' needs a dataDir");
  });
});
