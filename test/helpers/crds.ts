// CRDs for integration tests: a one-version CRD around a schema, installed and waited for until
// its resource is served, and kube's Status failure shape for exact comparisons.
import type { ApiResponse, CallOptions } from './api-client.js';
import { eventually } from './eventually.js';

type Call = (method: string, path: string, o?: CallOptions) => Promise<ApiResponse>;

export const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A served and stored v1 CRD of `plural` in `group` (kind: the singular, capitalised). */
export function simpleCrd(
  group: string,
  plural: string,
  openAPIV3Schema: Record<string, unknown>,
  scope: 'Namespaced' | 'Cluster' = 'Namespaced',
) {
  const singular = plural.slice(0, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular, kind: singular[0]!.toUpperCase() + singular.slice(1) },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

/** Creates the CRD and waits until its collection answers 200. */
export async function installCrd(call: Call, crd: ReturnType<typeof simpleCrd>): Promise<void> {
  const r = await call('POST', CRDS_PATH, { body: crd });
  if (r.status !== 201) throw new Error(`${crd.metadata.name}: ${r.status} ${r.text}`);
  const collection = `/apis/${crd.spec.group}/v1/${crd.spec.names.plural}`;
  await eventually(`${crd.metadata.name} served`, async () =>
    (await call('GET', collection)).status === 200 ? true : undefined,
  );
}

/** A kube Status failure, for exact comparisons. */
export const failureStatus = (
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Record<string, unknown> => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  ...(details ? { details } : {}),
  code,
});
