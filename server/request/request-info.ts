// Request info as kube's RequestInfoFactory builds it (apiserver/pkg/endpoints/request/
// requestinfo.go): which API, group, version, namespace, resource, name and subresource a path
// names, and the kube verb (list versus get, watch, deletecollection). Authorization, audit and
// the REST dispatcher all read it. Also the list query parameters as kube's parameter codec
// decodes them, with the 400s it gives for values it cannot read.
import { ApiError, badRequest, internalError } from '../../apimachinery/errors.js';
import { type FieldSelector, parseFieldSelector, requiresExactMatch } from '../../apimachinery/selectors/fields.js';
import {
  EVERYTHING,
  type LabelSelector,
  parseGoInt64,
  parseLabelSelector,
} from '../../apimachinery/selectors/labels.js';
import { isPathSegmentName } from '../../apimachinery/validation/names.js';
import { goQuote } from '../../apimachinery/quote.js';

export interface RequestInfo {
  /** Whether the path names an API resource (else discovery, /healthz, /version, ...). */
  isResourceRequest: boolean;
  /** The URL path, percent-decoded (Go's URL.Path). */
  path: string;
  /**
   * get, list, watch, create, update, patch, delete, deletecollection (or proxy); for other
   * requests the method in lower case. "" for a resource request with an unknown method.
   */
  verb: string;
  /** The verb is a segment of the path (/api/v1/watch/pods): kube routes such paths apart. */
  verbInPath: boolean;
  /** `api` or `apis`. */
  apiPrefix: string;
  /** "" for the core group. */
  apiGroup: string;
  apiVersion: string;
  /** Also set for the namespace object itself: /api/v1/namespaces/x has namespace x. */
  namespace: string;
  /**
   * The resource follows /namespaces/{namespace}/ in the path, where kube routes namespaced kinds
   * only. False for the namespace's own paths (/namespaces/x, /namespaces/x/status), which carry
   * a namespace but name the cluster-scoped Namespace kind.
   */
  namespacedPath: boolean;
  resource: string;
  subresource: string;
  /** From the path, or for list and watch from a `metadata.name=` field selector term. */
  name: string;
  /** The path from the resource on: resource/name/subresource/... */
  parts: string[];
  /** The raw selectors of list, watch and deletecollection requests (for authorization). */
  fieldSelector: string;
  labelSelector: string;
  /**
   * A list's, watch's or deletecollection's query decoded as kube's parameter codec decodes it
   * (or the 400 it gives), once, here; undefined for other requests.
   */
  listOptions?: ListQuery | ApiError;
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
/** Path segments that are verbs, not resources: /api/v1/watch/pods. */
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
/** Segments after /namespaces/<name>/ that are the namespace's own subresources. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const VERBS_WITH_SELECTORS = new Set(['list', 'watch', 'deletecollection']);

/** Methods are matched as sent, case and all, as Go's switch on req.Method does. */
const METHOD_VERBS = new Map([
  ['POST', 'create'],
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

/** Go's url.PathUnescape: %XX to bytes, read as UTF-8; a bad escape is the error Go gives. */
function unescapePath(path: string): string {
  if (!path.includes('%')) return path;
  const bytes: number[] = [];
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === '%') {
      const hex = path.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw badRequest(`invalid URL escape ${goQuote(path.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

const SLASH = 0x2f;

/** Go's strings.Split(strings.Trim(path, "/"), "/"), empty for an empty path; by index, not a regex (every request runs it). */
const splitPath = (path: string): string[] => {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start++;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--;
  return start === end ? [] : path.slice(start, end).split('/');
};

/**
 * RequestInfoFactory.NewRequestInfo. `path` is the URL path as received (still escaped);
 * `query` the parsed query string.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const decodedPath = unescapePath(path);
  const info: RequestInfo = {
    isResourceRequest: false,
    path: decodedPath,
    verb: method.toLowerCase(),
    verbInPath: false,
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    namespacedPath: false,
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    fieldSelector: '',
    labelSelector: '',
  };
  let parts = splitPath(decodedPath);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (!GROUPLESS_PREFIXES.has(info.apiPrefix)) {
    // /apis/<group>/<version>/<resource> needs four parts in all.
    if (parts.length < 3) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  info.isResourceRequest = true;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);

  if (SPECIAL_VERBS.has(parts[0]!)) {
    if (parts.length < 2) {
      // kube's WithRequestInfo filter answers this with a 500.
      const url = query.size > 0 ? `${path}?${query.toString()}` : path;
      throw internalError(
        new Error(`failed to create RequestInfo: unable to determine kind and namespace from url, ${url}`),
      );
    }
    info.verb = parts[0]!;
    parts = parts.slice(1);
    info.verbInPath = true;
  } else {
    info.verb = METHOD_VERBS.get(method) ?? '';
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      // /namespaces/<ns>/<resource>/...: the rest is a namespaced resource, unless it is the
      // namespace's own subresource (/namespaces/<ns>/status), which keeps "namespaces" as resource.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) {
        parts = parts.slice(2);
        info.namespacedPath = true;
      }
    }
  }
  info.parts = parts;
  info.resource = parts[0] ?? '';
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2]!;

  if (info.name === '' && (info.verb === 'get' || info.verb === 'delete' || info.verb === 'watch'))
    info.listOptions = tryDecodeListOptions(query);
  if (info.name === '' && info.verb === 'get') {
    const options = info.listOptions instanceof ApiError ? undefined : info.listOptions;
    // Options that do not decode still say whether this is a watch.
    const watch = options ? options.watch : queryBool(query.getAll('watch'));
    info.verb = watch ? 'watch' : 'list';
    const selectedName = options && requiresExactMatch(options.fieldSelector, 'metadata.name');
    if (selectedName !== undefined && isPathSegmentName(selectedName).length === 0) info.name = selectedName;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';

  if (!info.verbInPath && VERBS_WITH_SELECTORS.has(info.verb)) {
    info.fieldSelector = query.get('fieldSelector') ?? '';
    info.labelSelector = query.get('labelSelector') ?? '';
  }
  return info;
}

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * kube's BasicLongRunningRequestCheck: requests that may legitimately stay open (watches), left
 * out of the in-flight limits and the request timeout.
 */
export function isLongRunning(info: RequestInfo): boolean {
  return (
    LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  );
}

// ---- Query parameters ------------------------------------------------------------------------

/**
 * How kube reads a boolean query parameter (runtime.Convert_Slice_string_To_bool): absent is
 * false; "0" and "false" in any case are false; anything else, "" included, is true. So
 * `watch=true`, `watch=True` and `watch=1` all watch.
 */
export function queryBool(values: readonly string[]): boolean {
  if (values.length === 0) return false;
  const v = values[0]!;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** The same for an optional parameter (Convert_Slice_string_To_Pointer_bool): absent is unset. */
export const queryOptionalBool = (text: string | null): boolean | undefined =>
  text === null ? undefined : queryBool([text]);

/** Go's strconv.ParseBool (used for `pretty`): undefined where Go returns an error. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/**
 * A query parameter kube decodes as int64 (limit, timeoutSeconds, gracePeriodSeconds):
 * undefined when absent; a value strconv.ParseInt rejects is the 400 kube sends, its text.
 */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const parsed = parseGoInt64(raw);
  if ('error' in parsed) throw badRequest(`strconv.ParseInt: ${parsed.error}`);
  return Number(parsed.value);
}

/** metav1.ListOptions as the parameter codec decodes it from the query string. */
export interface ListQuery {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  timeoutSeconds?: number;
  /** 0 when absent; kube pages only when positive. */
  limit: number;
  continue: string;
  sendInitialEvents?: boolean;
}

/** decodeListOptions, its 400 returned rather than thrown. */
function tryDecodeListOptions(query: URLSearchParams): ListQuery | ApiError {
  try {
    return decodeListOptions(query);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

/**
 * ParameterCodec.DecodeParameters into ListOptions, failing as kube does, with the 400 the list
 * handler sends: first the integers (timeoutSeconds, then limit), then the label selector, then
 * the field selector. Selectors come back unconverted (see convertFieldSelector).
 */
export function decodeListOptions(query: URLSearchParams): ListQuery {
  const timeoutSeconds = queryInt64(query, 'timeoutSeconds');
  const limit = queryInt64(query, 'limit') ?? 0;
  const labels = query.get('labelSelector');
  const fields = query.get('fieldSelector');
  const options: ListQuery = {
    labelSelector: labels ? parseLabelSelector(labels) : EVERYTHING,
    fieldSelector: fields ? parseFieldSelector(fields) : { terms: [] },
    watch: queryBool(query.getAll('watch')),
    allowWatchBookmarks: queryBool(query.getAll('allowWatchBookmarks')),
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    limit,
    continue: query.get('continue') ?? '',
  };
  if (timeoutSeconds !== undefined) options.timeoutSeconds = timeoutSeconds;
  if (query.has('sendInitialEvents')) options.sendInitialEvents = queryBool(query.getAll('sendInitialEvents'));
  return options;
}
