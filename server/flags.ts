// The command line: kube-apiserver's flags (as pflag parses them: --flag VALUE, --flag=VALUE,
// shorthands) fill ServerOptions, and --help lays them out as pflag does. Parsing is pure (argv in,
// options or one error line out).
import { isIP } from 'node:net';
import type { LogLevel } from '../apimachinery/log.js';
import { AUTHORIZATION_MODES, type AuthorizationMode } from './authz/authorizer.js';
import { parseGoDuration } from '../apimachinery/go-duration.js';
import { DEFAULT_BIND_ADDRESS, DEFAULT_SERVICE_ACCOUNT_ISSUER, type ServerOptions } from './options.js';

export const CLI_DEFAULTS = { dataDir: './.data', securePort: 6443, bindAddress: DEFAULT_BIND_ADDRESS } as const;

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

function parsePort(value: string): number | undefined {
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
/** A duration flag in milliseconds: undefined when it is not a Go duration, or is negative (no flag of ours takes one). */
function durationMs(value: string): number | undefined {
  const ns = parseGoDuration(value);
  return typeof ns === 'string' || ns < 0n ? undefined : Number(ns) / 1e6;
}

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
    name: 'token',
    arg: 'TOKEN',
    help: "Shared secret of the replicas on one etcd (k3s's flag): they keep one identity (CA, token file, ServiceAccount signing keys) in etcd under --etcd-prefix, sealed with a key derived from it. Prefer --token-file: a command line is visible to every user of the host.",
    set: (o, v) => nonEmpty(v, () => (o.clusterToken = v)),
  },
  {
    name: 'token-file',
    arg: 'FILE',
    help: 'File containing the --token.',
    set: (o, v) => nonEmpty(v, () => (o.clusterTokenFile = v)),
  },
  {
    name: 'enable-garbage-collector',
    bare: 'true',
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
      const ms = durationMs(v);
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
      const ms = durationMs(v);
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
    bare: 'true',
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
      const ms = durationMs(v);
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
    '       mini-apiserver validate -f FILE... [--old FILE]... [-o json|yaml]',
    '         validate CRDs and objects of their kinds as kube-apiserver would, without a server (validate --help)',
    '       mini-apiserver rotate-service-account-key --etcd-servers URL [--etcd-prefix PREFIX] (--token TOKEN | --token-file FILE)',
    '         a new ServiceAccount signing key for the replicas sharing an identity (--token); earlier keys still verify',
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
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      // pflag's boolean flags take a value only after `=`: `--anonymous-auth false` leaves "false" over.
      const previous = i > 0 ? splitArg(argv[i - 1]!) : undefined;
      const hint =
        previous?.spec?.bare !== undefined && previous.inline === undefined
          ? ` (${previous.shown} takes its value after "=": ${previous.shown}=${arg})`
          : '';
      return { kind: 'error', message: `unexpected argument ${JSON.stringify(arg)}${hint}` };
    }
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
  if (o.clusterToken !== undefined && o.clusterTokenFile !== undefined)
    return { kind: 'error', message: '--token and --token-file may not be given together' };
  if ((o.clusterToken ?? o.clusterTokenFile) !== undefined && o.etcdServers === undefined)
    return { kind: 'error', message: '--token shares the identity through etcd: it needs --etcd-servers' };
  return { kind: 'run', options: o };
}
