// User impersonation (Impersonate-User, -Group, -Uid, -Extra-<key>) with kube's rules
// (apiserver/pkg/endpoints/filters/impersonation.go): every part asked for is authorized
// separately as verb "impersonate" on users, groups, serviceaccounts, uids or userextras/<key>;
// the first refusal is a 403 naming it; the impersonated user then replaces the requester.
import { forbiddenError } from '../authz/authorizer.js';
import type { IncomingMessage } from 'node:http';
import type { AuthorizationAttributes, AuthorizationResult } from '../../apimachinery/authorization.js';
import type { ApiError } from '../../apimachinery/errors.js';
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS_USER,
  type UserInfo,
  makeServiceAccountGroupNames,
  makeServiceAccountUsername,
} from '../../apimachinery/user.js';
import { splitServiceAccountUsername } from './service-account-user.js';

/** What every impersonation header's name starts with. */
const IMPERSONATE_PREFIX = 'impersonate-';
const IMPERSONATE_USER_HEADER = 'impersonate-user';
const IMPERSONATE_UID_HEADER = 'impersonate-uid';
const IMPERSONATE_GROUP_HEADER = 'impersonate-group';
const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/** One thing the requester asks to act as; each is authorized on its own. */
type ImpersonationTarget =
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'User'; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; name: string };

/**
 * Request headers with every value kept apart, as node's `req.headersDistinct` gives them (names
 * lowercased): `req.headers` joins a repeated Impersonate-Group with ", ", which a group name may contain.
 */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

type ImpersonationParse =
  | { kind: 'requests'; targets: ImpersonationTarget[]; groupsSpecified: boolean }
  | { kind: 'error'; message: string };

/** url.PathUnescape, falling back to the raw key when it is malformed, as kube's unescapeExtraKey. */
export function unescapeExtraKey(encoded: string): string {
  const src = Buffer.from(encoded, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    if (src[i] !== 0x25) {
      out.push(src[i]!);
      continue;
    }
    const hex = src.subarray(i + 1, i + 3).toString('latin1');
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return encoded;
    out.push(parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(out).toString('utf8');
}

/** Go's `%v` of the v1.ObjectReference kube builds for a target, for its error text. */
function objectReferenceText(t: ImpersonationTarget): string {
  // Fields in order: Kind Namespace Name UID APIVersion ResourceVersion FieldPath.
  const fields = (kind: string, ns: string, name: string, apiVersion: string, fieldPath: string): string =>
    `{${[kind, ns, name, '', apiVersion, '', fieldPath].join(' ')}}`;
  switch (t.kind) {
    case 'ServiceAccount':
      return fields('ServiceAccount', t.namespace, t.name, '', '');
    case 'User':
    case 'Group':
      return fields(t.kind, '', t.name, '', '');
    case 'UserExtra':
      return fields('UserExtra', '', t.value, 'authentication.k8s.io/v1', t.key);
    case 'UID':
      return fields('UID', '', t.name, 'authentication.k8s.io/v1', '');
  }
}

/**
 * Whether any header asks to impersonate, from Node's raw name/value list: most requests send
 * none, and building the distinct-headers object costs more than this scan.
 */
export function asksToImpersonate(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (
      name.length > IMPERSONATE_PREFIX.length &&
      name.slice(0, IMPERSONATE_PREFIX.length).toLowerCase() === IMPERSONATE_PREFIX
    )
      return true;
  }
  return false;
}

/**
 * kube's buildImpersonationRequests: what the Impersonate-* headers ask for, in kube's order (the
 * user or ServiceAccount, the groups, each extra value, the uid). Groups, extras or a uid without a
 * user are an error (kube answers it with a plain-text 500; we answer 400: it is the client's mistake).
 */
export function impersonationRequest(headers: DistinctHeaders): ImpersonationParse {
  const targets: ImpersonationTarget[] = [];
  const requestedUser = headers[IMPERSONATE_USER_HEADER]?.[0] ?? '';
  const hasUser = requestedUser !== '';
  if (hasUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    targets.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: requestedUser });
  }
  const groups = headers[IMPERSONATE_GROUP_HEADER] ?? [];
  for (const name of groups) targets.push({ kind: 'Group', name });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.toLowerCase().startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const value of values ?? []) targets.push({ kind: 'UserExtra', key, value });
  }
  const uid = headers[IMPERSONATE_UID_HEADER]?.[0] ?? '';
  if (uid !== '') targets.push({ kind: 'UID', name: uid });
  if ((groups.length > 0 || hasExtra || uid !== '') && !hasUser) {
    return {
      kind: 'error',
      message: `requested [${targets.map(objectReferenceText).join(' ')}] without impersonating a user`,
    };
  }
  return { kind: 'requests', targets, groupsSpecified: groups.length > 0 };
}

