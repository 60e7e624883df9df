// Kube's authorization libraries (k8s.io/apiserver/pkg/cel/library/authz.go): Authz, which builds
// a check from the `authorizer` admission expressions are given (`authorizer.group(g)
// .resource(r).namespace(ns).name(n).subresource(s).check(verb)`, `authorizer.path(p)
// .check(verb)`, `authorizer.serviceAccount(ns, name)`) and reads the decision (allowed, reason,
// errored, error); and AuthzSelectors (fieldSelector, labelSelector), which kube 1.33 enables
// with the AuthorizeWithSelectors feature, on by default. A check asks the server's real
// authorizer, as the request's user or the service account named. The server's authorizers
// answer without errors (kube's RBAC does too), so no decision has errored.
import type { Authorizer, AuthorizationAttributes, Decision } from '../../apimachinery/authorization.js';
import { type UserInfo, makeServiceAccountGroupNames, makeServiceAccountUsername } from '../../apimachinery/user.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { func, memberOverload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, objectType, StringType } from '../types.js';
import { CelError, noSuchOverload, ObjectValue } from '../values.js';
import type { KubeLibrary } from './library.js';
import { trim } from './strings-text.js';

export const AUTHORIZER_TYPE = objectType('kubernetes.authorization.Authorizer');
const PATH_CHECK_TYPE = objectType('kubernetes.authorization.PathCheck');
const GROUP_CHECK_TYPE = objectType('kubernetes.authorization.GroupCheck');
export const RESOURCE_CHECK_TYPE = objectType('kubernetes.authorization.ResourceCheck');
const DECISION_TYPE = objectType('kubernetes.authorization.Decision');

/**
 * The library's values expose no fields, only receiver functions (kube's receiverOnlyObjectVal).
 * Kube's values embed it, and its Equal asks whether the other value is a bare
 * receiverOnlyObjectVal, which none is: so `==` between them, the same value too, is no such
 * overload.
 */
abstract class ReceiverOnlyValue extends ObjectValue {
  equals(): CelError {
    return noSuchOverload();
  }
}

/** `authorizer`: whom checks are made for, and the authorizer that decides them. */
export class AuthorizerValue extends ReceiverOnlyValue {
  readonly typeName = AUTHORIZER_TYPE.name;
  constructor(
    readonly user: UserInfo,
    readonly authorizer: Authorizer,
  ) {
    super();
  }
}

class PathCheckValue extends ReceiverOnlyValue {
  readonly typeName = PATH_CHECK_TYPE.name;
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
}

class GroupCheckValue extends ReceiverOnlyValue {
  readonly typeName = GROUP_CHECK_TYPE.name;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
}

/** What a resource check is for (kube's resourceCheckVal without its authorizer). */
interface ResourceAttributes {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** A check being built; `authorizer.requestResource` is one of the request's own resource. */
export class ResourceCheckValue extends ReceiverOnlyValue {
  readonly typeName = RESOURCE_CHECK_TYPE.name;
  constructor(
    readonly authz: AuthorizerValue,
    readonly attributes: ResourceAttributes,
  ) {
    super();
  }
  with(change: Partial<ResourceAttributes>): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, { ...this.attributes, ...change });
  }
}

class DecisionValue extends ReceiverOnlyValue {
  readonly typeName = DECISION_TYPE.name;
  constructor(
    readonly decision: Decision,
    readonly reason: string,
  ) {
    super();
  }
}

function authorize(authz: AuthorizerValue, attrs: Omit<AuthorizationAttributes, 'user'>): DecisionValue {
  const r = authz.authorizer.authorize({ ...attrs, user: authz.user });
  return new DecisionValue(r.decision, r.reason);
}

const NOTHING = { apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: '' };

/** serviceAccount(namespace, name): the name is checked first, as kube does. */
function serviceAccount(authz: AuthorizerValue, namespace: string, name: string): AuthorizerValue | CelError {
  if (isDNS1123Subdomain(name).length > 0) return new CelError('Invalid service account name');
  if (isDNS1123Label(namespace).length > 0) return new CelError('Invalid service account namespace');
  const user = { name: makeServiceAccountUsername(namespace, name), groups: makeServiceAccountGroupNames(namespace) };
  return new AuthorizerValue(user, authz.authorizer);
}

const str = (v: unknown): string => v as string;

