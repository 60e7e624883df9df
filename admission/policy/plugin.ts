// kube's ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver/pkg/admission/plugin/policy/
// validating: plugin.go, dispatcher.go; generic: policy_source.go, CollectParams): the policies
// with their bindings, matched against each request (matchConstraints, then each binding's
// matchResources), params collected per binding (paramRef by name or selector, namespaced or
// cluster-scoped, parameterNotFoundAction), each (binding, param) validated, and the decisions
// applied by the binding's validationActions: Deny refuses the request with kube's status (the
// first denial; reason → code), Warn adds kube's warning, Audit an audit annotation. A policy
// that cannot be configured (params missing under Deny, unknown paramKind) answers by its
// failurePolicy. The plugin's own kinds (admissionregistration's policies and bindings) are exempt.
import type { Authorizer } from '../../apimachinery/authorization.js';
import { ApiError, type Status, notFound, qualifiedString } from '../../apimachinery/errors.js';
import type { JsonObject, KubeObject } from '../../apimachinery/object.js';
import type { MetaLabelSelector } from '../../apimachinery/selectors/labels.js';
import { RUNTIME_CEL_COST_BUDGET } from '../../cel/kube/limits.js';
import type { Value } from '../../cel/values.js';
import { authorization, type Inputs, objectValue } from '../cel/evaluate.js';
import { fromAPIVersionAndKind, gvkString } from '../../apimachinery/versions.js';
import type { AdmissionPlugin, Attributes } from '../interface.js';
import { type CompiledPolicy, type PolicyDecision, compilePolicy, validatePolicy } from './compile.js';
import {
  type EquivalentResources,
  type GroupVersionKind,
  type GroupVersionResource,
  type MatchRequest,
  type NamespaceGetter,
  matches,
} from './matching.js';
import {
  ADMISSION_REGISTRATION_GROUP,
  type ParamKind,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
} from './types.js';

export type ParamLookup = { name: string } | { selector: MetaLabelSelector };

export interface ValidatingAdmissionPolicyOptions {
  policies: () => readonly KubeObject[];
  bindings: () => readonly KubeObject[];
  /**
   * The params of a binding: the object named (an empty list when there is none) or those the
   * selector selects, in `namespace` ("" for a cluster-scoped paramKind).
   */
  params: (kind: { apiVersion: string; kind: string }, namespace: string, lookup: ParamLookup) => Promise<KubeObject[]>;
  /**
   * Whether a paramKind is served and how it is scoped (kube's REST mapping); undefined when not
   * served. Default: every kind is served, namespaced unless it is one of core's cluster kinds.
   */
  paramScope?: (kind: { apiVersion: string; kind: string }) => 'Namespaced' | 'Cluster' | undefined;
  namespace: NamespaceGetter;
  authorizer?: Authorizer;
  /** A warning for the response (Warn): `Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': msg`. Default: the Attributes' `warn`. */
  warn?: (a: Attributes, text: string) => void;
  /** An audit annotation for the request's audit event (auditAnnotations, and Audit's validation_failure). Default: the Attributes' `annotate`. */
  annotate?: (a: Attributes, key: string, value: string) => void;
  /** kube's EquivalentResourceMapper, for matchPolicy Equivalent (none: Equivalent acts as Exact). */
  equivalents?: EquivalentResources;
  /** The request's resource and kind versions (Attributes has none): default the object's apiVersion. */
  versions?: (a: Attributes) => { resource: string; kind: string };
  /** Testing: the runtime budget per set of expressions (kube's RuntimeCELCostBudget otherwise). */
  budget?: number;
}

const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

const CLUSTER_CORE_KINDS = new Set(['Namespace', 'Node', 'PersistentVolume', 'ComponentStatus']);
const defaultScope = (k: { apiVersion: string; kind: string }): 'Namespaced' | 'Cluster' =>
  !k.apiVersion.includes('/') && CLUSTER_CORE_KINDS.has(k.kind) ? 'Cluster' : 'Namespaced';

/** kube's isPolicyResource: the policy kinds are never subject to policies. */
export function isPolicyResource(a: Attributes): boolean {
  return (
    a.resource.group === ADMISSION_REGISTRATION_GROUP &&
    [
      'validatingadmissionpolicies',
      'validatingadmissionpolicybindings',
      'mutatingadmissionpolicies',
      'mutatingadmissionpolicybindings',
    ].includes(a.resource.name)
  );
}

