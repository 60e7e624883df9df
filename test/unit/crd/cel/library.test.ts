import { describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const schemaFor = (rule: string): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        s: { type: 'string', maxLength: 256 },
        l: { type: 'array', maxItems: 10, items: { type: 'integer' } },
        d: { type: 'array', maxItems: 10, items: { type: 'number' } },
        t: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
      },
      'x-kubernetes-validations': [{ rule }],
    },
  },
});

/** Runs a rule over spec; returns true, false, or the error text. */
function evalRule(rule: string, spec: Record<string, unknown> = {}): boolean | string {
  const { errors, rules } = compileSchemaRules(schemaFor(rule), 'p');
  if (errors.length) return errors.map(formatFieldError).join('\n');
  const r = rules.validate({ spec }, undefined);
  if (r.errors.length === 0) return true;
  const m = formatFieldError(r.errors[0]!);
  return m.includes('failed rule') ? false : m;
}

describe('Kubernetes CEL libraries', () => {
  const cases: [string, Record<string, unknown>?][] = [
    // strings
    ["'hello'.charAt(1) == 'e'"],
    ["'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3"],
    ["'HeLLo'.lowerAscii() == 'hello' && 'héllo'.upperAscii() == 'HéLLO'"],
    ["'a-b-c'.replace('-', '+') == 'a+b+c' && 'a-b-c'.replace('-', '+', 1) == 'a+b-c'"],
    // join() of a list literal: kube cannot size its elements and refuses the rule (compile.test.ts).
    ["'a,b'.split(',') == ['a', 'b'] && self.t.join('/') == 'a/b'", { t: ['a', 'b'] }],
    ["'hello'.substring(1, 3) == 'el' && '  x '.trim() == 'x'"],
    [
      "'%s is %s'.format(['a', 'b']) == 'a is b' && '%d or %x'.format([3, 255]) == '3 or ff' && '%.2f'.format([1.5]) == '1.50'",
    ],
    ['strings.quote(\'a"b\') == \'"a\\\\"b"\''],
    // lists
    ['[1, 2, 3].isSorted() && ![2, 1].isSorted()'],
    ['[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0'],
    ['[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3'],
    ['[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2'],
    ['self.l.sum() == 6', { l: [1, 2, 3] }],
    // regex
    ["'abc123'.matches('^[a-z]+[0-9]+$') && 'ABC'.matches('(?i)abc')"],
    ["'abc\\n'.matches('abc\\\\z') == false"],
    [
      "'x1y22'.find('[0-9]+') == '1' && 'x1y22'.findAll('[0-9]+') == ['1', '22'] && 'x1y22'.findAll('[0-9]+', 1) == ['1']",
    ],
    // sets
    ['sets.contains([1, 2, 3], [1, 3]) && sets.equivalent([1, 2], [2, 1]) && sets.intersects([1], [1, 5])'],
    // optionals
    ["optional.of(1).hasValue() && !optional.none().hasValue() && optional.of('a').orValue('b') == 'a'"],
    ["self.?s.orValue('none') == 'none'"],
    // ip / cidr
    ["isIP('10.0.0.1') && !isIP('10.0.0.256') && ip('10.0.0.1').family() == 4 && ip('::1').isLoopback()"],
    [
      "ip('fe80::1').isLinkLocalUnicast() && ip('8.8.8.8').isGlobalUnicast() && string(ip('2001:db8:0:0:0:0:0:1')) == '2001:db8::1'",
    ],
    [
      "cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1')) && cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')",
    ],
    [
      "cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8') && cidr('10.1.2.3/8').prefixLength() == 8 && cidr('10.1.2.3/8').ip() == ip('10.1.2.3')",
    ],
    ["!isIP('::ffff:10.0.0.1') && isCIDR('::/0')"],
    // url
    [
      "isURL('https://example.com:8080/a/b?x=1&x=2') && url('https://example.com:8080/a/b?x=1&x=2').getHost() == 'example.com:8080'",
    ],
    [
      "url('https://[::1]:80/p').getHostname() == '::1' && url('https://example.com/p').getPort() == '' && url('https://e.com/a/b?x=1&x=2').getQuery()['x'] == ['1', '2']",
    ],
    ["url('/path?q').getEscapedPath() == '/path' && !isURL('not a url')"],
    // quantity
    [
      "quantity('1Gi').isGreaterThan(quantity('1G')) && quantity('1000m') == quantity('1') && quantity('500m').isLessThan(quantity('1'))",
    ],
    [
      "quantity('2k').asInteger() == 2000 && quantity('1.5').isInteger() == false && quantity('1.5').asApproximateFloat() == 1.5",
    ],
    [
      // sign() is declared as a global function in kube (its docs write it as a method, which kube refuses).
      "quantity('1').add(quantity('500m')) == quantity('1500m') && sign(quantity('1').sub(1)) == 0 && sign(quantity('-1')) == -1",
    ],
    ["isQuantity('10Mi') && !isQuantity('10MiB') && quantity('1e3').compareTo(quantity('1k')) == 0"],
    // format
    ["!format.dns1123Label().validate('my-name').hasValue() && format.dns1123Label().validate('My_Name').hasValue()"],
    [
      "format.named('dns1123Subdomain').value().validate('a.b').orValue([]).size() == 0 && !format.named('nope').hasValue()",
    ],
    ["format.labelValue().validate('-x').value()[0].startsWith('a valid label must be')"],
    // timestamps and durations
    ["timestamp('2024-01-01T00:00:00Z') + duration('1h') == timestamp('2024-01-01T01:00:00Z')"],
    [
      "duration('90m') > duration('1h') && timestamp('2024-01-02T00:00:00Z') - timestamp('2024-01-01T00:00:00Z') == duration('24h')",
    ],
  ];
  it.each(cases)('%s', (rule, spec) => {
    expect(evalRule(rule, spec)).toBe(true);
  });

  it("format error text is apimachinery's", () => {
    expect(
      evalRule(
        "format.dns1123Label().validate('My_Name').value() == [\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]",
      ),
    ).toBe(true);
  });

  it('a failing conversion is a runtime error', () => {
    expect(evalRule("ip('nope').family() == 4")).toContain('evaluating rule:');
  });
});

describe('timestamps and durations over object fields', () => {
  it('evaluate with kube-style zone names', () => {
    expect(evalRule("timestamp(self.s).getHours('America/Los_Angeles') == 15", { s: '2009-02-13T23:31:30Z' })).toBe(
      true,
    );
    expect(evalRule("duration(self.s).getMinutes() == 90 && string(duration(self.s)) == '5400s'", { s: '1h30m' })).toBe(
      true,
    );
  });

  it("report errors in cel-go's words", () => {
    expect(evalRule('int(true) == 1')).toContain(
      "compilation failed: ERROR: <input>:1:4: found no matching overload for 'int' applied to '(bool)'",
    );
    expect(evalRule("timestamp(self.s).getHours('Nowhere') == 1", { s: '2009-02-13T23:31:30Z' })).toContain(
      'unknown time zone Nowhere evaluating rule:',
    );
    expect(evalRule("timestamp(self.s) > timestamp('2000-01-01T00:00:00Z')", { s: '2009-02-30T00:00:00Z' })).toContain(
      "type conversion error from 'string' to 'google.protobuf.Timestamp' evaluating rule:",
    );
  });
});
