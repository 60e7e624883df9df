// Server options: the library's ServerOptions, their defaults, and the checks that turn them into
// the ResolvedOptions startServer works from (flags.ts fills them from the command line).
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { LogLevel, Logger } from '../apimachinery/log.js';
import { DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from './pipeline/max-inflight.js';
import { DEFAULT_MAX_EVENT_LOOP_UTILIZATION } from './pipeline/saturation.js';
import { type LeaderElectionTiming, resolveLeaderElectionTiming } from './controllers/leader-election.js';
import { defaultApiAudiences } from './authn/service-account-token.js';
import { AUTHORIZATION_MODES, type AuthorizationMode } from './authz/authorizer.js';
import { StartupError } from './startup/errors.js';
import { DEFAULT_MIN_REQUEST_TIMEOUT_S } from './endpoints/watch/registry.js';
import type { Manifest, WebhookOptions } from './provision.js';

/** 'memory': SQLite on ':memory:'; 'sqlite': DATA_DIR/state.db; 'etcd': the etcdServers. */
export type StorageChoice = 'memory' | 'sqlite' | 'etcd';

/** kube-apiserver's --bind-address default. */
export const DEFAULT_BIND_ADDRESS = '127.0.0.1';

/** kube-apiserver's usual --service-account-issuer. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ServerOptions {
  /** Default: 'etcd' when etcdServers are given, else 'sqlite' when dataDir is, else 'memory'. */
  storage?: StorageChoice;
  /**
   * Where the PKI, tokens.csv, admin.kubeconfig and (for 'sqlite') state.db live. Without it the
   * CA, serving certificate and admin token are generated in memory and nothing is written.
   */
  dataDir?: string;
  /** 0 (the default) picks an ephemeral port; the handle tells which. */
  securePort?: number;
  /** An IP address; default 127.0.0.1. */
  bindAddress?: string;
  etcdServers?: string[];
  /** Prepended to every etcd key, as kube's --etcd-prefix. */
  etcdPrefix?: string;
  /**
   * --token (k3s's name): on etcd, replicas given the same token and prefix share one identity (CA,
   * token file, ServiceAccount keys), kept in etcd sealed with a key derived from it.
   */
  clusterToken?: string;
  /** --token-file: the cluster token from a file (blanks around it trimmed), kept off the command line. */
  clusterTokenFile?: string;
  /** A serving certificate (PEM, optionally followed by its chain) instead of the generated one. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** kube's token-auth-file CSV instead of the generated DATA_DIR/tokens.csv. */
  tokenAuthFile?: string;
  /** --client-ca-file: client certificates it signed authenticate (CN the user, O the groups). */
  clientCAFile?: string;
  /**
   * --anonymous-auth (default true, as kube): a request without credentials is system:anonymous,
   * which RBAC lets read only health and version (system:public-info-viewer); false answers 401.
   */
  anonymousAuth?: boolean;
  /** --authorization-mode (default ['RBAC']): asked in order; AlwaysAllow lets every user do everything. */
  authorizationModes?: AuthorizationMode[];
  /**
   * --service-account-signing-key-file: the private key (PEM) ServiceAccount tokens are signed with.
   * Default: DIR/pki/sa.key, generated once; in memory without a data dir.
   */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-key-file: more public (or private) keys (PEM) tokens are verified with, beside the signing key's. */
  serviceAccountKeyFiles?: string[];
  /** --service-account-issuer: the first is written into new tokens; tokens of any are accepted (default https://kubernetes.default.svc.cluster.local). */
  serviceAccountIssuers?: string[];
  /** --api-audiences: what a token must be for; default the first issuer. */
  apiAudiences?: string[];
  /** --service-account-max-token-expiration: the longest TokenRequest granted; 0 (default) no limit. */
  serviceAccountMaxTokenExpirationMs?: number;
  /** --audit-policy-file: an audit.k8s.io/v1 Policy; without it nothing is audited. */
  auditPolicyFile?: string;
  /** --audit-log-path: JSON lines of audit events; '-' is standard output. */
  auditLogPath?: string;
  /** --audit-log-maxsize (MB), --audit-log-maxbackup, --audit-log-maxage (days): rotation; 0 no limit. */
  auditLogMaxSize?: number;
  auditLogMaxBackup?: number;
  auditLogMaxAge?: number;
  /** How often storage history older than one interval is compacted; 0 never (default 5 minutes). */
  compactionIntervalMs?: number;
  /** Default: JSON lines on stderr at `logLevel`. */
  logger?: Logger;
  /** Used when no logger is given; default 'warn', so tests that start many servers stay quiet. */
  logLevel?: LogLevel;
  /** --max-requests-inflight (default 400): read-only requests served at once; 0 no limit. */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (default 200): mutating requests served at once; 0 no limit. */
  maxMutatingRequestsInflight?: number;
  /** --request-timeout (default 60 s): after it a request that is not a watch is answered 504. */
  requestTimeoutMs?: number;
  /** --min-request-timeout (default 1800 s): a watch without timeoutSeconds lasts 1 to 2 times this. */
  minRequestTimeoutSeconds?: number;
  /** --max-resource-write-bytes (default 3 MiB): the largest request body a write may send. */
  maxRequestBodyBytes?: number;
  /** How long a connection may take to send a request's headers (kube: 32 s, no flag). */
  readHeaderTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept (kube: 90 s, no flag). */
  idleTimeoutMs?: number;
  /** Bytes all watchers together may have pending before the slowest are ended (default 256 MiB). */
  watchBudgetBytes?: number;
  /**
   * Library only (tests shorten it): how long a read at a resourceVersion the watch cache has not
   * reached waits for it before kube's 504 "Too large resource version" (kube's 3 s, no flag).
   */
  watchCacheFreshnessTimeoutMs?: number;
  /** Event-loop utilization (0 to 1) above which counted requests get 429 (default 0.9; 1 never). */
  maxEventLoopUtilization?: number;
  /**
   * Library only (tests shorten it): the timing of the controllers' leader election, which runs
   * on etcd, where several servers may share the data. client-go's defaults: a 15 s lease, a
   * 10 s renew deadline, a try every 2 s. The identity (default hostname_uuid) must be unique
   * per process.
   */
  leaderElection?: Partial<LeaderElectionTiming> & { identity?: string };
  /** kube-controller-manager's --enable-garbage-collector (default true). */
  enableGarbageCollector?: boolean;
  /**
   * --enable-testing-apis: serve testing.mini-apiserver.io (faults, snapshots, the clock:
   * server/testing/). Off by default: the group is not served and nothing is added to requests.
   * On, the handle's `testing` holds typed helpers over it.
   */
  testing?: boolean;
  /** Library only: CustomResourceDefinitions to install; startServer resolves once all are Established. */
  crds?: readonly Manifest[];
  /** Library only: webhook configurations to install, their `service:` references routed to local URLs. */
  webhooks?: WebhookOptions;
}

