import { describe, expect, it } from 'vitest';
import { defaultCRD } from '../../../crd/defaults.js';
import { checkSchemaAtCRDWrite } from '../../../crd/schema/crd-write.js';
import { validateCRD, validateCRDStatus, validateCRDUpdate } from '../../../crd/validation/crd.js';
import type { SchemaValidator } from '../../../crd/validation/options.js';
import { caBundleError } from '../../../webhook/ca-bundle.js';
import type {
  CRDVersion,
  CustomResourceDefinition,
  JSONSchemaProps,
  ValidationRule,
} from '../../../apimachinery/apis/apiextensions.js';
import { type FieldError, formatFieldError, invalid } from '../../../apimachinery/field-errors.js';
import { CA_PEM } from '../../helpers/test-ca.js';
import { runTask } from '../../../apimachinery/structured-merge/trampoline.js';

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const URL_FORM = '; desired format: https://host[/path]';
const ROOT_FIELDS =
  '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';
const CANNOT_PRESERVE =
  'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead';
const APPROVAL_PATH = 'metadata.annotations[api-approved.kubernetes.io]';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const objectSchema = { openAPIV3Schema: { type: 'object' } };
const version = (name: string, extra: Partial<CRDVersion> = {}): CRDVersion => ({
  name,
  served: true,
  storage: false,
  schema: objectSchema,
  ...extra,
});

/** A valid CRD as the store hands it to validation: defaulted, status prepared, name in sync. */
function crd(
  mutate: (c: CustomResourceDefinition) => void = () => {},
  opts: { keepName?: boolean } = {},
): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'caches.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'caches', kind: 'Cache' },
      versions: [version('v1', { storage: true })],
    },
  };
  mutate(c);
  defaultCRD(c);
  if (!opts.keepName) c.metadata.name = `${c.spec.names.plural}.${c.spec.group}`;
  const storage = c.spec.versions.find((v) => v.storage)?.name;
  c.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
  return c;
}

