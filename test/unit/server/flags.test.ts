import { describe, expect, it } from 'vitest';
import { type CliCommand, CLI_DEFAULTS, parseArgs, parseLogLevel, usage } from '../../../server/flags.js';

const run = (extra: Record<string, unknown> = {}): CliCommand => ({
  kind: 'run',
  options: { ...CLI_DEFAULTS, logLevel: 'info', ...extra } as never,
});

describe('parseArgs', () => {
  const cases: { name: string; argv: string[]; want: CliCommand }[] = [
    { name: 'no flags: the defaults', argv: [], want: run() },
    {
      name: 'space-separated values',
      argv: ['--data-dir', '/d', '--secure-port', '8443', '--bind-address', '0.0.0.0'],
      want: run({ dataDir: '/d', securePort: 8443, bindAddress: '0.0.0.0' }),
    },
    { name: '--flag=value', argv: ['--data-dir=/d', '--secure-port=0'], want: run({ dataDir: '/d', securePort: 0 }) },
    { name: 'a value may contain =', argv: ['--etcd-prefix=/a=b'], want: run({ etcdPrefix: '/a=b' }) },
    { name: 'IPv6 bind address', argv: ['--bind-address', '::1'], want: run({ bindAddress: '::1' }) },
    {
      name: 'compaction interval as a Go duration',
      argv: ['--etcd-compaction-interval', '1m30s'],
      want: run({ compactionIntervalMs: 90_000 }),
    },
    { name: 'compaction off', argv: ['--etcd-compaction-interval=0'], want: run({ compactionIntervalMs: 0 }) },
    {
      name: 'etcd servers select etcd storage',
      argv: ['--etcd-servers', 'http://127.0.0.1:2379,https://etcd:2379'],
      want: run({ etcdServers: ['http://127.0.0.1:2379', 'https://etcd:2379'], storage: 'etcd' }),
    },
    {
      name: 'TLS files together',
      argv: ['--tls-cert-file', 'c.pem', '--tls-private-key-file', 'k.pem'],
      want: run({ tlsCertFile: 'c.pem', tlsPrivateKeyFile: 'k.pem' }),
    },
    { name: 'token auth file', argv: ['--token-auth-file', 't.csv'], want: run({ tokenAuthFile: 't.csv' }) },
    { name: '--log-level', argv: ['--log-level', 'debug'], want: run({ logLevel: 'debug' }) },
    { name: '-v N (klog verbosity)', argv: ['-v', '4'], want: run({ logLevel: 'debug' }) },
    { name: '-vN', argv: ['-v2'], want: run({ logLevel: 'info' }) },
    { name: '-v=N', argv: ['-v=3'], want: run({ logLevel: 'debug' }) },
    { name: '--v=N', argv: ['--v=5'], want: run({ logLevel: 'debug' }) },
    { name: '-v with a level name', argv: ['-v', 'warn'], want: run({ logLevel: 'warn' }) },
    {
      name: 'the last of a repeated flag wins',
      argv: ['--secure-port', '1', '--secure-port', '2'],
      want: run({ securePort: 2 }),
    },
    {
      name: "kube's limit flags",
      argv: [
        '--max-requests-inflight',
        '800',
        '--max-mutating-requests-inflight=0',
        '--request-timeout',
        '2m30s',
        '--min-request-timeout',
        '300',
        '--max-resource-write-bytes',
        '1048576',
      ],
      want: run({
        maxRequestsInflight: 800,
        maxMutatingRequestsInflight: 0,
        requestTimeoutMs: 150_000,
        minRequestTimeoutSeconds: 300,
        maxRequestBodyBytes: 1_048_576,
      }),
    },
    {
      name: 'negative in-flight limit',
      argv: ['--max-requests-inflight=-1'],
      want: {
        kind: 'error',
        message: 'invalid value "-1" for --max-requests-inflight: must be a whole number, 0 or more',
      },
    },
    {
      name: 'request timeout not a duration',
      argv: ['--request-timeout', '60'],
      want: {
        kind: 'error',
        message: 'invalid value "60" for --request-timeout: must be a duration above 0 such as 1m0s or 30s',
      },
    },
    {
      name: 'request timeout 0',
      argv: ['--request-timeout=0'],
      want: {
        kind: 'error',
        message: 'invalid value "0" for --request-timeout: must be a duration above 0 such as 1m0s or 30s',
      },
    },
    {
      name: 'min request timeout 0',
      argv: ['--min-request-timeout=0'],
      want: {
        kind: 'error',
        message: 'invalid value "0" for --min-request-timeout: must be a whole number, 1 or more',
      },
    },
    { name: '--help', argv: ['--help'], want: { kind: 'help' } },
    { name: '-h, even after other flags', argv: ['--secure-port', '1', '-h'], want: { kind: 'help' } },
    { name: '--version', argv: ['--version'], want: { kind: 'version' } },
    { name: 'unknown flag', argv: ['--nope'], want: { kind: 'error', message: 'unknown flag: --nope' } },
    { name: 'unknown flag with a value', argv: ['--nope=1'], want: { kind: 'error', message: 'unknown flag: --nope' } },
    { name: 'unknown shorthand', argv: ['-x'], want: { kind: 'error', message: 'unknown flag: -x' } },
    {
      name: 'kube flag we do not have',
      argv: ['--etcd-cafile', 'x'],
      want: { kind: 'error', message: 'unknown flag: --etcd-cafile' },
    },
    { name: 'positional argument', argv: ['serve'], want: { kind: 'error', message: 'unexpected argument "serve"' } },
    {
      name: 'missing value at the end',
      argv: ['--data-dir'],
      want: { kind: 'error', message: 'flag needs an argument: --data-dir' },
    },
    {
      name: 'port not a number',
      argv: ['--secure-port', 'http'],
      want: { kind: 'error', message: 'invalid value "http" for --secure-port: must be a port number (0-65535)' },
    },
    {
      name: 'port too large',
      argv: ['--secure-port=70000'],
      want: { kind: 'error', message: 'invalid value "70000" for --secure-port: must be a port number (0-65535)' },
    },
    {
      name: 'negative port',
      argv: ['--secure-port=-1'],
      want: { kind: 'error', message: 'invalid value "-1" for --secure-port: must be a port number (0-65535)' },
    },
    {
      name: 'bind address a host name',
      argv: ['--bind-address', 'localhost'],
      want: { kind: 'error', message: 'invalid value "localhost" for --bind-address: must be an IP address' },
    },
    {
      name: 'etcd server not a URL',
      argv: ['--etcd-servers', '127.0.0.1:2379'],
      want: {
        kind: 'error',
        message: 'invalid value "127.0.0.1:2379" for --etcd-servers: invalid URL "127.0.0.1:2379"',
      },
    },
    {
      name: 'etcd server not http(s)',
      argv: ['--etcd-servers', 'unix:///run/etcd.sock'],
      want: {
        kind: 'error',
        message:
          'invalid value "unix:///run/etcd.sock" for --etcd-servers: unsupported scheme in "unix:///run/etcd.sock" (want http or https)',
      },
    },
    {
      name: 'etcd servers with an empty entry',
      argv: ['--etcd-servers', 'http://a:1,'],
      want: { kind: 'error', message: 'invalid value "http://a:1," for --etcd-servers: invalid URL ""' },
    },
    {
      name: 'empty data dir',
      argv: ['--data-dir='],
      want: { kind: 'error', message: 'invalid value "" for --data-dir: must not be empty' },
    },
    {
      name: 'bad log level',
      argv: ['--log-level', 'loud'],
      want: { kind: 'error', message: 'invalid value "loud" for --log-level: must be one of debug, info, warn, error' },
    },
    {
      name: 'boolean flag with a value',
      argv: ['--help=yes'],
      want: { kind: 'error', message: 'flag --help takes no value' },
    },
    { name: '--enable-testing-apis alone', argv: ['--enable-testing-apis'], want: run({ testing: true }) },
    {
      name: '--enable-testing-apis takes no next argument',
      argv: ['--enable-testing-apis', '--data-dir', '/d'],
      want: run({ testing: true, dataDir: '/d' }),
    },
    { name: '--enable-testing-apis=false', argv: ['--enable-testing-apis=false'], want: run({ testing: false }) },
    { name: '--anonymous-auth alone', argv: ['--anonymous-auth'], want: run({ anonymousAuth: true }) },
    {
      name: '--anonymous-auth=false',
      argv: ['--anonymous-auth=false', '--enable-garbage-collector=f'],
      want: run({ anonymousAuth: false, enableGarbageCollector: false }),
    },
    {
      name: 'a boolean flag followed by its value, as pflag reads it: the value is an argument',
      argv: ['--anonymous-auth', 'false'],
      want: {
        kind: 'error',
        message: 'unexpected argument "false" (--anonymous-auth takes its value after "=": --anonymous-auth=false)',
      },
    },
    {
      name: '--enable-testing-apis=maybe',
      argv: ['--enable-testing-apis=maybe'],
      want: { kind: 'error', message: 'invalid value "maybe" for --enable-testing-apis: must be true or false' },
    },
    {
      name: 'cert without key',
      argv: ['--tls-cert-file', 'c.pem'],
      want: { kind: 'error', message: '--tls-cert-file and --tls-private-key-file must be given together' },
    },
    {
      name: 'key without cert',
      argv: ['--tls-private-key-file', 'k.pem'],
      want: { kind: 'error', message: '--tls-cert-file and --tls-private-key-file must be given together' },
    },
  ];
  it.each(cases)('$name', ({ argv, want }) => {
    expect(parseArgs(argv)).toEqual(want);
  });

  it('error messages are one line', () => {
    for (const { want } of cases) if (want.kind === 'error') expect(want.message).not.toContain('\n');
  });
});

