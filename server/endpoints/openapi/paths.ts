// A resource's paths and operations, as kube's CRD builder registers them (generateBuilder) and
// kube-openapi renders them: operation ids and tags, the option structs' query parameters,
// bodies, responses; parameters every operation shares hoisted to the path.
import type { JsonObject } from '../../../apimachinery/object.js';
import { subresourceVerbs } from '../../registry/catalog.js';
import {
  DELETE_OPTIONS,
  type Flavor,
  type OpenAPIResource,
  PATCH,
  type Refs,
  SCALE,
  STATUS,
  definitionName,
  isCompiledIn,
  groupVersionPath,
} from './definitions.js';

type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface Param {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'integer' | 'boolean';
  description: string;
}

interface Route {
  path: string;
  method: Method;
  action: Action;
  /** kube's operation ID verb and the rest: `list` + `NamespacedCache`. */
  verb: string;
  rest: string;
  description: string;
  params: Param[];
  body?: { definition: string; required: boolean; consumes: string[] };
  /** Status code, description, definition name. */
  responses: Array<[number, string, string]>;
}

const q = (name: string, type: Param['type'], description: string): Param => ({ name, in: 'query', type, description });

const RESOURCE_VERSION_DOC =
  'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.';
const DRY_RUN = q(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. The only valid value is All.',
);
const FIELD_MANAGER = q(
  'fieldManager',
  'string',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
);

