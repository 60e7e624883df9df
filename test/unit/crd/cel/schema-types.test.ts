// What `self` looks like to a rule, by schema: strings of format date, date-time, duration and
// byte are timestamps, durations and bytes (kube's SchemaDeclType), and embedded resources carry
// apiVersion, kind and metadata.name/generateName even when their schema does not list them.
import { describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const schema = (rule: string): JSONSchemaProps => ({
  type: 'object',
  'x-kubernetes-validations': [{ rule }],
  properties: {
    created: { type: 'string', format: 'date-time' },
    expires: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    timeout: { type: 'string', format: 'duration' },
    data: { type: 'string', format: 'byte', maxLength: 64 },
    inner: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    pods: {
      type: 'array',
      maxItems: 4,
      items: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    },
  },
});

const spec = {
  created: '2026-11-23T10:00:00Z',
  expires: '2026-11-23T12:30:00.5+01:00',
  day: '2026-11-23',
  timeout: '1m30s',
  data: 'AQID',
  inner: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
  pods: [{ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-' } }],
};

/** true, false, or the compile or evaluation error's text. */
function run(rule: string): boolean | string {
  const { errors, rules } = compileSchemaRules(schema(rule), 'spec');
  if (errors.length) return errors.map(formatFieldError).join('\n');
  const r = rules.validate(spec, undefined);
  if (r.errors.length === 0) return true;
  const m = formatFieldError(r.errors[0]!);
  return m.includes('failed rule') ? false : m;
}

describe('formatted strings are typed values', () => {
  it.each([
    ['self.created < self.expires'],
    ["self.expires - self.created == duration('1h30m500ms')"],
    ["self.created + duration('2h') == timestamp('2026-11-23T12:00:00Z')"],
    ['self.created.getHours() == 10 && self.expires.getHours() == 11'],
    ['self.day.getDayOfWeek() == 1 && self.day.getDate() == 23'],
    ["self.timeout > duration('1m') && self.timeout.getSeconds() == 90"],
    ['self.data.size() == 3 && self.data == b"\\x01\\x02\\x03"'],
    ['type(self.created) == google.protobuf.Timestamp'],
  ])('%s', (rule) => {
    expect(run(rule)).toBe(true);
  });

  it('type-checks them as such at CRD write', () => {
    expect(run('self.created + 1 > self.expires')).toContain(
      "found no matching overload for '_+_' applied to '(timestamp, int)'",
    );
    expect(run("self.timeout.startsWith('1')")).toContain('found no matching overload');
  });
});

describe('embedded resources', () => {
  it.each([
    ["self.inner.kind == 'Pod' && self.inner.apiVersion == 'v1' && self.inner.metadata.name == 'p'"],
    ["self.pods.all(p, p.kind == 'Pod' && p.metadata.generateName == 'web-')"],
  ])('%s', (rule) => {
    expect(run(rule)).toBe(true);
  });

  it('expose only name and generateName of their metadata', () => {
    expect(run('self.inner.metadata.namespace == ""')).toContain("undefined field 'namespace'");
  });
});
