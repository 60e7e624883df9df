// `validate()`: what kube-apiserver would answer to creating CustomResourceDefinitions and then
// objects of their kinds (or updating old objects to them), without a server. Every step is the
// server's own, from the handler's body check to the store's validation (registry/write-steps.ts):
// the CRD's defaulting and validation (structural schema, CEL compiled and costed), then per object
// its metadata, pruning of unknown fields (kube's warnings), defaulting, the schema, CEL rules
// (transition rules against the old object) and ObjectMeta's rules, answered in kube's Status.
import { ApiError, type Status, alreadyExists, badRequest } from '../../apimachinery/errors.js';
import { type JsonObject, type KubeObject, cloneJson, isJsonObject, nowTimestamp } from '../../apimachinery/object.js';
import { systemClock } from '../../apimachinery/clock.js';
import { CRD_GROUP, type CustomResourceDefinition } from '../../apimachinery/apis/apiextensions.js';
import { parseGroupVersion } from '../../apimachinery/versions.js';
import { goQuote } from '../../apimachinery/field-errors.js';
import { runTask } from '../../apimachinery/structured-merge/trampoline.js';
import { deprecationWarning } from '../../crd/deprecation.js';
import { crdKind, crdStrategy } from '../registry/builtin/crds.js';
import { customResourceStrategy } from '../registry/builtin/custom-resources.js';
import { ensureNamespaceMatchesRequest, wipeObjectMetaSystemFields } from '../registry/object-meta-ops.js';
import { type Strategy, type WriteContext, qualifiedKind, qualifiedResource } from '../registry/strategy.js';
import {
  checkDecodable,
  checkNewObject,
  expectedNamespace,
  prepareCreate,
  prepareUpdate,
  validateCreate,
  validateUpdate,
} from '../registry/write-steps.js';
import { type BodyTarget, checkBodyObject } from '../endpoints/body-object.js';
import { strictDecoding } from '../endpoints/field-validation.js';
import { ValidateInputError, type ReadObject, isCRD, itemsOf, readObjects } from './documents.js';

/** YAML or JSON text (any number of documents, lists among them), or one decoded object or list. */
export type ValidateSource = string | Readonly<Record<string, unknown>>;

export interface ValidateInput {
  /** CustomResourceDefinitions, created first, in order. */
  crds: readonly ValidateSource[];
  /** Objects of their kinds, each created (or, with an old object, updated) on its own. */
  objects: readonly ValidateSource[];
  /** The objects as they are before an update: matched to `objects` by apiVersion, kind, namespace and name. */
  oldObjects?: readonly ValidateSource[];
}

/** What kube would answer to writing one object. */
export type Outcome = {
  apiVersion: string;
  kind: string;
  /** Empty for cluster-scoped kinds. */
  namespace: string;
  /** The object's name; generated, as the server does, when it gave only generateName. */
  name: string;
  operation: 'create' | 'update';
  /** The Warning headers kube would send, in order (kubectl prints each as `Warning: <text>`). */
  warnings: string[];
} & (
  | {
      result: 'valid';
      /** The object as the server would keep it (pruned, defaulted, prepared), less the uid and timestamp it makes up. */
      object: KubeObject;
    }
  | {
      result: 'invalid';
      /** kube's answer: `message` is what client-go's error says; kubectlErrorText() what kubectl prints. */
      status: Status;
    }
  | {
      result: 'no-match';
      /** No CustomResourceDefinition accepted here serves the object's version and kind: kube's RESTMapper error. */
      message: string;
    }
);

export interface ValidationResult {
  crds: Outcome[];
  objects: Outcome[];
  /** Whether every CRD and every object was accepted. */
  valid: boolean;
}

/** The CustomResourceDefinition resource, as the request handler checks a body for it. */
const CRD_TARGET: BodyTarget = {
  group: CRD_GROUP,
  version: 'v1',
  names: { kind: crdKind.kind },
  serving: { typed: true },
};

/** The revision an old object is read at when it names none. */
const STORED_REVISION = '1';

/** kubectl's namespace for an object that names none, with no namespace in its context. */
const DEFAULT_NAMESPACE = 'default';

