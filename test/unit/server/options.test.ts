import { describe, expect, it } from 'vitest';
import { resolveServerOptions } from '../../../server/options.js';
import { StartupError } from '../../../server/startup/errors.js';

describe('resolveServerOptions', () => {
  const cases: {
    name: string;
    in: Parameters<typeof resolveServerOptions>[0];
    want: Partial<ReturnType<typeof resolveServerOptions>> | string;
  }[] = [
    {
      name: 'nothing: memory on an ephemeral loopback port',
      in: {},
      want: { storage: 'memory', dataDir: undefined, securePort: 0, bindAddress: '127.0.0.1' },
    },
    {
      name: 'a data dir: sqlite there, made absolute',
      in: { dataDir: 'd' },
      want: { storage: 'sqlite', dataDir: '/work/d' },
    },
    {
      name: 'memory with a data dir for the credentials',
      in: { storage: 'memory', dataDir: '/d' },
      want: { storage: 'memory', dataDir: '/d' },
    },
    {
      name: 'etcd servers: etcd',
      in: { etcdServers: ['http://e:2379'], dataDir: '/d' },
      want: { storage: 'etcd', etcdServers: ['http://e:2379'] },
    },
    {
      name: 'TLS pair',
      in: { tlsCertFile: 'c', tlsPrivateKeyFile: 'k' },
      want: { tls: { certFile: 'c', keyFile: 'k' } },
    },
    { name: 'sqlite needs a data dir', in: { storage: 'sqlite' }, want: "storage 'sqlite' needs a dataDir" },
    { name: 'etcd needs servers', in: { storage: 'etcd' }, want: "storage 'etcd' needs etcdServers" },
    {
      name: 'servers with another storage',
      in: { storage: 'memory', etcdServers: ['http://e:1'] },
      want: "etcdServers given, but storage is 'memory'",
    },
    { name: 'bad port', in: { securePort: 1.5 }, want: 'invalid securePort 1.5' },
    {
      name: 'bad bind address',
      in: { bindAddress: 'localhost' },
      want: 'bindAddress "localhost" is not an IP address',
    },
    {
      name: 'half a TLS pair',
      in: { tlsCertFile: 'c' },
      want: 'tlsCertFile and tlsPrivateKeyFile must be given together',
    },
    {
      name: "kube's limits by default",
      in: {},
      want: {
        limits: {
          inflight: { readOnly: 400, mutating: 200 },
          requestTimeoutMs: 60_000,
          readHeaderTimeoutMs: 32_000,
          idleTimeoutMs: 90_000,
          maxHeaderBytes: 1024 * 1024,
          maxEventLoopUtilization: 0.9,
        },
        maxRequestBodyBytes: 3 * 1024 * 1024,
        minRequestTimeoutSeconds: 1800,
      },
    },
    {
      name: 'limits given',
      in: { maxRequestsInflight: 0, requestTimeoutMs: 5000 },
      want: { limits: expect.objectContaining({ inflight: { readOnly: 0, mutating: 200 }, requestTimeoutMs: 5000 }) },
    },
    {
      name: 'a negative limit',
      in: { maxMutatingRequestsInflight: -1 },
      want: 'invalid maxMutatingRequestsInflight -1: must be a whole number, 0 or more',
    },
    { name: 'a zero timeout', in: { requestTimeoutMs: 0 }, want: 'invalid requestTimeoutMs 0: must be more than 0' },
  ];
  it.each(cases)('$name', ({ in: input, want }) => {
    if (typeof want === 'string') {
      expect(() => resolveServerOptions(input, '/work')).toThrow(new StartupError(want));
    } else {
      expect(resolveServerOptions(input, '/work')).toMatchObject(want);
    }
  });
});