/** What one client may hold of the server: kube-apiserver's figures unless set otherwise. */
export interface ServingLimits {
  /** --max-requests-inflight and --max-mutating-requests-inflight. */
  inflight: InflightLimits;
  /** --request-timeout: a request that is not long-running is answered 504 after this. */
  requestTimeoutMs: number;
  /** kube's http.Server ReadHeaderTimeout ("just shy of requestTimeoutUpperBound"): slowloris. */
  readHeaderTimeoutMs: number;
  /** kube's http.Server IdleTimeout (http.DefaultTransport's keep-alive): idle connections close. */
  idleTimeoutMs: number;
  /** kube's http.Server MaxHeaderBytes: request line and headers, so long selectors and continue tokens fit. */
  maxHeaderBytes: number;
  /** Event-loop utilization above which counted requests are refused (server/pipeline/saturation.ts); 1 never. */
  maxEventLoopUtilization: number;
}

export const DEFAULT_SERVING_LIMITS: ServingLimits = {
  inflight: DEFAULT_INFLIGHT_LIMITS,
  requestTimeoutMs: 60_000,
  readHeaderTimeoutMs: 32_000,
  idleTimeoutMs: 90_000,
  maxHeaderBytes: 1024 * 1024,
  maxEventLoopUtilization: DEFAULT_MAX_EVENT_LOOP_UTILIZATION,
};

