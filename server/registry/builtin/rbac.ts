// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: validated as
// pkg/apis/rbac/validation, printed as kube prints them (roles by the default table convertor,
// bindings by printers.go). The escalation checks of kube's policybased storage need the
// authorizer and sit in front of these stores, not in them.
import { defineStrategy } from '../base-strategy.js';
import {
  clusterRoleBindingSchema,
  clusterRoleSchema,
  roleBindingSchema,
  roleSchema,
} from '../../../apimachinery/apis/builtin-schemas.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import { PRINTER_AGE } from './printer-columns.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { defaultMetaV1FieldLabels } from '../../../apimachinery/selectors/fields.js';
import { validatePathSegmentName } from '../../../apimachinery/validation/names.js';
import {
  type ClusterRole,
  GROUP_KIND,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
  SERVICE_ACCOUNT_KIND,
  USER_KIND,
  subjectsOf,
} from '../../../apimachinery/rbac/types.js';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from '../../../apimachinery/rbac/validation.js';
import { defaultBinding } from '../../../apimachinery/rbac/defaults.js';

export { RBAC_GROUP };

const roleKind = { group: RBAC_GROUP, resource: 'roles', kind: 'Role', listKind: 'RoleList', namespaced: true };
const clusterRoleKind = {
  group: RBAC_GROUP,
  resource: 'clusterroles',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  namespaced: false,
};
const roleBindingKind = {
  group: RBAC_GROUP,
  resource: 'rolebindings',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  namespaced: true,
};
const clusterRoleBindingKind = {
  group: RBAC_GROUP,
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  namespaced: false,
};

// The store hands strategies KubeObjects; these are the same objects seen as their kind.
const asRole = (obj: KubeObject): Role => obj as Role;
const asClusterRole = (obj: KubeObject): ClusterRole => obj as ClusterRole;
const asBinding = (obj: KubeObject): RoleBinding => obj as RoleBinding;

/** RBAC's kinds are written in rbac.authorization.k8s.io/v1 only. */
const v1 = (schema: JSONSchemaProps): Readonly<Record<string, JSONSchemaProps>> => ({ [`${RBAC_GROUP}/v1`]: schema });

/**
 * Role and ClusterRole names are path segments only (kube's ValidateRBACName): `system:admin` is a
 * good name. The rest of the generic metadata rules the store applies itself.
 */
const rbacName = { validateName: validatePathSegmentName };

export const roleStrategy = defineStrategy(roleKind, {
  schemas: v1(roleSchema),
  fieldLabels: defaultMetaV1FieldLabels,
  create: { ...rbacName, validate: (obj) => validateRole(asRole(obj)) },
  update: { validate: (obj) => validateRole(asRole(obj)) },
});

export const clusterRoleStrategy = defineStrategy(clusterRoleKind, {
  schemas: v1(clusterRoleSchema),
  fieldLabels: defaultMetaV1FieldLabels,
  create: { ...rbacName, validate: (obj) => validateClusterRole(asClusterRole(obj)) },
  update: { validate: (obj, old) => validateClusterRoleUpdate(asClusterRole(obj), asClusterRole(old)) },
});

export const roleBindingStrategy = defineStrategy(roleBindingKind, {
  schemas: v1(roleBindingSchema),
  fieldLabels: defaultMetaV1FieldLabels,
  canonicalize: (obj) => defaultBinding(asBinding(obj)),
  create: { ...rbacName, validate: (obj) => validateRoleBinding(asBinding(obj)) },
  update: { validate: (obj, old) => validateRoleBindingUpdate(asBinding(obj), asBinding(old)) },
});

export const clusterRoleBindingStrategy = defineStrategy(clusterRoleBindingKind, {
  schemas: v1(clusterRoleBindingSchema),
  fieldLabels: defaultMetaV1FieldLabels,
  canonicalize: (obj) => defaultBinding(asBinding(obj)),
  create: { ...rbacName, validate: (obj) => validateClusterRoleBinding(asBinding(obj)) },
  update: { validate: (obj, old) => validateClusterRoleBindingUpdate(asBinding(obj), asBinding(old)) },
});

/** metav1.ObjectMeta's swagger doc for creationTimestamp (the default table convertor's description). */
const CREATION_TIMESTAMP_DOC = PRINTER_AGE.description;

/**
 * kube's default table convertor (roles have no printer): the creation time as RFC 3339 in UTC,
 * not an age. A missing one prints as Go's zero time does.
 */
