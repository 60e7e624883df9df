// What startServer({ crds, webhooks }) reads and rewrites: manifests given as text or paths, and
// kubebuilder's `service:` references routed to the local webhook server, with its CA.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../apimachinery/object.js';
import { isManifestText, parseManifests, routeServices, serviceUrl } from '../../../server/provision.js';

describe('isManifestText', () => {
  it.each([
    ['config/crd/bases', false],
    ['./cache-crd.yaml', false],
    ['apiVersion: v1\nkind: ConfigMap', true],
    ['{"apiVersion":"v1"}', true],
    ['---\napiVersion: v1', true],
    ['apiVersion: v1', true],
  ])('%j: %s', (s, want) => {
    expect(isManifestText(s)).toBe(want);
  });
});

describe('parseManifests', () => {
  it('every document, empty ones skipped, Lists unpacked', () => {
    const text = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: a}',
      '---',
      '# nothing here',
      '---',
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}',
      '- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}',
    ].join('\n');
    expect(parseManifests(text).map((o) => (o['metadata'] as JsonObject)['name'])).toEqual(['a', 'b', 'c']);
  });

  it('JSON too', () => {
    expect(parseManifests('{"kind": "ConfigMap", "metadata": {"name": "j"}}')).toEqual([
      { kind: 'ConfigMap', metadata: { name: 'j' } },
    ]);
  });

  it("a document YAML cannot read fails with the parser's message", () => {
    expect(() => parseManifests('a: [1, 2\nb: 3\n')).toThrow();
  });
});

describe('serviceUrl', () => {
  it.each<[string, string | Record<string, string>, JsonObject, string]>([
    [
      'one base for every service',
      'https://127.0.0.1:9443/',
      { namespace: 'system', name: 'webhook-service', path: '/validate-v1' },
      'https://127.0.0.1:9443/validate-v1',
    ],
    [
      'per service',
      { 'system/a': 'https://127.0.0.1:1', 'system/b': 'https://127.0.0.1:2' },
      { namespace: 'system', name: 'b', path: '/convert' },
      'https://127.0.0.1:2/convert',
    ],
    ['no path', 'https://localhost:9443', { namespace: 'system', name: 'webhook-service' }, 'https://localhost:9443'],
  ])('%s', (_name, route, service, want) => {
    expect(serviceUrl(route, service)).toBe(want);
  });

  it('a service the routes do not name is an error naming it', () => {
    expect(() => serviceUrl({ 'system/a': 'https://127.0.0.1:1' }, { namespace: 'other', name: 'x' })).toThrow(
      'no URL for the webhook service other/x',
    );
  });
});

describe('routeServices', () => {
  const ca = 'Q0E=';
  it("a kubebuilder webhook configuration's services go to the local URL, trusting the CA", () => {
    const config: JsonObject = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'validating-webhook-configuration' },
      webhooks: [
        {
          name: 'vcache.kb.io',
          clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/validate-cache' } },
          admissionReviewVersions: ['v1'],
        },
        { name: 'direct.kb.io', clientConfig: { url: 'https://example.com/x' } },
      ],
    };
    expect(routeServices(config, 'https://127.0.0.1:9443', ca)).toEqual({
      ...config,
      webhooks: [
        {
          name: 'vcache.kb.io',
          clientConfig: { url: 'https://127.0.0.1:9443/validate-cache', caBundle: ca },
          admissionReviewVersions: ['v1'],
        },
        { name: 'direct.kb.io', clientConfig: { url: 'https://example.com/x' } },
      ],
    });
  });

  it("a CRD's conversion webhook service too; a CRD without one is left as it is", () => {
    const crd: JsonObject = {
      kind: 'CustomResourceDefinition',
      spec: {
        group: 'cache.example.com',
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/convert' } },
            conversionReviewVersions: ['v1'],
          },
        },
      },
    };
    const routed = routeServices(crd, 'https://127.0.0.1:9443', ca);
    expect(
      (((routed['spec'] as JsonObject)['conversion'] as JsonObject)['webhook'] as JsonObject)['clientConfig'],
    ).toEqual({
      url: 'https://127.0.0.1:9443/convert',
      caBundle: ca,
    });
    const plain: JsonObject = { kind: 'CustomResourceDefinition', spec: { group: 'g' } };
    expect(routeServices(plain, 'https://127.0.0.1:9443', ca)).toBe(plain);
  });
});