/** kube's MaxRequestBodyBytes: the largest body a write may send. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** ServerOptions with the defaults applied and checked; what startServer works from. */
export interface ResolvedOptions {
  storage: StorageChoice;
  /** Absolute. */
  dataDir: string | undefined;
  securePort: number;
  bindAddress: string;
  etcdServers: string[];
  etcdPrefix: string | undefined;
  clusterToken: { token: string } | { file: string } | undefined;
  tls: { certFile: string; keyFile: string } | undefined;
  tokenAuthFile: string | undefined;
  clientCAFile: string | undefined;
  anonymousAuth: boolean;
  authorizationModes: AuthorizationMode[];
  serviceAccount: {
    signingKeyFile: string | undefined;
    keyFiles: string[];
    issuers: string[];
    audiences: string[];
    maxTokenExpirationSeconds: number;
  };
  audit: { policyFile: string; logPath: string; maxSizeMB: number; maxBackups: number; maxAgeDays: number } | undefined;
  compactionIntervalMs: number;
  limits: ServingLimits;
  maxRequestBodyBytes: number;
  minRequestTimeoutSeconds: number;
  watchBudgetBytes: number | undefined;
  watchCacheFreshnessTimeoutMs: number | undefined;
  /**
   * Only on etcd: SQLite (memory or a data dir) is one process's store (the file is locked), so
   * there is never a second replica to elect against, and a Lease written every 2 s would only
   * churn revisions and the disk.
   */
  leaderElection: (LeaderElectionTiming & { identity?: string }) | undefined;
  enableGarbageCollector: boolean;
  testing: boolean;
}

export function resolveServerOptions(o: ServerOptions, cwd = process.cwd()): ResolvedOptions {
  const etcdServers = o.etcdServers ?? [];
  const storage = o.storage ?? (etcdServers.length > 0 ? 'etcd' : o.dataDir !== undefined ? 'sqlite' : 'memory');
  if (storage === 'sqlite' && o.dataDir === undefined) throw new StartupError("storage 'sqlite' needs a dataDir");
  if (storage === 'etcd' && etcdServers.length === 0) throw new StartupError("storage 'etcd' needs etcdServers");
  if (storage !== 'etcd' && etcdServers.length > 0)
    throw new StartupError(`etcdServers given, but storage is '${storage}'`);
  const securePort = o.securePort ?? 0;
  if (!Number.isInteger(securePort) || securePort < 0 || securePort > 65535)
    throw new StartupError(`invalid securePort ${securePort}`);
  const bindAddress = o.bindAddress ?? DEFAULT_BIND_ADDRESS;
  if (!isIP(bindAddress)) throw new StartupError(`bindAddress ${JSON.stringify(bindAddress)} is not an IP address`);
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    throw new StartupError('tlsCertFile and tlsPrivateKeyFile must be given together');
  }
  const clusterToken = resolveClusterToken(o, storage);
  const authorizationModes = o.authorizationModes ?? ['RBAC'];
  if (authorizationModes.length === 0) throw new StartupError('authorizationModes must name at least one mode');
  for (const m of authorizationModes) {
    if (!AUTHORIZATION_MODES.includes(m))
      throw new StartupError(`authorization mode ${JSON.stringify(m)} is not one of ${AUTHORIZATION_MODES.join(', ')}`);
  }
  if (new Set(authorizationModes).size !== authorizationModes.length)
    throw new StartupError(`authorization modes may not repeat: ${authorizationModes.join(',')}`);
  const issuers = o.serviceAccountIssuers ?? [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  if (issuers.length === 0 || issuers.some((i) => i === ''))
    throw new StartupError('serviceAccountIssuers must be non-empty strings');
  if (o.auditLogPath !== undefined && o.auditPolicyFile === undefined)
    throw new StartupError('auditLogPath needs an auditPolicyFile: without a policy nothing is audited');
  const d = DEFAULT_SERVING_LIMITS;
  const limits: ServingLimits = {
    inflight: {
      readOnly: count('maxRequestsInflight', o.maxRequestsInflight ?? d.inflight.readOnly),
      mutating: count('maxMutatingRequestsInflight', o.maxMutatingRequestsInflight ?? d.inflight.mutating),
    },
    requestTimeoutMs: positive('requestTimeoutMs', o.requestTimeoutMs ?? d.requestTimeoutMs),
    readHeaderTimeoutMs: positive('readHeaderTimeoutMs', o.readHeaderTimeoutMs ?? d.readHeaderTimeoutMs),
    idleTimeoutMs: positive('idleTimeoutMs', o.idleTimeoutMs ?? d.idleTimeoutMs),
    maxHeaderBytes: d.maxHeaderBytes,
    maxEventLoopUtilization: positive(
      'maxEventLoopUtilization',
      o.maxEventLoopUtilization ?? d.maxEventLoopUtilization,
    ),
  };
  return {
    storage,
    dataDir: o.dataDir === undefined ? undefined : resolve(cwd, o.dataDir),
    securePort,
    bindAddress,
    etcdServers,
    etcdPrefix: o.etcdPrefix,
    clusterToken,
    tls:
      o.tlsCertFile !== undefined && o.tlsPrivateKeyFile !== undefined
        ? { certFile: o.tlsCertFile, keyFile: o.tlsPrivateKeyFile }
        : undefined,
    tokenAuthFile: o.tokenAuthFile,
    clientCAFile: o.clientCAFile,
    anonymousAuth: o.anonymousAuth ?? true,
    authorizationModes,
    serviceAccount: {
      signingKeyFile: o.serviceAccountSigningKeyFile,
      keyFiles: o.serviceAccountKeyFiles ?? [],
      issuers,
      audiences: defaultApiAudiences(issuers, o.apiAudiences ?? []),
      maxTokenExpirationSeconds: Math.floor(
        count('serviceAccountMaxTokenExpirationMs', o.serviceAccountMaxTokenExpirationMs ?? 0) / 1000,
      ),
    },
    audit:
      o.auditPolicyFile === undefined
        ? undefined
        : {
            policyFile: o.auditPolicyFile,
            logPath: o.auditLogPath ?? '-',
            maxSizeMB: count('auditLogMaxSize', o.auditLogMaxSize ?? 0),
            maxBackups: count('auditLogMaxBackup', o.auditLogMaxBackup ?? 0),
            maxAgeDays: count('auditLogMaxAge', o.auditLogMaxAge ?? 0),
          },
    compactionIntervalMs: o.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS,
    limits,
    maxRequestBodyBytes: positive('maxRequestBodyBytes', o.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES),
    minRequestTimeoutSeconds: positive(
      'minRequestTimeoutSeconds',
      o.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_S,
    ),
    watchBudgetBytes: o.watchBudgetBytes === undefined ? undefined : positive('watchBudgetBytes', o.watchBudgetBytes),
    watchCacheFreshnessTimeoutMs:
      o.watchCacheFreshnessTimeoutMs === undefined
        ? undefined
        : positive('watchCacheFreshnessTimeoutMs', o.watchCacheFreshnessTimeoutMs),
    leaderElection: storage === 'etcd' ? leaderElectionTiming(o.leaderElection ?? {}) : undefined,
    enableGarbageCollector: o.enableGarbageCollector ?? true,
    testing: o.testing ?? false,
  };
}

