// What `startServer({ crds, webhooks })` installs before it resolves, as envtest does for Go tests:
// CustomResourceDefinitions (paths, YAML text or objects), waited for until every one is
// Established; and webhook configurations as kubebuilder generates them, whose `service:`
// references (and those of the CRDs' conversion webhooks) are routed to local URLs, with the CA
// the server should trust for them. Installed through the API, with the admin's credentials.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lazyRequire } from '../apimachinery/lazy-require.js';
import { type JsonObject, isJsonObject } from '../apimachinery/object.js';
import { type Target, call, failed } from './client/api-client.js';
import { generatePki } from './pki.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** A manifest: a path (a file, or a directory of .yaml, .yml and .json files), YAML or JSON text, or an object. */
export type Manifest = string | Readonly<Record<string, unknown>>;

export interface WebhookOptions {
  /**
   * Where `clientConfig.service` references go: the local webhook server's base URL
   * (`https://127.0.0.1:9443`) for every service, or one per `namespace/name` of a service.
   */
  url: string | Readonly<Record<string, string>>;
  /**
   * The CA (PEM) that verifies the local webhook server, put into each routed caBundle. Absent:
   * a CA and a serving certificate for 127.0.0.1, ::1 and localhost are made (`webhookTls`).
   */
  caCert?: string;
  /** MutatingWebhookConfigurations and ValidatingWebhookConfigurations to install. */
  configurations?: readonly Manifest[];
}

/** The certificate a local webhook server serves with, and the CA the server trusts it by. */
export interface WebhookTls {
  caCert: string;
  cert: string;
  key: string;
}

export interface ProvisionOptions {
  crds?: readonly Manifest[];
  webhooks?: WebhookOptions;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WEBHOOK_KINDS: Readonly<Record<string, string>> = {
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
};
/** How long every CRD together may take to be Established. */
const ESTABLISHED_WITHIN_MS = 30_000;

/** Text rather than a path: YAML or JSON spans lines or opens with a document or an object. */
export const isManifestText = (s: string): boolean => s.includes('\n') || /^\s*(\{|---|apiVersion:)/.test(s);

/** Every object in YAML (several documents) or JSON text; empty documents skipped, Lists unpacked. */
export function parseManifests(text: string): JsonObject[] {
  const docs = yaml()
    .parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(d.errors[0]!.message);
      return d.toJSON() as unknown;
    });
  return docs.flatMap((doc) => {
    if (!isJsonObject(doc)) return [];
    const items = doc['items'];
    return typeof doc['kind'] === 'string' && doc['kind'].endsWith('List') && Array.isArray(items)
      ? items.filter(isJsonObject)
      : [doc];
  });
}

