// bench/admission: creates of a custom resource through admission configured by API objects,
// beside the same creates with no admission configured for them, in the same run and server.
//
//   policy:  creates/s of a kind matched by one ValidatingAdmissionPolicy (one validation,
//            `object.spec.size <= 100`, no params) and its Deny binding.
//   webhook: creates/s of a kind matched by one ValidatingWebhookConfiguration whose webhook is a
//            node:https server in this process (its own CA from server/pki.ts) answering allowed.
//   baseline: creates/s of a third kind with the same schema that neither matches.
//
// One server (the built binary, SQLite store, HTTPS, the admin token), three CRDs with the same
// schema, 32 creates in flight, unique names. The policy and the webhook are shown to be in force
// before measuring (the policy refuses size 1000; the webhook counts its calls, which must equal
// the webhook kind's creates). Rounds are taken in turns, the order rotating every round (so a
// server still warming up or slowing down favours no side); medians. Goal: the policy costs at
// most 15% of create throughput (ratio >= 0.85). The webhook has no goal: each of its creates adds
// an HTTPS round trip to a server sharing the same two cores.
//
// Run: make build && make bench ONLY=admission [QUICK=1]
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { generatePki, servingHosts } from '../server/pki.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { inFlight, metric, quick, rate, report } from './report.js';

const GROUP = 'admission.bench.example.com';
const NS = 'default';
const AR = '/apis/admissionregistration.k8s.io/v1';
const N = {
  creates: quick ? 600 : 2_000,
  /** Creates of each kind before measuring: JIT, TLS sessions, the CRD handlers, the webhook client. */
  warmCreates: quick ? 400 : 800,
  runs: quick ? 3 : 9,
};
const IN_FLIGHT = 32;
const POLICY_GOAL = 0.85;

const SPEC_SCHEMA = { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } };

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Side {
  label: string;
  kind: string;
  path: string;
  next: number;
  rates: number[];
}

async function must(c: BenchClient, method: string, path: string, body: unknown, want: number): Promise<void> {
  const r = await c.call(method, path, JSON.stringify(body));
  if (r.status !== want) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
}