function resolveClusterToken(o: ServerOptions, storage: StorageChoice): ResolvedOptions['clusterToken'] {
  if (o.clusterToken === undefined && o.clusterTokenFile === undefined) return undefined;
  if (o.clusterToken !== undefined && o.clusterTokenFile !== undefined)
    throw new StartupError('clusterToken and clusterTokenFile may not be given together');
  if (storage !== 'etcd')
    throw new StartupError('a cluster token shares the identity through etcd: it needs etcdServers');
  if (o.clusterToken === '') throw new StartupError('clusterToken must not be empty');
  return o.clusterToken !== undefined ? { token: o.clusterToken } : { file: o.clusterTokenFile! };
}

/** The timing checked, with the identity (default hostname_uuid) when one is given. */
function leaderElectionTiming(
  o: Partial<LeaderElectionTiming> & { identity?: string },
): LeaderElectionTiming & { identity?: string } {
  try {
    return { ...resolveLeaderElectionTiming(o), ...(o.identity !== undefined ? { identity: o.identity } : {}) };
  } catch (err) {
    throw new StartupError(`invalid leaderElection: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A limit that may be 0 (none). */
function count(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new StartupError(`invalid ${name} ${n}: must be a whole number, 0 or more`);
  return n;
}

function positive(name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new StartupError(`invalid ${name} ${n}: must be more than 0`);
  return n;
}

/** kube-apiserver's --etcd-compaction-interval default. */
const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;
