// The RBAC objects in memory, kept current by informers over the watch cache (fed by storage, so
// every replica on one etcd sees every write), with bindings indexed by subject: a decision reads
// only the bindings that can name the user (its name, its groups, its ServiceAccount), not every
// binding there is.
import type { Logger } from '../../apimachinery/log.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { type UserInfo, makeServiceAccountUsername } from '../../apimachinery/user.js';
import {
  type ClusterRole,
  type ClusterRoleBinding,
  GROUP_KIND,
  type Role,
  type RoleBinding,
  type RuleSource,
  SERVICE_ACCOUNT_KIND,
  USER_KIND,
  authorize,
  rulesFor,
  subjectsOf,
} from '../../apimachinery/rbac/index.js';
import type { AuthorizationResult, Authorizer } from '../../apimachinery/authorization.js';
import { Informer, type InformerHandler, informerKey } from '../registry/informer.js';
import type { Store } from '../registry/store.js';

/** The index keys a subject is found under; a ServiceAccount without a namespace is in its binding's. */
function subjectKeys(binding: RoleBinding, bindingNamespace: string): string[] {
  return subjectsOf(binding).map((s) => {
    if (s.kind === SERVICE_ACCOUNT_KIND)
      return `${USER_KIND}:${makeServiceAccountUsername(s.namespace || bindingNamespace, s.name)}`;
    return `${s.kind}:${s.name}`;
  });
}

/** The keys a user is found under: its name and each group. */
const userKeys = (user: UserInfo): string[] => [
  `${USER_KIND}:${user.name}`,
  ...user.groups.map((g) => `${GROUP_KIND}:${g}`),
];

/** How many users' binding lists a scope remembers between changes (a few per active client). */
const MAX_CACHED_USERS = 4096;

/** Bindings of one scope (the cluster, or one namespace) by name and by subject. */
class BindingIndex {
  readonly byName = new Map<string, RoleBinding>();
  private readonly bySubject = new Map<string, Set<string>>();
  /** Each user's bindings as last computed; any change to the scope's bindings forgets them all. */
  private readonly cache = new Map<string, RoleBinding[]>();

  put(binding: RoleBinding, namespace: string): void {
    const name = binding.metadata.name ?? '';
    this.remove(name, namespace);
    this.cache.clear();
    this.byName.set(name, binding);
    for (const key of subjectKeys(binding, namespace)) {
      let names = this.bySubject.get(key);
      if (!names) this.bySubject.set(key, (names = new Set()));
      names.add(name);
    }
  }

  remove(name: string, namespace: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.cache.clear();
    this.byName.delete(name);
    for (const key of subjectKeys(old, namespace)) {
      const names = this.bySubject.get(key);
      names?.delete(name);
      if (names?.size === 0) this.bySubject.delete(key);
    }
  }

  /** The bindings that may name the user, in name order (kube's lister order differs; the decision does not). */
  forUser(user: UserInfo): RoleBinding[] {
    const cacheKey = JSON.stringify([user.name, user.groups]);
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const names = new Set<string>();
    for (const key of userKeys(user)) for (const n of this.bySubject.get(key) ?? []) names.add(n);
    const bindings = [...names].sort().map((n) => this.byName.get(n)!);
    if (this.cache.size >= MAX_CACHED_USERS) this.cache.clear();
    this.cache.set(cacheKey, bindings);
    return bindings;
  }

  get size(): number {
    return this.byName.size;
  }
}

export interface RbacStores {
  roles: Store;
  clusterRoles: Store;
  roleBindings: Store;
  clusterRoleBindings: Store;
}

export class RbacIndex {
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roles = new Map<string, Role>();
  private readonly clusterBindings = new BindingIndex();
  private readonly namespaceBindings = new Map<string, BindingIndex>();
  private readonly informers: Informer[];
  private readonly clusterRoleListeners: Array<() => void> = [];
  /** Bumped on every change of any RBAC object: what a cached decision was made against. */
  generation = 0;

