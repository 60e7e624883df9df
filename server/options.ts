// Server options: the library's ServerOptions, and the command line that fills them with flags
// named as kube-apiserver's. Parsing is pure (argv in, options or one error line out).
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { LogLevel, Logger } from '../apimachinery/log.js';
import { DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from './pipeline/max-inflight.js';
import { DEFAULT_MAX_EVENT_LOOP_UTILIZATION } from './pipeline/saturation.js';
import { type LeaderElectionTiming, resolveLeaderElectionTiming } from './registry/builtin/leader-election.js';
import { defaultApiAudiences } from './authn/service-account-token.js';
import type { Manifest, WebhookOptions } from './provision.js';

/** 'memory': SQLite on ':memory:'; 'sqlite': DATA_DIR/state.db; 'etcd': the etcdServers. */
export type StorageChoice = 'memory' | 'sqlite' | 'etcd';

/** The --authorization-mode values served: kube's RBAC, and its AlwaysAllow and AlwaysDeny. */
export const AUTHORIZATION_MODES = ['RBAC', 'AlwaysAllow', 'AlwaysDeny'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

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
/** kube's --min-request-timeout: a watch without timeoutSeconds ends after 1 to 2 times this. */
export const DEFAULT_MIN_REQUEST_TIMEOUT_S = 1800;

/** A start-up failure the operator can act on: printed as one line, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** A start-up step's failure as one line that names the flag the operator can change: `--flag: cause`. */
export function flagError(flag: string, err: unknown): StartupError {
  return new StartupError(`--${flag}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
}

/** Runs one start-up step; whatever it throws becomes flagError(flag, ...). */
export async function forFlag<T>(flag: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw flagError(flag, err);
  }
}

/** A file-system error as the few words an operator needs. */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a path component is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/** ServerOptions with the defaults applied and checked; what startServer works from. */
export interface ResolvedOptions {
  storage: StorageChoice;
  /** Absolute. */
  dataDir: string | undefined;
  securePort: number;
  bindAddress: string;
  etcdServers: string[];
  etcdPrefix: string | undefined;
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
  const bindAddress = o.bindAddress ?? CLI_DEFAULTS.bindAddress;
  if (!isIP(bindAddress)) throw new StartupError(`bindAddress ${JSON.stringify(bindAddress)} is not an IP address`);
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    throw new StartupError('tlsCertFile and tlsPrivateKeyFile must be given together');
  }
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
    leaderElection: storage === 'etcd' ? leaderElectionTiming(o.leaderElection ?? {}) : undefined,
    enableGarbageCollector: o.enableGarbageCollector ?? true,
    testing: o.testing ?? false,
  };
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

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration (`5m0s`, `1h30m`, `250ms`, `0`) in milliseconds, or undefined when it is not one. */
export function parseGoDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * DURATION_UNITS_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === value.length && matched > 0 ? total : undefined;
}

export const CLI_DEFAULTS = { dataDir: './.data', securePort: 6443, bindAddress: '127.0.0.1' } as const;

export type CliCommand =
  | {
      kind: 'run';
      options: ServerOptions & { dataDir: string; securePort: number; bindAddress: string; logLevel: LogLevel };
    }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

type CliOptions = Extract<CliCommand, { kind: 'run' }>['options'];

interface FlagSpec {
  name: string;
  short?: string;
  /** Placeholder for the value in --help; absent for boolean flags. */
  arg?: string;
  help: string;
  /** Applies the value; returns an error message when it is not acceptable. */
  set?: (o: CliOptions, value: string) => string | undefined;
  /** The value of the flag given alone (pflag's NoOptDefVal): a value then only follows `=`. */
  bare?: string;
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** A level name, or a klog verbosity: request logs are kube's -v=3 httplog, so 3 and up is debug. */
export function parseLogLevel(value: string): LogLevel | undefined {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  if (!/^\d+$/.test(value)) return undefined;
  return Number(value) >= 3 ? 'debug' : 'info';
}

export function parsePort(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n <= 65535 ? n : undefined;
}

/** Comma-separated http(s) URLs, as kube's --etcd-servers. */
export function parseEtcdServers(value: string): string[] | string {
  const urls = value.split(',').map((s) => s.trim());
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      return `invalid URL ${JSON.stringify(u)}`;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return `unsupported scheme in ${JSON.stringify(u)} (want http or https)`;
  }
  return urls;
}

/** A whole-number flag of at least `min`. */
function intFlag(value: string, min: number, apply: (n: number) => void): string | undefined {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) return `must be a whole number, ${min} or more`;
  apply(n);
  return undefined;
}

/** Go's strconv.ParseBool, which kube's boolean flags use. */
function boolFlag(value: string, apply: (b: boolean) => void): string | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) apply(true);
  else if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) apply(false);
  else return 'must be true or false';
  return undefined;
}

const nonEmpty = (value: string, apply: () => void): string | undefined => {
  if (value === '') return 'must not be empty';
  apply();
  return undefined;
};

const FLAGS: readonly FlagSpec[] = [
  {
    name: 'data-dir',
    arg: 'DIR',
    help: `PKI, tokens, admin.kubeconfig and the embedded store (default ${CLI_DEFAULTS.dataDir})`,
    set: (o, v) => nonEmpty(v, () => (o.dataDir = v)),
  },
  {
    name: 'secure-port',
    arg: 'PORT',
    help: `The port on which to serve HTTPS with authentication and authorization. 0 picks a free port (kube cannot switch it off). (default ${CLI_DEFAULTS.securePort})`,
    set: (o, v) => {
      const port = parsePort(v);
      if (port === undefined) return 'must be a port number (0-65535)';
      o.securePort = port;
      return undefined;
    },
  },
  {
    name: 'bind-address',
    arg: 'ADDR',
    help: `The IP address on which to listen for the --secure-port port. If an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used. (default ${CLI_DEFAULTS.bindAddress})`,
    set: (o, v) => {
      if (!isIP(v)) return 'must be an IP address';
      o.bindAddress = v;
      return undefined;
    },
  },
  {
    name: 'etcd-servers',
    arg: 'URL,URL',
    help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Without it, the embedded SQLite store DIR/state.db is used.',
    set: (o, v) => {
      const urls = parseEtcdServers(v);
      if (typeof urls === 'string') return urls;
      o.etcdServers = urls;
      o.storage = 'etcd';
      return undefined;
    },
  },
  {
    name: 'etcd-prefix',
    arg: 'PREFIX',
    help: 'The prefix to prepend to all resource paths in etcd.',
    set: (o, v) => nonEmpty(v, () => (o.etcdPrefix = v)),
  },
  {
    name: 'enable-garbage-collector',
    arg: 'BOOL',
    help: 'Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-controller-manager. (default true)',
    set: (o, v) => boolFlag(v, (b) => (o.enableGarbageCollector = b)),
  },
  {
    name: 'enable-testing-apis',
    bare: 'true',
    help: 'Serve testing.mini-apiserver.io/v1alpha1: Faults injected into client requests, Snapshots of the whole stored state, and the Clock every server time comes from. Only system:masters may use them unless RBAC grants more. (default false)',
    set: (o, v) => boolFlag(v, (b) => (o.testing = b)),
  },
  {
    name: 'tls-cert-file',
    arg: 'FILE',
    help: 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated in DIR/pki.',
    set: (o, v) => nonEmpty(v, () => (o.tlsCertFile = v)),
  },
  {
    name: 'tls-private-key-file',
    arg: 'FILE',
    help: 'File containing the default x509 private key matching --tls-cert-file.',
    set: (o, v) => nonEmpty(v, () => (o.tlsPrivateKeyFile = v)),
  },
  {
    name: 'etcd-compaction-interval',
    arg: 'DURATION',
    help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled. (default 5m0s)',
    set: (o, v) => {
      const ms = parseGoDuration(v);
      if (ms === undefined) return 'must be a duration such as 5m0s, 30s or 0';
      o.compactionIntervalMs = ms;
      return undefined;
    },
  },
  {
    name: 'max-requests-inflight',
    arg: 'N',
    help: 'This flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely. (default 400)',
    set: (o, v) => intFlag(v, 0, (n) => (o.maxRequestsInflight = n)),
  },
  {
    name: 'max-mutating-requests-inflight',
    arg: 'N',
    help: 'This flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely. (default 200)',
    set: (o, v) => intFlag(v, 0, (n) => (o.maxMutatingRequestsInflight = n)),
  },
  {
    name: 'request-timeout',
    arg: 'DURATION',
    help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests. (default 1m0s)',
    set: (o, v) => {
      const ms = parseGoDuration(v);
      if (ms === undefined || ms <= 0) return 'must be a duration above 0 such as 1m0s or 30s';
      o.requestTimeoutMs = ms;
      return undefined;
    },
  },
  {
    name: 'min-request-timeout',
    arg: 'SECONDS',
    help: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load. (default 1800)',
    set: (o, v) => intFlag(v, 1, (n) => (o.minRequestTimeoutSeconds = n)),
  },
  {
    name: 'max-resource-write-bytes',
    arg: 'BYTES',
    help: 'The limit on the request body size that would be accepted and decoded in a write request. (default 3145728)',
    set: (o, v) => intFlag(v, 1, (n) => (o.maxRequestBodyBytes = n)),
  },
  {
    name: 'client-ca-file',
    arg: 'FILE',
    help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
    set: (o, v) => nonEmpty(v, () => (o.clientCAFile = v)),
  },
  {
    name: 'anonymous-auth',
    arg: 'BOOL',
    help: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated. (default true)',
    set: (o, v) => boolFlag(v, (b) => (o.anonymousAuth = b)),
  },
  {
    name: 'authorization-mode',
    arg: 'MODES',
    help: `Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: ${AUTHORIZATION_MODES.join(',')}. (default RBAC)`,
    set: (o, v) => {
      const modes = v.split(',').map((m) => m.trim());
      const bad = modes.find((m) => !(AUTHORIZATION_MODES as readonly string[]).includes(m));
      if (bad !== undefined)
        return `unknown authorization mode ${JSON.stringify(bad)}: must be among ${AUTHORIZATION_MODES.join(', ')}`;
      if (new Set(modes).size !== modes.length) return 'may not repeat a mode';
      o.authorizationModes = modes as AuthorizationMode[];
      return undefined;
    },
  },
  {
    name: 'service-account-signing-key-file',
    arg: 'FILE',
    help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. (default: generated DIR/pki/sa.key)',
    set: (o, v) => nonEmpty(v, () => (o.serviceAccountSigningKeyFile = v)),
  },
  {
    name: 'service-account-key-file',
    arg: 'FILE',
    help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. (the signing key always verifies too)',
    set: (o, v) => nonEmpty(v, () => (o.serviceAccountKeyFiles = [...(o.serviceAccountKeyFiles ?? []), v])),
  },
  {
    name: 'service-account-issuer',
    arg: 'URL',
    help: `Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. (default ${DEFAULT_SERVICE_ACCOUNT_ISSUER})`,
    set: (o, v) => nonEmpty(v, () => (o.serviceAccountIssuers = [...(o.serviceAccountIssuers ?? []), v])),
  },
  {
    name: 'service-account-max-token-expiration',
    arg: 'DURATION',
    help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value. (default 0: no limit)',
    set: (o, v) => {
      const ms = parseGoDuration(v);
      if (ms === undefined) return 'must be a duration such as 24h0m0s';
      o.serviceAccountMaxTokenExpirationMs = ms;
      return undefined;
    },
  },
  {
    name: 'api-audiences',
    arg: 'AUD,AUD',
    help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If this flag is not set, it defaults to a single element list containing the issuer URL.',
    set: (o, v) =>
      nonEmpty(
        v,
        () =>
          (o.apiAudiences = v
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean)),
      ),
  },
  {
    name: 'audit-policy-file',
    arg: 'FILE',
    help: 'Path to the file that defines the audit policy configuration.',
    set: (o, v) => nonEmpty(v, () => (o.auditPolicyFile = v)),
  },
  {
    name: 'audit-log-path',
    arg: 'FILE',
    help: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.",
    set: (o, v) => nonEmpty(v, () => (o.auditLogPath = v)),
  },
  {
    name: 'audit-log-maxsize',
    arg: 'MB',
    help: 'The maximum size in megabytes of the audit log file before it gets rotated.',
    set: (o, v) => intFlag(v, 0, (n) => (o.auditLogMaxSize = n)),
  },
  {
    name: 'audit-log-maxbackup',
    arg: 'N',
    help: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
    set: (o, v) => intFlag(v, 0, (n) => (o.auditLogMaxBackup = n)),
  },
  {
    name: 'audit-log-maxage',
    arg: 'DAYS',
    help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.',
    set: (o, v) => intFlag(v, 0, (n) => (o.auditLogMaxAge = n)),
  },
  {
    name: 'token-auth-file',
    arg: 'FILE',
    help: 'If set, the file that will be used to secure the secure port of the API server via token authentication. (default: generated DIR/tokens.csv)',
    set: (o, v) => nonEmpty(v, () => (o.tokenAuthFile = v)),
  },
  {
    name: 'log-level',
    arg: 'LEVEL',
    help: 'debug, info (default), warn or error',
    set: (o, v) => {
      const level = LOG_LEVELS.includes(v as LogLevel) ? (v as LogLevel) : undefined;
      if (!level) return 'must be one of debug, info, warn, error';
      o.logLevel = level;
      return undefined;
    },
  },
  {
    name: 'v',
    short: 'v',
    arg: 'N',
    help: 'number for the log level verbosity (3 and up logs every request), or a --log-level name',
    set: (o, v) => {
      const level = parseLogLevel(v);
      if (!level) return 'must be a number or one of debug, info, warn, error';
      o.logLevel = level;
      return undefined;
    },
  },
  { name: 'version', help: 'Print version information and quit.' },
  { name: 'help', short: 'h', help: 'help for mini-apiserver' },
];

/** Spaces at least between a flag and its help, as pflag's FlagUsages separates them. */
const HELP_GAP = 3;

/**
 * The flags as pflag's FlagUsages lays them out: every help text starts in one column, past the
 * longest flag, so that no flag runs into its text.
 */
export function usage(): string {
  const names = FLAGS.map((f) => (f.short ? `-${f.short}, ` : '    ') + `--${f.name}${f.arg ? ` ${f.arg}` : ''}`);
  const width = Math.max(...names.map((n) => n.length)) + HELP_GAP;
  const lines = FLAGS.map((f, i) => `  ${names[i]!.padEnd(width)}${f.help}`);
  return [
    'mini-apiserver: a standalone Kubernetes-style API server for CustomResourceDefinitions',
    '',
    'Usage: mini-apiserver [flags]',
    '       mini-apiserver migrate-storage <crd> [--kubeconfig PATH | --data-dir DIR]',
    '         rewrite every object of <crd> in its storage version (through the running server), then trim status.storedVersions',
    '',
    'Flags (--flag VALUE and --flag=VALUE both work):',
    ...lines,
    '',
  ].join('\n');
}

/** The flag an argument names, with its value when given inline (--flag=value, -v3). */
function splitArg(arg: string): { spec: FlagSpec | undefined; shown: string; inline: string | undefined } {
  if (arg.startsWith('--')) {
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    return {
      spec: FLAGS.find((f) => f.name === name),
      shown: `--${name}`,
      inline: eq < 0 ? undefined : arg.slice(eq + 1),
    };
  }
  // pflag shorthand: -v 3, -v=3, -v3.
  const letter = arg.slice(1, 2);
  const rest = arg.slice(2);
  return {
    spec: FLAGS.find((f) => f.short === letter),
    shown: `-${letter}`,
    inline: rest === '' ? undefined : rest.replace(/^=/, ''),
  };
}

export function parseArgs(argv: readonly string[]): CliCommand {
  const o: CliOptions = { ...CLI_DEFAULTS, logLevel: 'info' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-' || arg === '--')
      return { kind: 'error', message: `unexpected argument ${JSON.stringify(arg)}` };
    const { spec, shown, inline } = splitArg(arg);
    if (!spec) return { kind: 'error', message: `unknown flag: ${shown}` };
    if (!spec.set) {
      if (inline !== undefined) return { kind: 'error', message: `flag ${shown} takes no value` };
      return { kind: spec.name === 'help' ? 'help' : 'version' };
    }
    let value = inline ?? spec.bare;
    if (value === undefined) {
      if (i + 1 >= argv.length) return { kind: 'error', message: `flag needs an argument: ${shown}` };
      value = argv[++i]!;
    }
    const problem = spec.set(o, value);
    if (problem) return { kind: 'error', message: `invalid value ${JSON.stringify(value)} for ${shown}: ${problem}` };
  }
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    return { kind: 'error', message: '--tls-cert-file and --tls-private-key-file must be given together' };
  }
  return { kind: 'run', options: o };
}
