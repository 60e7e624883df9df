// The rotate-service-account-key command's flags, named as the server's.
import { describe, expect, it } from 'vitest';
import { type RotateArgs, parseRotateArgs } from '../../../server/rotate-service-account-key.js';

describe('parseRotateArgs', () => {
  it.each<[string, string[], RotateArgs | string]>([
    [
      'servers and a token',
      ['--etcd-servers', 'http://127.0.0.1:2379', '--token', 't'],
      { etcdServers: ['http://127.0.0.1:2379'], etcdPrefix: '', token: { token: 't' } },
    ],
    [
      '--flag=value, a prefix and a token file',
      ['--etcd-servers=http://a:2379,http://b:2379', '--etcd-prefix=/c1', '--token-file=/run/token'],
      { etcdServers: ['http://a:2379', 'http://b:2379'], etcdPrefix: '/c1', token: { file: '/run/token' } },
    ],
    ['no servers', ['--token', 't'], 'which etcd? --etcd-servers is required'],
    [
      'a bad server',
      ['--etcd-servers', 'ftp://x', '--token', 't'],
      '--etcd-servers: unsupported scheme in "ftp://x" (want http or https)',
    ],
    ['no token', ['--etcd-servers', 'http://a:2379'], 'one of --token and --token-file is required'],
    [
      'both tokens',
      ['--etcd-servers', 'http://a:2379', '--token', 't', '--token-file', 'f'],
      'one of --token and --token-file is required',
    ],
    ['a flag without its value', ['--etcd-servers'], 'flag needs a value: --etcd-servers'],
    ['an empty value', ['--token=', '--etcd-servers', 'http://a:2379'], 'flag needs a value: --token'],
    ['a flag of the server only', ['--data-dir', '/d'], 'unexpected argument "--data-dir"'],
  ])('%s', (_name, argv, want) => {
    expect(parseRotateArgs(argv)).toEqual(want);
  });
});
