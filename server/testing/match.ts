// Which requests a Fault acts on: its match (every list given must hold, RBAC's rules for verbs,
// groups and resources), and its action's reach (a watch's end only for watches, an answer after
// the commit only for writes). Pure.
import type { FaultAction, FaultMatch } from '../../apimachinery/apis/testing.js';
import { apiGroupMatches, resourceMatches, resourceNameMatches, verbMatches } from '../../apimachinery/rbac/rules.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { actionOf } from '../registry/builtin/testing.js';

/** What a Fault may match of a request: its request info, who sent it, and with what. */
export interface RequestFacts {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  user: UserInfo;
  userAgent: string;
}

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** An absent or empty list matches everything; a given one must. */
const any = (list: readonly string[] | undefined, test: (l: readonly string[]) => boolean): boolean =>
  list === undefined || list.length === 0 || test(list);

export function faultMatches(match: FaultMatch | undefined, r: RequestFacts): boolean {
  if (!match) return true;
  const combined = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return (
    any(match.verbs, (verbs) => verbMatches({ verbs: [...verbs] }, r.verb)) &&
    any(match.apiGroups, (groups) => apiGroupMatches({ verbs: [], apiGroups: [...groups] }, r.apiGroup)) &&
    any(match.resources, (resources) =>
      resourceMatches({ verbs: [], resources: [...resources] }, combined, r.subresource),
    ) &&
    any(match.namespaces, (namespaces) => namespaces.includes(r.namespace)) &&
    any(match.names, (names) => resourceNameMatches({ verbs: [], resourceNames: [...names] }, r.name)) &&
    any(match.users, (users) => users.includes(r.user.name)) &&
    any(match.groups, (groups) => r.user.groups.some((g) => groups.includes(g))) &&
    any(match.userAgents, (agents) => agents.some((a) => r.userAgent.startsWith(a)))
  );
}

/** Whether an action can act on a request at all (else the Fault passes it by, unhit). */
export function actionReaches(action: FaultAction | undefined, r: Pick<RequestFacts, 'verb'>): boolean {
  const verb = r.verb;
  switch (actionOf(action)) {
    case 'endWatch':
      return verb === 'watch';
    case 'errorAfterCommit':
      return WRITES.has(verb);
    default:
      return true;
  }
}
