// Converting custom resources between the versions of their CRD, as kube-apiserver's
// apiextensions-apiserver does it (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion):
//
//   converter.go          crConverter: the target and source versions must be versions of the CRD
//   nop_converter.go      strategy None: only apiVersion changes
//   webhook_converter.go  strategy Webhook: a ConversionReview POSTed to the CRD's webhook, whose
//                         answer is checked (uid, result, count, apiVersion, kind, metadata)
//
// and, for the HTTP call, client-go's rest client as the webhook client manager configures it
// (webhook/client.ts: k8s.io/apiserver/pkg/util/webhook, k8s.io/client-go/rest/request.go): a 30 s
// timeout that also appears as `?timeout=30s` in the URL, the caBundle as the only trusted roots
// (the system's when there is none), and Go's error texts, so a failure reads as it would from
// kube-apiserver.
//
// Everything here is pure except the one HTTPS request a webhook conversion makes. Inputs are never
// mutated; objects that need no conversion are returned as they came.
//
// Service references are turned into kube's URL, https://<name>.<namespace>.svc:<port><path>.
// kube-apiserver resolves that through the Service's endpoints; we have no Services, so the name is
// dialled through DNS (which works where cluster DNS answers for .svc names) unless the caller
// passes `serviceResolver`. TLS is verified against `<name>.<namespace>.svc` either way, as kube does.
import { randomUUID } from 'node:crypto';
import { ApiError, aggregateErrors, internalError } from '../apimachinery/errors.js';
import { formatFieldError, goQuote } from '../apimachinery/field-errors.js';
import { cloneJson, isJsonObject, type JsonObject, type KubeObject } from '../apimachinery/object.js';
import { validateAnnotations, validateLabels } from '../apimachinery/validation/object-meta.js';
import type { CustomResourceDefinition } from '../apimachinery/apis/apiextensions.js';
import { caBundleError } from '../webhook/ca-bundle.js';
import { jsonKind, stringifyJSON } from '../apimachinery/json.js';
import {
  type GroupVersion,
  type GroupVersionKind,
  gvkString,
  parseGroupVersion,
  unstructuredGVK,
} from '../apimachinery/versions.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpResult,
  type ServiceRef,
  WebhookCallError,
  type WebhookEndpoint,
  decodeResponse,
  postWebhook,
  webhookEndpoint,
} from '../webhook/client.js';

/** kube's conversion webhook timeout: the rest client's 30 s, which it also sends as `?timeout=30s`. */
const DEFAULT_CONVERSION_TIMEOUT_MS = 30_000;

interface ConvertOptions {
  /**
   * Whether `objects` are the items of one list: one ConversionReview for all of them and kube's
   * list wording (`conversion webhook for <group>/<toVersion>, Kind=<ListKind> ...`, "converted object
   * at index N"). Otherwise each object is converted as kube converts a single object (one review
   * each, `... for <group>/<itsVersion>, Kind=<Kind> ...`). Default: a list unless there is exactly
   * one object.
   */
  list?: boolean;
}

interface Converter {
  /**
   * `objects` in `toVersion` (e.g. "cache.example.com/v2"), in the same order. Objects already in
   * that version come back as they are (and are not sent to a webhook); the input is never mutated,
   * but results may share structure with it. Rejects with an ApiError, never with anything else.
   */
  convert(objects: KubeObject[], toVersion: string, opts?: ConvertOptions): Promise<KubeObject[]>;
}

export interface ConverterOptions {
  /** The webhook call's deadline, connection included. Default 30 s, as kube. */
  timeoutMs?: number;
  /**
   * Where to dial a `clientConfig.service` (kube's ServiceResolver). Without it the name
   * `<name>.<namespace>.svc` is looked up in DNS. May throw: its message becomes the dial error.
   */
  serviceResolver?: (service: ServiceRef) => { host: string; port: number };
  /** Largest webhook answer read. Default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
}

/**
 * A failed conversion, in kube's words. Its `status` is what kube-apiserver answers a read with:
 * conversion errors are plain Go errors, which responsewriters turns into a 500 with kube's text
 * as the message and no reason (ErrorToAPIStatus), so kubectl prints `Error from server: conversion
 * webhook for ... failed: ...`. Where kube's storage layer wraps the same error (some writes),
 * it is a 500 InternalError `Internal error occurred: ...`: `asInternalError()`.
 */
export class ConversionError extends ApiError {
  constructor(readonly detail: string) {
    // ErrorToAPIStatus' Status for an error that is not one: metav1.StatusReasonUnknown is "".
    super({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: detail,
      reason: '',
      code: 500,
    });
    this.name = 'ConversionError';
  }