export async function validate(input: ValidateInput): Promise<ValidationResult> {
  const crds = await objectsOf('crds', input.crds);
  const stray = crds.find((c) => !isCRD(c));
  if (stray) throw new ValidateInputError(`crds: a ${String(stray['kind'])} is not a CustomResourceDefinition`);
  const objects = await objectsOf('objects', input.objects);
  const olds = await objectsOf('oldObjects', input.oldObjects ?? []);
  const crdOutcomes: Outcome[] = [];
  const served = new Map<string, { crd: CustomResourceDefinition; strategy: Strategy }>();
  for (const obj of crds) {
    const outcome = createCRD(obj, crdOutcomes);
    crdOutcomes.push(outcome);
    if (outcome.result === 'valid') {
      const crd = outcome.object as CustomResourceDefinition;
      served.set(groupKind(crd.spec.group, crd.spec.names.kind), { crd, strategy: customResourceStrategy(crd) });
    }
  }
  const oldByKey = new Map<string, JsonObject>();
  for (const old of olds) oldByKey.set(objectKey(old, served), old);
  const objectOutcomes: Outcome[] = [];
  for (const obj of objects) {
    const old = oldByKey.get(objectKey(obj, served));
    const gv = parseGroupVersion(String(obj['apiVersion']));
    const found = gv && served.get(groupKind(gv.group, String(obj['kind'])));
    const version = found?.crd.spec.versions.find((v) => v.name === gv?.version && v.served);
    if (!gv || !found || !version) {
      objectOutcomes.push(noMatch(obj, old));
      continue;
    }
    const target: BodyTarget = {
      group: gv.group,
      version: gv.version,
      names: { kind: found.crd.spec.names.kind },
      serving: { typed: false },
    };
    const outcome = write(found.strategy, target, obj, old, deprecationWarning(found.crd, version.name));
    if (outcome.result === 'valid') outcome.object = await readBack(found.crd, found.strategy, outcome.object);
    objectOutcomes.push(outcome);
  }
  const all = [...crdOutcomes, ...objectOutcomes];
  return { crds: crdOutcomes, objects: objectOutcomes, valid: all.every((o) => o.result === 'valid') };
}

/** A CRD's create: the 409 kube gives a second CRD of a name already created, else the create itself. */
function createCRD(obj: JsonObject, before: readonly Outcome[]): Outcome {
  if (obj['apiVersion'] !== `${CRD_GROUP}/v1`) return noMatch(obj, undefined);
  const name = isJsonObject(obj['metadata']) ? obj['metadata']['name'] : undefined;
  const taken = before.some((o) => o.result === 'valid' && o.name === name);
  if (taken && typeof name === 'string')
    return {
      ...identity(obj, 'create'),
      warnings: [],
      result: 'invalid',
      status: alreadyExists(qualifiedResource(crdKind), name).status,
    };
  return write(crdStrategy, CRD_TARGET, obj, undefined, undefined);
}

/**
 * One write as the server runs it, without admission and storage: the handler's body check and
 * namespace, strict decoding that warns (kube's default fieldValidation), then the store's steps.
 */