describe('parseLogLevel', () => {
  it.each([
    ['0', 'info'],
    ['2', 'info'],
    ['3', 'debug'],
    ['10', 'debug'],
    ['error', 'error'],
    ['-1', undefined],
    ['DEBUG', undefined],
  ])('%s -> %s', (v, want) => expect(parseLogLevel(v)).toBe(want));
});

describe('usage', () => {
  it('names every flag', () => {
    const text = usage();
    for (const flag of [
      '--data-dir',
      '--secure-port',
      '--bind-address',
      '--etcd-servers',
      '--etcd-prefix',
      '--tls-cert-file',
      '--tls-private-key-file',
      '--token-auth-file',
      '--log-level',
      '--enable-testing-apis',
      '-v, --v',
      '-h, --help',
      '--version',
    ]) {
      expect(text).toContain(flag);
    }
  });

  it('separates every flag from its help by at least two spaces, all help in one column', () => {
    const lines = usage()
      .split('\n')
      .filter((l) => /^ {2}(-\w, | {4})--/.test(l));
    expect(lines.length).toBeGreaterThan(20);
    const columns = new Set<number>();
    for (const line of lines) {
      // The flag, its value placeholder (one word, no spaces), two or more spaces, then the help.
      const m = /^( {2}(?:-\w, | {4})--[a-z0-9-]+(?: [A-Z,]+)?)( {2,})(\S.*)$/.exec(line);
      expect(m, line).not.toBeNull();
      columns.add(m![1]!.length + m![2]!.length);
    }
    expect(columns.size).toBe(1);
  });

  it('no longer runs a long flag into its text (the old DURATIONhow)', () => {
    const text = usage();
    expect(text).toMatch(/--etcd-compaction-interval DURATION {2,}The interval of compaction requests/);
    expect(text).not.toContain('DURATIONThe');
  });
});
