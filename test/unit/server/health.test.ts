import { describe, expect, it } from 'vitest';
import {
  type CheckResult,
  type HealthCheck,
  renderHealth,
  runHealth,
  runSingleCheck,
  storageCheck,
  withTimeout,
} from '../../../server/health.js';

const ok = (name: string): CheckResult => ({ name, status: 'ok' });
const failed = (name: string): CheckResult => ({ name, status: 'failed', reason: 'boom' });

describe('renderHealth (kube healthz text)', () => {
  it.each<[string, CheckResult[], string[], boolean, number, string]>([
    ['all ok', [ok('ping'), ok('etcd')], [], false, 200, 'ok'],
    ['all ok, verbose', [ok('ping'), ok('etcd')], [], true, 200, '[+]ping ok\n[+]etcd ok\nreadyz check passed\n'],
    [
      'a failure is always verbose and withholds the reason',
      [ok('ping'), failed('etcd')],
      [],
      false,
      500,
      '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n',
    ],
    [
      'excluded checks',
      [ok('ping'), { name: 'etcd', status: 'excluded' }],
      [],
      true,
      200,
      '[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n',
    ],
    [
      'unknown excludes warn',
      [ok('ping')],
      ['a', 'b'],
      true,
      200,
      '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "a","b"\nreadyz check passed\n',
    ],
  ])('%s', (_, results, unknown, verbose, code, body) => {
    expect(renderHealth('readyz', results, unknown, verbose)).toEqual({ code, body });
  });
});

describe('runHealth', () => {
  const pass: HealthCheck = { name: 'ping', check: async () => {} };
  const fail: HealthCheck = {
    name: 'etcd',
    check: async () => {
      throw new Error('connection refused');
    },
  };

  it('runs checks, honours ?exclude and ?verbose, and keeps the reasons for the log', async () => {
    const r = await runHealth('readyz', [pass, fail], new URLSearchParams(''));
    expect(r.code).toBe(500);
    expect(r.results).toEqual([ok('ping'), { name: 'etcd', status: 'failed', reason: 'connection refused' }]);
    const excluded = await runHealth('readyz', [pass, fail], new URLSearchParams('exclude=etcd&exclude=nope&verbose'));
    expect(excluded).toMatchObject({
      code: 200,
      body: '[+]ping ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n',
    });
  });

  it('a single check shows its reason', async () => {
    expect(await runSingleCheck(pass)).toEqual({ code: 200, body: 'ok' });
    expect(await runSingleCheck(fail)).toEqual({ code: 500, body: 'internal server error: connection refused\n' });
  });

  it('a storage that answers false fails, named after the backend', async () => {
    const down = storageCheck({ backend: 'etcd', ping: async () => false });
    expect(down.name).toBe('etcd');
    expect(await runSingleCheck(down)).toEqual({ code: 500, body: 'internal server error: etcd is not answering\n' });
    expect(await runSingleCheck(storageCheck({ backend: 'sqlite', ping: async () => true }))).toEqual({
      code: 200,
      body: 'ok',
    });
  });

  it('withTimeout bounds a check that never answers', async () => {
    await expect(withTimeout(new Promise(() => {}), 20, 'etcd check')).rejects.toThrow(
      'etcd check timed out after 20ms',
    );
    await expect(withTimeout(Promise.resolve(7), 20, 'x')).resolves.toBe(7);
  });
});
