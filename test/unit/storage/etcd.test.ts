// Which etcd versions answer a progress request exactly: kube's table
// (storage/feature/feature_support_checker_test.go) and a few of the parser's edges.
import { describe, expect, it } from 'vitest';
import { requestWatchProgressSafe } from '../../../storage/etcd.js';

describe('requestWatchProgressSafe', () => {
  it.each([
    ['3.4.31', true],
    ['3.5.13', true],
    ['3.6.0', true],
    ['3.5.14', true],
    ['3.4.30', false],
    ['3.5.0', false],
    ['3.5.12', false],
    ['3.5.10', false],
    ['3.5.9', false],
    ['3.4.0', false],
    ['3.4.1', false],
    // Debian's etcd-server, which scripts/ensure-etcd.sh installs.
    ['3.4.23', false],
    ['v3.5.13', true],
    ['3.5.13+build.1', true],
    // A pre-release comes before its release.
    ['3.4.31-rc.0', false],
    ['3.5.13-alpha.1', false],
    // What does not parse is not trusted.
    ['3.4.--aaa', false],
    ['3.5', false],
    ['3.05.13', false],
    ['', false],
  ])('%s: %s', (version, safe) => {
    expect(requestWatchProgressSafe(version)).toBe(safe);
  });
});