async function loadManifest(m: Manifest): Promise<JsonObject[]> {
  if (typeof m !== 'string') return [structuredClone(m) as JsonObject];
  if (isManifestText(m)) return parseManifests(m);
  const files = (await stat(m)).isDirectory()
    ? (await readdir(m))
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .sort()
        .map((f) => join(m, f))
    : [m];
  const objects: JsonObject[] = [];
  for (const file of files) {
    try {
      objects.push(...parseManifests(await readFile(file, 'utf8')));
    } catch (err) {
      throw new Error(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return objects;
}

/** The local URL a service reference goes to, or why there is none. */
export function serviceUrl(
  route: WebhookOptions['url'],
  service: { namespace?: unknown; name?: unknown; path?: unknown },
): string {
  const id = `${String(service.namespace ?? '')}/${String(service.name ?? '')}`;
  const base = typeof route === 'string' ? route : route[id];
  if (base === undefined) throw new Error(`no URL for the webhook service ${id}`);
  return base.replace(/\/+$/, '') + (typeof service.path === 'string' ? service.path : '');
}

/** A clientConfig whose `service` goes to its local URL, trusting `caBundle`; anything else as it is. */
function routed(clientConfig: unknown, route: WebhookOptions['url'], caBundle: string): unknown {
  if (!isJsonObject(clientConfig) || !isJsonObject(clientConfig['service'])) return clientConfig;
  const { service, ...rest } = clientConfig;
  return { ...rest, url: serviceUrl(route, service), caBundle };
}

/**
 * `obj` with its webhooks' (or, for a CRD, its conversion webhook's) `service:` references routed
 * to local URLs, as envtest rewrites them: the URL names the local server, which it must serve.
 */
export function routeServices(obj: JsonObject, route: WebhookOptions['url'], caBundle: string): JsonObject {
  if (obj['kind'] === 'CustomResourceDefinition') {
    const spec = obj['spec'];
    const conversion = isJsonObject(spec) ? spec['conversion'] : undefined;
    const webhook = isJsonObject(conversion) ? conversion['webhook'] : undefined;
    if (!isJsonObject(spec) || !isJsonObject(conversion) || !isJsonObject(webhook)) return obj;
    const clientConfig = routed(webhook['clientConfig'], route, caBundle) as JsonObject;
    return { ...obj, spec: { ...spec, conversion: { ...conversion, webhook: { ...webhook, clientConfig } } } };
  }
  const webhooks = obj['webhooks'];
  if (!Array.isArray(webhooks)) return obj;
  return {
    ...obj,
    webhooks: webhooks.map((w) =>
      isJsonObject(w) ? { ...w, clientConfig: routed(w['clientConfig'], route, caBundle) as JsonObject } : w,
    ),
  };
}

const nameOf = (obj: JsonObject): string => {
  const meta = obj['metadata'];
  return isJsonObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '';
};

/** Creates or updates `obj` at `collection` as `kubectl apply --server-side --force-conflicts` would. */
async function apply(target: Target, collection: string, obj: JsonObject): Promise<void> {
  const name = nameOf(obj);
  const path = `${collection}/${encodeURIComponent(name)}?fieldManager=mini-apiserver&force=true`;
  const a = await call(target, 'PATCH', path, obj, 'application/apply-patch+yaml');
  if (a.status !== 200 && a.status !== 201) throw failed(`applying ${obj['kind']} ${name}`, a);
}

/** Resolves once every CRD named is Established; fails at once on one whose names were refused. */
async function established(target: Target, names: readonly string[]): Promise<void> {
  const deadline = Date.now() + ESTABLISHED_WITHIN_MS;
  let waiting = [...names];
  while (waiting.length > 0) {
    const still: string[] = [];
    for (const name of waiting) {
      const a = await call(target, 'GET', `${CRDS}/${encodeURIComponent(name)}`);
      if (a.status !== 200) throw failed(`reading CustomResourceDefinition ${name}`, a);
      const status = a.body['status'];
      const conditions = (
        isJsonObject(status) && Array.isArray(status['conditions']) ? status['conditions'] : []
      ).filter(isJsonObject);
      const cond = (type: string) => conditions.find((c) => c['type'] === type);
      if (cond('NamesAccepted')?.['status'] === 'False')
        throw new Error(`CustomResourceDefinition ${name}: ${String(cond('NamesAccepted')?.['message'])}`);
      if (cond('Established')?.['status'] !== 'True') still.push(name);
    }
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`not Established within ${ESTABLISHED_WITHIN_MS / 1000} s: ${waiting.join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Installs what `o` names on the server at `target`; the webhook TLS it made, if it made one. */
export async function provision(target: Target, o: ProvisionOptions): Promise<{ webhookTls?: WebhookTls }> {
  const webhooks = o.webhooks;
  const made =
    webhooks && webhooks.caCert === undefined
      ? await generatePki({ ips: ['127.0.0.1', '::1'], dns: ['localhost'] })
      : undefined;
  const caCert = webhooks?.caCert ?? made?.caCert;
  const route = (obj: JsonObject): JsonObject =>
    webhooks && caCert ? routeServices(obj, webhooks.url, Buffer.from(caCert).toString('base64')) : obj;

  const crds: JsonObject[] = [];
  for (const m of o.crds ?? []) crds.push(...(await loadManifest(m)));
  for (const crd of crds) {
    if (crd['kind'] !== 'CustomResourceDefinition')
      throw new Error(`crds: ${String(crd['kind'])} ${nameOf(crd)} is not a CustomResourceDefinition`);
    await apply(target, CRDS, route(crd));
  }
  await established(target, crds.map(nameOf));

  for (const m of webhooks?.configurations ?? []) {
    for (const obj of await loadManifest(m)) {
      const collection = WEBHOOK_KINDS[String(obj['kind'])];
      if (!collection)
        throw new Error(`webhooks: ${String(obj['kind'])} ${nameOf(obj)} is not a webhook configuration`);
      await apply(target, collection, route(obj));
    }
  }
  return made ? { webhookTls: { caCert: made.caCert, cert: made.cert, key: made.key } } : {};
}
