// kube's dynamic admission webhooks (k8s.io/apiserver/pkg/admission/plugin/webhook): the
// MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins.
//
//   generic/webhook.go      which webhooks a request is for (rules.ts, match-conditions.ts), the
//                           exemption of the webhook configuration kinds
//   mutating/dispatcher.go  webhooks called one after the other, each seeing the object as the
//                           previous left it; JSONPatch answers applied; `reinvocationPolicy:
//                           IfNeeded` webhooks called once more when a later one changed the object
//   validating/dispatcher.go  webhooks called at once, in parallel; the first refusal to arrive wins
//
// Configurations come from a getter, read at each request; their webhooks are taken in the order
// of the configurations' names, then as listed (kube's configuration manager). Every call has its
// own deadline (webhook/client.ts), so a slow webhook holds only the requests it is called for.
//
// Errors are kube's: a failed call is `failed calling webhook "<name>": <why>`, a 500 under
// failurePolicy Fail and ignored under Ignore; a denial is `admission webhook "<name>" denied the
// request: <message>` with the webhook's status code (400 if it gave none, or one below 400).
import { randomUUID } from 'node:crypto';
import { ApiError, forbidden, internalError, notFound, qualifiedString, timeout } from '../../apimachinery/errors.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { goQuote } from '../../apimachinery/field-errors.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import {
  cloneJson,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '../../apimachinery/object.js';
import { parseGroupVersion } from '../../apimachinery/versions.js';
import { caBundleError } from '../../webhook/ca-bundle.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type EndpointOptions,
  WebhookCallError,
  decodeResponse,
  postWebhook,
  webhookEndpoint,
} from '../../webhook/client.js';
import type { AdmissionPlugin, Attributes } from '../interface.js';
import type { Authorizer } from '../../apimachinery/authorization.js';
import { authorization, type Compiled, objectValue } from '../cel/evaluate.js';
import { compileWebhookMatchConditions, evaluateMatchConditions } from './match-conditions.js';
import {
  NO_KNOWN_REVIEW_VERSION,
  type AdmissionResponse,
  type ReviewRequest,
  admissionReview,
  celRequest,
  decodeAdmissionReview,
  defaultOptions,
  dryRunUnsupported,
  reviewVersionFor,
  toStatusError,
  verifyAdmissionResponse,
} from './review.js';
import {
  type GroupVersionResource,
  type RuleAttributes,
  isExemptAdmissionConfigurationResource,
  matchRules,
  namespaceLabelSource,
  objectSelectorMatches,
  parseWebhookSelector,
  selectsEverything,
} from './rules.js';
import { matchesLabels } from '../../apimachinery/selectors/labels.js';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, type MutatingWebhookSpec, type WebhookSpec } from './types.js';

/**
 * What the plugins read beyond kube's Attributes, all optional. The registry can add them to the
 * attributes it passes (a spread copy for the validating phase keeps them).
 */
export interface WebhookAttributes extends Attributes {
  /** The request's API version (kube's GetKind().Version); default: the object's (or old object's) apiVersion. */
  version?: string;
  /** The operation's options as the client sent them (CreateOptions, UpdateOptions, DeleteOptions); default kube's empty ones. */
  options?: JsonObject;
  /** When the request must be done (epoch ms): no webhook is waited on past it. */
  deadline?: number;
}