function write(
  strategy: Strategy,
  target: BodyTarget,
  given: JsonObject,
  old: JsonObject | undefined,
  deprecation: string | undefined,
): Outcome {
  const operation = old ? 'update' : 'create';
  const warnings: string[] = [];
  // kube's warning recorder: each text once, an empty one not at all.
  const warn = (text: string): void => {
    if (text !== '' && !warnings.includes(text)) warnings.push(text);
  };
  if (deprecation !== undefined) warn(deprecation);
  const ctx: WriteContext = {
    dryRun: true,
    warn,
    onUnknownFields: strictDecoding(warn, 'Warn', [], badRequest),
  };
  let obj: KubeObject | undefined;
  try {
    obj = checkBodyObject(target, cloneJson(given), qualifiedKind(strategy.kind));
    const namespace = requestNamespace(strategy, obj);
    ensureNamespaceMatchesRequest(namespace, obj.metadata);
    if (old) {
      checkDecodable(strategy, obj, ctx);
      const current = stored(strategy, old, namespace);
      prepareUpdate(strategy, obj, current, namespace, ctx);
      runTask(validateUpdate(strategy, obj, current, ctx));
    } else {
      checkNewObject(strategy, obj, ctx);
      prepareCreate(strategy, obj, namespace, ctx, nowTimestamp(systemClock));
      runTask(validateCreate(strategy, obj, ctx));
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { ...identity(obj ?? given, operation), warnings, result: 'invalid', status: err.status };
  }
  wipeObjectMetaSystemFields(obj.metadata);
  delete obj.metadata.resourceVersion;
  return { ...identity(obj, operation), warnings, result: 'valid', object: obj };
}

/**
 * The object as the server answers a write: stored in the CRD's storage version, converted back to
 * the version written, each conversion pruning what the target version's schema does not know.
 * A Webhook conversion would call the webhook: the object is then left as it was written.
 */
async function readBack(crd: CustomResourceDefinition, strategy: Strategy, obj: KubeObject): Promise<KubeObject> {
  const versions = strategy.versions;
  const written = obj.apiVersion;
  if (!versions || !written || written === versions.storageApiVersion || crd.spec.conversion?.strategy === 'Webhook')
    return obj;
  const [stored] = await versions.convert([obj], versions.storageApiVersion);
  const [back] = await versions.convert([stored!], written);
  return back!;
}

/**
 * The old object as the store would hand it over: decoded from storage (pruned, defaulted), in its
 * namespace, with a revision (the update carries it over; none is shown).
 */
function stored(strategy: Strategy, old: JsonObject, namespace: string): KubeObject {
  const obj = cloneJson(old) as unknown as KubeObject;
  if (!isJsonObject(obj.metadata)) obj.metadata = {};
  ensureNamespaceMatchesRequest(namespace, obj.metadata);
  obj.metadata.resourceVersion ||= STORED_REVISION;
  strategy.fromStorage?.(obj);
  return obj;
}

/** The namespace kubectl sends the object to: its own, or kubectl's default; none for cluster-scoped kinds. */
function requestNamespace(strategy: Strategy, obj: KubeObject): string {
  const given = obj.metadata.namespace;
  return expectedNamespace(strategy.kind, typeof given === 'string' && given !== '' ? given : DEFAULT_NAMESPACE);
}

/** kubectl's answer when discovery has no resource for the object (meta.NoKindMatchError). */
function noMatch(obj: JsonObject, old: JsonObject | undefined): Outcome {
  const { apiVersion, kind } = identity(obj, 'create');
  const gv = parseGroupVersion(apiVersion);
  const version = gv ? (gv.group ? `${gv.group}/${gv.version}` : gv.version) : apiVersion;
  return {
    ...identity(obj, old ? 'update' : 'create'),
    warnings: [],
    result: 'no-match',
    message: `no matches for kind ${goQuote(kind)} in version ${goQuote(version)}`,
  };
}

function identity(obj: JsonObject | KubeObject, operation: Outcome['operation']): Omit<Outcome, 'result' | 'warnings'> {
  const meta = isJsonObject(obj['metadata']) ? obj['metadata'] : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    apiVersion: text(obj['apiVersion']),
    kind: text(obj['kind']),
    namespace: text(meta['namespace']),
    name: text(meta['name']),
    operation,
  };
}

const groupKind = (group: string, kind: string): string => `${kind}.${group}`;

/** An object's apiVersion, kind, namespace (kubectl's default for a namespaced kind) and name. */
function objectKey(obj: JsonObject, served: ReadonlyMap<string, { strategy: Strategy }>): string {
  const { apiVersion, kind, namespace, name } = identity(obj, 'create');
  const gv = parseGroupVersion(apiVersion);
  const namespaced = gv ? served.get(groupKind(gv.group, kind))?.strategy.kind.namespaced : undefined;
  return JSON.stringify([apiVersion, kind, namespaced === false ? '' : namespace || DEFAULT_NAMESPACE, name]);
}

/** The objects of every source, lists taken apart; an ValidateInputError names the source. */
async function objectsOf(field: string, sources: readonly ValidateSource[]): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for (const [i, source] of sources.entries()) {
    const where = `${field}[${i}]`;
    let read: ReadObject[];
    try {
      read =
        typeof source === 'string'
          ? await readObjects(source)
          : itemsOf(cloneJson(source) as JsonObject).map((object) => ({ object, line: 1 }));
    } catch (err) {
      throw err instanceof ValidateInputError ? new ValidateInputError(`${where}: ${err.message}`) : err;
    }
    for (const { object, line } of read) out.push(requireTypeMeta(object, `${where}: line ${line}`));
  }
  return out;
}

/** An object with a kind and an apiVersion, which kubectl needs to find where to send it. */
export function requireTypeMeta(obj: JsonObject, where: string): JsonObject {
  for (const field of ['kind', 'apiVersion'])
    if (typeof obj[field] !== 'string' || obj[field] === '')
      throw new ValidateInputError(`${where}: the object has no ${field}`);
  return obj;
}
