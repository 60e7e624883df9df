// The patch metadata of the served kinds, derived from their OpenAPI schemas and exercised through
// strategicMergePatch: what merges by key, what merges as a set, and what is replaced, as kube's
// struct tags (which its published schemas carry) decide.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../apimachinery/object.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import * as schemas from '../../../../apimachinery/apis/builtin-schemas.js';
import { strategicMergePatch } from '../../../../apimachinery/strategic-merge/merge.js';
import { patchMetaFromSchema } from '../../../../apimachinery/strategic-merge/patch-meta.js';

// A kind whose only tagged fields are ObjectMeta's (ConfigMap; RBAC's rules and subjects are
// untagged, so replaced), and the kinds with tags of their own.
const KUBE_OBJECT_PATCH_META = patchMetaFromSchema(schemas.configMapSchema);
const SERVICE_ACCOUNT_PATCH_META = patchMetaFromSchema(schemas.serviceAccountSchema);
const NAMESPACE_PATCH_META = patchMetaFromSchema(schemas.namespaceSchema);
const SERVICE_PATCH_META = patchMetaFromSchema(schemas.serviceSchema);
const OBJECT_META_PATCH_META = KUBE_OBJECT_PATCH_META.fields?.['metadata']?.type;

describe('kube types: patch metadata', () => {
  it('every kind carries ObjectMeta', () => {
    const kinds = Object.values(schemas).filter((s): s is JSONSchemaProps => typeof s === 'object');
    expect(kinds.length).toBe(17);
    for (const schema of kinds)
      expect(patchMetaFromSchema(schema).fields?.['metadata']?.type).toEqual(OBJECT_META_PATCH_META);
  });

  it('metadata.finalizers merge as a set and delete through a delete list', () => {
    const live: JsonObject = { metadata: { name: 'a', finalizers: ['x', 'y'] } };
    expect(strategicMergePatch(live, { metadata: { finalizers: ['z', 'x'] } }, KUBE_OBJECT_PATCH_META)).toEqual({
      metadata: { name: 'a', finalizers: ['z', 'x', 'y'] },
    });
    expect(
      strategicMergePatch(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }, KUBE_OBJECT_PATCH_META),
    ).toEqual({ metadata: { name: 'a', finalizers: ['y'] } });
  });

  it('metadata.ownerReferences merge on uid', () => {
    const live: JsonObject = { metadata: { ownerReferences: [{ uid: '1', name: 'a', kind: 'K' }] } };
    expect(
      strategicMergePatch(
        live,
        {
          metadata: {
            ownerReferences: [
              { uid: '1', controller: true },
              { uid: '2', name: 'b' },
            ],
          },
        },
        KUBE_OBJECT_PATCH_META,
      ),
    ).toEqual({
      metadata: {
        ownerReferences: [
          { uid: '1', name: 'a', kind: 'K', controller: true },
          { uid: '2', name: 'b' },
        ],
      },
    });
    expect(
      strategicMergePatch(
        live,
        { metadata: { ownerReferences: [{ uid: '1', $patch: 'delete' }] } },
        KUBE_OBJECT_PATCH_META,
      ),
    ).toEqual({ metadata: { ownerReferences: [] } });
  });

  it('labels, annotations and data merge as maps, null deleting', () => {
    const live: JsonObject = { metadata: { labels: { a: '1', b: '2' } }, data: { k: 'v', old: 'x' } };
    expect(
      strategicMergePatch(
        live,
        { metadata: { labels: { b: null, c: '3' } }, data: { old: null, n: 'y' } },
        KUBE_OBJECT_PATCH_META,
      ),
    ).toEqual({
      metadata: { labels: { a: '1', c: '3' } },
      data: { k: 'v', n: 'y' },
    });
  });

  it('ServiceAccount: secrets merge on name, imagePullSecrets is replaced', () => {
    const live: JsonObject = { secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }] };
    expect(
      strategicMergePatch(
        live,
        { secrets: [{ name: 's2' }], imagePullSecrets: [{ name: 'p2' }] },
        SERVICE_ACCOUNT_PATCH_META,
      ),
    ).toEqual({
      secrets: [{ name: 's2' }, { name: 's1' }],
      imagePullSecrets: [{ name: 'p2' }],
    });
  });

  it('Namespace: status.conditions merge on type, spec.finalizers is replaced', () => {
    const live: JsonObject = {
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'False' },
        ],
      },
    };
    const patch: JsonObject = { spec: { finalizers: [] }, status: { conditions: [{ type: 'B', status: 'True' }] } };
    expect(strategicMergePatch(live, patch, NAMESPACE_PATCH_META)).toEqual({
      spec: { finalizers: [] },
      status: {
        phase: 'Terminating',
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'True' },
        ],
      },
    });
  });

  it('Service: spec.ports merge on port, keeping the live port the patch does not name', () => {
    const live: JsonObject = {
      spec: {
        type: 'ClusterIP',
        ports: [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }],
        externalIPs: ['192.0.2.1'],
      },
    };
    const patch: JsonObject = {
      spec: {
        ports: [
          { port: 443, targetPort: 8443 },
          { port: 80, targetPort: 9090 },
        ],
        externalIPs: ['192.0.2.2'],
      },
    };
    expect(strategicMergePatch(live, patch, SERVICE_PATCH_META)).toEqual({
      spec: {
        type: 'ClusterIP',
        // kube's mergeMap: patch items in patch order, then live items the patch does not name; a
        // named one is merged into (its name and protocol stay).
        ports: [
          { port: 443, targetPort: 8443 },
          { name: '80-8080', port: 80, protocol: 'TCP', targetPort: 9090 },
        ],
        externalIPs: ['192.0.2.2'],
      },
    });
    // $patch: delete removes by the merge key alone.
    expect(
      strategicMergePatch(live, { spec: { ports: [{ port: 80, $patch: 'delete' }] } }, SERVICE_PATCH_META),
    ).toEqual({ spec: { type: 'ClusterIP', ports: [], externalIPs: ['192.0.2.1'] } });
    // Without the tags the list is replaced, which is what Service did before.
    expect(strategicMergePatch(live, patch, KUBE_OBJECT_PATCH_META)).toEqual({
      spec: {
        type: 'ClusterIP',
        ports: [
          { port: 443, targetPort: 8443 },
          { port: 80, targetPort: 9090 },
        ],
        externalIPs: ['192.0.2.2'],
      },
    });
  });

  it('Service: status.conditions merge on type', () => {
    const live: JsonObject = { status: { conditions: [{ type: 'A', status: 'True' }] } };
    expect(
      strategicMergePatch(live, { status: { conditions: [{ type: 'B', status: 'False' }] } }, SERVICE_PATCH_META),
    ).toEqual({
      status: {
        conditions: [
          { type: 'B', status: 'False' },
          { type: 'A', status: 'True' },
        ],
      },
    });
  });

  it('rules and subjects of RBAC kinds are replaced', () => {
    const live: JsonObject = { subjects: [{ kind: 'User', name: 'a' }] };
    expect(strategicMergePatch(live, { subjects: [{ kind: 'User', name: 'b' }] }, KUBE_OBJECT_PATCH_META)).toEqual({
      subjects: [{ kind: 'User', name: 'b' }],
    });
  });
});
