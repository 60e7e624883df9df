// Admission configured by API objects, driven by the real kubectl 1.27 and 1.33 against the real
// binary, one server for the file, with a real HTTPS webhook server per version (its own CA, from
// server/pki.ts) in the test process: a ValidatingWebhookConfiguration refusing a custom resource
// with kube's text, a MutatingWebhookConfiguration adding a label (and a warning), a
// ValidatingAdmissionPolicy with its binding and a param ConfigMap limiting spec.size in Deny then
// Warn mode, one asking the authorizer whether the (impersonated) user may delete what it creates,
// refused with kube's Status, and the four kinds' tables as kubectl prints them.
//
// The versions take turns on the server, each in a namespace of its own (test/helpers/kubectl.ts
// kubectlScope) with a CRD in a group of its own, which its webhooks and policy match: what one
// version configures never admits or refuses the other's widgets. Each deletes its configurations
// and policy when its test ends, and its CRD after its tests, so that the other version's tables
// and its `widget` find its own alone.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type AdmissionWebhook, startAdmissionWebhook } from '../helpers/admission-webhook.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'dynamic admission');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess({ args: ['--log-level', 'warn'] });
});
afterAll(async () => {
  await server?.stop();
});

const crd = (group: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;

const widgetIn = (group: string, name: string, size: number): string => `
apiVersion: ${group}/v1
kind: Widget
metadata:
  name: ${name}
spec:
  size: ${size}
`;

/** A webhook configuration of `kind` with one webhook calling `path` on the test's webhook server for `group`'s widgets. */
const webhookConfiguration = (
  group: string,
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration',
  name: string,
  path: string,
  url: string,
  caBundle: string,
): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata:
  name: ${name}
webhooks:
- name: ${name}.${group}
  clientConfig:
    url: ${url}${path}
    caBundle: ${caBundle}
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [${group}]
    apiVersions: [v1]
    resources: [widgets]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

const limits = (namespace: string): string => `
apiVersion: v1
kind: ConfigMap
metadata:
  name: widget-limits
  namespace: ${namespace}
data:
  max: "3"
`;

const policy = (name: string, group: string): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [${group}]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [widgets]
  validations:
  - expression: object.spec.size <= int(params.data.max)
    messageExpression: "'size ' + string(object.spec.size) + ' is over ' + params.data.max"
`;

const bindingOf = (name: string, policyName: string, namespace: string, action: 'Deny' | 'Warn'): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policyName}
  validationActions: [${action}]
  paramRef:
    name: widget-limits
    namespace: ${namespace}
    parameterNotFoundAction: Deny
`;

/** Widgets may be created only by those who may also delete them: a policy asking the authorizer. */
const deletersPolicy = (name: string, group: string): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [${group}]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  validations:
  - expression: "authorizer.group('${group}').resource('widgets').namespace(object.metadata.namespace).check('delete').allowed()"
    messageExpression: "request.userInfo.username + ' may not delete widgets in ' + object.metadata.namespace"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${name}
  validationActions: [Deny]
`;

/** bob may create widgets in `namespace`, not delete them. */
const widgetMaker = (namespace: string, group: string): string => `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-maker, namespace: ${namespace}}
rules:
- apiGroups: [${group}]
  resources: [widgets]
  verbs: [get, list, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: widget-maker-bob, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: widget-maker}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