/** A local HTTPS webhook answering every AdmissionReview allowed; counts its calls and the TLS connections they came on. */
async function allowingWebhook(): Promise<{
  url: string;
  caBundle: string;
  calls: () => number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  const pki = await generatePki(servingHosts('127.0.0.1'));
  let calls = 0;
  const server = createServer({ cert: pki.cert, key: pki.key, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, allowed: true },
        }),
      );
    });
  });
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/allow`,
    caBundle: Buffer.from(pki.caCert).toString('base64'),
    calls: () => calls,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const rules = (plural: string) => [
  { apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [plural] },
];

const server = await startServerProcess({ args: ['--log-level', 'warn'] });
const webhook = await allowingWebhook();
try {
  console.log(`load average at start: ${load()}`);
  const c = benchClient(server);
  const side = async (label: string, plural: string, kind: string): Promise<Side> => ({
    label,
    kind,
    path: await installCRD(c, GROUP, plural, kind, SPEC_SCHEMA, NS),
    next: 0,
    rates: [],
  });
  const policed = await side('policy', 'policedwidgets', 'PolicedWidget');
  const hooked = await side('webhook', 'hookedwidgets', 'HookedWidget');
  const plain = await side('none', 'plainwidgets', 'PlainWidget');

  await must(
    c,
    'POST',
    `${AR}/validatingadmissionpolicies`,
    {
      metadata: { name: 'size-limit' },
      spec: {
        matchConstraints: { resourceRules: rules('policedwidgets') },
        validations: [{ expression: 'object.spec.size <= 100', message: 'size must be at most 100' }],
      },
    },
    201,
  );
  await must(
    c,
    'POST',
    `${AR}/validatingadmissionpolicybindings`,
    { metadata: { name: 'size-limit' }, spec: { policyName: 'size-limit', validationActions: ['Deny'] } },
    201,
  );
  await must(
    c,
    'POST',
    `${AR}/validatingwebhookconfigurations`,
    {
      metadata: { name: 'allow' },
      webhooks: [
        {
          name: 'allow.admission.bench.example.com',
          clientConfig: { url: webhook.url, caBundle: webhook.caBundle },
          rules: rules('hookedwidgets'),
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    201,
  );

  const body = (s: Side, name: string, size: number): string =>
    JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: s.kind, metadata: { name }, spec: { size, color: 'blue' } });
  // Both in force (they apply once the server's informers have them): the policy refuses a big
  // widget, and a hooked create reaches the webhook.
  for (let i = 0; ; i++) {
    const r = await c.call('POST', policed.path, body(policed, `too-big-${i}`, 1000));
    if (
      r.status === 422 &&
      r.body.includes(
        "ValidatingAdmissionPolicy 'size-limit' with binding 'size-limit' denied request: size must be at most 100",
      )
    )
      break;
    if (i > 200) throw new Error(`the policy never refused size 1000: ${r.status} ${r.body.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  for (let i = 0; webhook.calls() === 0; i++) {
    const r = await c.call('POST', hooked.path, body(hooked, `probe-${i}`, 1));
    if (r.status !== 201) throw new Error(`hooked create: ${r.status} ${r.body.slice(0, 300)}`);
    if (i > 200) throw new Error('the webhook was never called');
    await new Promise((r) => setTimeout(r, 25));
  }

  const creates = (s: Side, n: number) => (): Promise<number> =>
    rate(n, () =>
      inFlight(n, IN_FLIGHT, async () => {
        const name = `w-${s.next++}`;
        const r = await c.call('POST', s.path, body(s, name, s.next % 100));
        if (r.status !== 201) throw new Error(`create ${s.kind} ${name}: ${r.status} ${r.body.slice(0, 300)}`);
      }),
    );
  const sides = [policed, hooked, plain];
  for (const s of sides) await creates(s, N.warmCreates)();

  const callsBefore = webhook.calls();
  const connectionsBefore = webhook.connections();
  const rounds: string[] = [];
  for (let round = 0; round < N.runs; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    const cells: string[] = [];
    for (const s of order) {
      const r = await creates(s, N.creates)();
      s.rates.push(r);
      cells.push(`${s.label} ${r.toFixed(0)}`);
    }
    rounds.push(cells.join(', '));
  }
  const webhookCalls = webhook.calls() - callsBefore;
  const webhookConnections = webhook.connections() - connectionsBefore;
  if (webhookCalls !== N.runs * N.creates)
    throw new Error(`the webhook saw ${webhookCalls} creates, not ${N.runs * N.creates}`);

  const median = (v: number[]): number => [...v].sort((p, q) => p - q)[Math.floor((v.length - 1) / 2)]!;
  const metrics = [
    metric(
      'creates/s through one ValidatingAdmissionPolicy vs none',
      median(policed.rates),
      median(plain.rates),
      'creates/s',
      'higher',
    ),
    metric(
      'creates/s through one validating webhook vs none',
      median(hooked.rates),
      median(plain.rates),
      'creates/s',
      'higher',
    ),
  ];
  report('admission', 'no admission', metrics);
  const share = 1 - metrics[0]!.ratio;
  console.log(
    `the policy costs ${(share * 100).toFixed(1)}% of create throughput (goal: at most ${((1 - POLICY_GOAL) * 100).toFixed(0)}%)${metrics[0]!.ratio >= POLICY_GOAL ? '' : ' - OVER THE GOAL'}`,
  );
  console.log(`rounds of ${N.creates} creates, ${IN_FLIGHT} in flight, the order rotating (creates/s):`);
  for (const r of rounds) console.log(`  ${r}`);
  console.log(
    `the webhook answered ${webhookCalls} AdmissionReviews on ${webhookConnections} TLS connections while measuring; load average at end: ${load()}`,
  );
  c.agent.destroy();
} finally {
  await server.stop();
  await webhook.close();
}