const messages = (errs: FieldError[]): string[] => errs.map(formatFieldError);
const established = (c: CustomResourceDefinition): CustomResourceDefinition => {
  c.status!.conditions = [
    {
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
  ];
  return c;
};

describe('validateCRD', () => {
  const twoStorage = [version('v1', { storage: true }), version('v2', { storage: true })];
  const dupVersions = [version('v1', { storage: true }), version('v1')];
  const cases: { name: string; crd: CustomResourceDefinition; want: string[] }[] = [
    { name: 'a valid CRD', crd: crd(), want: [] },
    {
      name: 'metadata.name must be plural.group',
      crd: crd((c) => (c.metadata.name = 'cache.example.com'), { keepName: true }),
      want: ['metadata.name: Invalid value: "cache.example.com": must be spec.names.plural+"."+spec.group'],
    },
    {
      name: 'a generateName is held to the same rule',
      crd: crd((c) => (c.metadata = { generateName: 'caches-', name: 'caches-x1z2q' }), { keepName: true }),
      want: [
        'metadata.generateName: Invalid value: "caches-": must be spec.names.plural+"."+spec.group',
        'metadata.name: Invalid value: "caches-x1z2q": must be spec.names.plural+"."+spec.group',
      ],
    },
    {
      name: 'group is required',
      crd: crd((c) => (c.spec.group = ''), { keepName: true }),
      want: [
        'metadata.name: Invalid value: "caches.example.com": must be spec.names.plural+"."+spec.group',
        'spec.group: Required value',
      ],
    },
    {
      name: 'group must be a DNS subdomain',
      crd: crd((c) => (c.spec.group = 'Example.com')),
      want: [`spec.group: Invalid value: "Example.com": ${DNS1123}`],
    },
    {
      name: 'group needs a dot',
      crd: crd((c) => (c.spec.group = 'example')),
      want: ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
    },
    {
      name: 'scope is required',
      crd: crd((c) => (c.spec.scope = '' as 'Cluster')),
      want: ['spec.scope: Required value'],
    },
    {
      name: 'scope is Cluster or Namespaced',
      crd: crd((c) => (c.spec.scope = 'Global' as 'Cluster')),
      want: ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    },
    {
      name: 'every version needs a schema',
      crd: crd((c) => delete c.spec.versions[0]!.schema),
      want: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    },
    {
      name: 'an empty schema wrapper is no schema',
      crd: crd(
        (c) => (c.spec.versions = [version('v1', { storage: true, schema: {} }), version('v2', { schema: {} })]),
      ),
      want: [
        'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
        'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
      ],
    },
    {
      name: 'one version without a schema among several',
      crd: crd((c) => (c.spec.versions = [version('v1', { storage: true }), version('v2', { schema: undefined })])),
      want: ['spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required'],
    },
    {
      name: 'a bad first version name is reported for versions[0] and for the internal spec.version',
      crd: crd((c) => (c.spec.versions[0]!.name = 'V1')),
      want: [`spec.versions[0].name: Invalid value: "V1": ${DNS1035}`, `spec.version: Invalid value: "V1": ${DNS1035}`],
    },
    {
      name: 'a long version name',
      crd: crd((c) => (c.spec.versions[0]!.name = `v${'1'.repeat(63)}`)),
      want: [
        `spec.versions[0].name: Invalid value: "v${'1'.repeat(63)}": must be no more than 63 characters`,
        `spec.version: Invalid value: "v${'1'.repeat(63)}": must be no more than 63 characters`,
      ],
    },
    {
      name: 'version names are unique',
      crd: crd((c) => (c.spec.versions = dupVersions)),
      want: [`spec.versions: Invalid value: ${JSON.stringify(dupVersions)}: must contain unique version names`],
    },
    {
      name: 'exactly one storage version (two)',
      crd: crd((c) => (c.spec.versions = twoStorage)),
      want: [
        `spec.versions: Invalid value: ${JSON.stringify(twoStorage)}: must have exactly one version marked as storage version`,
        // Only the first storage version gets recorded, as kube's PrepareForCreate does.
        'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
      ],
    },
    {
      name: 'exactly one storage version (none), so nothing is stored either',
      crd: crd((c) => (c.spec.versions[0]!.storage = false)),
      want: [
        `spec.versions: Invalid value: ${JSON.stringify([version('v1')])}: must have exactly one version marked as storage version`,
        'status.storedVersions: Invalid value: []: must have at least one stored version',
      ],
    },
    {
      name: 'no versions at all',
      crd: crd((c) => (c.spec.versions = [])),
      want: [
        'spec.versions: Invalid value: []: must have exactly one version marked as storage version',
        'status.storedVersions: Invalid value: []: must have at least one stored version',
      ],
    },
    {
      name: 'a CRD without served versions is valid, as in kube',
      crd: crd((c) => (c.spec.versions[0]!.served = false)),
      want: [],
    },
    {
      name: 'kind is required',
      crd: crd((c) => (c.spec.names = { plural: 'caches', singular: 'cache', kind: '', listKind: 'CacheList' })),
      want: ['spec.names.kind: Required value'],
    },
    {
      name: 'plural and singular are DNS-1035 labels',
      crd: crd((c) => (c.spec.names = { plural: 'Caches', singular: 'ca.che', kind: 'Cache' })),
      want: [
        `spec.names.plural: Invalid value: "Caches": ${DNS1035}`,
        `spec.names.singular: Invalid value: "ca.che": ${DNS1035}`,
      ],
    },
    {
      name: 'kind and listKind may have mixed case only',
      crd: crd((c) => (c.spec.names = { plural: 'caches', singular: 'cache', kind: 'Ca_che', listKind: '9List' })),
      want: [
        `spec.names.kind: Invalid value: "Ca_che": may have mixed case, but should otherwise match: ${DNS1035}`,
        `spec.names.listKind: Invalid value: "9List": may have mixed case, but should otherwise match: ${DNS1035}`,
      ],
    },
    {
      name: 'kind and listKind differ',
      crd: crd((c) => (c.spec.names = { plural: 'caches', kind: 'Cache', listKind: 'Cache' })),
      want: ['spec.names.listKind: Invalid value: "Cache": kind and listKind may not be the same'],
    },
    {
      name: 'shortNames and categories are DNS-1035 labels',
      crd: crd(
        (c) =>
          (c.spec.names = { plural: 'caches', kind: 'Cache', shortNames: ['ca', 'C'], categories: ['all', '1st'] }),
      ),
      want: [
        `spec.names.shortNames[1]: Invalid value: "C": ${DNS1035}`,
        `spec.names.categories[1]: Invalid value: "1st": ${DNS1035}`,
      ],
    },
    {
      name: 'printer columns shared by all versions are reported at spec.additionalPrinterColumns',
      crd: crd((c) => {
        c.spec.versions[0]!.additionalPrinterColumns = [
          { name: '', type: '', jsonPath: '' },
          { name: 'Size', type: 'float', format: 'uuid', jsonPath: 'spec.size' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ];
      }),
      want: [
        'spec.additionalPrinterColumns[0].name: Required value',
        'spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string',
        'spec.additionalPrinterColumns[0].JSONPath: Required value',
        'spec.additionalPrinterColumns[1].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
        'spec.additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
        'spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      ],
    },
    {
      name: 'per-version printer columns keep their version path',
      crd: crd(
        (c) =>
          (c.spec.versions = [
            version('v1', { storage: true }),
            version('v2', { additionalPrinterColumns: [{ name: 'Size', type: 'int', jsonPath: '.spec.size' }] }),
          ]),
      ),
      want: [
        'spec.versions[1].additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string',
      ],
    },
    {
      name: 'scale paths shared by all versions',
      crd: crd(
        (c) =>
          (c.spec.versions[0]!.subresources = {
            scale: {
              specReplicasPath: '.status.replicas',
              statusReplicasPath: '',
              labelSelectorPath: 'status.selector',
            },
          }),
      ),
      want: [
        'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
        'spec.subresources.scale.statusReplicasPath: Required value',
        'spec.subresources.scale.labelSelectorPath: Invalid value: "status.selector": must be a simple json path starting with .',
      ],
    },
    {
      name: 'scale paths must go below .spec/.status, and a selector below either',
      crd: crd(
        (c) =>
          (c.spec.versions[0]!.subresources = {
            scale: {
              specReplicasPath: '.spec',
              statusReplicasPath: '.spec.replicas',
              labelSelectorPath: '.metadata.labels',
            },
          }),
      ),
      want: [
        'spec.subresources.scale.specReplicasPath: Invalid value: ".spec": should be a json path under .spec',
        'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
        'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
      ],
    },
    {
      name: 'per-version scale paths',
      crd: crd(
        (c) =>
          (c.spec.versions = [
            version('v1', { storage: true }),
            version('v2', { subresources: { scale: { specReplicasPath: '', statusReplicasPath: 'x' } } }),
          ]),
      ),
      want: [
        'spec.versions[1].subresources.scale.specReplicasPath: Required value',
        'spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: "x": must be a simple json path starting with .',
      ],
    },
    {
      name: 'with a status subresource the root type must be object',
      crd: crd(
        (c) =>
          (c.spec.versions[0] = version('v1', {
            storage: true,
            schema: { openAPIV3Schema: { type: 'string' } },
            subresources: { status: {} },
          })),
      ),
      want: [
        'spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ],
    },
    {
      name: 'with a status subresource only some fields may be set at the root (first offender wins)',
      crd: crd(
        (c) =>
          (c.spec.versions[0] = version('v1', {
            storage: true,
            schema: { openAPIV3Schema: { type: 'string', nullable: true } },
            subresources: { status: {} },
          })),
      ),
      want: [
        'spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
      ],
    },
    {
      name: 'a disallowed root field with a status subresource',
      crd: crd(
        (c) =>
          (c.spec.versions[0] = version('v1', {
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', anyOf: [{ required: ['spec'] }] } },
            subresources: { status: {} },
          })),
      ),
      want: [
        `spec.validation.openAPIV3Schema: Invalid value: ${JSON.stringify({ type: 'object', anyOf: [{ required: ['spec'] }] })}: only ${ROOT_FIELDS} fields are allowed at the root of the schema if the status subresource is enabled`,
      ],
    },
    {
      name: 'zero values at the root do not count',
      crd: crd(
        (c) =>
          (c.spec.versions[0] = version('v1', {
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                nullable: false,
                description: 'x',
                'x-kubernetes-preserve-unknown-fields': true,
              },
            },
            subresources: { status: {} },
          })),
      ),
      want: [],
    },
    {
      name: 'nullable at the root without a status subresource',
      crd: crd((c) => (c.spec.versions[0]!.schema = { openAPIV3Schema: { type: 'object', nullable: true } })),
      want: ['spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root'],
    },
    {
      name: 'a status subresource on any version restricts a shared schema',
      crd: crd(
        (c) =>
          (c.spec.versions = [
            version('v1', { storage: true, schema: { openAPIV3Schema: { type: 'array' } } }),
            version('v2', { schema: { openAPIV3Schema: { type: 'array' } }, subresources: { status: {} } }),
          ]),
      ),
      want: [
        'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ],
    },
    {
      name: 'per-version schemas are checked against their own subresources',
      crd: crd(
        (c) =>
          (c.spec.versions = [
            version('v1', { storage: true, schema: { openAPIV3Schema: { type: 'array' } } }),
            version('v2', { schema: { openAPIV3Schema: { type: 'integer' } }, subresources: { status: {} } }),
          ]),
      ),
      want: [
        'spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "integer": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ],
    },
    {
      name: 'deprecationWarning only on deprecated versions',
      crd: crd((c) => (c.spec.versions[0]!.deprecationWarning = 'old')),
      want: ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
    },
    {
      name: 'deprecationWarning must not be empty',
      crd: crd((c) => Object.assign(c.spec.versions[0]!, { deprecated: true, deprecationWarning: '' })),
      want: ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string'],
    },
    {
      name: 'deprecationWarning is printable, reported at the byte offset',
      crd: crd((c) => Object.assign(c.spec.versions[0]!, { deprecated: true, deprecationWarning: 'é\ttab' })),
      want: [
        'spec.versions[0].deprecationWarning: Invalid value: "é\\ttab": must only contain printable UTF-8 characters; non-printable character found at index 2',
      ],
    },
    {
      name: 'deprecationWarning is at most 256 bytes',
      crd: crd((c) => Object.assign(c.spec.versions[0]!, { deprecated: true, deprecationWarning: 'w'.repeat(257) })),
      want: [
        `spec.versions[0].deprecationWarning: Invalid value: "${'w'.repeat(257)}": must be <= 256 characters long`,
      ],
    },
    {
      name: 'preserveUnknownFields true is refused',
      crd: crd((c) => (c.spec.preserveUnknownFields = true)),
      want: [CANNOT_PRESERVE],
    },
    {
      name: 'defaults need pruning',
      crd: crd((c) => {
        c.spec.preserveUnknownFields = true;
        c.spec.versions[0]!.schema = {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } },
          },
        };
      }),
      want: [
        'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
        CANNOT_PRESERVE,
      ],
    },
    {
      name: 'a webhook conversion needs pruning',
      crd: crd((c) => {
        c.spec.preserveUnknownFields = true;
        c.spec.conversion = {
          strategy: 'Webhook',
          webhook: { clientConfig: { url: 'https://hook.example.com/convert' }, conversionReviewVersions: ['v1'] },
        };
      }),
      want: [
        'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
        CANNOT_PRESERVE,
      ],
    },
    {
      name: 'conversion strategy is None or Webhook',
      crd: crd((c) => (c.spec.conversion = { strategy: 'Magic' as 'None' })),
      want: ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"'],
    },
    {
      name: 'a webhook strategy needs a webhook (kube reports the internal field names)',
      crd: crd((c) => (c.spec.conversion = { strategy: 'Webhook' })),
      want: [
        'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
        'spec.conversion.conversionReviewVersions: Required value',
      ],
    },
    {
      name: 'webhook settings are forbidden without the webhook strategy',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'None',
            webhook: { clientConfig: { url: 'https://hook.example.com' }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: [
        'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
        'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
      ],
    },
    {
      name: 'a webhook URL: https, no user, query or fragment',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { url: 'HTTP://user@hook.example.com/convert?x=1#frag' },
              conversionReviewVersions: ['v1'],
            },
          }),
      ),
      want: [
        `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${URL_FORM}`,
        'spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL',
        'spec.conversion.webhookClientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
        'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      ],
    },
    {
      name: 'a webhook URL needs a host',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https:///convert' }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: [`spec.conversion.webhookClientConfig.url: Invalid value: "": host must be provided${URL_FORM}`],
    },
    {
      name: 'an unparsable webhook URL',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://hook:abc/x' }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: [
        `spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://hook:abc/x": invalid port ":abc" after host${URL_FORM}`,
      ],
    },
    {
      name: 'a URL without a scheme',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: '://hook' }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: [
        `spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "://hook": missing protocol scheme${URL_FORM}`,
      ],
    },
    {
      name: 'exactly one of url and service',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { url: 'https://h', service: { namespace: 'ns', name: 'svc' } },
              conversionReviewVersions: ['v1'],
            },
          }),
      ),
      want: ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required'],
    },
    {
      name: 'a webhook service reference',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { service: { namespace: '', name: '', port: 70000, path: 'a//B' } },
              conversionReviewVersions: ['v1'],
            },
          }),
      ),
      want: [
        'spec.conversion.webhookClientConfig.service.name: Required value: service name is required',
        'spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required',
        'spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
        'spec.conversion.webhookClientConfig.service.path: Invalid value: "a//B": must start with a \'/\'',
        'spec.conversion.webhookClientConfig.service.path: Invalid value: "a//B": segment[0] may not be empty',
        'spec.conversion.webhookClientConfig.service.path: Invalid value: "a//B": segment[1] may not be empty',
        `spec.conversion.webhookClientConfig.service.path: Invalid value: "a//B": segment[2]: ${DNS1123}`,
      ],
    },
    {
      name: 'a valid service reference (port defaulted to 443)',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/convert/' } },
              conversionReviewVersions: ['v1beta1'],
            },
          }),
      ),
      want: [],
    },
    {
      name: 'conversionReviewVersions: unique labels, one of them understood',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://h' }, conversionReviewVersions: ['v2', 'v2', 'V3'] },
          }),
      ),
      want: [
        'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
        `spec.conversion.conversionReviewVersions[2]: Invalid value: "V3": ${DNS1035}`,
        'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2","V3"]: must include at least one of v1, v1beta1',
      ],
    },
    {
      name: 'a broken caBundle is accepted on create',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://h', caBundle: b64('nope') }, conversionReviewVersions: ['v1'] },
          }),
      ),
      want: [],
    },
    {
      name: 'protected groups need the approval annotation',
      crd: crd((c) => (c.spec.group = 'widgets.k8s.io')),
      want: [
        `${APPROVAL_PATH}: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
      ],
    },
    {
      name: 'the approval annotation is a URL or starts with "unapproved"',
      crd: crd((c) => {
        c.spec.group = 'kubernetes.io';
        c.metadata.annotations = { 'api-approved.kubernetes.io': 'yes' };
      }),
      want: [
        `${APPROVAL_PATH}: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ],
    },
    {
      name: 'an approval URL',
      crd: crd((c) => {
        c.spec.group = 'x.k8s.io';
        c.metadata.annotations = {
          'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458',
        };
      }),
      want: [],
    },
    {
      name: 'an explicit non-approval',
      crd: crd((c) => {
        c.spec.group = 'x.k8s.io';
        c.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental' };
      }),
      want: [],
    },
    {
      name: 'a lookalike group is not protected',
      crd: crd((c) => (c.spec.group = 'notk8s.io')),
      want: [],
    },
    {
      name: 'errors come in kube order: metadata, spec, status, storedVersions, approval, preserveUnknownFields',
      crd: crd(
        (c) => {
          c.spec.group = 'k8s.io';
          c.spec.scope = '' as 'Cluster';
          c.spec.preserveUnknownFields = true;
          c.spec.names.shortNames = ['X'];
        },
        { keepName: true },
      ),
      want: [
        'metadata.name: Invalid value: "caches.example.com": must be spec.names.plural+"."+spec.group',
        'spec.scope: Required value',
        `spec.names.shortNames[0]: Invalid value: "X": ${DNS1035}`,
        `${APPROVAL_PATH}: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
        CANNOT_PRESERVE,
      ],
    },
  ];

  it.each(cases)('$name', ({ crd: c, want }) => {
    expect(messages(runTask(validateCRD(c)))).toEqual(want);
  });

  it('reads a CRD with missing parts as zero values instead of throwing', () => {
    const bare = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x' },
    } as unknown as CustomResourceDefinition;
    expect(messages(runTask(validateCRD(bare)))).toEqual([
      'metadata.name: Invalid value: "x": must be spec.names.plural+"."+spec.group',
      'spec.group: Required value',
      'spec.scope: Required value',
      'spec.versions: Invalid value: []: must have exactly one version marked as storage version',
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
      'status.storedVersions: Invalid value: []: must have at least one stored version',
    ]);
  });
});

describe('the schema validator seam', () => {
  const calls: { path: string; version: string; old: boolean }[] = [];
  // biome-ignore lint/correctness/useYield: a schema validator is a task; this one has nothing to wait for
  const hook: SchemaValidator = function* (schema, path, ctx) {
    calls.push({ path, version: ctx.version, old: ctx.old !== undefined });
    return schema.type === 'object' ? [] : [invalid(`${path}.type`, schema.type, 'must be object at the root')];
  };

  it('gets a shared schema at spec.validation, with the first version, after the root checks', () => {
    calls.length = 0;
    const c = crd(
      (x) =>
        (x.spec.versions = [
          version('v1', { storage: true, schema: { openAPIV3Schema: { type: 'string', nullable: true } } }),
          version('v2', { schema: { openAPIV3Schema: { type: 'string', nullable: true } } }),
        ]),
    );
    expect(messages(runTask(validateCRD(c, hook)))).toEqual([
      'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
      'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    ]);
    expect(calls).toEqual([{ path: 'spec.validation.openAPIV3Schema', version: 'v1', old: false }]);
  });

  it("gets per-version schemas at their version, before that version's subresources", () => {
    calls.length = 0;
    const c = crd(
      (x) =>
        (x.spec.versions = [
          version('v1', { storage: true }),
          version('v2', {
            schema: { openAPIV3Schema: { type: 'array' } },
            subresources: { scale: { specReplicasPath: '', statusReplicasPath: '.status.n' } },
          }),
        ]),
    );
    expect(messages(runTask(validateCRD(c, hook)))).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
      'spec.versions[1].subresources.scale.specReplicasPath: Required value',
    ]);
    expect(calls).toEqual([
      { path: 'spec.versions[0].schema.openAPIV3Schema', version: 'v1', old: false },
      { path: 'spec.versions[1].schema.openAPIV3Schema', version: 'v2', old: false },
    ]);
  });

  it('gets the old CRD on update', () => {
    calls.length = 0;
    runTask(validateCRDUpdate(crd(), crd(), hook));
    expect(calls).toEqual([{ path: 'spec.validation.openAPIV3Schema', version: 'v1', old: true }]);
  });
});

describe('validateCRDUpdate', () => {
  const stored = (c: CustomResourceDefinition, versions: string[]): CustomResourceDefinition => {
    c.status!.storedVersions = versions;
    return c;
  };
  const webhook = (caBundle: string) => (c: CustomResourceDefinition) =>
    (c.spec.conversion = {
      strategy: 'Webhook',
      webhook: { clientConfig: { url: 'https://h', caBundle }, conversionReviewVersions: ['v1'] },
    });
  const cases: { name: string; crd: CustomResourceDefinition; old: CustomResourceDefinition; want: string[] }[] = [
    { name: 'no change', crd: crd(), old: crd(), want: [] },
    {
      name: 'scope is immutable once established',
      crd: crd((c) => (c.spec.scope = 'Cluster')),
      old: established(crd()),
      want: ['spec.scope: Invalid value: "Cluster": field is immutable'],
    },
    {
      name: 'scope may change before the CRD is established',
      crd: crd((c) => (c.spec.scope = 'Cluster')),
      old: crd(),
      want: [],
    },
    {
      name: 'kind is immutable once established',
      crd: crd((c) => (c.spec.names = { plural: 'caches', singular: 'cache', kind: 'Store', listKind: 'CacheList' })),
      old: established(crd()),
      want: ['spec.names.kind: Invalid value: "Store": field is immutable'],
    },
    {
      name: 'group is always immutable (and the name rule is not rechecked)',
      crd: crd((c) => (c.spec.group = 'other.com'), { keepName: true }),
      old: crd(),
      want: ['spec.group: Invalid value: "other.com": field is immutable'],
    },
    {
      name: 'plural is always immutable',
      crd: crd((c) => (c.spec.names.plural = 'stores'), { keepName: true }),
      old: crd(),
      want: ['spec.names.plural: Invalid value: "stores": field is immutable'],
    },
    {
      name: 'a stored version must stay in spec.versions',
      crd: stored(crd(), ['v1alpha1', 'v1']),
      old: stored(
        crd((c) => (c.spec.versions = [version('v1alpha1'), version('v1', { storage: true })])),
        ['v1alpha1', 'v1'],
      ),
      want: [
        'status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha1 and removes v1alpha1 from status.storedVersions',
      ],
    },
    {
      name: 'the storage version must be recorded as stored',
      crd: stored(
        crd((c) => (c.spec.versions = [version('v1'), version('v2', { storage: true })])),
        ['v1'],
      ),
      old: crd(),
      want: ['status.storedVersions: Invalid value: ["v1"]: must have the storage version v2'],
    },
    {
      name: 'schemas stay optional for a CRD stored without them, but served versions lose all fields',
      crd: crd(
        (c) =>
          (c.spec.versions = [
            version('v1', { storage: true, schema: undefined }),
            version('v2', { served: false, schema: undefined }),
          ]),
      ),
      old: crd((c) => delete c.spec.versions[0]!.schema),
      want: ['spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned'],
    },
    {
      name: 'schemas are required again once every version had one',
      crd: crd((c) => delete c.spec.versions[0]!.schema),
      old: crd(),
      want: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    },
    {
      name: 'preserveUnknownFields may stay true when it was true',
      crd: crd((c) => (c.spec.preserveUnknownFields = true)),
      old: crd((c) => (c.spec.preserveUnknownFields = true)),
      want: [],
    },
    {
      name: 'preserveUnknownFields may not become true',
      crd: crd((c) => (c.spec.preserveUnknownFields = true)),
      old: crd(),
      want: [CANNOT_PRESERVE],
    },
    {
      name: 'an unchanged approval state never fails',
      crd: crd((c) => (c.spec.group = 'x.k8s.io'), { keepName: true }),
      old: crd((c) => (c.spec.group = 'x.k8s.io')),
      want: [],
    },
    {
      name: 'unrecognized conversionReviewVersions stay allowed when they were already there',
      crd: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://h' }, conversionReviewVersions: ['v9'] },
          }),
      ),
      old: crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://h' }, conversionReviewVersions: ['v8'] },
          }),
      ),
      want: [],
    },
    {
      name: 'an established CRD with a working caBundle may not break it',
      crd: crd(webhook(b64('garbage'))),
      old: established(crd(webhook(b64(CA_PEM)))),
      want: [
        `spec.conversion.webhookClientConfig.caBundle: Invalid value: "${b64('garbage')}": unable to load root certificates: unable to parse bytes as PEM block`,
      ],
    },
    {
      name: 'a caBundle that was already broken may stay broken',
      crd: crd(webhook(b64('garbage'))),
      old: established(crd(webhook(b64('also garbage')))),
      want: [],
    },
  ];

  it.each(cases)('$name', ({ crd: c, old, want }) => {
    expect(messages(runTask(validateCRDUpdate(c, old)))).toEqual(want);
  });
});

describe('validateCRDStatus', () => {
  it('checks the accepted names', () => {
    const c = crd();
    c.status!.acceptedNames = { plural: 'Caches', kind: 'Cache', listKind: 'Cache' };
    expect(messages(validateCRDStatus(c))).toEqual([
      `status.acceptedNames.plural: Invalid value: "Caches": ${DNS1035}`,
      'status.acceptedNames.listKind: Invalid value: "Cache": kind and listKind may not be the same',
    ]);
  });
});

describe('caBundleError', () => {
  const cases: { name: string; bundle: string; want: string | undefined }[] = [
    { name: 'a certificate', bundle: CA_PEM, want: undefined },
    {
      name: 'a certificate after other blocks and text',
      bundle: `junk\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n${CA_PEM}`,
      want: undefined,
    },
    {
      name: 'no PEM at all',
      bundle: 'garbage',
      want: 'unable to load root certificates: unable to parse bytes as PEM block',
    },
    {
      name: 'a certificate block that does not parse',
      bundle: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      want: 'unable to load root certificates: failed to parse certificate: x509: malformed certificate',
    },
    {
      name: 'only other blocks',
      bundle: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      want: 'unable to load root certificates: no valid certificate authority data seen',
    },
  ];
  it.each(cases)('$name', ({ bundle, want }) => {
    expect(caBundleError(b64(bundle))).toBe(want);
  });
  it('an empty bundle means the system roots', () => expect(caBundleError('')).toBeUndefined());
});

/** A CRD whose one version's spec has these properties and this rule. */
const withSpecRule = (rule: string, properties: Record<string, JSONSchemaProps>): CustomResourceDefinition =>
  crd((x) => {
    x.spec.versions = [
      version('v1', {
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': [{ rule }] } },
          },
        },
      }),
    ];
  });

describe('CEL rules kube refuses for their size, nesting or regex, at CRD write', () => {
  const withRule = (rule: string): CustomResourceDefinition =>
    withSpecRule(rule, { s: { type: 'string', maxLength: 10 } });
  const goRule = (rule: string) =>
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
  const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';
  const cases: { name: string; rule: string; want: string }[] = [
    {
      name: '5,000 nested parentheses',
      rule: '('.repeat(5000) + 'true' + ')'.repeat(5000),
      want: 'compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250',
    },
    {
      name: 'a chain of 5,000 selects',
      rule: 'self' + '.s'.repeat(5000) + " == ''",
      want: 'compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded',
    },
    {
      name: 'a 200 KB rule',
      rule: 'true' + ' && true'.repeat(25_000),
      want: 'compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200004, limit 100000',
    },
    {
      name: 'a regex literal that does not compile',
      rule: "self.s.matches('(')",
      want: "compilation failed: ERROR: <input>:1:16: invalid matches argument\n | self.s.matches('(')\n | ...............^",
    },
  ];
  it.each(cases)('$name', ({ rule, want }) => {
    expect(messages(runTask(validateCRD(withRule(rule), checkSchemaAtCRDWrite)))).toEqual([
      `${at}: Invalid value: ${goRule(rule)}: ${want}`,
    ]);
  });

  it('5,000 `!` and a 5,000-term `&&` chain are fine, as in kube', () => {
    expect(
      messages(runTask(validateCRD(withRule('!'.repeat(5000) + "(self.s == '')"), checkSchemaAtCRDWrite))),
    ).toEqual([]);
    expect(
      messages(runTask(validateCRD(withRule("self.s == ''" + " && self.s == ''".repeat(5000)), checkSchemaAtCRDWrite))),
    ).toEqual([]);
  });
});

describe("a rule's cost on update (kube's versionsWithUnchangedSchemas)", () => {
  // Over the per-expression limit (10,000,000), under the CRD's total (100,000,000). kube sizes a
  // string of maxLength n as 4n bytes, so x == y costs x 1 + y 1 + ⌈4n × 0.1⌉; an all() costs its
  // range (self.items: 2) + result 1 + maxItems × (condition 2 + accumulator 1 + step). With n = 10:
  // inner 3 + 3000 × (3 + 2 + 4) = 27,003; outer 3 + 3000 × (3 + 27,003) = 81,018,003, 8.1x. With
  // n = 11 (⌈4.4⌉ = 5): 90,018,003, 9.0x.
  const quadratic = 'self.items.all(x, self.items.all(y, x == y))';
  /** The rule over a list of strings, of at most maxItems items of maxLength (unbounded when absent). */
  const withList = (bounds: { maxItems?: number; maxLength?: number } = {}): CustomResourceDefinition => {
    const { maxItems, maxLength } = bounds;
    const items: JSONSchemaProps = { type: 'string', ...(maxLength === undefined ? {} : { maxLength }) };
    return withSpecRule(quadratic, {
      items: { type: 'array', ...(maxItems === undefined ? {} : { maxItems }), items },
    });
  };
  const at = 'spec.validation.openAPIV3Schema';
  const rule = `${at}.properties[spec].x-kubernetes-validations[0].rule`;
  const HINT =
    '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

  it('a new CRD with the rule is refused', () => {
    expect(messages(runTask(validateCRD(withList({ maxItems: 3000, maxLength: 10 }), checkSchemaAtCRDWrite)))).toEqual([
      `${rule}: Forbidden: estimated rule cost exceeds budget by factor of 8.1x ${HINT}`,
    ]);
  });

  it('an update that keeps the schema is not refused for it; one that changes the schema is', () => {
    const old = withList({ maxItems: 3000, maxLength: 10 });
    const relabelled = withList({ maxItems: 3000, maxLength: 10 });
    relabelled.metadata.labels = { tier: 'x' };
    expect(messages(runTask(validateCRDUpdate(relabelled, old, checkSchemaAtCRDWrite)))).toEqual([]);
    const changed = withList({ maxItems: 3000, maxLength: 11 });
    expect(messages(runTask(validateCRDUpdate(changed, old, checkSchemaAtCRDWrite)))).toEqual([
      `${rule}: Forbidden: estimated rule cost exceeds budget by factor of 9.0x ${HINT}`,
    ]);
  });

  it("the CRD's total is still checked on an unchanged schema", () => {
    expect(messages(runTask(validateCRDUpdate(withList(), withList(), checkSchemaAtCRDWrite)))).toEqual([
      `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${at}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
    ]);
  });
});

