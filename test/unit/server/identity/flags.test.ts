// --token and --token-file (k3s's names), on the command line and in the library's options.
import { describe, expect, it } from 'vitest';
import { CLI_DEFAULTS, parseArgs, usage } from '../../../../server/flags.js';
import { resolveServerOptions } from '../../../../server/options.js';
import { StartupError } from '../../../../server/startup/errors.js';

const ETCD = ['--etcd-servers', 'http://127.0.0.1:2379'];

describe('--token and --token-file', () => {
  it.each<[string, string[], Record<string, unknown> | string]>([
    ['a token on etcd', [...ETCD, '--token', 's3cret'], { clusterToken: 's3cret' }],
    ['a token file on etcd', [...ETCD, '--token-file=/run/token'], { clusterTokenFile: '/run/token' }],
    ['both', [...ETCD, '--token', 'a', '--token-file', 'f'], '--token and --token-file may not be given together'],
    [
      'a token without etcd',
      ['--token', 's3cret'],
      '--token shares the identity through etcd: it needs --etcd-servers',
    ],
    ['an empty token', [...ETCD, '--token='], 'invalid value "" for --token: must not be empty'],
  ])('%s', (_name, argv, want) => {
    const cmd = parseArgs(argv);
    if (typeof want === 'string') expect(cmd).toEqual({ kind: 'error', message: want });
    else
      expect(cmd).toEqual({
        kind: 'run',
        options: {
          ...CLI_DEFAULTS,
          logLevel: 'info',
          storage: 'etcd',
          etcdServers: ['http://127.0.0.1:2379'],
          ...want,
        },
      });
  });

  it.each<[string, Parameters<typeof resolveServerOptions>[0], unknown]>([
    ['no token', { etcdServers: ['http://e:2379'] }, undefined],
    ['a token', { etcdServers: ['http://e:2379'], clusterToken: 't' }, { token: 't' }],
    ['a token file', { etcdServers: ['http://e:2379'], clusterTokenFile: 'f' }, { file: 'f' }],
  ])('resolves %s', (_name, options, want) => {
    expect(resolveServerOptions(options).clusterToken).toEqual(want);
  });

  it.each<[string, Parameters<typeof resolveServerOptions>[0], string]>([
    [
      'both',
      { etcdServers: ['http://e:2379'], clusterToken: 't', clusterTokenFile: 'f' },
      'clusterToken and clusterTokenFile may not be given together',
    ],
    [
      'a token on SQLite',
      { dataDir: '/d', clusterToken: 't' },
      'a cluster token shares the identity through etcd: it needs etcdServers',
    ],
    ['an empty token', { etcdServers: ['http://e:2379'], clusterToken: '' }, 'clusterToken must not be empty'],
  ])('refuses %s', (_name, options, want) => {
    expect(() => resolveServerOptions(options)).toThrow(new StartupError(want));
  });

  it('are in --help, and so is the rotation command', () => {
    expect(usage()).toMatch(/--token TOKEN {2,}Shared secret of the replicas/);
    expect(usage()).toMatch(/--token-file FILE {2,}File containing the --token/);
    expect(usage()).toContain('mini-apiserver rotate-service-account-key --etcd-servers URL');
  });
});
