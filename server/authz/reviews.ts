// kube's access reviews (pkg/registry/authorization) and SelfSubjectReview: resources that are only
// ever created, whose answer is the authorizer's (or authentication's) about a user. `kubectl auth
// can-i` sends a SelfSubjectAccessReview, `can-i --list` a SelfSubjectRulesReview, `auth whoami` a
// SelfSubjectReview; webhooks and controllers send SubjectAccessReviews about others.
import type { AuthorizationAttributes, Authorizer } from '../../apimachinery/authorization.js';
import { badRequest, invalid } from '../../apimachinery/errors.js';
import { type FieldError, invalid as invalidField } from '../../apimachinery/field-errors.js';
import { type KubeObject, isJsonObject } from '../../apimachinery/object.js';
import type { UserInfo } from '../../apimachinery/user.js';
import type { CreateOnlyHandler } from '../registry/catalog.js';
import { AUTHORIZATION_GROUP } from '../registry/builtin/reviews.js';

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

interface AccessReviewSpec {
  /** SelfSubjectRulesReview's only field. */
  namespace?: string;
  resourceAttributes?: ResourceAttributes | null;
  nonResourceAttributes?: NonResourceAttributes | null;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/**
 * The spec as kube's decoder would have it, or its 400: every field of its Go type (strings, a
 * []string of groups, a map[string][]string of extra), so nothing downstream meets a number where
 * it expects a string (or a string where it expects a list).
 */
function specOf(obj: KubeObject): AccessReviewSpec {
  const kind = String(obj.kind ?? '');
  const refuse = (field: string, value: unknown, goType: string): never => {
    const got = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    throw badRequest(
      `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${got} into Go struct field ${field} of type ${goType}`,
    );
  };
  const spec = obj['spec'];
  if (spec === undefined || spec === null) return {};
  if (!isJsonObject(spec)) return refuse('.spec', spec, 'v1.SubjectAccessReviewSpec');
  const strings = (o: unknown, at: string, fields: readonly string[]): void => {
    if (o === undefined || o === null) return;
    if (!isJsonObject(o)) return refuse(at, o, 'object');
    for (const f of fields)
      if (o[f] !== undefined && o[f] !== null && typeof o[f] !== 'string') refuse(`${at}.${f}`, o[f], 'string');
  };
  strings(spec, 'spec', ['user', 'uid', 'namespace']);
  strings(spec['resourceAttributes'], 'spec.resourceAttributes', [
    'namespace',
    'verb',
    'group',
    'version',
    'resource',
    'subresource',
    'name',
  ]);
  strings(spec['nonResourceAttributes'], 'spec.nonResourceAttributes', ['path', 'verb']);
  const groups = spec['groups'];
  if (groups !== undefined && groups !== null && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string')))
    refuse('spec.groups', groups, '[]string');
  const extra = spec['extra'];
  if (extra !== undefined && extra !== null) {
    if (!isJsonObject(extra)) refuse('spec.extra', extra, 'map[string]v1.ExtraValue');
    for (const v of Object.values(extra as Record<string, unknown>)) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) refuse('spec.extra', v, 'v1.ExtraValue');
    }
  }
  return spec as AccessReviewSpec;
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes. */
function attributeErrors(spec: AccessReviewSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(
      invalidField(
        'spec.nonResourceAttributes',
        spec.nonResourceAttributes,
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push(
      invalidField(
        'spec.resourceAttributes',
        spec.nonResourceAttributes ?? null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  }
  return errs;
}

/** kube's "metadata must be empty" (managedFields aside; a local review's namespace aside). */
function metadataErrors(obj: KubeObject, allowNamespace: boolean): FieldError[] {
  const { managedFields: _managed, namespace: _ns, ...rest } = obj.metadata;
  const extra = allowNamespace
    ? rest
    : { ...rest, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) };
  return Object.keys(extra).length === 0 ? [] : [invalidField('metadata', obj.metadata, 'must be empty')];
}

function throwIfInvalid(kind: string, errs: FieldError[]): void {
  if (errs.length > 0) throw invalid({ group: AUTHORIZATION_GROUP, name: kind }, '', errs);
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
function attributesFrom(user: UserInfo, spec: AccessReviewSpec): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: n.path ?? '',
  };
}

/** The review answered: the authorizer's decision as SubjectAccessReviewStatus. */
function answered(obj: KubeObject, authorizer: Authorizer, attrs: AuthorizationAttributes): KubeObject {
  const { decision, reason } = authorizer.authorize(attrs);
  const status = {
    allowed: decision === 'allow',
    ...(decision === 'deny' ? { denied: true } : {}),
    ...(reason ? { reason } : {}),
  };
  return { ...obj, status };
}

/** The user a SubjectAccessReview asks about (spec.user, groups, uid, extra). */
function specUser(spec: AccessReviewSpec): UserInfo {
  return {
    name: spec.user ?? '',
    groups: spec.groups ?? [],
    ...(spec.uid ? { uid: spec.uid } : {}),
    ...(spec.extra ? { extra: spec.extra } : {}),
  };
}

function subjectErrors(spec: AccessReviewSpec): FieldError[] {
  return !spec.user && (spec.groups ?? []).length === 0
    ? [invalidField('spec.user', spec.user ?? '', 'at least one of user or group must be specified')]
    : [];
}

export function accessReviews(authorizer: Authorizer): Record<string, CreateOnlyHandler> {
  return {
    selfsubjectaccessreviews: ({ obj, user }) => {
      const spec = specOf(obj);
      throwIfInvalid('SelfSubjectAccessReview', attributeErrors(spec));
      return answered(obj, authorizer, attributesFrom(user, spec));
    },
    subjectaccessreviews: ({ obj }) => {
      const spec = specOf(obj);
      throwIfInvalid('SubjectAccessReview', [
        ...attributeErrors(spec),
        ...subjectErrors(spec),
        ...metadataErrors(obj, false),
      ]);
      return answered(obj, authorizer, attributesFrom(specUser(spec), spec));
    },
    localsubjectaccessreviews: ({ obj, namespace }) => {
      const spec = specOf(obj);
      if (!namespace) throw badRequest('namespace is required on this type: ');
      if ((obj.metadata.namespace ?? namespace) !== namespace)
        throw badRequest(
          `the namespace of the object (${obj.metadata.namespace}) does not match the namespace on the request (${namespace})`,
        );
      const errs = [...attributeErrors(spec), ...subjectErrors(spec), ...metadataErrors(obj, true)];
      if (spec.nonResourceAttributes)
        errs.push(
          invalidField('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'),
        );
      if (spec.resourceAttributes && spec.resourceAttributes.namespace !== namespace) {
        errs.push(
          invalidField(
            'spec.resourceAttributes.namespace',
            spec.resourceAttributes.namespace ?? '',
            'must match metadata.namespace',
          ),
        );
      }
      if (errs.length > 0) throw invalid({ group: AUTHORIZATION_GROUP, name: 'LocalSubjectAccessReview' }, '', errs);
      return answered(
        { ...obj, metadata: { ...obj.metadata, namespace } },
        authorizer,
        attributesFrom(specUser(spec), spec),
      );
    },
    selfsubjectrulesreviews: ({ obj, user }) => {
      const namespace = specOf(obj).namespace ?? '';
      if (namespace === '') throw badRequest('no namespace on request');
      const rules = authorizer.rulesFor(user, namespace);
      return {
        ...obj,
        status: {
          resourceRules: rules.resourceRules,
          nonResourceRules: rules.nonResourceRules,
          incomplete: rules.incomplete,
          ...(rules.evaluationError ? { evaluationError: rules.evaluationError } : {}),
        },
      };
    },
  };
}

/** authentication.k8s.io/v1 SelfSubjectReview: who the server takes the requester for. */
export const selfSubjectReview: CreateOnlyHandler = ({ obj, user }) => ({
  ...obj,
  status: {
    userInfo: {
      username: user.name,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length > 0 ? { groups: user.groups } : {}),
      ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
    },
  },
});
