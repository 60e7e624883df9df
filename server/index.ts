/// <reference types="node" preserve="true" />
// The library entry point: startServer() runs a complete server in this process and returns how
// to reach it. The binary (main.ts) is a thin command line around it. Its declarations name Node's
// types (the handle is AsyncDisposable), so a consumer's compiler reads @types/node with them.
import { startCompactor } from '../storage/compactor.js';
import { AdjustableClock, type Clock, systemClock } from '../apimachinery/clock.js';
import { type Dirent, accessSync, chmodSync, constants, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openStorage, type StorageOptions } from '../storage/index.js';
import type { Storage } from '../storage/interface.js';
import { createApi } from './api.js';
import { TokenAuthenticator } from './authn/bearer.js';
import { UnionAuthenticator } from './authn/union.js';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
  loadPublicKeyFiles,
  loadSigningKeyFile,
  parsePrivateKeyPem,
} from './authn/service-account-token.js';
import { Auditor } from './audit/event.js';
import type { AuditLogBackend } from './audit/log-backend.js';
import { loadPolicyFile, newPolicyEvaluator } from './audit/policy.js';
import { type KeyObject, createPublicKey, generateKeyPairSync } from 'node:crypto';
import {
  type TokenRecord,
  adminRecord,
  generateAdminToken,
  loadOrCreateTokenFile,
  readTokenFile,
} from './authn/token-file.js';
import { storageCheck, withTimeout } from './health.js';
import { clientHost, hostPort, renderKubeconfig } from './kubeconfig.js';
import { createLogger, type Logger } from '../apimachinery/log.js';
import { mkdirAll } from '../apimachinery/mkdir-all.js';
import { type ResolvedOptions, type ServerOptions, type StorageChoice, resolveServerOptions } from './options.js';
import { StartupError, forFlag, fsReason } from './startup/errors.js';
import { writeFileAtomic } from './startup/write-file-atomic.js';
import { type ServingTls, generatePki, loadOrCreatePki, loadTlsFiles, readIfExists, servingHosts } from './pki.js';
import { HttpsFrontend, bindSecurePort } from './serve.js';
import { Metrics } from './metrics.js';
import { instrumentStorage } from '../storage/instrumented.js';
import { setCacherDefaults } from '../storage/cacher.js';
import { serverVersion } from './version.js';
import type { SharedCredentials, SharedIdentityOptions } from './shared-identity.js';
import { readClusterTokenFile } from './identity/token.js';
import type { TestingClient } from './testing/client.js';
import { type Target, readKubeconfig } from './client/api-client.js';
import type { WebhookTls } from './provision.js';

export type { ServerOptions, StorageChoice } from './options.js';
export type { Manifest, WebhookOptions, WebhookTls } from './provision.js';
export type * from './testing/client.js';
export { StartupError } from './startup/errors.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from '../apimachinery/log.js';
export type { UserInfo } from '../apimachinery/user.js';
export type { Status, StatusCause, StatusDetails } from '../apimachinery/errors.js';
export {
  validate,
  type Outcome,
  type ValidateInput,
  type ValidateSource,
  type ValidationResult,
} from './validate/validate.js';
export { ValidateInputError } from './validate/documents.js';
export { kubectlErrorText } from './validate/kubectl-text.js';

export interface ServerHandle {
  /** https://host:port */
  url: string;
  port: number;
  /** The admin kubeconfig (YAML): server URL, CA data, the admin token. */
  kubeconfig: string;
  /** Where that kubeconfig was written (DATA_DIR/admin.kubeconfig); absent without a data dir. */
  kubeconfigPath: string | undefined;
  /** The admin bearer token (system:masters). */
  token: string;
  /** The CA certificate (PEM) that verifies the serving certificate. */
  caCert: string;
  storage: StorageChoice;
  /** Graceful: stops accepting, lets requests finish (bounded), ends watches, closes storage. */
  close(): Promise<void>;
  /** close(), for `await using server = await startServer(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
  /** With `testing: true`: typed helpers for Faults, Snapshots and the Clock (server/testing/client.ts). */
  testing?: TestingClient;
  /** With `webhooks` but no `caCert`: what the local webhook server serves with, and the CA the server trusts. */
  webhookTls?: WebhookTls;
}

/**
 * Typed helpers over the testing API of any server run with --enable-testing-apis (the binary
 * too), from its kubeconfig (YAML) or its URL, CA and token. Loaded on first use.
 */
