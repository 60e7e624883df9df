// The labels kube-apiserver puts on its request metrics (k8s.io/apiserver/pkg/endpoints/metrics/
// metrics.go, v1.33): the reported verb (CanonicalVerb, then cleanVerb: upper case, HTTP methods
// except LIST, WATCH, APPLY and CONNECT), the scope (CleanScope), the dry_run value (cleanDryRun),
// and group, version, resource and subresource from the request info (for a non-resource request,
// the path in place of the subresource). Pure: the front door computes them once per request.
import { ApiError } from '../../apimachinery/errors.js';
import type { RequestInfo } from '../request/request-info.js';

/** kube's APIServerComponent, the `component` label. */
export const APISERVER_COMPONENT = 'apiserver';
/** kube's OtherRequestMethod: what an unknown method is reported as. */
const OTHER_REQUEST_METHOD = 'other';
/** kube's types.ApplyPatchType: a PATCH with this Content-Type is reported as APPLY. */
const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

/** kube's validRequestMethods: any other reported verb becomes "other". */
const VALID_REQUEST_METHODS = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** kube's validConnectRequests: subresources reported as CONNECT. */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

type Scope = '' | 'resource' | 'namespace' | 'cluster';

/** kube's CleanScope: one object (or a create), a namespace's, the cluster's; "" off the API. */
export function cleanScope(info: Pick<RequestInfo, 'name' | 'verb' | 'namespace' | 'isResourceRequest'>): Scope {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** kube's CanonicalVerb: a GET (or HEAD) of anything but one object is a LIST. `verb` is upper case. */
export function canonicalVerb(verb: string, scope: Scope): string {
  if (verb === 'GET' || verb === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return verb;
}

/** kube's getVerbIfWatch: a GET whose first `watch` value is not "0" or "false" (any case) is a WATCH. */
function isWatchQuery(method: string, query: URLSearchParams): boolean {
  const m = method.toUpperCase();
  if (m !== 'GET' && m !== 'LIST') return false;
  const value = query.get('watch');
  if (value === null) return false;
  const v = value.toLowerCase();
  return v !== '0' && v !== 'false';
}

interface VerbInput {
  /** The HTTP method as sent. */
  method: string;
  query: URLSearchParams;
  /** The request's Content-Type header, if any. */
  contentType: string | undefined;
  /** Undefined when the path could not be parsed. */
  info: RequestInfo | undefined;
  scope: Scope;
}

/**
 * The verb label: kube's cleanVerb(CanonicalVerb(upper(method), scope), suggestedVerb, ...). The
 * suggested verb (the route's) is WATCH for the /watch/ paths, which our request info reports as
 * the verb "watch".
 */
function reportedVerb(v: VerbInput): string {
  if (v.info?.verb === 'watch') return 'WATCH';
  const verb = canonicalVerb(v.method.toUpperCase(), v.scope);
  let reported = verb;
  // kube's CleanVerb.
  if (isWatchQuery(v.method, v.query)) reported = 'WATCH';
  if (verb === 'WATCHLIST') reported = 'WATCH';
  if (verb === 'PATCH' && v.contentType === APPLY_PATCH_CONTENT_TYPE) reported = 'APPLY';
  if (v.info?.isResourceRequest && v.info.subresource !== '' && CONNECT_SUBRESOURCES.has(v.info.subresource))
    reported = 'CONNECT';
  return VALID_REQUEST_METHODS.has(reported) ? reported : OTHER_REQUEST_METHOD;
}

/**
 * kube's cleanDryRun: "" without dryRun, "invalid" for any value but All, else the values
 * deduplicated, sorted and joined with commas ("All").
 */
export function cleanDryRun(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** The labels of apiserver_request_total, less `code` and `component`. */
export interface RequestLabels {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: Scope;
}

interface RequestLabelInput {
  method: string;
  query: URLSearchParams;
  contentType: string | undefined;
  info: RequestInfo | ApiError;
}

/**
 * The request's labels as kube's MonitorRequest gives them: for a resource request its group,
 * version, resource and subresource; for any other, the path as the subresource (as kube's
 * instrumented health and non-resource handlers report it); for a path that could not be parsed,
 * nothing but the verb.
 */
export function requestLabels(r: RequestLabelInput): RequestLabels {
  const info = r.info instanceof ApiError ? undefined : r.info;
  const scope = info ? cleanScope(info) : '';
  const verb = reportedVerb({ method: r.method, query: r.query, contentType: r.contentType, info, scope });
  const dryRun = cleanDryRun(r.query);
  if (!info) return { verb, dryRun, group: '', version: '', resource: '', subresource: '', scope };
  if (!info.isResourceRequest)
    return { verb, dryRun, group: '', version: '', resource: '', subresource: info.path, scope };
  return {
    verb,
    dryRun,
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope,
  };
}

/**
 * The labels with what the client made up taken out (group, version, resource and subresource),
 * for answers that tell nothing was served there: a path named by an unauthenticated client could
 * otherwise add a series per path. kube counts none of these requests in apiserver_request_total.
 */
export function withoutPath(l: RequestLabels): RequestLabels {
  return { ...l, group: '', version: '', resource: '', subresource: '' };
}