/** The authorization check kube makes before letting `requester` act as `target`. */
function impersonationAttributes(requester: UserInfo, target: ImpersonationTarget): AuthorizationAttributes {
  const base: AuthorizationAttributes = {
    user: requester,
    verb: 'impersonate',
    resourceRequest: true,
    // User, Group and ServiceAccount references carry no apiVersion in kube; the other two carry authentication.k8s.io/v1.
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: '',
  };
  switch (target.kind) {
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: target.namespace, name: target.name };
    case 'User':
      return { ...base, resource: 'users', name: target.name };
    case 'Group':
      return { ...base, resource: 'groups', name: target.name };
    case 'UserExtra':
      return {
        ...base,
        apiGroup: 'authentication.k8s.io',
        apiVersion: 'v1',
        resource: 'userextras',
        subresource: target.key,
        name: target.value,
      };
    case 'UID':
      return { ...base, apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'uids', name: target.name };
  }
}

type ImpersonationOutcome =
  /** No Impersonate-* header asked for anything: the requester stands. */
  | { kind: 'none' }
  | { kind: 'user'; user: UserInfo }
  /** A check was refused: answer `error` (403). */
  | { kind: 'forbidden'; error: ApiError }
  /** Groups, extras or a uid without a user: kube answers a plain-text 500, the front door a 400. */
  | { kind: 'error'; message: string };

/**
 * kube's WithImpersonation minus the HTTP: checks every target with `authorize` (anything but
 * "allow" refuses), then builds the user. A ServiceAccount without explicit groups gets its fixed
 * groups; a non-anonymous user gets system:authenticated unless the groups already hold it or
 * system:unauthenticated; system:anonymous gets system:unauthenticated unless it is there.
 */
export function impersonate(
  requester: UserInfo,
  headers: DistinctHeaders,
  authorize: (attributes: AuthorizationAttributes) => AuthorizationResult,
): ImpersonationOutcome {
  const parsed = impersonationRequest(headers);
  if (parsed.kind === 'error') return parsed;
  if (parsed.targets.length === 0) return { kind: 'none' };
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const target of parsed.targets) {
    const attributes = impersonationAttributes(requester, target);
    const result = authorize(attributes);
    if (result.decision !== 'allow') return { kind: 'forbidden', error: forbiddenError(attributes, result.reason) };
    switch (target.kind) {
      case 'ServiceAccount':
        name = makeServiceAccountUsername(target.namespace, target.name);
        if (!parsed.groupsSpecified) groups = makeServiceAccountGroupNames(target.namespace);
        break;
      case 'User':
        name = target.name;
        break;
      case 'Group':
        groups.push(target.name);
        break;
      case 'UserExtra':
        (extra[target.key] ??= []).push(target.value);
        break;
      case 'UID':
        uid = target.name;
        break;
    }
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  const user: UserInfo = { name, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return { kind: 'user', user };
}

const isImpersonationHeader = (name: string): boolean => {
  const n = name.toLowerCase();
  return (
    n === IMPERSONATE_USER_HEADER ||
    n === IMPERSONATE_GROUP_HEADER ||
    n === IMPERSONATE_UID_HEADER ||
    n.startsWith(IMPERSONATE_EXTRA_PREFIX)
  );
};

/** Removes every Impersonate-* header once acted on, so nothing further on (a proxy, audit) sees them. */
export function stripImpersonationHeaders(req: IncomingMessage): void {
  for (const name of Object.keys(req.headers)) if (isImpersonationHeader(name)) delete req.headers[name];
  const distinct = req.headersDistinct;
  for (const name of Object.keys(distinct)) if (isImpersonationHeader(name)) delete distinct[name];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (isImpersonationHeader(raw[i]!)) raw.splice(i, 2);
}