export async function testingClient(server: string | Target): Promise<TestingClient> {
  const target = typeof server === 'string' ? readKubeconfig('kubeconfig', server) : server;
  return (await import('./testing/client.js')).testingClient(target);
}

/** How long in-flight requests get to finish on close, and watches to end once the API closes. */
const SHUTDOWN_GRACE_MS = 5000;
const WATCH_END_GRACE_MS = 1000;
/** Closing the API or storage should be quick; a hung close must not hang the process. */
const CLOSE_STEP_TIMEOUT_MS = 5000;

/**
 * The data dir holds every object (state.db), the CA key, the admin token and its kubeconfig: it
 * and pki/ are the owner's only (0700), and so is every file in them (0600), whatever the umask.
 * A data dir left looser by an earlier version is tightened, and that said once. Synchronous, as
 * mkdirAll is: a dozen calls one after the other, each through the thread pool and back, cost a
 * start more than the calls themselves, and nothing else runs yet.
 */
function prepareDataDir(dir: string, logger: Logger): void {
  let tightened: string[];
  try {
    mkdirAll(dir, 0o700);
    accessSync(dir, constants.W_OK);
    tightened = ownerOnly(dir);
  } catch (err) {
    throw new StartupError(`data directory ${dir} is not writable: ${fsReason(err)}`);
  }
  if (tightened.length > 0)
    logger.warn('data directory was readable by others: made it owner-only', { dir, paths: tightened });
}

/** Takes group and other permissions off `dir`, `dir/pki` and the files in them; returns what it changed. */
function ownerOnly(dir: string): string[] {
  const changed: string[] = [];
  const tighten = (path: string, mode: number): void => {
    const st = statSync(path);
    if ((st.mode & 0o777) === mode) return;
    chmodSync(path, mode);
    if ((st.mode & 0o077) !== 0) changed.push(path);
  };
  for (const d of [dir, join(dir, 'pki')]) {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    tighten(d, 0o700);
    for (const e of entries) if (e.isFile()) tighten(join(d, e.name), 0o600);
  }
  return changed;
}

/** DIR/pki's CA and serving certificate (made once), or, without a data dir, a pair for this process. */
function generatedTls(o: ResolvedOptions, logger: Logger): Promise<ServingTls> {
  const hosts = servingHosts(o.bindAddress);
  return o.dataDir ? loadOrCreatePki(join(o.dataDir, 'pki'), hosts, logger) : generatePki(hosts);
}

async function tokenRecords(file: string, given: boolean, logger: Logger): Promise<TokenRecord[]> {
  const { records, warnings } = given ? await readTokenFile(file) : await loadOrCreateTokenFile(file);
  for (const w of warnings) logger.warn(w, { file });
  if (records.length === 0) throw new StartupError(`token file ${file} has no tokens`);
  return records;
}

