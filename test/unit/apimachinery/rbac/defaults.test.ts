// rbac/v1 defaulting of binding API groups.
import { describe, expect, it } from 'vitest';
import { defaultBinding } from '../../../../apimachinery/rbac/defaults.js';
import type { RoleBinding, Subject } from '../../../../apimachinery/rbac/types.js';

const G = 'rbac.authorization.k8s.io';

describe('defaultBinding', () => {
  it.each<[string, Subject, Subject]>([
    ['User gets the RBAC group', { kind: 'User', name: 'u' }, { kind: 'User', name: 'u', apiGroup: G }],
    [
      'Group gets the RBAC group',
      { kind: 'Group', name: 'g', apiGroup: '' },
      { kind: 'Group', name: 'g', apiGroup: G },
    ],
    [
      'ServiceAccount stays without',
      { kind: 'ServiceAccount', name: 's', namespace: 'n' },
      { kind: 'ServiceAccount', name: 's', namespace: 'n' },
    ],
    [
      'a given group is kept',
      { kind: 'User', name: 'u', apiGroup: 'x.io' },
      { kind: 'User', name: 'u', apiGroup: 'x.io' },
    ],
    ['an unknown kind is left alone', { kind: 'Robot', name: 'r' }, { kind: 'Robot', name: 'r' }],
  ])('%s', (_name, subject, want) => {
    const b: RoleBinding = {
      metadata: { name: 'b' },
      roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
      subjects: [subject],
    };
    defaultBinding(b);
    expect(b.subjects).toEqual([want]);
    expect(b.roleRef.apiGroup).toBe(G);
  });

  it('an absent roleRef becomes an empty one in the RBAC group (then fails validation)', () => {
    const b = { metadata: { name: 'b' } } as RoleBinding;
    defaultBinding(b);
    expect(b.roleRef).toEqual({ apiGroup: G, kind: '', name: '' });
  });
});