export const createdAt = (obj: KubeObject): string => {
  const ts = obj.metadata.creationTimestamp;
  if (!ts) return '0001-01-01T00:00:00Z';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? ts : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/** Role's and ClusterRole's columns after NAME. */
export const ROLE_COLUMNS: ServedColumn[] = [
  {
    name: 'Created At',
    type: 'date',
    description: CREATION_TIMESTAMP_DOC,
    jsonPath: '.metadata.creationTimestamp',
    value: createdAt,
  },
];
const CLUSTER_ROLE_COLUMNS: ServedColumn[] = ROLE_COLUMNS;

/** kube's SubjectsStrings: users, groups, and ServiceAccounts as namespace/name. */
function subjectsStrings(binding: RoleBinding): {
  users: string[];
  groups: string[];
  serviceAccounts: string[];
  others: string[];
} {
  const out = {
    users: [] as string[],
    groups: [] as string[],
    serviceAccounts: [] as string[],
    others: [] as string[],
  };
  for (const s of subjectsOf(binding)) {
    if (s.kind === SERVICE_ACCOUNT_KIND) out.serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === USER_KIND) out.users.push(s.name);
    else if (s.kind === GROUP_KIND) out.groups.push(s.name);
    else out.others.push(`${s.kind}/${s.namespace ?? ''}/${s.name}`);
  }
  return out;
}

/** The ROLE cell: `ClusterRole/view`. */
const bindingRole = (obj: KubeObject): string => {
  const ref = asBinding(obj).roleRef;
  return `${ref?.kind ?? ''}/${ref?.name ?? ''}`;
};

// rbac/v1beta1's swagger docs, which printers.go describes the ROLE column with.
const ROLE_BINDING_ROLE_REF_DOC =
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.';
const CLUSTER_ROLE_BINDING_ROLE_REF_DOC =
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.';

function bindingColumns(roleRefDoc: string, noun: string): ServedColumn[] {
  const joined =
    (pick: (s: ReturnType<typeof subjectsStrings>) => string[]) =>
    (obj: KubeObject): string =>
      pick(subjectsStrings(asBinding(obj))).join(', ');
  return [
    { name: 'Role', type: 'string', description: roleRefDoc, jsonPath: '.roleRef', value: bindingRole },
    PRINTER_AGE,
    // Priority 1: `kubectl get -o wide` shows them.
    {
      name: 'Users',
      type: 'string',
      priority: 1,
      description: `Users in the ${noun}`,
      jsonPath: '.subjects',
      value: joined((s) => s.users),
    },
    {
      name: 'Groups',
      type: 'string',
      priority: 1,
      description: `Groups in the ${noun}`,
      jsonPath: '.subjects',
      value: joined((s) => s.groups),
    },
    {
      name: 'ServiceAccounts',
      type: 'string',
      priority: 1,
      description: `ServiceAccounts in the ${noun}`,
      jsonPath: '.subjects',
      value: joined((s) => s.serviceAccounts),
    },
  ];
}

/** kube's roleBindingsColumnDefinitions after NAME. */
export const ROLE_BINDING_COLUMNS: ServedColumn[] = bindingColumns(ROLE_BINDING_ROLE_REF_DOC, 'roleBinding');
/** kube's clusterRoleBindingsColumnDefinitions after NAME. */
export const CLUSTER_ROLE_BINDING_COLUMNS: ServedColumn[] = bindingColumns(
  CLUSTER_ROLE_BINDING_ROLE_REF_DOC,
  'clusterRoleBinding',
);

// Their writes also pass kube's escalation check (RBAC's storage), after the admission chain.
const RBAC_PACKAGE = 'k8s.io/api/rbac/v1';

export const ROLES: BuiltinKind = storedKind(roleStrategy, {
  singular: 'role',
  goPackage: RBAC_PACKAGE,
  schema: roleSchema,
  printerColumns: ROLE_COLUMNS,
  admission: 'rbac',
});
export const CLUSTER_ROLES: BuiltinKind = storedKind(clusterRoleStrategy, {
  singular: 'clusterrole',
  goPackage: RBAC_PACKAGE,
  schema: clusterRoleSchema,
  printerColumns: CLUSTER_ROLE_COLUMNS,
  admission: 'rbac',
});
export const ROLE_BINDINGS: BuiltinKind = storedKind(roleBindingStrategy, {
  singular: 'rolebinding',
  goPackage: RBAC_PACKAGE,
  schema: roleBindingSchema,
  printerColumns: ROLE_BINDING_COLUMNS,
  admission: 'rbac',
});
export const CLUSTER_ROLE_BINDINGS: BuiltinKind = storedKind(clusterRoleBindingStrategy, {
  singular: 'clusterrolebinding',
  goPackage: RBAC_PACKAGE,
  schema: clusterRoleBindingSchema,
  printerColumns: CLUSTER_ROLE_BINDING_COLUMNS,
  admission: 'rbac',
});