`;

/** The webhook server's answer per path: /deny-big refuses spec.size over 5, /add-label labels the object. */
function answer(path: string, request: Json): Json {
  const object = request['object'] as Json;
  switch (path) {
    case '/deny-big':
      // Reason Forbidden, as controller-runtime's admission.Denied sends it: kubectl prints the
      // reason in its `Error from server (Forbidden): ...` (without one, kube and kubectl print
      // `Error from server: ...`).
      return (object['spec']?.['size'] ?? 0) > 5
        ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'size over 5' } }
        : { allowed: true };
    case '/add-label': {
      const op = object['metadata']['labels']
        ? { op: 'add', path: '/metadata/labels/mutated', value: 'yes' }
        : { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } };
      return {
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify([op])).toString('base64'),
        warnings: ['labelled by the webhook'],
      };
    }
    default:
      return { allowed: false, status: { code: 404, message: `no webhook at ${path}` } };
  }
}

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version} with admission webhooks and policies`, () => {
    let webhook: AdmissionWebhook;
    const scope = kubectlScope(binary, version, () => server);
    const { kubectl, namespace: ns, suffix } = scope;
    const group = `adm-${suffix}.example.com`;
    const widget = (name: string, size: number): string => widgetIn(group, name, size);
    // The cluster-scoped objects' names, this version's own.
    const [denyBig, addLabel, widgetSize, widgetSizeBinding, widgetDeleters] = [
      `deny-big-${suffix}`,
      `add-label-${suffix}`,
      `widget-size-${suffix}`,
      `widget-size-${suffix}-binding`,
      `widget-deleters-${suffix}`,
    ];
    const LIMITS = limits(ns);
    const POLICY = policy(widgetSize, group);
    const binding = (action: 'Deny' | 'Warn'): string => bindingOf(widgetSizeBinding, widgetSize, ns, action);
    /** kubectl that must succeed without a word on stderr: its stdout. */
    const ok = async (args: string[], input?: string): Promise<string> => {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      expect(r.stderr, `kubectl ${args.join(' ')}`).toBe('');
      return r.stdout;
    };
    let attempt = 0;
    /** A name not used before in this server (admission configured by objects applies a moment after their write). */
    const fresh = (prefix: string): string => `${prefix}-${++attempt}`;
    /** Deletes `kind/name` when the test ends, passed or not, so that a failure does not spill into the next test. */
    const cleanUp = (kind: string, name: string): void =>
      onTestFinished(async () => {
        await kubectl(['delete', kind, name, '--ignore-not-found']);
      });

    beforeAll(async () => {
      webhook = await startAdmissionWebhook(answer);
      expect(await ok(['apply', '-f', '-'], crd(group))).toBe(
        `customresourcedefinition.apiextensions.k8s.io/widgets.${group} created\n`,
      );
      await eventually(
        'widgets served',
        async () => ((await kubectl(['get', 'widgets'])).code === 0 ? true : undefined),
        20_000,
      );
    });
    afterAll(async () => {
      await kubectl(['delete', 'crd', `widgets.${group}`, '--ignore-not-found']);
      await webhook?.close();
    });

    it("a ValidatingWebhookConfiguration: kubectl apply of a widget over the limit is refused with kube's text", async () => {
      cleanUp('validatingwebhookconfiguration', denyBig);
      const config = webhookConfiguration(
        group,
        'ValidatingWebhookConfiguration',
        denyBig,
        '/deny-big',
        webhook.url,
        webhook.caBundle,
      );
      expect(await ok(['apply', '-f', '-'], config)).toBe(
        `validatingwebhookconfiguration.admissionregistration.k8s.io/${denyBig} created\n`,
      );

      // Applied once the server's informer has it: until then a big widget still goes through.
      const refused = await eventually('the webhook refusing', async () => {
        const r = await kubectl(['apply', '-f', '-'], widget(fresh('big'), 9));
        return r.code === 0 ? undefined : r;
      });
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        1,
        '',
        `Error from server (Forbidden): error when creating "STDIN": admission webhook "${denyBig}.${group}" denied the request: size over 5\n`,
      ]);
      expect(await ok(['apply', '-f', '-'], widget('small', 2))).toBe(`widget.${group}/small created\n`);
      const asked = webhook.seen.find((s) => s.path === '/deny-big' && s.request['name'] === 'small')!.request;
      expect(asked).toMatchObject({
        operation: 'CREATE',
        namespace: ns,
        kind: { group, version: 'v1', kind: 'Widget' },
        resource: { group, version: 'v1', resource: 'widgets' },
        userInfo: { username: 'admin' },
        object: { spec: { size: 2 } },
      });

      // An update through the webhook too: `kubectl apply` of the same widget grown past the limit.
      const grown = await kubectl(['apply', '-f', '-'], widget('small', 8));
      expect(grown.code).toBe(1);
      expect(grown.stderr).toMatch(/^Error from server \(Forbidden\): error when applying patch:\n/);
      expect(grown.stderr).toContain(`admission webhook "${denyBig}.${group}" denied the request: size over 5`);

      // kube's table: NAME, WEBHOOKS, AGE.
      const table = (await ok(['get', 'validatingwebhookconfigurations'])).trimEnd().split('\n');
      expect(table[0]).toMatch(/^NAME\s+WEBHOOKS\s+AGE$/);
      expect(table.slice(1)).toEqual([expect.stringMatching(new RegExp(`^${denyBig}\\s+1\\s+\\d+s$`))]);
      const stored = parseYaml(await ok(['get', 'validatingwebhookconfiguration', denyBig, '-o', 'yaml'])) as Json;
      expect(stored['webhooks'][0]).toMatchObject({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        namespaceSelector: {},
        objectSelector: {},
      });

      expect(await ok(['delete', 'validatingwebhookconfiguration', denyBig])).toBe(
        `validatingwebhookconfiguration.admissionregistration.k8s.io "${denyBig}" deleted\n`,
      );
      await eventually('the webhook gone', async () =>
        (await kubectl(['apply', '-f', '-'], widget(fresh('big'), 9))).code === 0 ? true : undefined,
      );
    });

    it('a MutatingWebhookConfiguration: the label it adds is in `kubectl get -o yaml`, and its warning on stderr', async () => {
      cleanUp('mutatingwebhookconfiguration', addLabel);
      const config = webhookConfiguration(
        group,
        'MutatingWebhookConfiguration',
        addLabel,
        '/add-label',
        webhook.url,
        webhook.caBundle,
      );
      expect(await ok(['apply', '-f', '-'], config)).toBe(
        `mutatingwebhookconfiguration.admissionregistration.k8s.io/${addLabel} created\n`,
      );

      const name = await eventually('the webhook labelling', async () => {
        const candidate = fresh('labelled');
        const r = await kubectl(['apply', '-f', '-'], widget(candidate, 1));
        if (r.code !== 0) throw new Error(r.stderr);
        return r.stderr === '' ? undefined : { candidate, r };
      });
      expect([name.r.stdout, name.r.stderr]).toEqual([
        `widget.${group}/${name.candidate} created\n`,
        'Warning: labelled by the webhook\n',
      ]);
      const got = parseYaml(await ok(['get', 'widget', name.candidate, '-o', 'yaml'])) as Json;
      expect(got['metadata']['labels']).toEqual({ mutated: 'yes' });
      expect(got['spec']).toEqual({ size: 1 });

      const table = (await ok(['get', 'mutatingwebhookconfigurations'])).trimEnd().split('\n');
      expect(table[0]).toMatch(/^NAME\s+WEBHOOKS\s+AGE$/);
      expect(table.slice(1)).toEqual([expect.stringMatching(new RegExp(`^${addLabel}\\s+1\\s+\\d+s$`))]);

      expect(await ok(['delete', 'mutatingwebhookconfiguration', addLabel])).toBe(
        `mutatingwebhookconfiguration.admissionregistration.k8s.io "${addLabel}" deleted\n`,
      );
      await eventually('the webhook gone', async () =>
        (await kubectl(['apply', '-f', '-'], widget(fresh('plain'), 1))).stderr === '' ? true : undefined,
      );
    });

    it("a ValidatingAdmissionPolicy with a param ConfigMap: Deny with kubectl's error text, then Warn", async () => {
      cleanUp('validatingadmissionpolicybinding', widgetSizeBinding);
      cleanUp('validatingadmissionpolicy', widgetSize);
      expect(await ok(['apply', '-f', '-'], LIMITS)).toBe('configmap/widget-limits created\n');
      expect(await ok(['apply', '-f', '-'], POLICY)).toBe(
        `validatingadmissionpolicy.admissionregistration.k8s.io/${widgetSize} created\n`,
      );
      expect(await ok(['apply', '-f', '-'], binding('Deny'))).toBe(
        `validatingadmissionpolicybinding.admissionregistration.k8s.io/${widgetSizeBinding} created\n`,
      );

      const denied = await eventually('the policy denying', async () => {
        const name = fresh('too-big');
        const r = await kubectl(['apply', '-f', '-'], widget(name, 7));
        return r.code === 0 ? undefined : { name, r };
      });
      expect([denied.r.code, denied.r.stdout, denied.r.stderr]).toEqual([
        1,
        '',
        `The widgets "${denied.name}" is invalid: : ValidatingAdmissionPolicy '${widgetSize}' with binding '${widgetSizeBinding}' denied request: size 7 is over 3\n`,
      ]);
      expect(await ok(['apply', '-f', '-'], widget('fits', 3))).toBe(`widget.${group}/fits created\n`);

      // kube's tables: the policy's validations and param kind, the binding's policy and param.
      const policies = (await ok(['get', 'validatingadmissionpolicies'])).trimEnd().split('\n');
      expect(policies[0]).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE$/);
      expect(policies.slice(1)).toEqual([
        expect.stringMatching(new RegExp(`^${widgetSize}\\s+1\\s+v1/ConfigMap\\s+\\d+s$`)),
      ]);
      const bindings = (await ok(['get', 'validatingadmissionpolicybindings'])).trimEnd().split('\n');
      expect(bindings[0]).toMatch(/^NAME\s+POLICYNAME\s+PARAMREF\s+AGE$/);
      expect(bindings.slice(1)).toEqual([
        expect.stringMatching(new RegExp(`^${widgetSizeBinding}\\s+${widgetSize}\\s+${ns}/widget-limits\\s+\\d+s$`)),
      ]);

      // Warn: the same widget is created, and kubectl prints the policy's warning.
      expect(await ok(['apply', '-f', '-'], binding('Warn'))).toBe(
        `validatingadmissionpolicybinding.admissionregistration.k8s.io/${widgetSizeBinding} configured\n`,
      );
      const warned = await eventually('the policy warning', async () => {
        const name = fresh('warned');
        const r = await kubectl(['apply', '-f', '-'], widget(name, 8));
        return r.code === 0 ? { name, r } : undefined;
      });
      expect([warned.r.stdout, warned.r.stderr]).toEqual([
        `widget.${group}/${warned.name} created\n`,
        `Warning: Validation failed for ValidatingAdmissionPolicy '${widgetSize}' with binding '${widgetSizeBinding}': size 8 is over 3\n`,
      ]);
      expect((parseYaml(await ok(['get', 'widget', warned.name, '-o', 'yaml'])) as Json)['spec']).toEqual({ size: 8 });

      // A lower limit in the ConfigMap applies to the next request, without touching the policy.
      expect(await ok(['apply', '-f', '-'], binding('Deny'))).toBe(
        `validatingadmissionpolicybinding.admissionregistration.k8s.io/${widgetSizeBinding} configured\n`,
      );
      expect(await ok(['apply', '-f', '-'], LIMITS.replace('max: "3"', 'max: "2"'))).toBe(
        'configmap/widget-limits configured\n',
      );
      const lowered = await eventually('the lower limit', async () => {
        const r = await kubectl(['apply', '-f', '-'], widget(fresh('three'), 3));
        return r.code === 0 ? undefined : r;
      });
      expect(lowered.stderr).toContain('denied request: size 3 is over 2\n');
    });

    it("a ValidatingAdmissionPolicy asking the authorizer: a user lacking a permission is refused with kube's Status", async () => {
      cleanUp('validatingadmissionpolicybinding', widgetDeleters);
      cleanUp('validatingadmissionpolicy', widgetDeleters);
      expect(await ok(['apply', '-f', '-'], widgetMaker(ns, group))).toBe(
        'role.rbac.authorization.k8s.io/widget-maker created\nrolebinding.rbac.authorization.k8s.io/widget-maker-bob created\n',
      );
      expect(await ok(['apply', '-f', '-'], deletersPolicy(widgetDeleters, group))).toBe(
        `validatingadmissionpolicy.admissionregistration.k8s.io/${widgetDeleters} created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/${widgetDeleters} created\n`,
      );

      const denied = await eventually('the policy denying bob', async () => {
        const name = fresh('bobs');
        const r = await kubectl(['--as', 'bob', 'create', '-f', '-'], widget(name, 1));
        return r.code === 0 ? undefined : { name, r };
      });
      const message = `ValidatingAdmissionPolicy '${widgetDeleters}' with binding '${widgetDeleters}' denied request: bob may not delete widgets in ${ns}`;
      expect([denied.r.code, denied.r.stdout, denied.r.stderr]).toEqual([
        1,
        '',
        `Error from server (Forbidden): error when creating "STDIN": widgets.${group} "${denied.name}" is forbidden: ${message}\n`,
      ]);

      // The Status kube answers with, whole.
      const name = fresh('bobs');
      const res = await server.request(`/apis/${group}/v1/namespaces/${ns}/widgets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'impersonate-user': 'bob' },
        body: JSON.stringify({
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name },
          spec: { size: 1 },
        }),
      });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `widgets.${group} "${name}" is forbidden: ${message}`,
        reason: 'Forbidden',
        details: { name, group, kind: 'widgets', causes: [{ message }] },
        code: 403,
      });

      // Whoever may delete widgets may create them.
      expect(await ok(['create', '-f', '-'], widget('admins', 1))).toBe(`widget.${group}/admins created\n`);
    });
  });
}
