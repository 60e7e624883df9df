// bench/authz: requests of a non-admin user authorized by RBAC, beside the same requests through a
// server with --authorization-mode=AlwaysAllow, in the same run.
//
//   creates: creates/s of a small custom resource (unique names), 32 in flight.
//   gets:    GETs/s of one custom resource, 32 in flight.
//
// Both servers are the built binary (SQLite store, HTTPS) with the same token file, an admin and
// the user `bench` (groups `team`, and system:authenticated as every user), the same CRD and the
// same 1,000 bindings created by the admin: 999 ClusterRoleBindings and RoleBindings for other
// users and groups (a few of them naming the group `team`, with roles that do not grant the custom
// resource, so RBAC has to look at them and move on) and, half-way through, one RoleBinding giving
// `bench` a Role on the CRD's kind in the namespace used. Only --authorization-mode differs. Both
// run at once; rounds are taken in turns, the order alternating, medians. Goal: RBAC at least 0.9
// of AlwaysAllow. The bench user is not system:masters, so either server answers it 429 while its
// event loop is saturated (which 32 in flight on 2 cores reaches): those are retried after 10 ms
// and counted, and the counts printed beside the table.
//
// Run: make build && make bench ONLY=authz [QUICK=1]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { type Metric, inFlight, metric, paired, quick, rate, report } from './report.js';

const GROUP = 'authz.bench.example.com';
const PLURAL = 'widgets';
const KIND = 'Widget';
const NS = 'default';
const N = { bindings: 1_000, creates: quick ? 300 : 2_000, gets: quick ? 1_000 : 5_000, runs: quick ? 4 : 8 };
const IN_FLIGHT = 32;
const GOAL = 0.9;
const BENCH_TOKEN = 'authz-bench-token-0123456789abcdef';
const ROLE = 'widget-editor';
const RETRY_MS = 10;

const SPEC_SCHEMA = { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } };

/** A server, its admin client, the bench user's client and the custom resources' collection path. */
interface Target {
  label: string;
  server: ServerProcess;
  dataDir: string;
  admin: BenchClient;
  user: BenchClient;
  path: string;
  /** 429s the bench user's measured requests got (each retried): the server's loop-saturation refusals. */
  refused: number;
  /** Create rounds taken so far, for unique names. */
  rounds: number;
}

