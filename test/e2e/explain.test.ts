// `kubectl explain` of the built-in kinds with the real kubectl 1.27 and 1.33 against the real
// binary: the OpenAPI documents carry kube's definitions of ConfigMap, Secret, ServiceAccount,
// Namespace, Event (core and events.k8s.io), Lease, RBAC's four kinds, CustomResourceDefinition and
// admissionregistration.k8s.io's four kinds, so explain prints kube's
// descriptions and types and walks into nested fields. Both versions read the v3 documents
// (1.27 also asks for /openapi/v2 first and needs it to answer). One server for the file, shared by
// both versions, each with its own kubeconfig and cache (test/helpers/kubectl.ts kubectlScope).
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'explain');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

/** explain's output with its whitespace runs (its wrapping) folded to one space. */
const folded = (s: string): string => s.replace(/\s+/g, ' ');

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version} explain of built-in kinds`, () => {
    const { kubectl } = kubectlScope(binary, version, () => server);
    const explain = async (...args: string[]): Promise<string> => {
      const r = await kubectl(['explain', ...args]);
      if (r.code !== 0) throw new Error(`kubectl explain ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      expect(r.stderr, `kubectl explain ${args.join(' ')}`).toBe('');
      return r.stdout;
    };

    it("configmap: kube's description and its fields with their types", async () => {
      const out = await explain('configmap');
      expect(out).toMatch(/^KIND:\s+ConfigMap$/m);
      expect(out).toMatch(/^VERSION:\s+v1$/m);
      expect(folded(out)).toContain('DESCRIPTION: ConfigMap holds configuration data for pods to consume.');
      expect(out).not.toContain('<empty>');
      expect(out).toMatch(/^\s+binaryData\s+<map\[string\]string>$/m);
      expect(out).toMatch(/^\s+data\s+<map\[string\]string>$/m);
      expect(out).toMatch(/^\s+immutable\s+<boolean>$/m);
      expect(out).toMatch(/^\s+metadata\s+<ObjectMeta>$/m);
    });

    it('lease.spec.leaseDurationSeconds: an integer, described as kube describes it', async () => {
      const out = await explain('lease.spec.leaseDurationSeconds');
      expect(out).toMatch(/^GROUP:\s+coordination\.k8s\.io$/m);
      expect(out).toMatch(/^FIELD:\s+leaseDurationSeconds <integer>$/m);
      expect(folded(out)).toContain(
        'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.',
      );
    });

    it('lease.spec: the LeaseSpec and its fields', async () => {
      const out = await explain('lease.spec');
      expect(out).toMatch(/^FIELD:\s+spec <LeaseSpec>$/m);
      for (const f of ['acquireTime', 'holderIdentity', 'leaseDurationSeconds', 'leaseTransitions', 'renewTime'])
        expect(out).toMatch(new RegExp(`^\\s+${f}\\s+<`, 'm'));
    });

    it('role.rules: a list of PolicyRule with its fields, verbs required', async () => {
      const out = await explain('role.rules');
      expect(out).toMatch(/^GROUP:\s+rbac\.authorization\.k8s\.io$/m);
      expect(out).toMatch(/^FIELD:\s+rules <\[\]PolicyRule>$/m);
      expect(folded(out)).toContain('Rules holds all the PolicyRules for this Role');
      for (const f of ['apiGroups', 'nonResourceURLs', 'resourceNames', 'resources'])
        expect(out).toMatch(new RegExp(`^\\s+${f}\\s+<\\[\\]string>$`, 'm'));
      expect(out).toMatch(/^\s+verbs\s+<\[\]string> -required-$/m);
    });

    it('secret.type: a string, with its link to the secret types', async () => {
      const out = await explain('secret.type');
      expect(out).toMatch(/^FIELD:\s+type <string>$/m);
      expect(folded(out)).toContain(
        'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      );
    });

    it.each([
      ['serviceaccount.secrets', 'secrets <[]ObjectReference>'],
      ['namespace.status.conditions', 'conditions <[]NamespaceCondition>'],
      ['event.involvedObject', 'involvedObject <ObjectReference>'],
      ['clusterrole.aggregationRule.clusterRoleSelectors', 'clusterRoleSelectors <[]LabelSelector>'],
      ['rolebinding.roleRef', 'roleRef <RoleRef>'],
      ['clusterrolebinding.subjects', 'subjects <[]Subject>'],
      ['crd.spec.versions', 'versions <[]CustomResourceDefinitionVersion>'],
      ['crd.spec.versions.schema.openAPIV3Schema', 'openAPIV3Schema <JSONSchemaProps>'],
      ['crd.spec.versions.schema.openAPIV3Schema.properties', 'properties <map[string]JSONSchemaProps>'],
    ])('%s: %s', async (path, field) => {
      expect(folded(await explain(path))).toContain(`FIELD: ${field}`);
    });

    it('rolebinding: roleRef is listed as required, subjects not', async () => {
      const out = await explain('rolebinding');
      expect(out).toMatch(/^\s+roleRef\s+<RoleRef> -required-$/m);
      expect(out).toMatch(/^\s+subjects\s+<\[\]Subject>$/m);
    });

    it("validatingwebhookconfiguration.webhooks.rules: kube's RuleWithOperations and its fields", async () => {
      const out = await explain('validatingwebhookconfiguration.webhooks.rules');
      expect(out).toMatch(/^GROUP:\s+admissionregistration\.k8s\.io$/m);
      expect(out).toMatch(/^FIELD:\s+rules <\[\]RuleWithOperations>$/m);
      expect(folded(out)).toContain(
        'Rules describes what operations on what resources/subresources the webhook cares about. The webhook cares about an operation if it matches _any_ Rule.',
      );
      for (const f of ['apiGroups', 'apiVersions', 'operations', 'resources'])
        expect(out).toMatch(new RegExp(`^\\s+${f}\\s+<\\[\\]string>$`, 'm'));
      expect(out).toMatch(/^\s+scope\s+<string>$/m);
      expect(folded(out)).toContain(
        'Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations',
      );
    });

    it("validatingadmissionpolicy.spec.validations: kube's Validation, expression required", async () => {
      const out = await explain('validatingadmissionpolicy.spec.validations');
      expect(out).toMatch(/^GROUP:\s+admissionregistration\.k8s\.io$/m);
      expect(out).toMatch(/^FIELD:\s+validations <\[\]Validation>$/m);
      expect(folded(out)).toContain('Validations contain CEL expressions which is used to apply the validation.');
      expect(folded(out)).toContain('Validation specifies the CEL expression which is used to apply the validation.');
      expect(out).toMatch(/^\s+expression\s+<string> -required-$/m);
      for (const f of ['message', 'messageExpression', 'reason'])
        expect(out).toMatch(new RegExp(`^\\s+${f}\\s+<string>$`, 'm'));
    });

    it("events.k8s.io Event: its own fields, not core/v1 Event's", async () => {
      const out = await explain('events.regarding', '--api-version=events.k8s.io/v1');
      expect(out).toMatch(/^GROUP:\s+events\.k8s\.io$/m);
      expect(out).toMatch(/^FIELD:\s+regarding <ObjectReference>$/m);
    });
  });
}