  asInternalError(): ApiError {
    return internalError(new Error(this.detail));
  }
}

export function converterFor(crd: CustomResourceDefinition, opts: ConverterOptions = {}): Converter {
  const strategy = crd.spec.conversion?.strategy ?? 'None';
  let delegate: Delegate;
  if (strategy === 'None') delegate = nopConverter;
  else if (strategy === 'Webhook') delegate = new WebhookConverter(crd, opts);
  // kube cannot build the CRD's serving info at all (`unknown conversion strategy %q for CRD %s`).
  else delegate = unusable;
  return new CRConverter(crd, delegate);
}

// ---------------------------------------------------------------------------------------------
// Group/version/kind as apimachinery's schema package parses and prints them.

type GV = GroupVersion;
type GVK = GroupVersionKind;

/** A plain Go error whose text is kube's: becomes a ConversionError. */
class Fail extends WebhookCallError {}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** metav1.TypeMeta's GroupVersionKind() (FromAPIVersionAndKind): the kind survives a bad apiVersion. */
function typeMetaGVK(o: JsonObject): GVK {
  const gv = parseGroupVersion(str(o['apiVersion'])) ?? { group: '', version: '' };
  return { ...gv, kind: str(o['kind']) };
}

const gvString = (gv: GV): string => (gv.group ? `${gv.group}/${gv.version}` : gv.version);
const sameGV = (a: GV, b: GV): boolean => a.group === b.group && a.version === b.version;

/** Go's %T of a value decoded from JSON into interface{} by unstructured (integers are int64). */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'map[string]interface {}';
  return 'string';
}

// ---------------------------------------------------------------------------------------------
// crConverter (converter.go): version checks common to every strategy, then the strategy.

interface Delegate {
  convertObject(obj: KubeObject, to: GV): Promise<KubeObject>;
  convertList(items: KubeObject[], to: GV, list: GVK): Promise<KubeObject[]>;
}

class CRConverter implements Converter {
  private readonly validVersions: Set<string>;

  constructor(
    private readonly crd: CustomResourceDefinition,
    private readonly delegate: Delegate,
  ) {
    this.validVersions = new Set(
      (crd.spec.versions ?? []).map((v) => gvString({ group: crd.spec.group, version: v.name })),
    );
  }

  async convert(objects: KubeObject[], toVersion: string, opts: ConvertOptions = {}): Promise<KubeObject[]> {
    try {
      const to = parseGroupVersion(toVersion) ?? { group: '', version: '' };
      if (opts.list ?? objects.length !== 1) return await this.convertList(objects, to);
      return await Promise.all(objects.map((o) => this.convertObject(o, to)));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ConversionError(err instanceof Error ? err.message : String(err));
    }
  }

  private isValid(gv: GV): boolean {
    return this.validVersions.has(gvString(gv));
  }

  /** KindForGroupVersionKinds, then the target must be one of the CRD's versions. */
  private checkTarget(from: GVK, to: GV): void {
    if (from.group !== to.group) {
      throw new Fail(
        `${gvkString(from)} is unstructured and is not suitable for converting to ${goQuote(gvString(to))}`,
      );
    }
    if (!this.isValid(to)) throw new Fail(`request to convert CR to an invalid group/version: ${gvString(to)}`);
  }

  private async convertObject(obj: KubeObject, to: GV): Promise<KubeObject> {
    const from = unstructuredGVK(obj);
    this.checkTarget(from, to);
    if (!this.isValid(from)) throw new Fail(`request to convert CR from an invalid group/version: ${gvString(from)}`);
    return this.delegate.convertObject(obj, to);
  }

