import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../apimachinery/errors.js';
import {
  isLongRunning,
  decodeListOptions,
  parseGoBool,
  parseRequestInfo,
  queryBool,
  queryInt64,
} from '../../../../server/request/request-info.js';
import { apiError } from '../../../helpers/api-error.js';

function info(method: string, url: string) {
  const u = new URL(url, 'https://localhost');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

// Cases from kube's TestGetAPIRequestInfo (requestinfo_test.go), plus CRD paths.
describe('parseRequestInfo: resource requests', () => {
  it.each<{
    method: string;
    url: string;
    verb: string;
    prefix: string;
    group: string;
    version: string;
    ns: string;
    resource: string;
    sub: string;
    name: string;
    parts: string[];
  }>([
    {
      method: 'GET',
      url: '/api/v1/namespaces',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'namespaces',
      sub: '',
      name: '',
      parts: ['namespaces'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'namespaces',
      sub: '',
      name: 'other',
      parts: ['namespaces', 'other'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/foo',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    },
    {
      method: 'HEAD',
      url: '/api/v1/namespaces/other/pods/foo',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    },
    {
      method: 'GET',
      url: '/api/v1/pods',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'HEAD',
      url: '/api/v1/pods',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/proxy/namespaces/other/pods/foo',
      verb: 'proxy',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    },
    {
      method: 'GET',
      url: '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource',
      verb: 'proxy',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo', 'subpath', 'not', 'a', 'subresource'],
    },
    {
      method: 'GET',
      url: '/api/v1/watch/pods',
      verb: 'watch',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/pods?watch=true',
      verb: 'watch',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/pods?watch=false',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/watch/namespaces/other/pods',
      verb: 'watch',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods?watch=1',
      verb: 'watch',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods?watch=0',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/foo/status',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: 'status',
      name: 'foo',
      parts: ['pods', 'foo', 'status'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/foo/proxy/subpath',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: 'proxy',
      name: 'foo',
      parts: ['pods', 'foo', 'proxy', 'subpath'],
    },
    {
      method: 'PUT',
      url: '/api/v1/namespaces/other/finalize',
      verb: 'update',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'namespaces',
      sub: 'finalize',
      name: 'other',
      parts: ['namespaces', 'other', 'finalize'],
    },
    {
      method: 'PUT',
      url: '/api/v1/namespaces/other/status',
      verb: 'update',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'namespaces',
      sub: 'status',
      name: 'other',
      parts: ['namespaces', 'other', 'status'],
    },
    {
      method: 'PATCH',
      url: '/api/v1/namespaces/other/pods/foo',
      verb: 'patch',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    },
    {
      method: 'DELETE',
      url: '/api/v1/namespaces/other/pods/foo',
      verb: 'delete',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    },
    {
      method: 'POST',
      url: '/api/v1/namespaces/other/pods',
      verb: 'create',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'DELETE',
      url: '/api/v1/nodes',
      verb: 'deletecollection',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'nodes',
      sub: '',
      name: '',
      parts: ['nodes'],
    },
    {
      method: 'DELETE',
      url: '/api/v1/namespaces',
      verb: 'deletecollection',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'namespaces',
      sub: '',
      name: '',
      parts: ['namespaces'],
    },
    {
      method: 'DELETE',
      url: '/apis/extensions/v1/namespaces/other/pods',
      verb: 'deletecollection',
      prefix: 'apis',
      group: 'extensions',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'POST',
      url: '/apis/extensions/v1beta3/namespaces/other/pods',
      verb: 'create',
      prefix: 'apis',
      group: 'extensions',
      version: 'v1beta3',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    // Custom resources, as kubectl and client libraries reach them.
    {
      method: 'GET',
      url: '/apis/cache.example.com/v1alpha1/namespaces/default/caches?limit=500',
      verb: 'list',
      prefix: 'apis',
      group: 'cache.example.com',
      version: 'v1alpha1',
      ns: 'default',
      resource: 'caches',
      sub: '',
      name: '',
      parts: ['caches'],
    },
    {
      method: 'GET',
      url: '/apis/cache.example.com/v1alpha1/caches',
      verb: 'list',
      prefix: 'apis',
      group: 'cache.example.com',
      version: 'v1alpha1',
      ns: '',
      resource: 'caches',
      sub: '',
      name: '',
      parts: ['caches'],
    },
    {
      method: 'PATCH',
      url: '/apis/cache.example.com/v1alpha1/namespaces/default/caches/web/scale',
      verb: 'patch',
      prefix: 'apis',
      group: 'cache.example.com',
      version: 'v1alpha1',
      ns: 'default',
      resource: 'caches',
      sub: 'scale',
      name: 'web',
      parts: ['caches', 'web', 'scale'],
    },
    {
      method: 'GET',
      url: '/apis/cache.example.com/v1alpha1/namespaces/default/caches?watch=True&timeoutSeconds=2',
      verb: 'watch',
      prefix: 'apis',
      group: 'cache.example.com',
      version: 'v1alpha1',
      ns: 'default',
      resource: 'caches',
      sub: '',
      name: '',
      parts: ['caches'],
    },
    {
      method: 'POST',
      url: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      verb: 'create',
      prefix: 'apis',
      group: 'apiextensions.k8s.io',
      version: 'v1',
      ns: '',
      resource: 'customresourcedefinitions',
      sub: '',
      name: '',
      parts: ['customresourcedefinitions'],
    },
    {
      method: 'GET',
      url: '/apis/group/version/watch/resource/name',
      verb: 'watch',
      prefix: 'apis',
      group: 'group',
      version: 'version',
      ns: '',
      resource: 'resource',
      sub: '',
      name: 'name',
      parts: ['resource', 'name'],
    },
    // Trailing slashes are trimmed; a percent-escaped slash splits as Go's decoded URL.Path does.
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/',
      verb: 'list',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/a%2Fb',
      verb: 'get',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: 'other',
      resource: 'pods',
      sub: 'b',
      name: 'a',
      parts: ['pods', 'a', 'b'],
    },
    // Unknown methods have no verb.
    {
      method: 'OPTIONS',
      url: '/api/v1/pods',
      verb: '',
      prefix: 'api',
      group: '',
      version: 'v1',
      ns: '',
      resource: 'pods',
      sub: '',
      name: '',
      parts: ['pods'],
    },
  ])('$method $url', (c) => {
    const got = info(c.method, c.url);
    expect(got).toMatchObject({
      isResourceRequest: true,
      verb: c.verb,
      apiPrefix: c.prefix,
      apiGroup: c.group,
      apiVersion: c.version,
      namespace: c.ns,
      resource: c.resource,
      subresource: c.sub,
      name: c.name,
      parts: c.parts,
    });
  });
});

// Whether the resource follows /namespaces/{namespace}/: where kube routes namespaced kinds only.
// The namespace's own paths carry a namespace too, yet name the cluster-scoped kind.
describe('parseRequestInfo: namespacedPath', () => {
  // method, URL, then namespacedPath, namespace, resource and name.
  it.each<[string, string, boolean, string, string, string]>([
    ['GET', '/api/v1/namespaces', false, '', 'namespaces', ''],
    ['GET', '/api/v1/namespaces/a', false, 'a', 'namespaces', 'a'],
    ['PUT', '/api/v1/namespaces/a/status', false, 'a', 'namespaces', 'a'],
    ['PUT', '/api/v1/namespaces/a/finalize', false, 'a', 'namespaces', 'a'],
    ['GET', '/api/v1/watch/namespaces/a', false, 'a', 'namespaces', 'a'],
    ['GET', '/api/v1/configmaps', false, '', 'configmaps', ''],
    // Resource `namespaces` in namespace a: kube has no route for it.
    ['GET', '/api/v1/namespaces/a/namespaces', true, 'a', 'namespaces', ''],
    ['DELETE', '/api/v1/namespaces/a/namespaces/b', true, 'a', 'namespaces', 'b'],
    ['DELETE', '/api/v1/namespaces/a/namespaces/a', true, 'a', 'namespaces', 'a'],
    ['GET', '/api/v1/watch/namespaces/a/namespaces/b', true, 'a', 'namespaces', 'b'],
    ['GET', '/api/v1/namespaces/a/configmaps/c', true, 'a', 'configmaps', 'c'],
    ['POST', '/apis/authorization.k8s.io/v1/namespaces/a/subjectaccessreviews', true, 'a', 'subjectaccessreviews', ''],
    ['GET', '/api/v1/namespaces//configmaps', true, '', 'configmaps', ''],
  ])('%s %s', (method, url, namespacedPath, namespace, resource, name) => {
    expect(info(method, url)).toMatchObject({ namespacedPath, namespace, resource, name });
  });
});

// kube's TestGetNonAPIRequestInfo and the error cases of TestGetAPIRequestInfo.
describe('parseRequestInfo: non-resource requests', () => {
  it.each<{ url: string; resource: boolean }>([
    { url: '/api/version/resource', resource: true },
    { url: '/apis/group/version/resource/name/subresource', resource: true },
    { url: '/api/version/resource/name/subresource', resource: true },
    { url: '/apis/batch/v1/job', resource: true },
    { url: '/apis/batch/v1/job/foo', resource: true },
    { url: '/apis/batch/v1/job/foo/scale', resource: true },
    { url: '/not-api/version/resource', resource: false },
    { url: '/apis/extensions/v1beta1', resource: false },
    { url: '/apis/extensions/v1beta1/', resource: false },
    { url: '/api/version', resource: false },
    { url: '/api', resource: false },
    { url: '/', resource: false },
    { url: '/api/version/', resource: false },
    { url: '/apis/group/version/', resource: false },
    { url: '/badprefix/version/resource', resource: false },
    { url: '/apis/version/resource', resource: false },
  ])('$url', ({ url, resource }) => {
    expect(info('GET', url).isResourceRequest).toBe(resource);
  });

  it.each<{ method: string; url: string; verb: string }>([
    { method: 'GET', url: '/healthz', verb: 'get' },
    { method: 'POST', url: '/apis', verb: 'post' },
    { method: 'HEAD', url: '/version', verb: 'head' },
  ])('$method $url keeps the method as its verb', ({ method, url, verb }) => {
    expect(info(method, url)).toMatchObject({ isResourceRequest: false, verb, path: url, resource: '', parts: [] });
  });
});

// kube's TestSelectorParsing.
describe('parseRequestInfo: selectors', () => {
  it.each<{
    name: string;
    method: string;
    url: string;
    wantName: string;
    verb: string;
    fields: string;
    labels: string;
  }>([
    {
      name: 'no selector',
      method: 'GET',
      url: '/apis/group/version/resource',
      wantName: '',
      verb: 'list',
      fields: '',
      labels: '',
    },
    {
      name: 'metadata.name selector',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=metadata.name=name1',
      wantName: 'name1',
      verb: 'list',
      fields: 'metadata.name=name1',
      labels: '',
    },
    {
      name: 'metadata.name selector with watch',
      method: 'GET',
      url: '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1',
      wantName: 'name1',
      verb: 'watch',
      fields: 'metadata.name=name1',
      labels: '',
    },
    {
      name: 'random selector',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux',
      wantName: '',
      verb: 'list',
      fields: 'foo=bar',
      labels: 'baz=qux',
    },
    {
      name: 'invalid selector with metadata.name',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo',
      wantName: '',
      verb: 'list',
      fields: 'metadata.name=name1,foo',
      labels: '',
    },
    {
      name: 'invalid selector with metadata.name with watch',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true',
      wantName: '',
      verb: 'watch',
      fields: 'metadata.name=name1,foo',
      labels: '',
    },
    {
      name: 'invalid selector with metadata.name with watch false',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false',
      wantName: '',
      verb: 'list',
      fields: 'metadata.name=name1,foo',
      labels: '',
    },
    {
      name: 'selector on deletecollection is honored',
      method: 'DELETE',
      url: '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux',
      wantName: '',
      verb: 'deletecollection',
      fields: 'foo=bar',
      labels: 'baz=qux',
    },
    {
      name: 'selector on repeated param matches parsed param',
      method: 'GET',
      url: '/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar&labelSelector=foo=bar&labelSelector=foo=baz',
      wantName: 'foo',
      verb: 'list',
      fields: 'metadata.name=foo',
      labels: 'foo=bar',
    },
    {
      name: 'selector on other verb is ignored',
      method: 'GET',
      url: '/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar',
      wantName: 'name',
      verb: 'get',
      fields: '',
      labels: '',
    },
    {
      name: 'selector on deprecated root type watch is not parsed',
      method: 'GET',
      url: '/apis/group/version/watch/resource?fieldSelector=metadata.name=foo&labelSelector=foo=bar',
      wantName: '',
      verb: 'watch',
      fields: '',
      labels: '',
    },
    {
      name: 'selector on deprecated root item watch is not parsed',
      method: 'GET',
      url: '/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo&labelSelector=foo=bar',
      wantName: 'name',
      verb: 'watch',
      fields: '',
      labels: '',
    },
    // Ours: a name that is not a valid path segment is not taken; terms are read in sorted order.
    {
      name: 'name with a slash is not taken',
      method: 'GET',
      url: '/apis/g/v/r?fieldSelector=metadata.name%3Da%2Fb',
      wantName: '',
      verb: 'list',
      fields: 'metadata.name=a/b',
      labels: '',
    },
    {
      name: 'first sorted term wins',
      method: 'GET',
      url: '/apis/g/v/r?fieldSelector=metadata.name%3Db,metadata.name%3Da',
      wantName: 'a',
      verb: 'list',
      fields: 'metadata.name=b,metadata.name=a',
      labels: '',
    },
    {
      name: 'a bad limit loses the name but not the watch',
      method: 'GET',
      url: '/apis/g/v/r?fieldSelector=metadata.name%3Dx&limit=abc&watch=yes',
      wantName: '',
      verb: 'watch',
      fields: 'metadata.name=x',
      labels: '',
    },
    {
      name: 'a bad label selector loses the name',
      method: 'GET',
      url: '/apis/g/v/r?fieldSelector=metadata.name%3Dx&labelSelector=a_',
      wantName: '',
      verb: 'list',
      fields: 'metadata.name=x',
      labels: 'a_',
    },
    {
      name: 'not-equal does not name the object',
      method: 'GET',
      url: '/apis/g/v/r?fieldSelector=metadata.name!%3Dx',
      wantName: '',
      verb: 'list',
      fields: 'metadata.name!=x',
      labels: '',
    },
    {
      name: 'delete with a name selector is still deletecollection',
      method: 'DELETE',
      url: '/apis/g/v/r?fieldSelector=metadata.name%3Dx',
      wantName: '',
      verb: 'deletecollection',
      fields: 'metadata.name=x',
      labels: '',
    },
  ])('$name', (c) => {
    expect(info(c.method, c.url)).toMatchObject({
      name: c.wantName,
      verb: c.verb,
      fieldSelector: c.fields,
      labelSelector: c.labels,
    });
  });
});

describe('parseRequestInfo: errors', () => {
  it('a verb segment with nothing after it is the 500 kube’s filter gives', () => {
    const err = apiError(() => info('GET', '/api/v1/watch'));
    expect(err.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message:
        'Internal error occurred: failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch',
    });
  });

  it('an invalid percent escape is a 400', () => {
    const err = apiError(() => parseRequestInfo('GET', '/api/v1/pods/a%zz', new URLSearchParams()));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'invalid URL escape "%zz"' });
  });
});

describe('queryBool (Convert_Slice_string_To_bool)', () => {
  it.each<{ values: string[]; want: boolean }>([
    { values: [], want: false },
    { values: ['true'], want: true },
    { values: ['True'], want: true },
    { values: ['1'], want: true },
    { values: [''], want: true },
    { values: ['yes'], want: true },
    { values: ['false'], want: false },
    { values: ['False'], want: false },
    { values: ['FALSE'], want: false },
    { values: ['0'], want: false },
    { values: ['00'], want: true },
    { values: ['false', 'true'], want: false },
  ])('$values', ({ values, want }) => {
    expect(queryBool(values)).toBe(want);
  });
});

describe('parseGoBool (strconv.ParseBool)', () => {
  it.each<{ s: string; want: boolean | undefined }>([
    { s: '1', want: true },
    { s: 't', want: true },
    { s: 'T', want: true },
    { s: 'TRUE', want: true },
    { s: 'true', want: true },
    { s: 'True', want: true },
    { s: '0', want: false },
    { s: 'f', want: false },
    { s: 'F', want: false },
    { s: 'FALSE', want: false },
    { s: 'false', want: false },
    { s: 'False', want: false },
    { s: 'tRUE', want: undefined },
    { s: 'yes', want: undefined },
    { s: '', want: undefined },
  ])('$s', ({ s, want }) => {
    expect(parseGoBool(s)).toBe(want);
  });
});

describe('queryInt64', () => {
  it.each<{ query: string; want: number | undefined }>([
    { query: '', want: undefined },
    { query: 'limit=500', want: 500 },
    { query: 'limit=%2B7', want: 7 },
    { query: 'limit=-1', want: -1 },
    { query: 'limit=0', want: 0 },
    // biome-ignore lint/correctness/noPrecisionLoss: kube's int64 limit parsed to the nearest float64
    { query: 'limit=9223372036854775807', want: 9223372036854775807 },
  ])('$query', ({ query, want }) => {
    expect(queryInt64(new URLSearchParams(query), 'limit')).toBe(want);
  });

  it.each<{ query: string; message: string }>([
    { query: 'limit=abc', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
    { query: 'limit=', message: 'strconv.ParseInt: parsing "": invalid syntax' },
    { query: 'limit', message: 'strconv.ParseInt: parsing "": invalid syntax' },
    { query: 'limit=1.5', message: 'strconv.ParseInt: parsing "1.5": invalid syntax' },
    { query: 'limit=1_000', message: 'strconv.ParseInt: parsing "1_000": invalid syntax' },
    { query: 'limit=0x10', message: 'strconv.ParseInt: parsing "0x10": invalid syntax' },
    { query: 'limit=-', message: 'strconv.ParseInt: parsing "-": invalid syntax' },
    {
      query: 'limit=9223372036854775808',
      message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    },
    {
      query: 'limit=-9223372036854775809',
      message: 'strconv.ParseInt: parsing "-9223372036854775809": value out of range',
    },
    // Past uint64 Go stops at the overflow; before it, a bad character is a syntax error.
    {
      query: 'limit=99999999999999999999x',
      message: 'strconv.ParseInt: parsing "99999999999999999999x": value out of range',
    },
    {
      query: 'limit=9999999999999999999x',
      message: 'strconv.ParseInt: parsing "9999999999999999999x": invalid syntax',
    },
    { query: 'limit=%0A', message: 'strconv.ParseInt: parsing "\\n": invalid syntax' },
    // A `+` in a query string is a space, in Go's url.ParseQuery as here.
    { query: 'limit=+7', message: 'strconv.ParseInt: parsing " 7": invalid syntax' },
  ])('$query is a 400', ({ query, message }) => {
    const err = apiError(() => queryInt64(new URLSearchParams(query), 'limit'));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });
});

describe('decodeListOptions', () => {
  it('reads every list option', () => {
    const q = new URLSearchParams(
      'labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dweb&watch=True&allowWatchBookmarks=1&resourceVersion=42&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&limit=500&continue=tok&sendInitialEvents=false',
    );
    const got = decodeListOptions(q);
    expect(got).toMatchObject({
      watch: true,
      allowWatchBookmarks: true,
      resourceVersion: '42',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: 300,
      limit: 500,
      continue: 'tok',
      sendInitialEvents: false,
    });
    expect(got.labelSelector.requirements).toEqual([{ key: 'app', operator: '=', values: ['web'] }]);
    expect(got.fieldSelector.terms).toEqual([{ field: 'metadata.name', operator: '=', value: 'web' }]);
  });

  it('defaults what is absent', () => {
    const got = decodeListOptions(new URLSearchParams(''));
    expect(got).toEqual({
      labelSelector: { requirements: [], matchesNothing: false },
      fieldSelector: { terms: [] },
      watch: false,
      allowWatchBookmarks: false,
      resourceVersion: '',
      resourceVersionMatch: '',
      limit: 0,
      continue: '',
    });
  });

  // The order kube's conversion meets them in: timeoutSeconds, limit, labelSelector, fieldSelector.
  it.each<{ query: string; message: string }>([
    { query: 'limit=x&timeoutSeconds=y', message: 'strconv.ParseInt: parsing "y": invalid syntax' },
    { query: 'labelSelector=a_&limit=x', message: 'strconv.ParseInt: parsing "x": invalid syntax' },
    {
      query: 'fieldSelector=foo&labelSelector=a_',
      message:
        "unable to parse requirement: <nil>: Invalid value: \"a_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    },
    { query: 'fieldSelector=foo', message: "invalid selector: 'foo'; can't understand 'foo'" },
  ])('$query', ({ query, message }) => {
    const err = apiError(() => decodeListOptions(new URLSearchParams(query)));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });
});

describe('isLongRunning', () => {
  // kube's BasicLongRunningRequestCheck over the request info: `watch` is read as the parameter
  // codec reads booleans, so ?watch=yes watches (and is not timed out or counted in flight).
  it.each<[string, string, boolean]>([
    ['GET', '/api/v1/namespaces?watch=true', true],
    ['GET', '/api/v1/namespaces?watch=1', true],
    ['GET', '/api/v1/namespaces?watch=True', true],
    ['GET', '/api/v1/namespaces?watch=yes', true],
    ['GET', '/api/v1/namespaces?watch=false', false],
    ['GET', '/api/v1/namespaces?watch=0', false],
    ['GET', '/api/v1/namespaces', false],
    ['GET', '/api/v1/watch/namespaces', true],
    ['GET', '/apis/example.com/v1/watch/namespaces/a/widgets', true],
    ['GET', '/api/v1/namespaces/watch', false], // a namespace named "watch"
    ['GET', '/api/v1/namespaces/a/pods/p/log', true],
    ['POST', '/api/v1/namespaces/a/pods/p/exec', true],
    ['POST', '/api/v1/namespaces?watch=true', false], // a create, whatever its query
    ['GET', '/healthz?watch=true', false],
  ])('%s %s -> %s', (method, url, want) => {
    const u = new URL(url, 'https://x');
    expect(isLongRunning(parseRequestInfo(method, u.pathname, u.searchParams))).toBe(want);
  });
});

describe('parseRequestInfo: list options decoded once', () => {
  const parse = (method: string, url: string) => {
    const u = new URL(url, 'https://x');
    return parseRequestInfo(method, u.pathname, u.searchParams);
  };
  it('decodes a list, a watch and a deletecollection query, and keeps the 400 of one that does not decode', () => {
    expect(parse('GET', '/api/v1/namespaces?limit=5&labelSelector=a%3Db').listOptions).toMatchObject({
      limit: 5,
      watch: false,
    });
    expect(parse('GET', '/api/v1/watch/namespaces?timeoutSeconds=3').listOptions).toMatchObject({ timeoutSeconds: 3 });
    expect(parse('DELETE', '/api/v1/namespaces/a/events?fieldSelector=metadata.name%3Dx').listOptions).toMatchObject({
      fieldSelector: { terms: [expect.anything()] },
    });
    const bad = parse('GET', '/api/v1/namespaces?limit=9223372036854775808').listOptions;
    expect(bad).toBeInstanceOf(ApiError);
    expect((bad as ApiError).status.message).toBe(
      'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
  });

  it('leaves them undefined for requests that are not collections', () => {
    expect(parse('GET', '/api/v1/namespaces/a').listOptions).toBeUndefined();
    expect(parse('POST', '/api/v1/namespaces').listOptions).toBeUndefined();
  });
});
