// RBAC's four kinds stored in `storage`, as the authorizer's index reads them (tests of RBAC
// decisions over real stores, without the rest of the server).
import type { RbacStores } from '../../server/authz/rbac-index.js';
import {
  clusterRoleBindingStrategy,
  clusterRoleStrategy,
  roleBindingStrategy,
  roleStrategy,
} from '../../server/registry/builtin/rbac.js';
import { Store } from '../../server/registry/store.js';
import type { Storage } from '../../storage/interface.js';

export const rbacStores = (storage: Storage): RbacStores => ({
  roles: new Store(storage, roleStrategy),
  clusterRoles: new Store(storage, clusterRoleStrategy),
  roleBindings: new Store(storage, roleBindingStrategy),
  clusterRoleBindings: new Store(storage, clusterRoleBindingStrategy),
});