const IMPLS: readonly (readonly [string, Impl])[] = [
  [
    'authorizer_path',
    ([a, p]) =>
      trim(str(p)) === '' ? new CelError('path must not be empty') : new PathCheckValue(a as AuthorizerValue, str(p)),
  ],
  ['authorizer_group', ([a, g]) => new GroupCheckValue(a as AuthorizerValue, str(g))],
  ['authorizer_serviceaccount', ([a, ns, n]) => serviceAccount(a as AuthorizerValue, str(ns), str(n))],
  [
    'groupcheck_resource',
    ([g, r]) => {
      if (trim(str(r)) === '') return new CelError('resource must not be empty');
      const { authz, group } = g as GroupCheckValue;
      return new ResourceCheckValue(authz, { group, resource: str(r), subresource: '', namespace: '', name: '' });
    },
  ],
  ['resourcecheck_subresource', ([r, s]) => (r as ResourceCheckValue).with({ subresource: str(s) })],
  ['resourcecheck_namespace', ([r, s]) => (r as ResourceCheckValue).with({ namespace: str(s) })],
  ['resourcecheck_name', ([r, s]) => (r as ResourceCheckValue).with({ name: str(s) })],
  [
    'pathcheck_check',
    ([p, verb]) => {
      const { authz, path } = p as PathCheckValue;
      return authorize(authz, { ...NOTHING, verb: str(verb), resourceRequest: false, path });
    },
  ],
  [
    'resourcecheck_check',
    ([r, verb]) => {
      const { authz, attributes } = r as ResourceCheckValue;
      const { group, ...rest } = attributes;
      return authorize(authz, {
        ...NOTHING,
        ...rest,
        verb: str(verb),
        resourceRequest: true,
        apiGroup: group,
        apiVersion: '*',
      });
    },
  ],
  ['decision_errored', () => false],
  ['decision_error', () => ''],
  ['decision_allowed', ([d]) => (d as DecisionValue).decision === 'allow'],
  ['decision_reason', ([d]) => (d as DecisionValue).reason],
];

/** A ResourceCheck's builder function: a string in, a ResourceCheck out. */
const resourceCheckFunction = (name: string, id: string) =>
  func(name, memberOverload(id, [RESOURCE_CHECK_TYPE, StringType], RESOURCE_CHECK_TYPE));

export const AUTHZ_LIBRARY: KubeLibrary = {
  functions: [
    func('path', memberOverload('authorizer_path', [AUTHORIZER_TYPE, StringType], PATH_CHECK_TYPE)),
    func('group', memberOverload('authorizer_group', [AUTHORIZER_TYPE, StringType], GROUP_CHECK_TYPE)),
    func(
      'serviceAccount',
      memberOverload('authorizer_serviceaccount', [AUTHORIZER_TYPE, StringType, StringType], AUTHORIZER_TYPE),
    ),
    func('resource', memberOverload('groupcheck_resource', [GROUP_CHECK_TYPE, StringType], RESOURCE_CHECK_TYPE)),
    resourceCheckFunction('subresource', 'resourcecheck_subresource'),
    resourceCheckFunction('namespace', 'resourcecheck_namespace'),
    resourceCheckFunction('name', 'resourcecheck_name'),
    func(
      'check',
      memberOverload('pathcheck_check', [PATH_CHECK_TYPE, StringType], DECISION_TYPE),
      memberOverload('resourcecheck_check', [RESOURCE_CHECK_TYPE, StringType], DECISION_TYPE),
    ),
    func('errored', memberOverload('decision_errored', [DECISION_TYPE], BoolType)),
    func('error', memberOverload('decision_error', [DECISION_TYPE], StringType)),
    func('allowed', memberOverload('decision_allowed', [DECISION_TYPE], BoolType)),
    func('reason', memberOverload('decision_reason', [DECISION_TYPE], StringType)),
  ],
  impls: new Map(IMPLS),
};

// Kube parses the selector into the check's field or label requirements, which only a webhook
// authorizer reads; the server's authorizers (system:masters, RBAC, AlwaysAllow, AlwaysDeny)
// decide without them, as kube's RBAC does, so the check is the same one.
const withSelector: Impl = ([r]) => r as ResourceCheckValue;

export const AUTHZ_SELECTORS_LIBRARY: KubeLibrary = {
  functions: [
    resourceCheckFunction('fieldSelector', 'authorizer_fieldselector'),
    resourceCheckFunction('labelSelector', 'authorizer_labelselector'),
  ],
  impls: new Map([
    ['authorizer_fieldselector', withSelector],
    ['authorizer_labelselector', withSelector],
  ]),
};
