// Storage keys laid out as kube-apiserver lays out etcd:
// /registry/<group>/<plural>/<namespace>/<name>, cluster-scoped without the namespace, core kinds
// without a group (/registry/namespaces/<name>).
import type { KindInfo } from './strategy.js';

function resourcePrefix(kind: Pick<KindInfo, 'group' | 'resource'>): string {
  return kind.group ? `/registry/${kind.group}/${kind.resource}/` : `/registry/${kind.resource}/`;
}

/** The prefix of a list: every object of the kind, or those of one namespace. */
export function listPrefix(kind: KindInfo, namespace: string | undefined): string {
  const base = resourcePrefix(kind);
  return kind.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function objectKey(kind: KindInfo, namespace: string | undefined, name: string): string {
  const base = resourcePrefix(kind);
  return kind.namespaced ? `${base}${namespace ?? ''}/${name}` : `${base}${name}`;
}