export interface WebhookPluginOptions {
  /** The MutatingWebhookConfiguration (resp. ValidatingWebhookConfiguration) objects, read at each request. */
  configurations: () => readonly KubeObject[];
  /** A namespace's labels, for namespaceSelector; undefined when there is no such namespace (a 404, as kube). */
  namespaceLabels: (name: string) => Promise<Readonly<Record<string, string>> | undefined>;
  /** A warning for the request's response (a webhook's `warnings`). */
  warn?: (a: Attributes, message: string) => void;
  /** An audit annotation for the request's event (a webhook's `auditAnnotations`, kube's own mutation/failed-open ones). */
  annotate?: (a: Attributes, key: string, value: string) => void;
  /** A failure ignored under failurePolicy Ignore (kube logs it). */
  onIgnoredError?: (webhook: string, message: string) => void;
  /** Where to dial a clientConfig.service (webhook/client.ts). */
  serviceResolver?: EndpointOptions['serviceResolver'];
  /** Largest answer read from a webhook. Default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** What matchConditions' `authorizer` asks (the server's authorizer chain). */
  authorizer?: Authorizer;
}

interface MutatingWebhookPluginOptions extends WebhookPluginOptions {
  /**
   * RFC 6902 applied to a document (server/endpoints/patch/json-patch.ts applyJsonPatchOperations):
   * returns the patched document, throws an Error whose message is the patch library's. It may
   * change `doc`: it is given a copy.
   */
  applyJsonPatch: (doc: JsonValue, operations: readonly JsonObject[]) => JsonValue;
}

const MUTATING_PLUGIN_NAME = 'MutatingAdmissionWebhook';
const VALIDATING_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

/** One webhook of one configuration. */
interface Hook {
  /** Unique per configuration and position (kube's accessor uid). */
  uid: string;
  configurationName: string;
  spec: MutatingWebhookSpec;
}