/** DIR/pki/sa.key, generated once (ECDSA P-256), or, without a data dir, a key for this process. */
async function generatedSigningKey(dataDir: string | undefined): Promise<KeyObject> {
  if (!dataDir) return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const file = join(dataDir, 'pki', 'sa.key');
  const existing = await readIfExists(file);
  if (existing !== undefined) return parseKey(file, existing);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  mkdirAll(join(dataDir, 'pki'), 0o700);
  await writeFileAtomic(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  return privateKey;
}

function parseKey(file: string, pem: string): KeyObject {
  try {
    return parsePrivateKeyPem(pem);
  } catch (err) {
    throw new StartupError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** --token or --token-file: the shared identity of the replicas on this etcd prefix, joined or founded. */
async function joinCluster(
  o: ResolvedOptions,
  storage: Storage,
  logger: Logger,
  given: SharedIdentityOptions['given'],
): Promise<SharedCredentials> {
  const source = o.clusterToken!;
  const token = 'token' in source ? source.token : await readClusterTokenFile(source.file);
  const { joinSharedIdentity } = await import('./shared-identity.js');
  return joinSharedIdentity({
    storage,
    token,
    prefix: o.etcdPrefix ?? '',
    dataDir: o.dataDir,
    hosts: servingHosts(o.bindAddress),
    given,
    logger,
  });
}

/** --client-ca-file, read once at start. */
async function readClientCA(file: string): Promise<string> {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new StartupError(`cannot read ${file}: ${fsReason(err)}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new StartupError(`no PEM certificate in ${file}`);
  return pem;
}

/** --audit-policy-file and --audit-log-*: the auditor and its backend, or a start-up error naming the flag. */
async function auditing(
  o: ResolvedOptions,
  logger: Logger,
  clock: Clock,
): Promise<{ auditor: Auditor; backend: AuditLogBackend } | undefined> {
  const audit = o.audit;
  if (!audit) return undefined;
  // Loaded only to audit: it writes the log through node:fs/promises, which a start need not load.
  const { AuditLogBackend, ensureLogFile, validateAuditLogOptions } = await import('./audit/log-backend.js');
  const policy = await forFlag('audit-policy-file', () => loadPolicyFile(audit.policyFile));
  // Each message names its flag (kube's text); the parser lets no negative number through anyway.
  const problems = validateAuditLogOptions({
    maxAgeDays: audit.maxAgeDays,
    maxBackups: audit.maxBackups,
    maxSizeMB: audit.maxSizeMB,
  });
  if (problems.length > 0) throw new StartupError(problems.join(', '));
  await forFlag('audit-log-path', () => ensureLogFile(audit.logPath));
  const backend = new AuditLogBackend({
    path: audit.logPath,
    maxSizeMB: audit.maxSizeMB,
    maxBackups: audit.maxBackups,
    maxAgeDays: audit.maxAgeDays,
    logger: logger.with({ component: 'audit' }),
  });
  return {
    auditor: new Auditor({ policy: newPolicyEvaluator(policy), sink: backend, clock: () => clock.nowMicros() }),
    backend,
  };
}

function storageOptions(o: ResolvedOptions): StorageOptions {
  switch (o.storage) {
    case 'memory':
      return { kind: 'sqlite', path: ':memory:' };
    case 'sqlite':
      return { kind: 'sqlite', path: join(o.dataDir!, 'state.db') };
    case 'etcd':
      return o.etcdPrefix === undefined
        ? { kind: 'etcd', endpoints: o.etcdServers }
        : { kind: 'etcd', endpoints: o.etcdServers, prefix: o.etcdPrefix };
  }
}

/** The backend, or a start-up error naming --etcd-servers or --data-dir (state.db). */
async function openBackend(o: ResolvedOptions): Promise<Storage> {
  const opts = storageOptions(o);
  if (opts.kind === 'etcd') return forFlag('etcd-servers', () => openStorage(opts));
  if (o.storage === 'memory') return openStorage(opts);
  return forFlag('data-dir', () =>
    openStorage(opts).catch((err: unknown) => {
      const msg = err instanceof Error ? err.message : String(err);
      throw new Error(msg.includes(opts.path) ? msg : `${opts.path}: ${msg}`);
    }),
  );
}

export async function startServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const logger = options.logger ?? createLogger({ level: options.logLevel ?? 'warn' });
  const o = resolveServerOptions(options);
  // Undone in reverse when a later step fails, so a failed start leaves nothing open.
  const undo: (() => Promise<void>)[] = [];
  try {
    // Every step ends or fails with one line naming its flag, in an order that fails before it
    // makes anything: the port first (nothing read or written yet), then the data dir, then what
    // the flags name, then storage; only then is anything generated (the PKI logs what it issues).
    const clientCertificates = o.clientCAFile !== undefined || o.clusterToken !== undefined;
    const securePort = await bindSecurePort(o.securePort, o.bindAddress, { limits: o.limits, clientCertificates });
    // Closed by the frontend once there is one.
    let served: HttpsFrontend | undefined;
    undo.push(() => served?.forceClose() ?? new Promise<void>((resolve) => securePort.server.close(() => resolve())));
    const port = securePort.port;
    const dataDir = o.dataDir;
    if (dataDir) await forFlag('data-dir', () => prepareDataDir(dataDir, logger));

    const { tls: tlsFiles, tokenAuthFile, clientCAFile } = o;
    const signingKeyFile = o.serviceAccount.signingKeyFile;
    const [givenTls, givenTokens, givenSaKey, otherSaKeys, caPem] = await Promise.all([
      tlsFiles ? loadTlsFiles(tlsFiles.certFile, tlsFiles.keyFile) : undefined,
      tokenAuthFile !== undefined
        ? forFlag('token-auth-file', () => tokenRecords(tokenAuthFile, true, logger))
        : undefined,
      signingKeyFile !== undefined
        ? forFlag('service-account-signing-key-file', () => loadSigningKeyFile(signingKeyFile))
        : undefined,
      forFlag('service-account-key-file', () => loadPublicKeyFiles(o.serviceAccount.keyFiles)),
      clientCAFile !== undefined ? forFlag('client-ca-file', () => readClientCA(clientCAFile)) : undefined,
    ]);
    // Every time the server writes or checks; the testing API's Clock moves it (server/testing/).
    const clock = o.testing ? new AdjustableClock() : systemClock;
    const audit = await auditing(o, logger, clock);
    undo.push(async () => audit?.backend.close());
    // /metrics' etcd_request_duration_seconds times every storage call, on either backend.
    const metrics = new Metrics();
    const storage = instrumentStorage(await openBackend(o), metrics.storage);
    undo.push(() => storage.close());
    // The stores' watch caches are made from this storage, each when first used.
    if (o.watchCacheFreshnessTimeoutMs !== undefined)
      setCacherDefaults(storage, { freshnessTimeoutMs: o.watchCacheFreshnessTimeoutMs });
    // Asked now, so the first list need not wait for it (etcd: each member's version); logged once
    // serving, so that a start that fails says only why.
    const progressSupport = storage.watchProgressSupport();

    // With a cluster token the replicas on this etcd prefix share one identity; otherwise what the
    // flags did not give is kept in the data dir (made on first start), else made for this process.
    const shared = o.clusterToken
      ? await forFlag('file' in o.clusterToken ? 'token-file' : 'token', () =>
          joinCluster(o, storage, logger, { tls: !!givenTls, tokens: !!givenTokens, signingKey: !!givenSaKey }),
        )
      : undefined;
    const generated = (): Promise<[ServingTls, TokenRecord[], KeyObject[]]> =>
      Promise.all([
        givenTls ?? shared?.serving ?? generatedTls(o, logger),
        givenTokens ??
          shared?.tokens ??
          (dataDir ? tokenRecords(join(dataDir, 'tokens.csv'), false, logger) : [generateAdminToken()]),
        givenSaKey ? [givenSaKey] : (shared?.serviceAccountKeys ?? generatedSigningKey(dataDir).then((k) => [k])),
      ]);
    const [tls, tokens, saKeys] = await (dataDir ? forFlag('data-dir', generated) : generated());
    // The signing key always verifies what this server signs (with a shared identity, every key
    // the cluster kept through rotations); --service-account-key-file adds others'.
    const verifyKeys = (signing: readonly KeyObject[]): KeyObject[] => [
      ...signing.map((k) => createPublicKey(k)),
      ...otherSaKeys,
    ];
    let issuer = new ServiceAccountTokenIssuer(o.serviceAccount.issuers[0]!, saKeys[0]!);
    const compactor =
      o.compactionIntervalMs > 0 ? startCompactor(storage, o.compactionIntervalMs, logger, clock) : undefined;
    undo.push(async () => compactor?.stop());

    const host = clientHost(o.bindAddress);
    const api = await createApi({
      storage,
      logger,
      serverAddress: () => hostPort(host, port),
      maxRequestBodyBytes: o.maxRequestBodyBytes,
      minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
      ...(o.watchBudgetBytes !== undefined ? { watchBudgetBytes: o.watchBudgetBytes } : {}),
      ...(o.leaderElection ? { leaderElection: o.leaderElection } : {}),
      authorizationModes: o.authorizationModes,
      tokens: {
        // A rotation in the shared identity replaces it while the server runs.
        issuer: { generateToken: (claims) => issuer.generateToken(claims) },
        audiences: o.serviceAccount.audiences,
        maxExpirationSeconds: o.serviceAccount.maxTokenExpirationSeconds,
        clock,
      },
      clock,
      ...(o.enableGarbageCollector ? {} : { garbageCollector: false }),
      ...(clock instanceof AdjustableClock ? { testing: { clock, metrics: metrics.registry() } } : {}),
    });
    undo.push(() => api.close());
    metrics.countStorageObjects(() => api.storedObjectCounts());

    // Client certificates only with --client-ca-file: the authenticator loads @peculiar/x509.
    // With a shared identity, the cluster's CA when no --client-ca-file names another.
    const clientCA = caPem ?? shared?.caCert;
    const x509 = clientCA
      ? new (await import('./authn/x509.js')).X509Authenticator(() => new Date(clock.now()))
      : undefined;
    // kube's authenticator union: client certificates, then bearer tokens (the token file, then
    // ServiceAccount tokens), system:authenticated added to whoever they find.
    const tokenFile = new TokenAuthenticator(tokens);
    const serviceAccounts = new ServiceAccountTokenAuthenticator({
      issuers: o.serviceAccount.issuers,
      keys: verifyKeys(saKeys),
      audiences: o.serviceAccount.audiences,
      serviceAccount: api.liveObjects.serviceAccount,
      secret: api.liveObjects.secret,
      now: () => new Date(clock.now()),
    });
    // Later versions of the shared identity: a rotated signing key, tokens another replica added.
    const following = shared?.follow((update) => {
      if (!givenTokens) tokenFile.setRecords(update.tokens);
      if (givenSaKey) return;
      issuer = new ServiceAccountTokenIssuer(o.serviceAccount.issuers[0]!, update.serviceAccountKeys[0]!);
      serviceAccounts.setKeys(verifyKeys(update.serviceAccountKeys));
    });
    undo.push(async () => following?.close());
    const authenticator = new UnionAuthenticator({
      tokens: tokenFile,
      serviceAccounts,
      ...(x509 ? { x509 } : {}),
      logger,
    });
    const frontend = new HttpsFrontend({
      securePort,
      metrics,
      tls: clientCA ? { ...tls, clientCA } : tls,
      ...(audit ? { auditor: audit.auditor } : {}),
      // With the testing API, Faults act on client requests here; without it, the API as it is.
      api: api.withFaults?.(api) ?? api,
      access: {
        authenticate: (req) => authenticator.authenticate(req),
        anonymous: o.anonymousAuth,
        authorizer: api.authorizer,
      },
      storageCheck: storageCheck(storage),
      version: serverVersion(),
      logger,
    });
    served = frontend;

    const url = `https://${hostPort(host, port)}`;
    const admin = adminRecord(tokens)!;
    const kubeconfig = renderKubeconfig({
      server: url,
      caCert: tls.caCert,
      token: admin.token,
      userName: admin.user.name,
    });
    const kubeconfigPath = o.dataDir ? join(o.dataDir, 'admin.kubeconfig') : undefined;
    if (kubeconfigPath) await forFlag('data-dir', () => writeFileAtomic(kubeconfigPath, kubeconfig, 0o600));
    logger.info('serving', { url, storage: o.storage, kubeconfig: kubeconfigPath });
    void progressSupport.then(({ supported, reason }) =>
      logger.info('consistent lists', { servedFrom: supported ? 'watch cache' : 'storage', reason }),
    );

    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      logger.info('shutting down', { url });
      frontend.stopAccepting();
      await frontend.drain(SHUTDOWN_GRACE_MS, false);
      const errors: unknown[] = [];
      await withTimeout(api.close(), CLOSE_STEP_TIMEOUT_MS, 'closing the API').catch((err: unknown) =>
        errors.push(err),
      );
      await frontend.drain(WATCH_END_GRACE_MS, true);
      await frontend.forceClose();
      compactor?.stop();
      following?.close();
      await audit?.backend.close();
      await withTimeout(storage.close(), CLOSE_STEP_TIMEOUT_MS, 'closing storage').catch((err: unknown) =>
        errors.push(err),
      );
      if (errors.length > 0) throw errors[0];
      logger.info('stopped', { url });
    };
    const stop = (): Promise<void> => (closing ??= close());
    const target = { server: url, ca: tls.caCert, token: admin.token };
    // What the library was asked to install (CRDs, webhook configurations), through the API.
    const provisioned =
      options.crds || options.webhooks
        ? await (await import('./provision.js'))
            .provision(target, {
              ...(options.crds ? { crds: options.crds } : {}),
              ...(options.webhooks ? { webhooks: options.webhooks } : {}),
            })
            .catch((err: unknown) => {
              throw new StartupError(err instanceof Error ? err.message : String(err));
            })
        : {};
    return {
      url,
      port,
      kubeconfig,
      kubeconfigPath,
      token: admin.token,
      caCert: tls.caCert,
      storage: o.storage,
      close: stop,
      [Symbol.asyncDispose]: stop,
      ...(o.testing ? { testing: (await import('./testing/client.js')).testingClient(target) } : {}),
      ...provisioned,
    };
  } catch (err) {
    for (const step of undo.reverse()) await step().catch(() => {});
    throw err;
  }
}
