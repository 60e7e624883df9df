// The labels of kube's request metrics, table by table as k8s.io/apiserver/pkg/endpoints/metrics
// (v1.33) derives them: the reported verb (CanonicalVerb then cleanVerb), CleanScope, cleanDryRun,
// and where group, version, resource and subresource come from.
import { describe, expect, it } from 'vitest';
import { type ApiError, internalError } from '../../../apimachinery/errors.js';
import {
  canonicalVerb,
  cleanDryRun,
  cleanScope,
  requestLabels,
  withoutPath,
} from '../../../server/metrics/request-labels.js';
import { parseRequestInfo } from '../../../server/request/request-info.js';

function labelsOf(method: string, url: string, contentType?: string): ReturnType<typeof requestLabels> {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  let info;
  try {
    info = parseRequestInfo(method, path, query);
  } catch (err) {
    info = err as ApiError;
  }
  return requestLabels({ method, query, contentType, info });
}

describe('the reported verb and scope', () => {
  it.each<[string, string, string | undefined, string, string]>([
    // method, url, content type, verb, scope
    ['GET', '/api/v1/namespaces/ns/pods/p', undefined, 'GET', 'resource'],
    ['GET', '/api/v1/namespaces/ns/pods', undefined, 'LIST', 'namespace'],
    ['GET', '/api/v1/pods', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/namespaces', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/namespaces/ns', undefined, 'GET', 'resource'],
    ['HEAD', '/api/v1/pods', undefined, 'LIST', 'cluster'],
    ['HEAD', '/api/v1/namespaces/ns/pods/p', undefined, 'GET', 'resource'],
    // a field selector on metadata.name makes the request info name one object, as kube's does
    ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp', undefined, 'GET', 'resource'],
    // watches: ?watch= with anything but 0 or false (any case), and the /watch/ paths
    ['GET', '/api/v1/pods?watch=true', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/pods?watch=1', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/pods?watch=yes', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/pods?watch=', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/pods?watch=false', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/pods?watch=FALSE', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/pods?watch=0', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/pods?watch=true&watch=false', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/namespaces/ns/pods/p?watch=true', undefined, 'WATCH', 'resource'],
    ['GET', '/api/v1/watch/namespaces/ns/pods', undefined, 'WATCH', 'namespace'],
    ['GET', '/api/v1/watch/namespaces/ns/pods/p', undefined, 'WATCH', 'resource'],
    ['GET', '/apis/apps/v1/watch/deployments', undefined, 'WATCH', 'cluster'],
    // writes: HTTP methods, a create's scope is the object's
    ['POST', '/api/v1/namespaces/ns/pods', undefined, 'POST', 'resource'],
    ['POST', '/api/v1/namespaces', undefined, 'POST', 'resource'],
    ['PUT', '/api/v1/namespaces/ns/pods/p', undefined, 'PUT', 'resource'],
    ['PUT', '/api/v1/namespaces/ns/pods/p/status', undefined, 'PUT', 'resource'],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', 'application/merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', 'application/strategic-merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', 'application/apply-patch+yaml', 'APPLY', 'resource'],
    // Go compares the header as sent
    ['PATCH', '/api/v1/namespaces/ns/pods/p', 'application/apply-patch+yaml; charset=utf-8', 'PATCH', 'resource'],
    ['POST', '/api/v1/namespaces/ns/pods', 'application/apply-patch+yaml', 'POST', 'resource'],
    ['DELETE', '/api/v1/namespaces/ns/pods/p', undefined, 'DELETE', 'resource'],
    ['DELETE', '/api/v1/namespaces/ns/pods', undefined, 'DELETE', 'namespace'],
    ['DELETE', '/api/v1/pods', undefined, 'DELETE', 'cluster'],
    // connect subresources
    ['GET', '/api/v1/namespaces/ns/pods/p/log', undefined, 'CONNECT', 'resource'],
    ['POST', '/api/v1/namespaces/ns/pods/p/exec', undefined, 'CONNECT', 'resource'],
    ['GET', '/api/v1/namespaces/ns/pods/p/attach', undefined, 'CONNECT', 'resource'],
    ['POST', '/api/v1/namespaces/ns/pods/p/portforward', undefined, 'CONNECT', 'resource'],
    ['GET', '/api/v1/namespaces/ns/services/s/proxy', undefined, 'CONNECT', 'resource'],
    ['GET', '/api/v1/namespaces/ns/pods/p/status', undefined, 'GET', 'resource'],
    // methods: upper-cased; others are "other"
    ['get', '/api/v1/pods', undefined, 'LIST', 'cluster'],
    ['OPTIONS', '/api/v1/pods', undefined, 'other', 'cluster'],
    ['TRACE', '/api', undefined, 'other', ''],
    // off the API: the method, no scope
    ['GET', '/healthz', undefined, 'GET', ''],
    ['GET', '/apis', undefined, 'GET', ''],
    ['POST', '/metrics', undefined, 'POST', ''],
    ['GET', '/metrics?watch=true', undefined, 'WATCH', ''],
  ])('%s %s (%s): %s, scope %s', (method, url, contentType, verb, scope) => {
    expect(labelsOf(method, url, contentType)).toMatchObject({ verb, scope });
  });
});