  /** The CRD storage makes an UnstructuredList of the requested version and converts that. */
  private async convertList(items: KubeObject[], to: GV): Promise<KubeObject[]> {
    const names = this.crd.spec.names;
    const list: GVK = { ...to, kind: names.listKind ?? `${names.kind}List` };
    this.checkTarget(list, to);
    items.forEach((item, i) => {
      const gv = unstructuredGVK(item);
      if (!this.isValid(gv))
        throw new Fail(`request to convert CR list failed, list index ${i} has invalid group/version: ${gvString(gv)}`);
    });
    return this.delegate.convertList(items, to, list);
  }
}

// ---------------------------------------------------------------------------------------------
// nopConverter (strategy None): sets apiVersion, nothing else.

function withVersion(obj: KubeObject, to: GV): KubeObject {
  const g = unstructuredGVK(obj);
  if (!g.group && !g.version && !g.kind) return obj; // an empty GVK is left alone
  const apiVersion = gvString(to);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

const nopConverter: Delegate = {
  convertObject: async (obj, to) => withVersion(obj, to),
  convertList: async (items, to) => items.map((o) => withVersion(o, to)),
};

/** A CRD kube could not build a converter for: every CR request fails with this. */
const unusable: Delegate = {
  convertObject: async () => {
    throw internalError(new Error('error resolving resource'));
  },
  convertList: async () => {
    throw internalError(new Error('error resolving resource'));
  },
};

// ---------------------------------------------------------------------------------------------
// webhookConverter (webhook_converter.go)

type ReviewVersion = 'v1' | 'v1beta1';

class WebhookConverter implements Delegate {
  private readonly reviewVersions: string[];
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly endpoint: WebhookEndpoint | undefined;

  constructor(crd: CustomResourceDefinition, opts: ConverterOptions) {
    const webhook = crd.spec.conversion?.webhook;
    this.reviewVersions = webhook?.conversionReviewVersions ?? [];
    this.timeoutMs =
      opts.timeoutMs !== undefined && Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0
        ? Math.ceil(opts.timeoutMs)
        : DEFAULT_CONVERSION_TIMEOUT_MS;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const endpoint = webhook?.clientConfig
      ? webhookEndpoint(webhook.clientConfig, this.timeoutMs, {
          ...(opts.serviceResolver ? { serviceResolver: opts.serviceResolver } : {}),
          caBundleError,
        })
      : undefined;
    this.endpoint = endpoint && !('error' in endpoint) ? endpoint : undefined;
  }

  /** createConversionReviewObjects: the first version of conversionReviewVersions we speak. */
  private reviewVersion(): ReviewVersion {
    for (const v of this.reviewVersions) if (v === 'v1beta1' || v === 'v1') return v;
    throw new Fail('no supported conversion review versions');
  }

  async convertObject(obj: KubeObject, to: GV): Promise<KubeObject> {
    // The cacher's smoke test converts objects with nothing but apiVersion and kind; kube never
    // bothers the webhook with those.
    if (Object.keys(obj).length === 2 && 'kind' in obj && 'apiVersion' in obj) return withVersion(obj, to);
    const inGVK = unstructuredGVK(obj);
    const what = gvkString(inGVK);
    const desired = gvString(to);
    const needed = gvString(inGVK) !== desired;
    const version = this.reviewVersion();
    if (!needed) return obj;

    const converted = await this.call([obj], desired, version, what);
    if (converted.length !== 1)
      throw new Fail(`conversion webhook for ${what} returned ${converted.length} objects, expected 1`);
    const out = rawObject(converted[0]); // kube returns this one unwrapped
    const outGVK = unstructuredGVK(out);
    if (!sameGV(outGVK, to)) {
      throw new Fail(
        `conversion webhook for ${what} returned invalid object at index 0: invalid groupVersion (expected ${desired}, received ${gvString(outGVK)})`,
      );
    }
    if (inGVK.kind !== outGVK.kind) {
      throw new Fail(
        `conversion webhook for ${what} returned invalid object at index 0: invalid kind (expected ${inGVK.kind}, received ${outGVK.kind})`,
      );
    }
    const invalidWhy = validateConvertedObject(obj, out);
    if (invalidWhy) throw new Fail(`conversion webhook for ${what} returned invalid object: ${invalidWhy}`);
    const restored = restoreObjectMeta(obj, out);
    if (typeof restored === 'string')
      throw new Fail(`conversion webhook for ${what} returned invalid metadata: ${restored}`);
    return restored;
  }

  async convertList(items: KubeObject[], to: GV, list: GVK): Promise<KubeObject[]> {
    const what = gvkString(list);
    const desired = gvString(to);
    const needed = items.filter((o) => str(o.apiVersion) !== desired);
    const version = this.reviewVersion();
    if (needed.length === 0) return items;

    const converted = await this.call(needed, desired, version, what);
    if (converted.length !== needed.length) {
      throw new Fail(`conversion webhook for ${what} returned ${converted.length} objects, expected ${needed.length}`);
    }
    let index = 0;
    return items.map((original) => {
      if (str(original.apiVersion) === desired) return original; // not sent, not in the answer
      const at = `conversion webhook for ${what} returned invalid converted object at index ${index}`;
      let out: JsonObject;
      try {
        out = rawObject(converted[index]);
      } catch (err) {
        throw new Fail(`${at}: ${(err as Error).message}`);
      }
      const outGVK = unstructuredGVK(out);
      if (!sameGV(outGVK, to))
        throw new Fail(`${at}: invalid groupVersion (expected ${desired}, received ${gvString(outGVK)})`);
      const kind = unstructuredGVK(original).kind;
      if (kind !== outGVK.kind) throw new Fail(`${at}: invalid kind (expected ${kind}, received ${outGVK.kind})`);
      const invalidWhy = validateConvertedObject(original, out);
      if (invalidWhy) throw new Fail(`${at}: ${invalidWhy}`);
      const restored = restoreObjectMeta(original, out);
      if (typeof restored === 'string')
        throw new Fail(
          `conversion webhook for ${what} returned invalid metadata in object at index ${index}: ${restored}`,
        );
      index++;
      return restored;
    });
  }

  /** One ConversionReview round trip; the convertedObjects of a successful answer. */
  private async call(objects: KubeObject[], desired: string, version: ReviewVersion, what: string): Promise<unknown[]> {
    const endpoint = this.endpoint;
    // kube fails to build the webhook client (bad caBundle, no url or service), and with it the
    // CRD's serving info: each request to the resource is this 500.
    if (!endpoint) throw internalError(new Error('error resolving resource'));
    const uid = randomUUID();
    // kube sends the empty response struct along: `"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}`.
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${version}`,
      request: { uid, desiredAPIVersion: desired, objects },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    try {
      const res = await postWebhook(endpoint, stringifyJSON(review), this.timeoutMs, this.maxResponseBytes);
      return convertedObjectsFrom(res, version, uid);
    } catch (err) {
      if (!(err instanceof WebhookCallError)) throw err;
      throw new Fail(`conversion webhook for ${what} failed: ${err.message}`);
    }
  }
}

/** getRawExtensionObject: a converted object as unstructured decodes it. */
function rawObject(item: unknown): JsonObject {
  if (item === null || item === undefined) throw new Fail('unexpected end of JSON input');
  if (!isJsonObject(item))
    throw new Fail(`json: cannot unmarshal ${jsonKind(item)} into Go value of type map[string]interface {}`);
  if (str(item['kind']) === '') throw new Fail(`Object 'Kind' is missing in '${stringifyJSON(item)}'`);
  return item;
}

const metaString = (obj: unknown, field: string): string => {
  const m = isJsonObject(obj) ? obj['metadata'] : undefined;
  return isJsonObject(m) ? str(m[field]) : '';
};

/** validateConvertedObject: identity fields of metadata must survive conversion. */
function validateConvertedObject(input: KubeObject, out: JsonObject): string | undefined {
  const inKind = str(input.kind);
  const outKind = str(out['kind']);
  if (inKind !== outKind) return `must have the same kind: ${inKind} != ${outKind}`;
  for (const [field, label] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ] as const) {
    const a = metaString(input, field);
    const b = metaString(out, field);
    if (a !== b) return `must have the same ${label}: ${a} != ${b}`;
  }
  return undefined;
}

/**
 * restoreObjectMeta: the original metadata comes back, with the webhook's labels and annotations
 * (validated when they changed). A string is kube's error.
 */
function restoreObjectMeta(original: KubeObject, converted: JsonObject): KubeObject | string {
  if (!Object.hasOwn(converted, 'metadata')) return 'missing metadata in converted object';
  const responseMeta = converted['metadata'];
  if (!isJsonObject(responseMeta)) return `invalid metadata of type ${goTypeName(responseMeta)} in converted object`;
  const meta: unknown = Object.hasOwn(original, 'metadata') ? cloneJson(original.metadata) : {};
  if (!isJsonObject(meta)) return `invalid metadata of type ${goTypeName(meta)} in input object`;
  for (const fld of ['labels', 'annotations'] as const) {
    const response = responseMeta[fld];
    if (response === undefined || response === null) {
      delete meta[fld];
      continue;
    }
    if (!isJsonObject(response)) return `invalid metadata.${fld} of type ${goTypeName(response)} in converted object`;
    const originalField = meta[fld];
    if (originalField !== undefined && originalField !== null && !isJsonObject(originalField)) {
      return `invalid metadata.${fld} of type ${goTypeName(originalField)} in original object`;
    }
    const before: JsonObject = isJsonObject(originalField) ? originalField : {};
    let changed = Object.keys(before).length !== Object.keys(response).length;
    for (const [k, v] of Object.entries(response)) {
      if (typeof v !== 'string')
        return `metadata.${fld}[${k}] must be a string, but is ${goTypeName(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const entries = Object.entries(response as Record<string, string>);
      // kube reports annotations at `metadata.annotation` (sic).
      const errs =
        fld === 'labels'
          ? validateLabels(entries, 'metadata.labels')
          : validateAnnotations(entries, 'metadata.annotation');
      if (errs.length > 0) return aggregateErrors(errs.map(formatFieldError));
    }
    meta[fld] = response;
  }
  return { ...converted, metadata: meta } as KubeObject;
}

// ---------------------------------------------------------------------------------------------
// Reading the answer: client-go's Result.Into, then getConvertedObjectsFromResponse.

function convertedObjectsFrom(res: HttpResult, version: ReviewVersion, uid: string): unknown[] {
  const review = decodeReview(decodeResponse(res), version);

  if (version === 'v1') {
    // v1beta1 processing never verified the kind or the uid; kube keeps it that way.
    const gvk = typeMetaGVK(review);
    if (gvk.group !== 'apiextensions.k8s.io' || gvk.version !== 'v1' || gvk.kind !== 'ConversionReview') {
      throw new Fail(
        `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvkString(gvk)}`,
      );
    }
  }
  const response = review['response'];
  if (!isJsonObject(response)) throw new Fail('no response provided');
  if (version === 'v1' && str(response['uid']) !== uid) {
    throw new Fail(`expected response.uid=${goQuote(uid)}, got ${goQuote(str(response['uid']))}`);
  }
  const result = isJsonObject(response['result']) ? response['result'] : {};
  const status = str(result['status']);
  if (status !== 'Success') {
    const message = str(result['message']);
    throw new Fail(message || `response.result.status was '${status}', not 'Success'`);
  }
  const objects = response['convertedObjects'];
  return Array.isArray(objects) ? objects : [];
}

/** The decoded answer as a ConversionReview of `version`: the JSON type errors encoding/json would give. */
function decodeReview(parsed: JsonObject, version: ReviewVersion): JsonObject {
  const typeError = (v: unknown, ok: (v: unknown) => boolean, field: string, goType: string): void => {
    if (v === undefined || v === null || ok(v)) return;
    throw new Fail(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${field} of type ${goType}`);
  };
  const isString = (v: unknown): boolean => typeof v === 'string';
  const response = parsed['response'];
  typeError(response, isJsonObject, 'ConversionReview.response', `${version}.ConversionResponse`);
  if (isJsonObject(response)) {
    typeError(response['uid'], isString, 'ConversionResponse.response.uid', 'types.UID');
    typeError(
      response['convertedObjects'],
      Array.isArray,
      'ConversionResponse.response.convertedObjects',
      '[]runtime.RawExtension',
    );
    const result = response['result'];
    typeError(result, isJsonObject, 'ConversionResponse.response.result', 'v1.Status');
    if (isJsonObject(result)) {
      typeError(result['status'], isString, 'Status.response.result.status', 'string');
      typeError(result['message'], isString, 'Status.response.result.message', 'string');
    }
  }
  return parsed;
}
