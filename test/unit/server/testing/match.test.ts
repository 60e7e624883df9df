// Which requests a Fault acts on: its match list by list (RBAC's rules for verbs, groups and
// resources; absent or empty lists match everything) and which verbs its action reaches.
import { describe, expect, it } from 'vitest';
import type { FaultAction, FaultMatch } from '../../../../apimachinery/apis/testing.js';
import { type RequestFacts, actionReaches, faultMatches } from '../../../../server/testing/match.js';

const request: RequestFacts = {
  verb: 'update',
  apiGroup: 'cache.example.com',
  resource: 'caches',
  subresource: 'status',
  namespace: 'team-a',
  name: 'sessions',
  user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
  userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc',
};

describe('faultMatches', () => {
  it.each<[string, FaultMatch | undefined, boolean]>([
    ['no match: every request', undefined, true],
    ['an empty match: every request', {}, true],
    ['empty lists match everything', { verbs: [], resources: [], users: [] }, true],
    ['the verb', { verbs: ['update'] }, true],
    ['another verb', { verbs: ['get', 'patch'] }, false],
    ['any verb', { verbs: ['*'] }, true],
    ['the group', { apiGroups: ['cache.example.com'] }, true],
    ['the core group only', { apiGroups: [''] }, false],
    ['any group', { apiGroups: ['*'] }, true],
    ['the subresource by its full name', { resources: ['caches/status'] }, true],
    ['the main resource only: not its status', { resources: ['caches'] }, false],
    ['status of any resource', { resources: ['*/status'] }, true],
    ['scale of any resource', { resources: ['*/scale'] }, false],
    ['any resource', { resources: ['*'] }, true],
    ['the namespace', { namespaces: ['team-a', 'team-b'] }, true],
    ['another namespace', { namespaces: ['team-b'] }, false],
    ['the name', { names: ['sessions'] }, true],
    ['another name', { names: ['pages'] }, false],
    ['the user', { users: ['alice'] }, true],
    ['another user', { users: ['bob'] }, false],
    ['one of the groups', { groups: ['ops', 'devs'] }, true],
    ['none of the groups', { groups: ['ops'] }, false],
    ['a user-agent prefix', { userAgents: ['python/', 'kubectl/'] }, true],
    ['the prefix must start it', { userAgents: ['v1.33'] }, false],
    ['every list must hold', { verbs: ['update'], namespaces: ['team-b'] }, false],
    [
      'all at once',
      {
        verbs: ['update', 'patch'],
        apiGroups: ['cache.example.com'],
        resources: ['caches/status'],
        namespaces: ['team-a'],
        names: ['sessions'],
        users: ['alice'],
        groups: ['devs'],
        userAgents: ['kubectl/'],
      },
      true,
    ],
  ])('%s', (_name, match, want) => {
    expect(faultMatches(match, request)).toBe(want);
  });

  it('a request without a name (a create, a list) never matches a list of names', () => {
    expect(faultMatches({ names: ['sessions'] }, { ...request, verb: 'create', name: '' })).toBe(false);
  });
});

describe('actionReaches', () => {
  it.each<[string, FaultAction | undefined, string, boolean]>([
    ['a delay alone reaches anything', undefined, 'get', true],
    ['an error reaches a watch', { error: { code: 500 } }, 'watch', true],
    ['endWatch reaches watches', { endWatch: { afterEvents: 1 } }, 'watch', true],
    ['endWatch passes a list by', { endWatch: { afterEvents: 1 } }, 'list', false],
    ['errorAfterCommit reaches a create', { errorAfterCommit: { code: 504 } }, 'create', true],
    ['errorAfterCommit reaches a deletecollection', { errorAfterCommit: { code: 504 } }, 'deletecollection', true],
    ['errorAfterCommit passes a get by', { errorAfterCommit: { code: 504 } }, 'get', false],
    ['expireHistory reaches a list', { expireHistory: {} }, 'list', true],
    ['resetConnection reaches anything', { resetConnection: {} }, 'patch', true],
  ])('%s', (_name, action, verb, want) => {
    expect(actionReaches(action, { verb })).toBe(want);
  });
});
