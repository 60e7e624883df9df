// core/v1 ServiceAccount's strategy: kube validates only its metadata (ValidateServiceAccountName
// is NameIsDNSSubdomain), its secrets list is keyed by name for server-side apply, its
// imagePullSecrets atomic, and `kubectl get` prints SECRETS.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import {
  SERVICE_ACCOUNT_COLUMNS,
  serviceAccountSecretCount,
  serviceAccountStrategy,
} from '../../../../../server/registry/builtin/serviceaccounts.js';

const sa = (fields: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' }, ...fields }) as KubeObject;

describe('ServiceAccount', () => {
  it.each<[string, string, boolean]>([
    ['a DNS subdomain', 'build-bot.team', true],
    ['a DNS label', 'sa1', true],
    ['upper case', 'Bot', false],
    ['an underscore', 'build_bot', false],
    ['254 characters', 'a'.repeat(254), false],
  ])('name: %s (%s) valid=%s', (_name, name, ok) => {
    expect(serviceAccountStrategy.create.validateName(name).length === 0).toBe(ok);
  });

  it('validates nothing beyond its metadata: secrets and imagePullSecrets are free-form references', () => {
    const obj = sa({
      secrets: [{ name: 'a' }, { name: 'a' }],
      imagePullSecrets: [{ name: '' }],
      automountServiceAccountToken: false,
    });
    expect(serviceAccountStrategy.create.validate(obj, { dryRun: false })).toEqual([]);
    expect(serviceAccountStrategy.update.validate(obj, sa(), { dryRun: false })).toEqual([]);
  });

  it("types secrets as a list keyed by name and imagePullSecrets as atomic, as kube's model does", () => {
    const fields = serviceAccountStrategy.fieldTypes('v1').map?.fields;
    expect(fields?.get('secrets')?.type.list).toMatchObject({ relationship: 'map', keys: ['name'] });
    expect(fields?.get('secrets')?.type.list?.elementType.map?.relationship).toBe('atomic');
    expect(fields?.get('imagePullSecrets')?.type.list).toMatchObject({ relationship: 'atomic' });
  });

  it('prints SECRETS as the number of secrets', () => {
    expect(serviceAccountSecretCount(sa({ secrets: [{ name: 'a' }, { name: 'b' }] }))).toBe(2);
    expect(serviceAccountSecretCount(sa())).toBe(0);
    expect(SERVICE_ACCOUNT_COLUMNS.map((c) => [c.name, c.type])).toEqual([
      ['Secrets', 'string'],
      ['Age', 'string'],
    ]);
  });

  it("field selectors: metadata only, with core/v1's text", () => {
    expect(serviceAccountStrategy.fieldLabels('secrets', 'x')).toEqual({
      error: 'field label "secrets" not supported for "ServiceAccount"',
    });
    expect(serviceAccountStrategy.fieldLabels('metadata.namespace', 'x')).toEqual({
      label: 'metadata.namespace',
      value: 'x',
    });
  });
});