/** webhookutil.ErrCallingWebhook: the call failed, which failurePolicy decides about. */
class CallingWebhookError extends Error {
  constructor(
    readonly webhook: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook ${goQuote(webhook)}: ${reason}`);
    this.name = 'CallingWebhookError';
  }
}

/** The configurations' webhooks, configurations by name (kube's hook source sorts them). */
function hooksOf(configurations: readonly KubeObject[]): Hook[] {
  const configs = [...configurations].sort((a, b) => {
    const x = a.metadata?.name ?? '';
    const y = b.metadata?.name ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const hooks: Hook[] = [];
  for (const c of configs) {
    const name = c.metadata?.name ?? '';
    const webhooks = (c as { webhooks?: unknown }).webhooks;
    if (!Array.isArray(webhooks)) continue;
    webhooks.forEach((w: unknown, i) => {
      if (isJsonObject(w))
        hooks.push({ uid: `${name}/${i}`, configurationName: name, spec: w as unknown as MutatingWebhookSpec });
    });
  }
  return hooks;
}

/** The request as the webhooks see it: versions, and the namespace a namespace's own request names. */
interface Request {
  a: WebhookAttributes;
  rule: RuleAttributes & { name: string; object?: KubeObject | undefined };
  requestKind: { group: string; version: string; kind: string };
  requestResource: GroupVersionResource;
  /** Namespace lookups, once per request. */
  namespaces: Map<string, Promise<Readonly<Record<string, string>> | undefined>>;
}

function versionOf(a: WebhookAttributes): string {
  if (a.version) return a.version;
  for (const o of [a.object, a.oldObject]) {
    const gv = typeof o?.apiVersion === 'string' ? parseGroupVersion(o.apiVersion) : undefined;
    if (gv) return gv.version;
  }
  return '';
}

function requestOf(a: WebhookAttributes): Request {
  const version = versionOf(a);
  const resource = { group: a.resource.group, version, resource: a.resource.name };
  const isNamespace = resource.group === '' && resource.resource === 'namespaces';
  return {
    a,
    rule: {
      operation: a.operation,
      resource,
      subresource: a.subresource,
      namespace: a.namespace || (isNamespace ? a.name : ''),
      name: a.name,
      object: a.object,
    },
    requestKind: { group: a.kind.group, version, kind: a.kind.name },
    requestResource: resource,
    namespaces: new Map(),
  };
}

type Decision = { matches: boolean; error?: ApiError };

async function namespaceDecision(
  spec: WebhookSpec,
  req: Request,
  lookup: WebhookPluginOptions['namespaceLabels'],
): Promise<Decision> {
  let selector;
  try {
    selector = parseWebhookSelector(spec.namespaceSelector);
  } catch (err) {
    return { matches: false, error: err as ApiError };
  }
  const source = namespaceLabelSource(req.rule);
  if (!source || selectsEverything(selector)) return { matches: true };
  let labels: Readonly<Record<string, string>> | undefined;
  if ('labels' in source) labels = source.labels;
  else {
    let p = req.namespaces.get(source.lookup);
    if (!p) req.namespaces.set(source.lookup, (p = lookup(source.lookup)));
    try {
      labels = await p;
    } catch (err) {
      return { matches: false, error: err instanceof ApiError ? err : internalError(err) };
    }
    if (!labels) return { matches: false, error: notFound({ group: '', name: 'namespaces' }, source.lookup) };
  }
  return { matches: matchesLabels(selector, labels) };
}

function objectDecision(spec: WebhookSpec, req: Request): Decision {
  try {
    return { matches: objectSelectorMatches(parseWebhookSelector(spec.objectSelector), req.a.object, req.a.oldObject) };
  } catch (err) {
    return { matches: false, error: err as ApiError };
  }
}

/** The review's request for `hook`, with `object` as the webhook is to see it. */
function reviewRequest(req: Request, object: KubeObject | undefined): ReviewRequest {
  const a = req.a;
  return {
    uid: randomUUID(),
    kind: req.requestKind,
    resource: req.requestResource,
    subResource: a.subresource,
    requestKind: req.requestKind,
    requestResource: req.requestResource,
    requestSubResource: a.subresource,
    name: a.name,
    namespace: req.rule.namespace,
    operation: a.operation,
    userInfo: a.userInfo,
    object,
    oldObject: a.oldObject,
    dryRun: a.dryRun,
    options: a.options ?? defaultOptions(a.operation, a.dryRun),
  };
}

/** A webhook's matchConditions, compiled once per configuration version (the informer's objects are new on change). */
const compiledMatchConditions = new WeakMap<WebhookSpec, Compiled[]>();
function compiledConditions(spec: WebhookSpec): Compiled[] {
  let c = compiledMatchConditions.get(spec);
  if (c === undefined) {
    c = compileWebhookMatchConditions(spec.matchConditions ?? []);
    compiledMatchConditions.set(spec, c);
  }
  return c;
}

/**
 * generic.Webhook.ShouldCallHook: whether `hook` is called for the request (selectors, rules,
 * matchConditions); throws a selector's or a condition's error (only for a webhook whose rules match).
 */
async function shouldCall(
  hook: Hook,
  req: Request,
  object: KubeObject | undefined,
  opts: WebhookPluginOptions,
): Promise<boolean> {
  const spec = hook.spec;
  const ns = await namespaceDecision(spec, req, opts.namespaceLabels);
  if (!ns.matches && !ns.error) return false;
  const obj = objectDecision(spec, req);
  if (!obj.matches && !obj.error) return false;
  if (!matchRules(spec.rules, spec.matchPolicy, req.rule)) return false;
  if (ns.error) throw ns.error;
  if (obj.error) throw obj.error;
  const conditions = spec.matchConditions ?? [];
  if (conditions.length === 0) return true;
  const r = reviewRequest(req, object);
  const { a } = req;
  const result = evaluateMatchConditions(
    compiledConditions(spec),
    {
      object: objectValue(r.object),
      oldObject: objectValue(r.oldObject),
      request: objectValue(celRequest(r)),
      namespaceObject: null,
      params: null,
      ...authorization(a, opts.authorizer),
    },
    spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
  );
  if (result.error !== undefined) {
    // apierrors.NewForbidden(resource, name, err)
    const resource = { group: req.a.resource.group, name: req.a.resource.name };
    const subject = req.a.name ? `${qualifiedString(resource)} ${goQuote(req.a.name)}` : qualifiedString(resource);
    throw forbidden(`${subject} is forbidden: ${result.error}`, {
      name: req.a.name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.name,
    });
  }
  return result.matches;
}

const timeoutSecondsOf = (spec: WebhookSpec): number => {
  const t = spec.timeoutSeconds;
  if (typeof t !== 'number' || !Number.isFinite(t)) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(Math.max(Math.floor(t), 1), MAX_TIMEOUT_SECONDS);
};

/**
 * One call (callHook / callAttrMutatingHook up to the answer): the dry-run check, the review, the
 * POST under the webhook's timeout (and the request's deadline), the answer checked, its
 * annotations and warnings passed on. Returns the answer of a webhook that allowed the request;
 * throws its denial (ApiError), a CallingWebhookError, or the dry-run refusal.
 */
async function callHook(
  spec: WebhookSpec,
  review: ReviewRequest,
  mutating: boolean,
  a: WebhookAttributes,
  opts: WebhookPluginOptions,
): Promise<AdmissionResponse> {
  const calling = (reason: string): CallingWebhookError => new CallingWebhookError(spec.name, reason);
  if (a.dryRun) {
    if (spec.sideEffects === undefined || spec.sideEffects === null) throw calling('Webhook SideEffects is nil');
    if (spec.sideEffects !== 'None' && spec.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(spec.name);
  }
  const version = reviewVersionFor(spec.admissionReviewVersions);
  if (!version) throw calling(`could not create admission objects: ${NO_KNOWN_REVIEW_VERSION}`);
  // The webhook's own timeout, cut short by the request's deadline; the rest client's `?timeout=`
  // is what remains, rounded up to a second.
  let deadlineMs = timeoutSecondsOf(spec) * 1000;
  if (a.deadline !== undefined) deadlineMs = Math.min(deadlineMs, a.deadline - Date.now());
  const queryMs = Math.max(1000, Math.ceil(deadlineMs / 1000) * 1000);
  const endpoint = webhookEndpoint(spec.clientConfig, queryMs, {
    ...(opts.serviceResolver ? { serviceResolver: opts.serviceResolver } : {}),
    caBundleError,
  });
  if ('error' in endpoint) throw calling(`could not get REST client: ${endpoint.error}`);
  let doc: JsonObject;
  try {
    if (deadlineMs <= 0) throw new WebhookCallError(`Post ${goQuote(endpoint.display)}: context deadline exceeded`);
    const res = await postWebhook(
      endpoint,
      stringifyJSON(admissionReview(version, review)),
      deadlineMs,
      opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    );
    doc = decodeResponse(res);
    decodeAdmissionReview(doc, version);
  } catch (err) {
    if (err instanceof WebhookCallError) throw calling(`failed to call webhook: ${err.message}`);
    throw err;
  }
  let result: AdmissionResponse;
  try {
    result = verifyAdmissionResponse(review.uid, mutating, version, doc);
  } catch (err) {
    throw calling(`received invalid webhook response: ${(err as Error).message}`);
  }
  for (const [k, v] of Object.entries(result.auditAnnotations)) opts.annotate?.(a, `${spec.name}/${k}`, v);
  for (const w of result.warnings) opts.warn?.(a, w);
  if (!result.allowed) throw toStatusError(spec.name, result.result);
  return result;
}

/**
 * What a failed call comes to under the webhook's failurePolicy: undefined when it is ignored
 * (the failure reported, the failed-open annotation made), else the error to answer with.
 */
function failureOutcome(
  err: unknown,
  spec: WebhookSpec,
  a: WebhookAttributes,
  opts: WebhookPluginOptions,
  failedOpenKey: string,
): ApiError | undefined {
  if (err instanceof CallingWebhookError) {
    if (spec.failurePolicy === 'Ignore') {
      opts.onIgnoredError?.(spec.name, err.message);
      opts.annotate?.(a, failedOpenKey, spec.name);
      // The request's own deadline has passed: no point going on.
      if (a.deadline !== undefined && Date.now() >= a.deadline)
        return timeout('Timeout: request did not complete within requested timeout');
      return undefined;
    }
    return internalError(new Error(err.message));
  }
  return err instanceof ApiError ? err : internalError(err);
}

// ---------------------------------------------------------------------------------------------
// Mutating

/** jsonpatch.DecodePatch: a JSON array of objects. Throws Go's text. */
function decodePatch(bytes: Buffer): JsonObject[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    const text = bytes.toString('utf8').trim();
    throw new Error(
      text === ''
        ? 'unexpected end of JSON input'
        : `invalid character ${goQuote(text[0]!).replace(/^"|"$/g, "'")} looking for beginning of value`,
    );
  }
  if (parsed === null) return [];
  const kindOf = (v: unknown): string =>
    Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : v === null ? 'null' : typeof v;
  if (!Array.isArray(parsed))
    throw new Error(`json: cannot unmarshal ${kindOf(parsed)} into Go value of type jsonpatch.Patch`);
  return parsed.map((op: unknown) => {
    if (op === null) return {};
    if (!isJsonObject(op))
      throw new Error(`json: cannot unmarshal ${kindOf(op)} into Go value of type jsonpatch.Operation`);
    return op;
  });
}

/** Makes `target` equal to `source` keeping the identity of `target` and of objects in both (metadata). */
function replaceInPlace(target: JsonObject, source: JsonObject): void {
  for (const k of Object.keys(target)) if (!Object.hasOwn(source, k)) delete target[k];
  for (const [k, v] of Object.entries(source)) {
    const t = target[k];
    if (isJsonObject(t) && isJsonObject(v)) replaceInPlace(t, v);
    else target[k] = v;
  }
}

/** A webhook's patch applied: the new object, or the error that ends the request. */
function applyPatch(
  hook: Hook,
  result: AdmissionResponse,
  object: KubeObject | undefined,
  opts: MutatingWebhookPluginOptions,
): { object: KubeObject; ops: JsonObject[] } | undefined {
  const name = hook.spec.name;
  if (result.patch.length === 0) return undefined;
  let ops: JsonObject[];
  try {
    ops = decodePatch(result.patch);
  } catch (err) {
    throw new CallingWebhookError(name, `received undecodable patch in webhook response: ${(err as Error).message}`);
  }
  if (ops.length === 0) return undefined;
  if (!object)
    throw internalError(
      new Error(
        `admission webhook ${goQuote(name)} attempted to modify the object, which is not supported for this operation`,
      ),
    );
  if (result.patchType !== 'JSONPatch')
    throw new CallingWebhookError(name, `unsupported patch type ${goQuote(result.patchType)}`);
  let patched: JsonValue;
  try {
    patched = opts.applyJsonPatch(cloneJson(object) as unknown as JsonValue, ops);
  } catch (err) {
    throw err instanceof ApiError ? err : internalError(err);
  }
  if (!isJsonObject(patched))
    throw internalError(
      new Error(
        `json: cannot unmarshal ${Array.isArray(patched) ? 'array' : patched === null ? 'null' : typeof patched} into Go value of type map[string]interface {}`,
      ),
    );
  return { object: patched as unknown as KubeObject, ops };
}

/** mutating.Dispatch: the webhooks in order, then once more those that asked to be (IfNeeded) if a later one changed the object. */
async function dispatchMutating(a: WebhookAttributes, opts: MutatingWebhookPluginOptions): Promise<void> {
  if (isExemptAdmissionConfigurationResource(a.kind)) return;
  const hooks = hooksOf(opts.configurations());
  if (hooks.length === 0) return;
  const req = requestOf(a);
  let object = a.object;
  let dirty = false;
  // webhookReinvokeContext
  let previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let shouldReinvoke = false;

  for (const round of [0, 1]) {
    if (round === 1 && !shouldReinvoke) break;
    for (const [i, hook] of hooks.entries()) {
      const spec = hook.spec;
      req.rule.object = object;
      if (!(await shouldCall(hook, { ...req, a: { ...a, object } }, object, opts))) continue;
      // A webhook is never called for the first time when reinvoking.
      if (round === 1 && !reinvoke.has(hook.uid)) continue;
      let changed = false;
      let error: unknown;
      try {
        const result = await callHook(spec, reviewRequest(req, object), true, a, opts);
        const patched = applyPatch(hook, result, object, opts);
        if (patched) {
          changed = !deepEqual(object, patched.object);
          opts.annotate?.(
            a,
            `patch.webhook.admission.k8s.io/round_${round}_index_${i}`,
            stringifyJSON({
              configuration: hook.configurationName,
              webhook: spec.name,
              patch: patched.ops,
              patchType: 'JSONPatch',
            }),
          );
          object = patched.object;
          a.defaultPatched?.(object);
          dirty = true;
        }
      } catch (err) {
        error = err;
      }
      opts.annotate?.(
        a,
        `mutation.webhook.admission.k8s.io/round_${round}_index_${i}`,
        stringifyJSON({ configuration: hook.configurationName, webhook: spec.name, mutated: changed }),
      );
      if (changed) {
        // RequireReinvokingPreviouslyInvokedPlugins
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked = new Set();
        shouldReinvoke = true;
      }
      if (spec.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(hook.uid);
      if (error === undefined) continue;
      const failure = failureOutcome(
        error,
        spec,
        a,
        opts,
        `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`,
      );
      if (failure) throw failure;
    }
  }
  if (dirty && a.object && object) replaceInPlace(a.object as unknown as JsonObject, object as unknown as JsonObject);
}

// ---------------------------------------------------------------------------------------------
// Validating

/** validating.Dispatch: the webhooks for the request called together; the first error to arrive is the answer. */
async function dispatchValidating(a: WebhookAttributes, opts: WebhookPluginOptions): Promise<void> {
  if (isExemptAdmissionConfigurationResource(a.kind)) return;
  const hooks = hooksOf(opts.configurations());
  if (hooks.length === 0) return;
  const req = requestOf(a);
  const relevant: Hook[] = [];
  for (const hook of hooks) if (await shouldCall(hook, req, a.object, opts)) relevant.push(hook);
  if (relevant.length === 0) return;
  const errors: ApiError[] = [];
  await Promise.all(
    relevant.map((hook, idx) =>
      callHook(hook.spec, reviewRequest(req, a.object), false, a, opts).then(
        () => undefined,
        (err: unknown) => {
          const failure = failureOutcome(
            err,
            hook.spec,
            a,
            opts,
            `failed-open.validating.webhook.admission.k8s.io/round_0_index_${idx}`,
          );
          if (failure) errors.push(failure);
        },
      ),
    ),
  );
  if (errors.length > 0) throw errors[0];
}

// ---------------------------------------------------------------------------------------------

/** MutatingAdmissionWebhook: the mutating phase of every operation. */
export function mutatingWebhookPlugin(opts: MutatingWebhookPluginOptions): AdmissionPlugin {
  return {
    name: MUTATING_PLUGIN_NAME,
    handles: () => true,
    // Only a webhook changes the object: none configured, none called.
    mutates: (a) => !isExemptAdmissionConfigurationResource(a.kind) && opts.configurations().length > 0,
    admit: (a) => dispatchMutating(a, opts),
  };
}

/** ValidatingAdmissionWebhook: the validating phase of every operation. */
export function validatingWebhookPlugin(opts: WebhookPluginOptions): AdmissionPlugin {
  return {
    name: VALIDATING_PLUGIN_NAME,
    handles: () => true,
    validate: (a) => dispatchValidating(a, opts),
  };
}
