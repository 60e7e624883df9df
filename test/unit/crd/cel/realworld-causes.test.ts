// The four reasons real-world CRDs kube-apiserver accepts were refused here (issue 24), each
// reproduced by a small CRD around a rule taken from the corpus (../shared/realworld/crds):
// validated whole as a CRD write is (validateCRD with the schema checks) and accepted, then the
// rule run on objects as kube runs it.
import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import { defaultCRD } from '../../../../crd/defaults.js';
import { checkSchemaAtCRDWrite } from '../../../../crd/schema/crd-write.js';
import { validateCRD } from '../../../../crd/validation/crd.js';
import { simpleCrd } from '../../../helpers/crds.js';
import { runTask } from '../../../../apimachinery/structured-merge/trampoline.js';

/** A CRD whose spec has this schema, as the store hands it to validation. */
function crdWithSpec(spec: JSONSchemaProps): CustomResourceDefinition {
  const c = simpleCrd('example.com', 'widgets', { type: 'object', properties: { spec } }) as CustomResourceDefinition;
  defaultCRD(c);
  c.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] };
  return c;
}

/** The errors of writing the CRD, then of writing an object with this spec. */
function write(spec: JSONSchemaProps, objectSpec: unknown): { crd: string[]; object: string[] } {
  const c = crdWithSpec(spec);
  const schema = c.spec.versions[0]!.schema!.openAPIV3Schema!;
  const rules = compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema').rules;
  return {
    crd: runTask(validateCRD(c, checkSchemaAtCRDWrite)).map(formatFieldError),
    object: rules.validate({ spec: objectSpec }, undefined).errors.map(formatFieldError),
  };
}

describe("a map's keys cost nothing to size (kube's shared string type has no maxLength)", () => {
  // gateway-api Gateway spec.infrastructure.annotations: refused before as "factor of 14.6x".
  const KEY = String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$`;
  const annotations: JSONSchemaProps = {
    type: 'object',
    maxProperties: 16,
    additionalProperties: { type: 'string', maxLength: 4096 },
    'x-kubernetes-validations': [
      { rule: `self.all(key, key.matches(r"""${KEY}"""))`, message: 'bad key' },
      { rule: 'self.all(key, key.split("/")[0].size() < 253)', message: 'long prefix' },
    ],
  };
  // istio's selector.matchLabels: refused before "by more than 100x".
  const matchLabels: JSONSchemaProps = {
    type: 'object',
    maxProperties: 4096,
    additionalProperties: { type: 'string', maxLength: 63 },
    'x-kubernetes-validations': [{ rule: 'self.all(key, !key.contains("*"))', message: 'no wildcards' }],
  };
  const spec: JSONSchemaProps = { type: 'object', properties: { annotations, matchLabels } };

  it('accepts the CRD and runs the rules', () => {
    expect(write(spec, { annotations: { 'example.com/a': 'x' }, matchLabels: { app: 'web' } })).toEqual({
      crd: [],
      object: [],
    });
    expect(write(spec, { annotations: { 'a b': 'x' }, matchLabels: { 'app*': 'web' } }).object).toEqual([
      'spec.annotations: Invalid value: "object": bad key',
      'spec.matchLabels: Invalid value: "object": no wildcards',
    ]);
  });
});

describe("a ternary's size is the union of its branches'", () => {
  // istio ServiceEntry: refused before "by more than 100x"; the same rule with || was accepted.
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: {
      addresses: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 64 } },
      resolution: { type: 'string', enum: ['NONE', 'STATIC', 'DNS', 'DNS_ROUND_ROBIN', 'DYNAMIC_DNS'] },
    },
    'x-kubernetes-validations': [
      {
        rule: '!((has(self.addresses) ? self.addresses : []).exists(k, k.contains("/")) && !((has(self.resolution) ? self.resolution : "NONE") in ["STATIC", "NONE"]))',
        message: 'CIDR addresses are allowed only for NONE/STATIC resolution types',
      },
    ],
  };

  it('accepts the CRD and runs the rule', () => {
    expect(write(spec, { addresses: ['10.0.0.0/8'], resolution: 'STATIC' })).toEqual({ crd: [], object: [] });
    expect(write(spec, { addresses: ['10.0.0.0/8'], resolution: 'DNS' }).object).toEqual([
      'spec: Invalid value: "object": CIDR addresses are allowed only for NONE/STATIC resolution types',
    ]);
  });
});

describe("has() of an indexed value's field is a presence test", () => {
  const match: JSONSchemaProps = {
    type: 'object',
    properties: { path: { type: 'object', properties: { type: { type: 'string', maxLength: 32 } } } },
  };
  const rule: JSONSchemaProps = {
    type: 'object',
    properties: { matches: { type: 'array', maxItems: 64, items: match } },
    // gateway-api HTTPRoute rules[*]: refused before as "has() invalid argument".
    'x-kubernetes-validations': [
      {
        rule: '!has(self.matches) || size(self.matches) != 1 || !has(self.matches[0].path) || self.matches[0].path.type != "RegularExpression"',
        message: 'no regular expressions',
      },
    ],
  };
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: {
      rules: {
        type: 'array',
        maxItems: 16,
        items: rule,
        // gateway-api GRPCRoute spec.rules, the first terms of its 16.
        'x-kubernetes-validations': [
          {
            rule: '(self.size() > 0 ? (has(self[0].matches) ? self[0].matches.size() : 0) : 0) + (self.size() > 1 ? (has(self[1].matches) ? self[1].matches.size() : 0) : 0) <= 128',
            message: 'too many matches',
          },
        ],
      },
    },
  };

  it('accepts the CRD and runs the rules', () => {
    expect(write(spec, { rules: [{ matches: [{ path: { type: 'Exact' } }] }, {}] })).toEqual({ crd: [], object: [] });
    expect(write(spec, { rules: [{ matches: [{ path: { type: 'RegularExpression' } }] }] }).object).toEqual([
      'spec.rules[0]: Invalid value: "object": no regular expressions',
    ]);
  });
});

describe('an optional compares with null', () => {
  // gateway-api experimental XBackend ports[*].name: refused before as "found no matching overload for '_==_'".
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        maxLength: 63,
        'x-kubernetes-validations': [
          {
            rule: 'size(self) == 0 || format.dns1123Label().validate(self) == null',
            message: 'Name must be a valid DNS label',
          },
        ],
      },
    },
  };

  it('accepts the CRD and runs the rule', () => {
    expect(write(spec, { name: '' })).toEqual({ crd: [], object: [] });
    // validate() gives optional.none() for a valid name, and an optional equals only an optional
    // (cel-go's Optional.Equal), so kube refuses every non-empty name with this rule, valid or not.
    const refused = ['spec.name: Invalid value: "string": Name must be a valid DNS label'];
    expect(write(spec, { name: 'web' }).object).toEqual(refused);
    expect(write(spec, { name: 'Web_1' }).object).toEqual(refused);
  });
});
