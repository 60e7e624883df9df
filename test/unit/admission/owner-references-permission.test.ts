// OwnerReferencesPermissionEnforcement: which writes ask what of the authorizer, and kube's texts when it says no. The authorizer here is a policy table
// (a set of allowed requests), the shape a real one answers in.
import { describe, expect, it } from 'vitest';
import type { Attributes } from '../../../admission/interface.js';
import { ownerReferencesPermissionEnforcement } from '../../../admission/owner-references-permission.js';
import type { AuthorizationAttributes } from '../../../apimachinery/authorization.js';
import type { KubeObject, OwnerReference } from '../../../apimachinery/object.js';
import { ApiError } from '../../../apimachinery/errors.js';

const OWNER: OwnerReference = { apiVersion: 'gc.example.com/v1', kind: 'Parent', name: 'p', uid: 'u1' };
const kid = (refs?: OwnerReference[]): KubeObject => ({
  apiVersion: 'gc.example.com/v1',
  kind: 'Kid',
  metadata: { name: 'k', namespace: 'default', ...(refs ? { ownerReferences: refs } : {}) },
});
const attrs = (operation: 'CREATE' | 'UPDATE', object: KubeObject, oldObject?: KubeObject): Attributes => ({
  operation,
  kind: { group: 'gc.example.com', name: 'Kid' },
  resource: { group: 'gc.example.com', name: 'kids' },
  subresource: '',
  namespace: 'default',
  name: 'k',
  object,
  oldObject,
  dryRun: false,
  userInfo: { name: 'alice', groups: [] },
});
const key = (r: AuthorizationAttributes) =>
  `${r.verb} ${r.apiGroup}/${r.resource}/${r.subresource} ${r.namespace}/${r.name}`;

function plugin(allowed: string[]) {
  const asked: string[] = [];
  const p = ownerReferencesPermissionEnforcement(
    {
      authorize: (r) => {
        asked.push(key(r));
        return { decision: allowed.includes(key(r)) ? 'allow' : 'no-opinion', reason: '' };
      },
      rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
    },
    (apiVersion, kind) =>
      apiVersion.startsWith('gc.example.com/') && kind === 'Parent'
        ? { group: 'gc.example.com', resource: 'parents', namespaced: true }
        : undefined,
  );
  return { p, asked };
}

const DELETE_KID = 'delete gc.example.com/kids/ default/k';
const FINALIZE_P = 'update gc.example.com/parents/finalizers default/p';
const FINALIZE_ANY = 'update */*/finalizers /*';

describe('OwnerReferencesPermissionEnforcement', () => {
  it.each<{ name: string; a: Attributes; allowed: string[]; asked: string[]; error?: string }>([
    { name: 'a create without references asks nothing', a: attrs('CREATE', kid()), allowed: [], asked: [] },
    {
      name: 'a create with a non-blocking reference asks nothing',
      a: attrs('CREATE', kid([OWNER])),
      allowed: [],
      asked: [],
    },
    {
      name: 'a create with a blocking reference needs the owner’s finalizers',
      a: attrs('CREATE', kid([{ ...OWNER, blockOwnerDeletion: true }])),
      allowed: [FINALIZE_P],
      asked: [FINALIZE_ANY, FINALIZE_P],
    },
    {
      name: 'refused: kube’s text',
      a: attrs('CREATE', kid([{ ...OWNER, blockOwnerDeletion: true }])),
      allowed: [],
      asked: [FINALIZE_ANY, FINALIZE_P],
      error: `kids.gc.example.com "k" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
    },
    {
      name: 'finalizers of anything settles it',
      a: attrs('CREATE', kid([{ ...OWNER, blockOwnerDeletion: true }])),
      allowed: [FINALIZE_ANY],
      asked: [FINALIZE_ANY],
    },
    {
      name: 'an update that keeps the references asks nothing',
      a: attrs('UPDATE', kid([OWNER]), kid([OWNER])),
      allowed: [],
      asked: [],
    },
    {
      name: 'an update changing references needs delete on the object',
      a: attrs('UPDATE', kid([OWNER]), kid()),
      allowed: [],
      asked: [DELETE_KID],
      error: `kids.gc.example.com "k" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`,
    },
    {
      name: 'an update making a reference block needs the owner’s finalizers too',
      a: attrs('UPDATE', kid([{ ...OWNER, blockOwnerDeletion: true }]), kid([OWNER])),
      allowed: [DELETE_KID, FINALIZE_P],
      asked: [DELETE_KID, FINALIZE_ANY, FINALIZE_P],
    },
    {
      name: 'an owner kind not served',
      a: attrs('CREATE', kid([{ ...OWNER, kind: 'Ghost', blockOwnerDeletion: true }])),
      allowed: [],
      asked: [FINALIZE_ANY],
      error: `kids.gc.example.com "k" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion gc.example.com/v1 Kind Ghost: no matches for kind "Ghost" in version "gc.example.com/v1"`,
    },
  ])('$name', async ({ a, allowed, asked, error }) => {
    const { p, asked: got } = plugin(allowed);
    const run = p.validate!(a);
    if (error) {
      const err = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
      expect(err.code).toBe(403);
      expect(err.status.message).toBe(error);
    } else {
      await run;
    }
    expect(got).toEqual(asked);
  });
});