describe('group, version, resource, subresource', () => {
  it.each<[string, string, { group: string; version: string; resource: string; subresource: string }]>([
    [
      'GET',
      '/api/v1/namespaces/ns/pods/p/status',
      { group: '', version: 'v1', resource: 'pods', subresource: 'status' },
    ],
    [
      'GET',
      '/apis/apps/v1/namespaces/ns/deployments/d/scale',
      { group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale' },
    ],
    [
      'GET',
      '/apis/example.com/v1beta1/widgets',
      { group: 'example.com', version: 'v1beta1', resource: 'widgets', subresource: '' },
    ],
    ['GET', '/api/v1/namespaces/ns', { group: '', version: 'v1', resource: 'namespaces', subresource: '' }],
    [
      'PUT',
      '/api/v1/namespaces/ns/finalize',
      { group: '', version: 'v1', resource: 'namespaces', subresource: 'finalize' },
    ],
    // non-resource requests: the path in place of the subresource, as kube's instrumented handlers
    ['GET', '/readyz', { group: '', version: '', resource: '', subresource: '/readyz' }],
    ['GET', '/apis/apps/v1', { group: '', version: '', resource: '', subresource: '/apis/apps/v1' }],
    [
      'GET',
      '/openapi/v3/apis/apps/v1',
      { group: '', version: '', resource: '', subresource: '/openapi/v3/apis/apps/v1' },
    ],
    // a path that could not be parsed: nothing from it
    ['GET', '/api/v1/watch', { group: '', version: '', resource: '', subresource: '' }],
    ['GET', '/api/v1/%zz', { group: '', version: '', resource: '', subresource: '' }],
  ])('%s %s', (method, url, want) => {
    expect(labelsOf(method, url)).toMatchObject(want);
  });

  it('withoutPath keeps the verb, dry run and scope only', () => {
    const l = labelsOf('POST', '/apis/apps/v1/namespaces/ns/deployments?dryRun=All');
    expect(withoutPath(l)).toEqual({
      verb: 'POST',
      dryRun: 'All',
      scope: 'resource',
      group: '',
      version: '',
      resource: '',
      subresource: '',
    });
  });

  it('an unparseable request keeps its method as the verb', () => {
    expect(
      requestLabels({
        method: 'GET',
        query: new URLSearchParams(),
        contentType: undefined,
        info: internalError(new Error('x')),
      }),
    ).toEqual({
      verb: 'GET',
      dryRun: '',
      scope: '',
      group: '',
      version: '',
      resource: '',
      subresource: '',
    });
  });
});

describe('cleanDryRun', () => {
  it.each<[string, string]>([
    ['', ''],
    ['watch=true', ''],
    ['dryRunX=All', ''],
    ['dryRun=All', 'All'],
    ['dryRun=All&dryRun=All', 'All'],
    ['dryRun=all', 'invalid'],
    ['dryRun=', 'invalid'],
    ['dryRun=All&dryRun=Server', 'invalid'],
  ])('?%s: %j', (query, want) => {
    expect(cleanDryRun(new URLSearchParams(query))).toBe(want);
  });
});

describe('cleanScope and canonicalVerb', () => {
  it('a name wins over a namespace, a create is scoped to its object', () => {
    const base = { name: '', verb: 'get', namespace: '', isResourceRequest: false };
    expect(cleanScope({ ...base, name: 'x', namespace: 'ns', isResourceRequest: true })).toBe('resource');
    expect(cleanScope({ ...base, verb: 'create', namespace: 'ns', isResourceRequest: true })).toBe('resource');
    expect(cleanScope({ ...base, namespace: 'ns', isResourceRequest: true })).toBe('namespace');
    expect(cleanScope({ ...base, isResourceRequest: true })).toBe('cluster');
    expect(cleanScope(base)).toBe('');
  });

  it.each<[string, '' | 'resource' | 'namespace' | 'cluster', string]>([
    ['GET', 'resource', 'GET'],
    ['GET', '', 'GET'],
    ['GET', 'namespace', 'LIST'],
    ['HEAD', 'cluster', 'LIST'],
    ['POST', 'cluster', 'POST'],
  ])('%s at scope %j: %s', (verb, scope, want) => {
    expect(canonicalVerb(verb, scope)).toBe(want);
  });
});