describe("kube's two CEL environments at CRD write (a 1.33 server compiles new expressions at 1.32)", () => {
  const semver = 'isSemver(self.s)';
  const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';
  const withRules = (rules: ValidationRule[]): CustomResourceDefinition =>
    crd((x) => {
      x.spec.versions = [
        version('v1', {
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { s: { type: 'string', maxLength: 10 } },
                  'x-kubernetes-validations': rules,
                },
              },
            },
          },
        }),
      ];
    });
  const goRule = (r: ValidationRule) =>
    `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule)}, Message:"", MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
  const undeclared = (text: string, column: number, name: string) =>
    `ERROR: <input>:1:${column}: undeclared reference to '${name}' (in container '')\n | ${text}\n | ${'.'.repeat(column - 1)}^`;

  it('a new CRD may not use the semver library (introduced in 1.33)', () => {
    const r = { rule: semver };
    expect(messages(runTask(validateCRD(withRules([r]), checkSchemaAtCRDWrite)))).toEqual([
      `${at}.rule: Invalid value: ${goRule(r)}: compilation failed: ${undeclared(semver, 9, 'isSemver')}`,
    ]);
  });

  it('an update may keep a rule the stored CRD had, in any version, but not add one', () => {
    // A stored CRD with the rule (written by a server whose compatibility version was 1.33).
    const old = withRules([{ rule: semver }]);
    const relabelled = withRules([{ rule: semver }]);
    relabelled.metadata.labels = { tier: 'x' };
    expect(messages(runTask(validateCRDUpdate(relabelled, old, checkSchemaAtCRDWrite)))).toEqual([]);
    // The same rule moved to another rule's place is still preexisting: kube matches by text.
    const added = { rule: 'isSemver(self.s, true)' };
    expect(
      messages(runTask(validateCRDUpdate(withRules([added, { rule: semver }]), old, checkSchemaAtCRDWrite))),
    ).toEqual([
      `${at}.rule: Invalid value: ${goRule(added)}: compilation failed: ${undeclared(added.rule, 9, 'isSemver')}`,
    ]);
  });

  it('a messageExpression is judged on its own', () => {
    const msg = "isSemver(self.s) ? 'a version' : 'not a version'";
    const old = withRules([{ rule: 'true', messageExpression: msg }]);
    const stored = { rule: "self.s != ''", messageExpression: msg };
    expect(messages(runTask(validateCRDUpdate(withRules([stored]), old, checkSchemaAtCRDWrite)))).toEqual([]);
    const fresh = { rule: "self.s != ''", messageExpression: msg };
    expect(messages(runTask(validateCRD(withRules([fresh]), checkSchemaAtCRDWrite)))).toEqual([
      `${at}.messageExpression: Invalid value: ${goRule(fresh)}: messageExpression compilation failed: ${undeclared(msg, 9, 'isSemver')}`,
    ]);
  });
});

describe('x-kubernetes-validations in allOf, anyOf, oneOf and not', () => {
  // kube's structural check refuses them (AllowNestedXValidations is false for CRDs), and its
  // ValidateCustomResourceDefinitionOpenAPISchema still walks every sub-schema checking each
  // rule's own fields, with no CEL context: so a rule's field errors follow the structural ones.
  const at = 'spec.validation.openAPIV3Schema.properties[spec]';
  const withSpec = (spec: JSONSchemaProps): CustomResourceDefinition =>
    crd((x) => {
      x.spec.versions = [
        version('v1', {
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        }),
      ];
    });

  it('are refused as not structural, and never compiled', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'integer' } },
      allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.a > 0' }] }],
      anyOf: [{ 'x-kubernetes-validations': [{ rule: 'no such thing(' }] }],
      oneOf: [{ properties: { a: { 'x-kubernetes-validations': [{ rule: 'self > 0' }] } } }],
      not: { 'x-kubernetes-validations': [{ rule: 'self.a < 0' }] },
    };
    expect(messages(runTask(validateCRD(withSpec(spec), checkSchemaAtCRDWrite)))).toEqual([
      `${at}.allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${at}.anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${at}.not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${at}.oneOf[0].properties[a].x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ]);
  });

  it("their fields are checked all the same, after the structural errors, in kube's walk order", () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: ' ' }] } },
      not: { 'x-kubernetes-validations': [{ rule: '' }] },
      allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.a > 0', reason: 'Nope' as ValidationRule['reason'] }] }],
    };
    expect(messages(runTask(validateCRD(withSpec(spec), checkSchemaAtCRDWrite)))).toEqual([
      `${at}.allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${at}.not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${at}.properties[a].x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`,
      `${at}.not.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${at}.allOf[0].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
  });

  it('a rule beside any other structural error has its fields checked, not its CEL', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: {
        b: {},
        a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: ' ' }, { rule: 'nope(' }] },
      },
    };
    expect(messages(runTask(validateCRD(withSpec(spec), checkSchemaAtCRDWrite)))).toEqual([
      `${at}.properties[b].type: Required value: must not be empty for specified object fields`,
      `${at}.properties[a].x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`,
    ]);
  });
});

describe('null where a schema map or list goes, at CRD write', () => {
  // Go decodes null as absent. The nesting limit's walk once read such a map or list as one and
  // threw (a 500 for `properties: null`, which kube accepts).
  it('is absent', () => {
    const spec = { type: 'object', properties: null, allOf: null } as unknown as JSONSchemaProps;
    const c = crd((x) => {
      x.spec.versions = [
        version('v1', { storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }),
      ];
    });
    expect(messages(runTask(validateCRD(c, checkSchemaAtCRDWrite)))).toEqual([]);
  });
});