const LIST_OPTIONS = [
  q(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers may ignore it.',
  ),
  q(
    'continue',
    'string',
    'The continue token of a previous paged list: the server continues the list where it stopped.',
  ),
  q(
    'fieldSelector',
    'string',
    'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  ),
  q(
    'labelSelector',
    'string',
    'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  ),
  q(
    'limit',
    'integer',
    'The maximum number of responses to return for a list call; continue is set when more items exist.',
  ),
  q('resourceVersion', 'string', RESOURCE_VERSION_DOC),
  q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  q(
    'sendInitialEvents',
    'boolean',
    'With watch=true, the stream begins with synthetic ADDED events for the current state, then a BOOKMARK.',
  ),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of any activity or inactivity.'),
  q(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
  ),
];

/** The query parameters of kube's option structs (metav1 GetOptions, ListOptions, ...) per action. */
const OPTIONS: Record<Action, Param[]> = {
  get: [q('resourceVersion', 'string', RESOURCE_VERSION_DOC)],
  list: LIST_OPTIONS,
  // kube's CRD builder gives deletecollection the ListOptions
  deletecollection: LIST_OPTIONS,
  post: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
  put: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
  patch: [
    DRY_RUN,
    FIELD_MANAGER,
    FIELD_VALIDATION,
    q(
      'force',
      'boolean',
      'Force re-acquires conflicting fields owned by other managers on Apply requests. Must be unset for non-apply patches.',
    ),
  ],
  delete: [
    DRY_RUN,
    q(
      'gracePeriodSeconds',
      'integer',
      'The duration in seconds before the object should be deleted; zero means delete immediately.',
    ),
    q(
      'ignoreStoreReadErrorWithClusterBreakingPotential',
      'boolean',
      'If true, delete an object whose stored data cannot be read (e.g. undecryptable). Unsafe.',
    ),
    q(
      'orphanDependents',
      'boolean',
      'Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned.',
    ),
    q(
      'propagationPolicy',
      'string',
      'Whether and how garbage collection will be performed: Orphan, Background or Foreground.',
    ),
  ],
};

const PRETTY = q(
  'pretty',
  'string',
  "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
);
const JSON_YAML = ['application/json', 'application/yaml'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

const title = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** kube's GetArticleForNoun: plurals get none. */
function article(noun: string): string {
  if (noun.endsWith('s') && !noun.endsWith('ss')) return ' ';
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

/** The routes kube's CRD builder registers for one resource (generateBuilder), limited to its verbs. */
function routesFor(r: OpenAPIResource): Route[] {
  const { kind } = r.names;
  const kindDef = definitionName(r, kind);
  const listDef = definitionName(r, r.names.listKind);
  const base = `/${groupVersionPath(r.group, r.version)}`;
  const ns = r.namespaced ? 'Namespaced' : '';
  // kubectl computes a strategic merge patch from the v3 schema when the PATCH operation offers
  // it, and warns on every apply when the schema has no fields (our built-ins are permissive), so
  // it is offered only with a real schema; kubectl then falls back to v2 quietly.
  const patchTypes =
    isCompiledIn(r) && r.schema ? [...PATCH_TYPES, 'application/strategic-merge-patch+json'] : PATCH_TYPES;
  const routes: Route[] = [];

  const route = (
    root: string,
    sub: string | undefined,
    verb: string,
    action: Action,
    sample: string,
    body?: string,
  ): Route => {
    const path = `${root}${sub === undefined ? '' : sub ? `/{name}/${sub}` : '/{name}'}`;
    const method: Method = action === 'list' ? 'get' : action === 'deletecollection' ? 'delete' : action;
    const of = sub ? ` ${sub} of` : '';
    const description =
      verb === 'list'
        ? `list objects of kind ${kind}`
        : verb === 'create' || verb === 'delete'
          ? `${verb}${of}${article(kind)}${kind}`
          : verb === 'patch'
            ? `partially update${of} the specified ${kind}`
            : verb === 'deletecollection'
              ? `delete collection of${sub ? ` ${sub} of a` : ''} ${kind}`
              : `${verb}${of} the specified ${kind}`;
    const params: Param[] = [PRETTY, ...OPTIONS[action]];
    if (path.includes('{namespace}'))
      params.push({
        name: 'namespace',
        in: 'path',
        type: 'string',
        description: 'object name and auth scope, such as for teams and projects',
      });
    if (path.includes('{name}'))
      params.push({ name: 'name', in: 'path', type: 'string', description: `name of the ${kind}` });
    const responses: Route['responses'] = [[200, 'OK', sample]];
    if (action === 'post') responses.push([201, 'Created', sample], [202, 'Accepted', sample]);
    if (action === 'put') responses.push([201, 'Created', sample]);
    if (action === 'delete') responses.push([202, 'Accepted', sample]);
    const built: Route = {
      path,
      method,
      action,
      description,
      params,
      responses,
      verb: verb === 'deletecollection' ? 'delete' : verb,
      rest: `${verb === 'deletecollection' ? 'Collection' : ''}${ns}${kind}${title(sub ?? '')}`,
    };
    if (body)
      built.body = {
        definition: body,
        required: action !== 'delete',
        consumes: action === 'patch' ? patchTypes : JSON_YAML,
      };
    return built;
  };

  const has = (verb: string): boolean => r.verbs.includes(verb);
  let root = `${base}/${r.names.plural}`;
  if (r.namespaced && has('list'))
    routes.push({ ...route(root, undefined, 'list', 'list', listDef), rest: `${kind}ForAllNamespaces` });
  if (r.namespaced) root = `${base}/namespaces/{namespace}/${r.names.plural}`;
  if (has('list')) routes.push(route(root, undefined, 'list', 'list', listDef));
  if (has('create')) routes.push(route(root, undefined, 'create', 'post', kindDef, kindDef));
  if (has('deletecollection')) routes.push(route(root, undefined, 'deletecollection', 'deletecollection', STATUS));
  if (has('get')) routes.push(route(root, '', 'read', 'get', kindDef));
  if (has('update')) routes.push(route(root, '', 'replace', 'put', kindDef, kindDef));
  if (has('delete')) routes.push(route(root, '', 'delete', 'delete', STATUS, DELETE_OPTIONS));
  if (has('patch')) routes.push(route(root, '', 'patch', 'patch', kindDef, PATCH));
  for (const sub of r.subresources) {
    const sample = sub === 'scale' ? SCALE : kindDef;
    const verbs = subresourceVerbs(sub);
    if (verbs.includes('get')) routes.push(route(root, sub, 'read', 'get', sample));
    if (verbs.includes('update')) routes.push(route(root, sub, 'replace', 'put', sample, sample));
    if (verbs.includes('patch')) routes.push(route(root, sub, 'patch', 'patch', sample, PATCH));
  }
  return routes;
}

/** kube's ToValidOperationID: letters, `_` and non-leading digits, camel-cased at separators. */
function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...s].forEach((c, i) => {
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && /\p{Nd}/u.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

/** kube's GetOperationIDAndTags: `listCacheExampleComV1NamespacedCache`, tag `cacheExampleCom_v1`. */
function operationIdAndTag(route: Route, group: string, version: string): { id: string; tag: string } {
  const g = (group || 'core').replace(/\.k8s\.io$/, '');
  return {
    id:
      route.verb +
      toValidOperationID(g, true) +
      toValidOperationID(version, true) +
      toValidOperationID(route.rest, true),
    tag: `${toValidOperationID(g, false)}_${toValidOperationID(version, false)}`,
  };
}

const paramKey = (p: Param): string => `${p.in}\0${p.name}`;

function renderParam(p: Param, flavor: Flavor): JsonObject {
  const out: JsonObject =
    flavor === 'v2'
      ? { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in }
      : { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.in === 'path') out['required'] = true;
  return out;
}

/** Rendered parameters in kube's order (builder3 sortParameters): by name, then location. */
function sortRendered(params: JsonObject[]): JsonObject[] {
  const key = (p: JsonObject): string => `${String(p['name'])}\0${String(p['in'])}`;
  return params.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function renderOperation(
  route: Route,
  hoisted: Set<string>,
  gvk: JsonObject,
  refs: Refs,
  group: string,
  version: string,
): JsonObject {
  const { id, tag } = operationIdAndTag(route, group, version);
  const params = route.params.filter((p) => !hoisted.has(paramKey(p))).map((p) => renderParam(p, refs.flavor));
  const op: JsonObject = { description: route.description };
  const responses: JsonObject = {};
  for (const [code, description, definition] of route.responses) {
    responses[code] =
      refs.flavor === 'v2'
        ? { description, schema: refs.to(definition) }
        : { description, content: Object.fromEntries(JSON_YAML.map((ct) => [ct, { schema: refs.to(definition) }])) };
  }
  responses[401] = { description: 'Unauthorized' };
  const body = route.body;
  if (refs.flavor === 'v2') {
    op['consumes'] = body?.consumes ?? JSON_YAML;
    op['produces'] = JSON_YAML;
    op['schemes'] = ['https'];
    if (body)
      params.push({
        name: 'body',
        in: 'body',
        schema: refs.to(body.definition),
        ...(body.required ? { required: true } : {}),
      });
  } else if (body) {
    const content = Object.fromEntries(body.consumes.map((ct) => [ct, { schema: refs.to(body.definition) }]));
    op['requestBody'] = body.required ? { content, required: true } : { content };
  }
  op['tags'] = [tag];
  op['operationId'] = id;
  if (params.length) op['parameters'] = sortRendered(params);
  op['responses'] = responses;
  op['x-kubernetes-action'] = route.action;
  op['x-kubernetes-group-version-kind'] = gvk;
  return op;
}

/** A resource's paths, each with its operations, added to a document's `paths`. */
export function addResourcePaths(paths: JsonObject, r: OpenAPIResource, refs: Refs): void {
  const gvk: JsonObject = { group: r.group, version: r.version, kind: r.names.kind };
  const byPath = new Map<string, Route[]>();
  for (const route of routesFor(r)) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, routes] of byPath) {
    // Parameters every operation has move to the path, as kube's builder3 does; but kubectl
    // 1.29+ looks for fieldValidation only among the PATCH operation's own parameters.
    const common = routes[0]!.params.filter(
      (p) => p.name !== FIELD_VALIDATION.name && routes.every((x) => x.params.some((y) => paramKey(y) === paramKey(p))),
    );
    const hoisted = new Set(common.map(paramKey));
    const item: JsonObject = {};
    if (common.length) item['parameters'] = sortRendered(common.map((p) => renderParam(p, refs.flavor)));
    for (const route of routes) item[route.method] = renderOperation(route, hoisted, gvk, refs, r.group, r.version);
    paths[path] = item;
  }
}