  constructor(stores: RbacStores, logger: Logger) {
    const keyed = <T extends KubeObject>(map: Map<string, T>): InformerHandler => ({
      upsert: (obj) => void map.set(informerKey(obj), obj as T),
      remove: (obj) => void map.delete(informerKey(obj)),
    });
    const clusterRolesHandler = keyed(this.clusterRoles);
    const notify = (): void => this.clusterRoleListeners.forEach((l) => l());
    // Every change, of any kind, invalidates the decisions made before it.
    const counted = (h: InformerHandler): InformerHandler => ({
      upsert: (obj) => (this.generation++, h.upsert(obj)),
      remove: (obj) => (this.generation++, h.remove(obj)),
    });
    this.informers = [
      new Informer(
        stores.clusterRoles,
        counted({
          upsert: (obj) => (clusterRolesHandler.upsert(obj), notify()),
          remove: (obj) => (clusterRolesHandler.remove(obj), notify()),
        }),
        logger,
      ),
      new Informer(stores.roles, counted(keyed(this.roles)), logger),
      new Informer(
        stores.clusterRoleBindings,
        counted({
          upsert: (obj) => this.clusterBindings.put(obj as ClusterRoleBinding, ''),
          remove: (obj) => this.clusterBindings.remove(obj.metadata.name ?? '', ''),
        }),
        logger,
      ),
      new Informer(
        stores.roleBindings,
        counted({
          upsert: (obj) =>
            this.bindingsIn(obj.metadata.namespace ?? '').put(obj as RoleBinding, obj.metadata.namespace ?? ''),
          remove: (obj) =>
            this.namespaceBindings
              .get(obj.metadata.namespace ?? '')
              ?.remove(obj.metadata.name ?? '', obj.metadata.namespace ?? ''),
        }),
        logger,
      ),
    ];
  }

  private bindingsIn(namespace: string): BindingIndex {
    let index = this.namespaceBindings.get(namespace);
    if (!index) this.namespaceBindings.set(namespace, (index = new BindingIndex()));
    return index;
  }

  /** Resolves once every kind has been listed: decisions before that would deny what is granted. */
  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
  }

  /** Resolves when every change seen so far is in the index (tests, and writes that must be visible). */
  async idle(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.idle()));
  }

  close(): void {
    for (const i of this.informers) i.close();
  }

  /** Called after any ClusterRole changes (the aggregation controller listens). */
  onClusterRolesChanged(listener: () => void): void {
    this.clusterRoleListeners.push(listener);
  }

  allClusterRoles(): ClusterRole[] {
    return [...this.clusterRoles.values()];
  }

  /** What the authorizer reads for one user: only the bindings that may name it. */
  sourceFor(user: UserInfo): RuleSource {
    return {
      clusterRoleBindings: () => this.clusterBindings.forUser(user),
      roleBindings: (namespace) => this.namespaceBindings.get(namespace)?.forUser(user) ?? [],
      clusterRole: (name) => this.clusterRoles.get(name),
      role: (namespace, name) => this.roles.get(`${namespace}/${name}`),
    };
  }
}

/** How many decisions are remembered between RBAC changes (clients repeat the same requests). */
const MAX_CACHED_DECISIONS = 16_384;

/**
 * kube's RBAC authorizer over the index: each decision reads only the bindings of its user, and is
 * remembered until any RBAC object changes (the same controller asks the same question many times).
 */
export function indexAuthorizer(index: RbacIndex): Authorizer {
  const decisions = new Map<string, AuthorizationResult>();
  let generation = index.generation;
  return {
    authorize(a) {
      if (generation !== index.generation) {
        decisions.clear();
        generation = index.generation;
      }
      // JSON: unambiguous whatever the names hold.
      const key = JSON.stringify([
        a.user.name,
        a.user.groups,
        a.verb,
        a.resourceRequest,
        a.apiGroup,
        a.resource,
        a.subresource,
        a.namespace,
        a.name,
        a.path,
      ]);
      const cached = decisions.get(key);
      if (cached) return cached;
      const result = authorize(index.sourceFor(a.user), a);
      if (decisions.size >= MAX_CACHED_DECISIONS) decisions.clear();
      decisions.set(key, result);
      return result;
    },
    rulesFor: (user, namespace) => rulesFor(index.sourceFor(user), user, namespace),
  };
}