function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** schema.GroupVersionKind.String() of a paramKind. */
const paramKindString = (k: ParamKind): string => gvkString(fromAPIVersionAndKind(k.apiVersion ?? '', k.kind ?? ''));

function versionOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/** kube's admission.NewForbidden name: the request's, else the object's name or generateName, else "Unknown". */
function resourceName(a: Attributes): string {
  if (a.name) return a.name;
  const m = a.object?.metadata;
  if (m) return m.name || m.generateName || 'Unknown';
  return 'Unknown';
}

/** The denial, as kube's dispatcher builds it from admission.NewForbidden. */
export function denial(a: Attributes, policy: string, binding: string | undefined, d: PolicyDecision): ApiError {
  const message =
    binding !== undefined
      ? `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${d.message}`
      : `ValidatingAdmissionPolicy '${policy}' denied request: ${d.message}`;
  const reason = d.reason || 'Invalid';
  const name = resourceName(a);
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${qualifiedString(a.resource)} "${name}" is forbidden: ${message}`,
    reason,
    details: {
      name,
      ...(a.resource.group ? { group: a.resource.group } : {}),
      kind: a.resource.name,
      causes: [{ message }],
    },
    code: reasonToCode(reason),
  };
  return new ApiError(status);
}

/** admissionv1.AdmissionRequest as kube's CreateAdmissionRequest fills it, in unstructured form. */
export function admissionRequest(
  a: Attributes,
  resource: GroupVersionResource,
  kind: GroupVersionKind,
  requestResource: GroupVersionResource,
  requestKind: GroupVersionKind,
): JsonObject {
  const u = a.userInfo;
  const userInfo: JsonObject = {};
  if (u) {
    if (u.name) userInfo.username = u.name;
    if (u.uid) userInfo.uid = u.uid;
    if (u.groups?.length) userInfo.groups = [...u.groups];
    if (u.extra !== undefined && Object.keys(u.extra).length > 0) userInfo.extra = { ...u.extra };
  }
  const r: JsonObject = {
    uid: '',
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
  };
  if (a.subresource) r.subResource = a.subresource;
  r.requestKind = { group: requestKind.group, version: requestKind.version, kind: requestKind.kind };
  r.requestResource = {
    group: requestResource.group,
    version: requestResource.version,
    resource: requestResource.resource,
  };
  if (a.subresource) r.requestSubResource = a.subresource;
  if (a.name) r.name = a.name;
  if (a.namespace) r.namespace = a.namespace;
  r.operation = a.operation;
  r.userInfo = userInfo;
  r.object = null;
  r.oldObject = null;
  r.dryRun = a.dryRun;
  r.options = null;
  return r;
}

/** kube's CreateNamespaceObject: the namespace's status, spec and metadata without managedFields and ownerReferences. */
function namespaceObject(ns: KubeObject): KubeObject {
  const { managedFields: _m, ownerReferences: _o, ...metadata } = ns.metadata;
  return {
    metadata,
    ...(ns.spec !== undefined && { spec: ns.spec }),
    ...(ns.status !== undefined && { status: ns.status }),
  };
}

/** The namespace as the validations see it (CreateNamespaceObject) and as the auditAnnotations do (stored). */
interface NamespaceValues {
  readonly validations: Value;
  readonly audit: Value;
}

interface Denied {
  policy: string;
  binding?: string;
  decision: PolicyDecision;
}

/** The ValidatingAdmissionPolicy plugin (validate phase). */
export function validatingAdmissionPolicy(
  o: ValidatingAdmissionPolicyOptions,
): AdmissionPlugin & { compiled(policy: ValidatingAdmissionPolicy): CompiledPolicy } {
  const cache = new Map<string, { key: string; compiled: CompiledPolicy }>();
  // Informers hand out a new object on every change: the object itself is the fast key.
  const byObject = new WeakMap<object, CompiledPolicy>();
  const compiled = (p: ValidatingAdmissionPolicy): CompiledPolicy => {
    const known = byObject.get(p);
    if (known) return known;
    const c = compiledByContent(p);
    byObject.set(p, c);
    return c;
  };
  const compiledByContent = (p: ValidatingAdmissionPolicy): CompiledPolicy => {
    const name = p.metadata.name ?? '';
    const key = `${p.metadata.uid ?? ''}/${p.metadata.resourceVersion ?? ''}/${JSON.stringify(p.spec ?? {})}`;
    const hit = cache.get(name);
    if (hit && hit.key === key) return hit.compiled;
    const c = compilePolicy(p);
    cache.set(name, { key, compiled: c });
    return c;
  };

  async function collectParams(
    p: ValidatingAdmissionPolicy,
    b: ValidatingAdmissionPolicyBinding,
    namespace: string,
  ): Promise<(KubeObject | null)[]> {
    const pk = p.spec.paramKind;
    const ref = b.spec.paramRef;
    if (!pk || !ref) return [null];
    const kind = { apiVersion: pk.apiVersion ?? '', kind: pk.kind ?? '' };
    const scope = (o.paramScope ?? defaultScope)(kind);
    if (scope === undefined) throw new Error(`paramKind kind \`${paramKindString(pk)}\` not known`);
    let ns = '';
    if (scope === 'Namespaced') {
      ns = ref.namespace || namespace;
      if (!ns)
        throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (ref.namespace) {
      throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    }
    let params: KubeObject[];
    if (ref.name) {
      if (ref.selector) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
      params = await o.params(kind, ns, { name: ref.name });
    } else if (ref.selector) {
      params = await o.params(kind, ns, { selector: ref.selector });
    } else {
      throw new Error('one of name or selector must be provided');
    }
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny')
      throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params;
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    handles: () => true,
    compiled,
    async validate(a: Attributes): Promise<void> {
      if (isPolicyResource(a)) return;
      const warn = (t: string): void => (o.warn ? o.warn(a, t) : a.warn?.(t));
      const annotate = (k: string, v: string): void => (o.annotate ? o.annotate(a, k, v) : a.annotate?.(k, v));
      const policies = (o.policies() as ValidatingAdmissionPolicy[]).filter((p) => p?.metadata?.name && p.spec);
      if (policies.length === 0) return;
      const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
      for (const b of o.bindings() as ValidatingAdmissionPolicyBinding[]) {
        const name = b?.spec?.policyName;
        if (!name) continue;
        const list = byPolicy.get(name) ?? [];
        list.push(b);
        byPolicy.set(name, list);
      }
      const v = o.versions?.(a) ?? {
        resource: versionOf(a.object?.apiVersion ?? a.oldObject?.apiVersion),
        kind: versionOf(a.object?.apiVersion ?? a.oldObject?.apiVersion),
      };
      const requestResource: GroupVersionResource = {
        group: a.resource.group,
        version: v.resource,
        resource: a.resource.name,
      };
      const requestKind: GroupVersionKind = { group: a.kind.group, version: v.kind, kind: a.kind.name };
      const req: MatchRequest = { a, resource: requestResource, kind: requestKind };
      const denied: Denied[] = [];
      const budget = o.budget ?? Number(RUNTIME_CEL_COST_BUDGET);
      const configError = (cp: CompiledPolicy, err: unknown, policy: string, binding: string | undefined): void => {
        if (cp.failurePolicy === 'Ignore') return;
        const msg = err instanceof Error ? err.message : String(err);
        const message = `${binding === undefined ? 'failed to configure policy' : 'failed to configure binding'}: ${msg}`;
        denied.push({ policy, binding, decision: { action: 'deny', evaluation: 'error', message, reason: '' } });
      };
      // Namespace objects carry their own name as namespace in kube; namespaceObject is unset for them.
      const nsName = a.kind.group === '' && a.kind.name === 'Namespace' ? '' : a.namespace;
      let ns: NamespaceValues | undefined;
      const authz = authorization(a, o.authorizer);
      // The objects as CEL sees them, made once a policy needs them.
      let objects: { object: Value; oldObject: Value } | undefined;

      for (const p of [...policies].sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
        const policyName = p.metadata.name!;
        const bindings = (byPolicy.get(policyName) ?? []).sort((x, y) =>
          (x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1,
        );
        if (bindings.length === 0) continue;
        const cp = compiled(p);
        // kube's dispatcher drops the policy matcher's error (a missing constraints field, a
        // namespace not found): the policy does not apply.
        let m;
        try {
          if (!p.spec.matchConstraints) continue;
          m = await matches(p.spec.matchConstraints, req, o.namespace, o.equivalents);
        } catch {
          continue;
        }
        if (!m.matches) continue;
        if (
          p.spec.paramKind &&
          o.paramScope &&
          o.paramScope({ apiVersion: p.spec.paramKind.apiVersion ?? '', kind: p.spec.paramKind.kind ?? '' }) ===
            undefined
        ) {
          configError(
            cp,
            new Error(`failed to find resource referenced by paramKind: '${paramKindString(p.spec.paramKind)}'`),
            policyName,
            undefined,
          );
          continue;
        }
        const request = objectValue(admissionRequest(a, m.resource, m.kind, requestResource, requestKind));
        // The matcher's request names the request's resource, not the one the policy matched.
        const matchRequest =
          cp.matchConditions.length > 0
            ? objectValue(admissionRequest(a, requestResource, m.kind, requestResource, requestKind))
            : null;
        const annotations = new Map<string, string[]>();
        for (const b of bindings) {
          const bindingName = b.metadata.name ?? '';
          try {
            if (
              b.spec.matchResources &&
              !(await matches(b.spec.matchResources, req, o.namespace, o.equivalents)).matches
            )
              continue;
          } catch (e) {
            configError(cp, e, policyName, bindingName);
            continue;
          }
          let params: (KubeObject | null)[];
          try {
            params = await collectParams(p, b, a.namespace);
          } catch (e) {
            configError(cp, e, policyName, bindingName);
            continue;
          }
          if (params.length === 0) continue;
          if (ns === undefined) {
            const stored = nsName ? await o.namespace(nsName) : undefined;
            if (nsName && !stored) throw notFound({ group: '', name: 'namespaces' }, nsName);
            ns = stored
              ? { validations: objectValue(namespaceObject(stored)), audit: objectValue(stored) }
              : { validations: null, audit: null };
          }
          const actions = b.spec.validationActions ?? [];
          for (const param of params) {
            objects ??= { object: objectValue(a.object), oldObject: objectValue(a.oldObject) };
            const inputs: Inputs = {
              ...objects,
              request,
              namespaceObject: ns.validations,
              params: param === null ? null : objectValue(withTypeMeta(param, p.spec.paramKind!)),
              ...authz,
            };
            const res = validatePolicy(
              cp,
              {
                validations: inputs,
                matchConditions: { ...inputs, request: matchRequest, namespaceObject: null },
                auditNamespace: ns.audit,
              },
              budget,
            );
            res.decisions.forEach((d, i) => {
              if (d.action !== 'deny') return;
              for (const act of actions) {
                if (act === 'Deny') denied.push({ policy: policyName, binding: bindingName, decision: d });
                else if (act === 'Warn')
                  warn(
                    `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${d.message}`,
                  );
                else if (act === 'Audit')
                  annotate(
                    VALIDATION_FAILURE_KEY,
                    JSON.stringify([
                      {
                        message: d.message,
                        policy: b.spec.policyName,
                        binding: bindingName,
                        expressionIndex: i,
                        validationActions: actions,
                      },
                    ]),
                  );
              }
            });
            for (const an of res.auditAnnotations) {
              if (an.action === 'publish') {
                const value =
                  an.value!.length > MAX_AUDIT_ANNOTATION_VALUE
                    ? an.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE)
                    : an.value!;
                const list = annotations.get(an.key) ?? [];
                if (!list.includes(value)) list.push(value);
                annotations.set(an.key, list);
              } else if (an.action === 'error') {
                denied.push({
                  policy: policyName,
                  binding: bindingName,
                  decision: { action: 'deny', evaluation: 'error', message: an.error!, reason: '' },
                });
              }
            }
          }
        }
        for (const [key, values] of annotations) annotate(`${policyName}/${key}`, values.join(', '));
      }
      if (denied.length > 0) {
        const d = denied[0]!;
        throw denial(a, d.policy, d.binding, d.decision);
      }
    },
  };
}

/** kube's wrappedParam: a param without apiVersion/kind gets the paramKind's. */
function withTypeMeta(p: KubeObject, k: ParamKind): KubeObject {
  if (p.apiVersion && p.kind) return p;
  return { ...p, apiVersion: k.apiVersion, kind: k.kind };
}
