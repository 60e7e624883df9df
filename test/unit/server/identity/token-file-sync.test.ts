// DIR/tokens.csv against the cluster's token file, three ways: the local file, the hash of the
// cluster's version this data dir last took, and the cluster's file now.
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../../server/identity/record.js';
import { type TokenFileAction, reconcileTokenFile } from '../../../../server/identity/token-file-sync.js';

const A = 'a,admin,1,"system:masters"\n';
const B = `${A}alice,alice,2,"devs"\n`;
const C = `${A}bob,bob,3,"devs"\n`;

describe('reconcileTokenFile', () => {
  it.each<[string, string | undefined, string | undefined, string, TokenFileAction]>([
    ['no local file: take the cluster’s', undefined, undefined, A, { kind: 'take', replaces: 'nothing' }],
    ['no local file, taken before: take it again', undefined, sha256(A), B, { kind: 'take', replaces: 'nothing' }],
    ['the same file: keep', B, sha256(A), B, { kind: 'keep' }],
    ['the same file, never taken (this replica founded it): keep', A, undefined, A, { kind: 'keep' }],
    [
      'a file this data dir never took: the cluster’s replaces it',
      C,
      undefined,
      A,
      { kind: 'take', replaces: 'unsynced' },
    ],
    ['an unedited copy the cluster moved past: take the new one', A, sha256(A), B, { kind: 'take', replaces: 'stale' }],
    ['edited here, the cluster unchanged: push the edit', B, sha256(A), A, { kind: 'push' }],
    ['edited here and in the cluster: conflict', B, sha256(A), C, { kind: 'conflict' }],
    ['edited here back to what the cluster has: keep', B, sha256(A), B, { kind: 'keep' }],
  ])('%s', (_name, local, synced, cluster, want) => {
    expect(reconcileTokenFile(local, synced, cluster)).toEqual(want);
  });
});
