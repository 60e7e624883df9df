// Admission configured by API objects, driven by the real kubectl 1.27 and 1.33 against the real
// binary, one server per version, with a real HTTPS webhook server (its own CA, from
// server/pki.ts) in the test process: a ValidatingWebhookConfiguration refusing a custom resource
// with kube's text, a MutatingWebhookConfiguration adding a label (and a warning), a
// ValidatingAdmissionPolicy with its binding and a param ConfigMap limiting spec.size in Deny then
// Warn mode, one asking the authorizer whether the (impersonated) user may delete what it creates,
// refused with kube's Status, and the four kinds' tables as kubectl prints them.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type AdmissionWebhook, startAdmissionWebhook } from '../helpers/admission-webhook.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlsFor, kubectlRunner } from '../helpers/kubectl.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'dynamic admission');

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.adm.example.com
spec:
  group: adm.example.com
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

const widget = (name: string, size: number): string => `
apiVersion: adm.example.com/v1
kind: Widget
metadata:
  name: ${name}
spec:
  size: ${size}
`;

/** A webhook configuration of `kind` with one webhook calling `path` on the test's webhook server for widgets. */
const webhookConfiguration = (
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
- name: ${name}.adm.example.com
  clientConfig:
    url: ${url}${path}
    caBundle: ${caBundle}
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [adm.example.com]
    apiVersions: [v1]
    resources: [widgets]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

const LIMITS = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: widget-limits
  namespace: default
data:
  max: "3"
`;

const POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: widget-size
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [adm.example.com]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [widgets]
  validations:
  - expression: object.spec.size <= int(params.data.max)
    messageExpression: "'size ' + string(object.spec.size) + ' is over ' + params.data.max"
`;

const binding = (action: 'Deny' | 'Warn'): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: widget-size-default
spec:
  policyName: widget-size
  validationActions: [${action}]
  paramRef:
    name: widget-limits
    namespace: default
    parameterNotFoundAction: Deny
`;

/** Widgets may be created only by those who may also delete them: a policy asking the authorizer. */
const DELETERS_POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: widget-deleters
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [adm.example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  validations:
  - expression: "authorizer.group('adm.example.com').resource('widgets').namespace(object.metadata.namespace).check('delete').allowed()"
    messageExpression: "request.userInfo.username + ' may not delete widgets in ' + object.metadata.namespace"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: widget-deleters
spec:
  policyName: widget-deleters
  validationActions: [Deny]
`;

/** bob may create widgets in default, not delete them. */
const WIDGET_MAKER = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-maker, namespace: default}
rules:
- apiGroups: [adm.example.com]
  resources: [widgets]
  verbs: [get, list, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: widget-maker-bob, namespace: default}
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
    let server: ServerProcess;
    let webhook: AdmissionWebhook;
    const { kubectl } = kubectlRunner(binary, () => server.kubeconfigPath);
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
      [server, webhook] = await Promise.all([
        startServerProcess({ args: ['--log-level', 'warn'] }),
        startAdmissionWebhook(answer),
      ]);
      expect(await ok(['apply', '-f', '-'], CRD)).toBe(
        'customresourcedefinition.apiextensions.k8s.io/widgets.adm.example.com created\n',
      );
      await eventually(
        'widgets served',
        async () => ((await kubectl(['get', 'widgets'])).code === 0 ? true : undefined),
        20_000,
      );
    });
    afterAll(async () => {
      await server?.stop();
      await webhook?.close();
    });

    it("a ValidatingWebhookConfiguration: kubectl apply of a widget over the limit is refused with kube's text", async () => {
      cleanUp('validatingwebhookconfiguration', 'deny-big');
      const config = webhookConfiguration(
        'ValidatingWebhookConfiguration',
        'deny-big',
        '/deny-big',
        webhook.url,
        webhook.caBundle,
      );
      expect(await ok(['apply', '-f', '-'], config)).toBe(
        'validatingwebhookconfiguration.admissionregistration.k8s.io/deny-big created\n',
      );

      // Applied once the server's informer has it: until then a big widget still goes through.
      const refused = await eventually('the webhook refusing', async () => {
        const r = await kubectl(['apply', '-f', '-'], widget(fresh('big'), 9));
        return r.code === 0 ? undefined : r;
      });
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        1,
        '',
        'Error from server (Forbidden): error when creating "STDIN": admission webhook "deny-big.adm.example.com" denied the request: size over 5\n',
      ]);
      expect(await ok(['apply', '-f', '-'], widget('small', 2))).toBe('widget.adm.example.com/small created\n');
      const asked = webhook.seen.find((s) => s.path === '/deny-big' && s.request['name'] === 'small')!.request;
      expect(asked).toMatchObject({
        operation: 'CREATE',
        namespace: 'default',
        kind: { group: 'adm.example.com', version: 'v1', kind: 'Widget' },
        resource: { group: 'adm.example.com', version: 'v1', resource: 'widgets' },
        userInfo: { username: 'admin' },
        object: { spec: { size: 2 } },
      });

      // An update through the webhook too: `kubectl apply` of the same widget grown past the limit.
      const grown = await kubectl(['apply', '-f', '-'], widget('small', 8));
      expect(grown.code).toBe(1);
      expect(grown.stderr).toMatch(/^Error from server \(Forbidden\): error when applying patch:\n/);
      expect(grown.stderr).toContain('admission webhook "deny-big.adm.example.com" denied the request: size over 5');

      // kube's table: NAME, WEBHOOKS, AGE.
      const table = (await ok(['get', 'validatingwebhookconfigurations'])).trimEnd().split('\n');
      expect(table[0]).toMatch(/^NAME\s+WEBHOOKS\s+AGE$/);
      expect(table.slice(1)).toEqual([expect.stringMatching(/^deny-big\s+1\s+\d+s$/)]);
      const stored = parseYaml(await ok(['get', 'validatingwebhookconfiguration', 'deny-big', '-o', 'yaml'])) as Json;
      expect(stored['webhooks'][0]).toMatchObject({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        namespaceSelector: {},
        objectSelector: {},
      });

      expect(await ok(['delete', 'validatingwebhookconfiguration', 'deny-big'])).toBe(
        'validatingwebhookconfiguration.admissionregistration.k8s.io "deny-big" deleted\n',
      );
      await eventually('the webhook gone', async () =>
        (await kubectl(['apply', '-f', '-'], widget(fresh('big'), 9))).code === 0 ? true : undefined,
      );
    });

    it('a MutatingWebhookConfiguration: the label it adds is in `kubectl get -o yaml`, and its warning on stderr', async () => {
      cleanUp('mutatingwebhookconfiguration', 'add-label');
      const config = webhookConfiguration(
        'MutatingWebhookConfiguration',
        'add-label',
        '/add-label',
        webhook.url,
        webhook.caBundle,
      );
      expect(await ok(['apply', '-f', '-'], config)).toBe(
        'mutatingwebhookconfiguration.admissionregistration.k8s.io/add-label created\n',
      );

      const name = await eventually('the webhook labelling', async () => {
        const candidate = fresh('labelled');
        const r = await kubectl(['apply', '-f', '-'], widget(candidate, 1));
        if (r.code !== 0) throw new Error(r.stderr);
        return r.stderr === '' ? undefined : { candidate, r };
      });
      expect([name.r.stdout, name.r.stderr]).toEqual([
        `widget.adm.example.com/${name.candidate} created\n`,
        'Warning: labelled by the webhook\n',
      ]);
      const got = parseYaml(await ok(['get', 'widget', name.candidate, '-o', 'yaml'])) as Json;
      expect(got['metadata']['labels']).toEqual({ mutated: 'yes' });
      expect(got['spec']).toEqual({ size: 1 });

      const table = (await ok(['get', 'mutatingwebhookconfigurations'])).trimEnd().split('\n');
      expect(table[0]).toMatch(/^NAME\s+WEBHOOKS\s+AGE$/);
      expect(table.slice(1)).toEqual([expect.stringMatching(/^add-label\s+1\s+\d+s$/)]);

      expect(await ok(['delete', 'mutatingwebhookconfiguration', 'add-label'])).toBe(
        'mutatingwebhookconfiguration.admissionregistration.k8s.io "add-label" deleted\n',
      );
      await eventually('the webhook gone', async () =>
        (await kubectl(['apply', '-f', '-'], widget(fresh('plain'), 1))).stderr === '' ? true : undefined,
      );
    });

    it("a ValidatingAdmissionPolicy with a param ConfigMap: Deny with kubectl's error text, then Warn", async () => {
      expect(await ok(['apply', '-f', '-'], LIMITS)).toBe('configmap/widget-limits created\n');
      expect(await ok(['apply', '-f', '-'], POLICY)).toBe(
        'validatingadmissionpolicy.admissionregistration.k8s.io/widget-size created\n',
      );
      expect(await ok(['apply', '-f', '-'], binding('Deny'))).toBe(
        'validatingadmissionpolicybinding.admissionregistration.k8s.io/widget-size-default created\n',
      );

      const denied = await eventually('the policy denying', async () => {
        const name = fresh('too-big');
        const r = await kubectl(['apply', '-f', '-'], widget(name, 7));
        return r.code === 0 ? undefined : { name, r };
      });
      expect([denied.r.code, denied.r.stdout, denied.r.stderr]).toEqual([
        1,
        '',
        `The widgets "${denied.name}" is invalid: : ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size-default' denied request: size 7 is over 3\n`,
      ]);
      expect(await ok(['apply', '-f', '-'], widget('fits', 3))).toBe('widget.adm.example.com/fits created\n');

      // kube's tables: the policy's validations and param kind, the binding's policy and param.
      const policies = (await ok(['get', 'validatingadmissionpolicies'])).trimEnd().split('\n');
      expect(policies[0]).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE$/);
      expect(policies.slice(1)).toEqual([expect.stringMatching(/^widget-size\s+1\s+v1\/ConfigMap\s+\d+s$/)]);
      const bindings = (await ok(['get', 'validatingadmissionpolicybindings'])).trimEnd().split('\n');
      expect(bindings[0]).toMatch(/^NAME\s+POLICYNAME\s+PARAMREF\s+AGE$/);
      expect(bindings.slice(1)).toEqual([
        expect.stringMatching(/^widget-size-default\s+widget-size\s+default\/widget-limits\s+\d+s$/),
      ]);

      // Warn: the same widget is created, and kubectl prints the policy's warning.
      expect(await ok(['apply', '-f', '-'], binding('Warn'))).toBe(
        'validatingadmissionpolicybinding.admissionregistration.k8s.io/widget-size-default configured\n',
      );
      const warned = await eventually('the policy warning', async () => {
        const name = fresh('warned');
        const r = await kubectl(['apply', '-f', '-'], widget(name, 8));
        return r.code === 0 ? { name, r } : undefined;
      });
      expect([warned.r.stdout, warned.r.stderr]).toEqual([
        `widget.adm.example.com/${warned.name} created\n`,
        "Warning: Validation failed for ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size-default': size 8 is over 3\n",
      ]);
      expect((parseYaml(await ok(['get', 'widget', warned.name, '-o', 'yaml'])) as Json)['spec']).toEqual({ size: 8 });

      // A lower limit in the ConfigMap applies to the next request, without touching the policy.
      expect(await ok(['apply', '-f', '-'], binding('Deny'))).toBe(
        'validatingadmissionpolicybinding.admissionregistration.k8s.io/widget-size-default configured\n',
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
      cleanUp('validatingadmissionpolicybinding', 'widget-deleters');
      cleanUp('validatingadmissionpolicy', 'widget-deleters');
      expect(await ok(['apply', '-f', '-'], WIDGET_MAKER)).toBe(
        'role.rbac.authorization.k8s.io/widget-maker created\nrolebinding.rbac.authorization.k8s.io/widget-maker-bob created\n',
      );
      expect(await ok(['apply', '-f', '-'], DELETERS_POLICY)).toBe(
        'validatingadmissionpolicy.admissionregistration.k8s.io/widget-deleters created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/widget-deleters created\n',
      );

      const denied = await eventually('the policy denying bob', async () => {
        const name = fresh('bobs');
        const r = await kubectl(['--as', 'bob', 'create', '-f', '-'], widget(name, 1));
        return r.code === 0 ? undefined : { name, r };
      });
      const message =
        "ValidatingAdmissionPolicy 'widget-deleters' with binding 'widget-deleters' denied request: bob may not delete widgets in default";
      expect([denied.r.code, denied.r.stdout, denied.r.stderr]).toEqual([
        1,
        '',
        `Error from server (Forbidden): error when creating "STDIN": widgets.adm.example.com "${denied.name}" is forbidden: ${message}\n`,
      ]);

      // The Status kube answers with, whole.
      const name = fresh('bobs');
      const res = await server.request('/apis/adm.example.com/v1/namespaces/default/widgets', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'impersonate-user': 'bob' },
        body: JSON.stringify({
          apiVersion: 'adm.example.com/v1',
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
        message: `widgets.adm.example.com "${name}" is forbidden: ${message}`,
        reason: 'Forbidden',
        details: { name, group: 'adm.example.com', kind: 'widgets', causes: [{ message }] },
        code: 403,
      });

      // Whoever may delete widgets may create them.
      expect(await ok(['create', '-f', '-'], widget('admins', 1))).toBe('widget.adm.example.com/admins created\n');
    });
  });
}