/** A data dir whose tokens.csv holds the admin (first system:masters user: the kubeconfig's) and `bench`. */
function dataDirWithTokens(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mini-apiserver-authz-'));
  const adminToken = `authz-admin-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  writeFileSync(
    join(dir, 'tokens.csv'),
    `${adminToken},admin,admin-uid,"system:masters"\n${BENCH_TOKEN},bench,bench-uid,"team"\n`,
    { mode: 0o600 },
  );
  return dir;
}

async function must(c: BenchClient, method: string, path: string, body: unknown, want: number): Promise<void> {
  const r = await c.call(method, path, JSON.stringify(body));
  if (r.status !== want) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** The 1,000 bindings: which scope, and the body; the bench user's is in the middle. */
function bindings(): { path: string; body: unknown }[] {
  const out: { path: string; body: unknown }[] = [];
  const crb = (name: string, subject: unknown, role: string) => ({
    path: `${RBAC}/clusterrolebindings`,
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      subjects: [subject],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    },
  });
  const rb = (name: string, subject: unknown, roleKind: 'Role' | 'ClusterRole', role: string) => ({
    path: `${RBAC}/namespaces/${NS}/rolebindings`,
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: NS },
      subjects: [subject],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
    },
  });
  const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
  const group = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
  const roles = ['view', 'edit', 'admin'];
  for (let i = 0; i < N.bindings - 1; i++) {
    if (i < 5) out.push(crb(`team-view-${i}`, group('team'), 'view'));
    else if (i < 10) out.push(rb(`team-view-${i}`, group('team'), 'ClusterRole', 'view'));
    else if (i % 4 === 0) out.push(crb(`other-user-${i}`, user(`user-${i}`), roles[i % 3]!));
    else if (i % 4 === 1) out.push(crb(`other-group-${i}`, group(`group-${i}`), roles[i % 3]!));
    else if (i % 4 === 2) out.push(rb(`other-user-${i}`, user(`user-${i}`), 'ClusterRole', roles[i % 3]!));
    else out.push(rb(`other-group-${i}`, group(`group-${i}`), 'Role', ROLE));
  }
  out.splice(Math.floor(out.length / 2), 0, rb('bench-widgets', user('bench'), 'Role', ROLE));
  return out;
}

async function target(label: string, mode: 'RBAC' | 'AlwaysAllow'): Promise<Target> {
  const dataDir = dataDirWithTokens();
  const server = await startServerProcess({ dataDir, args: ['--log-level', 'warn', `--authorization-mode=${mode}`] });
  try {
    if (server.token === BENCH_TOKEN) throw new Error('the kubeconfig carries the bench user, not the admin');
    const admin = benchClient(server);
    const user = benchClient({ ...server, token: BENCH_TOKEN });
    const path = await installCRD(admin, GROUP, PLURAL, KIND, SPEC_SCHEMA, NS);
    await must(
      admin,
      'POST',
      `${RBAC}/namespaces/${NS}/roles`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: ROLE, namespace: NS },
        rules: [
          {
            apiGroups: [GROUP],
            resources: [PLURAL],
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
          },
        ],
      },
      201,
    );
    const all = bindings();
    await inFlight(all.length, IN_FLIGHT, (i) => must(admin, 'POST', all[i]!.path, all[i]!.body, 201));
    const counted = async (p: string): Promise<number> =>
      (JSON.parse((await admin.call('GET', p)).body) as { items: unknown[] }).items.length;
    const [crbs, rbs] = [
      await counted(`${RBAC}/clusterrolebindings`),
      await counted(`${RBAC}/namespaces/${NS}/rolebindings`),
    ];
    // The bench user is allowed once the server's RBAC caches hold its binding.
    for (let i = 0; ; i++) {
      const r = await user.call('GET', path);
      if (r.status === 200) break;
      if (i > 400) throw new Error(`${label}: the bench user is never allowed: ${r.status} ${r.body.slice(0, 200)}`);
      await new Promise((res) => setTimeout(res, 25));
    }
    // And RBAC is on (or off) for it: secrets are not among what it was given.
    const secrets = (await user.call('GET', `/api/v1/namespaces/${NS}/secrets`)).status;
    if (secrets !== (mode === 'RBAC' ? 403 : 200))
      throw new Error(`${label}: the bench user listing secrets got ${secrets}`);
    await must(
      user,
      'POST',
      path,
      { apiVersion: `${GROUP}/v1`, kind: KIND, metadata: { name: 'the-one' }, spec: { size: 1, color: 'red' } },
      201,
    );
    console.log(
      `${label}: ${crbs} ClusterRoleBindings and ${rbs} RoleBindings in ${NS} (bootstrap ones included); bench user listing secrets: ${secrets}`,
    );
    return { label, server, dataDir, admin, user, path, refused: 0, rounds: 0 };
  } catch (err) {
    await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function stopTarget(t: Target): Promise<void> {
  t.admin.agent.destroy();
  t.user.agent.destroy();
  try {
    await t.server.stop();
  } finally {
    rmSync(t.dataDir, { recursive: true, force: true });
  }
}

/** Creates/s of one round of the bench user's creates on `t`. */
function creates(t: Target): () => Promise<number> {
  return async () => {
    const id = `${t.label}-${t.rounds++}`;
    return rate(N.creates, () =>
      inFlight(N.creates, IN_FLIGHT, async (i) => {
        const r = await userCall(
          t,
          'POST',
          t.path,
          JSON.stringify({
            apiVersion: `${GROUP}/v1`,
            kind: KIND,
            metadata: { name: `${id}-${i}` },
            spec: { size: i, color: 'blue' },
          }),
        );
        if (r.status !== 201) throw new Error(`${t.label} create ${id}-${i}: ${r.status} ${r.body.slice(0, 200)}`);
      }),
    );
  };
}

/** GETs/s of one round of the bench user's GETs of one object on `t`. */
function gets(t: Target): () => Promise<number> {
  return () =>
    rate(N.gets, () =>
      inFlight(N.gets, IN_FLIGHT, async () => {
        const r = await userCall(t, 'GET', `${t.path}/the-one`);
        if (r.status !== 200) throw new Error(`${t.label} get: ${r.status} ${r.body.slice(0, 200)}`);
      }),
    );
}

/**
 * Medians of `runs` rounds of `rbac` and `allow`, as report.ts's `paired` takes them but with the
 * order alternating from round to round (RBAC first, then AlwaysAllow first): on this machine the
 * server measured second in a pair does better or worse for what the first left behind (its WAL
 * checkpoint, garbage, the saturation it ended in), which `paired`'s fixed order would put on one
 * side. `runs` is even, so each goes first as often; the median of an even count is the mean of
 * the middle two.
 */
async function alternating(
  runs: number,
  rbac: () => Promise<number>,
  allow: () => Promise<number>,
): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      const [x, y] = await paired(1, rbac, allow);
      a.push(x);
      b.push(y);
    } else {
      const [y, x] = await paired(1, allow, rbac);
      a.push(x);
      b.push(y);
    }
  }
  return [median(a), median(b)];
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A request of the bench user, retried after RETRY_MS while the server answers 429: a non-admin
 * user's requests are refused while the server's event loop is saturated (--max-*-inflight's
 * saturation check, server/pipeline/saturation.ts; system:masters is exempt, and the binary has no
 * flag to turn it off), which a throughput benchmark on 2 cores reaches on either server. The wait
 * is far shorter than the Retry-After of 1 s, which would measure the back-off, not the server.
 */
async function userCall(
  t: Target,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  for (;;) {
    const r = await t.user.call(method, path, body);
    if (r.status !== 429) return r;
    t.refused++;
    await new Promise((res) => setTimeout(res, RETRY_MS));
  }
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const targets: Target[] = [];
  try {
    targets.push(await target('rbac', 'RBAC'));
    targets.push(await target('allow', 'AlwaysAllow'));
    const [rbac, allow] = targets as [Target, Target];
    // Warm both servers (their JIT, the caches), then measure.
    for (const t of [rbac, allow]) {
      await creates(t)();
      await gets(t)();
    }
    const refusals: string[] = [];
    const refusedSince = (what: string, total: number): void => {
      refusals.push(
        `${what}: ${rbac.refused} of RBAC's, ${allow.refused} of AlwaysAllow's ${total} answered 429 first (retried)`,
      );
      rbac.refused = allow.refused = 0;
    };
    refusedSince('warm-up', N.creates + N.gets);
    const rounds: string[] = [];
    const logged = (what: string, fn: () => Promise<number>): (() => Promise<number>) => {
      const values: number[] = [];
      rounds.push('');
      const at = rounds.length - 1;
      return async () => {
        values.push(await fn());
        rounds[at] = `${what}: ${values.map((v) => v.toFixed(0)).join(', ')}`;
        return values.at(-1)!;
      };
    };
    const [rbacCreates, allowCreates] = await alternating(
      N.runs,
      logged('creates/s, RBAC', creates(rbac)),
      logged('creates/s, AlwaysAllow', creates(allow)),
    );
    refusedSince('creates', N.runs * N.creates);
    const [rbacGets, allowGets] = await alternating(
      N.runs,
      logged('GETs/s, RBAC', gets(rbac)),
      logged('GETs/s, AlwaysAllow', gets(allow)),
    );
    refusedSince('GETs', N.runs * N.gets);
    const metrics: Metric[] = [
      metric(
        `creates/s of a custom resource, user bound by 1 of ${N.bindings} bindings: RBAC (vs AlwaysAllow)`,
        rbacCreates,
        allowCreates,
        'ops/s',
        'higher',
      ),
      metric(
        `GETs/s of one custom resource, user bound by 1 of ${N.bindings} bindings: RBAC (vs AlwaysAllow)`,
        rbacGets,
        allowGets,
        'ops/s',
        'higher',
      ),
    ];
    report('authz', 'AlwaysAllow', metrics);
    const worst = Math.min(rbacCreates / allowCreates, rbacGets / allowGets);
    console.log(`RBAC runs at ${(worst * 100).toFixed(0)}% of AlwaysAllow at worst (goal: at least ${GOAL * 100}%)`);
    console.log('rounds (RBAC first in rounds 1, 3, ...; AlwaysAllow first in 2, 4, ...):');
    for (const r of rounds) console.log(`  ${r}`);
    for (const r of refusals) console.log(r);
    console.log(`${IN_FLIGHT} in flight; load average at end: ${load()}`);
  } finally {
    await Promise.all(targets.map(stopTarget));
  }
}

await main();
