import { describe, expect, it } from 'vitest';
import {
  type LabelRequirement,
  type MetaLabelSelector,
  labelSelectorFromMeta,
  matchesLabels,
  parseGoInt64,
  parseLabelSelector,
} from '../../../../apimachinery/selectors/labels.js';
import { apiError } from '../../../helpers/api-error.js';

// kube's validation messages, written out.
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const TOO_MANY_SLASHES =
  "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const PREFIX_PART =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer";

const req = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({
  key,
  operator,
  values,
});

// Inputs from kube's TestSelectorParse and TestSetSelectorParser (labels/selector_test.go).
describe('parseLabelSelector: valid selectors', () => {
  it.each<{ s: string; want: LabelRequirement[] }>([
    { s: '', want: [] },
    { s: '   ', want: [] },
    { s: 'x=a,y=b,z=c', want: [req('x', '=', ['a']), req('y', '=', ['b']), req('z', '=', ['c'])] },
    { s: 'x!=a,y=b', want: [req('x', '!=', ['a']), req('y', '=', ['b'])] },
    { s: 'x=', want: [req('x', '=', [''])] },
    { s: 'x= ', want: [req('x', '=', [''])] },
    { s: 'x=,z= ', want: [req('x', '=', ['']), req('z', '=', [''])] },
    { s: 'x= ,z= ', want: [req('x', '=', ['']), req('z', '=', [''])] },
    { s: 'x==a', want: [req('x', '==', ['a'])] },
    { s: '!x', want: [req('x', '!')] },
    { s: 'x>1', want: [req('x', 'gt', ['1'])] },
    { s: 'x>1,z<5', want: [req('x', 'gt', ['1']), req('z', 'lt', ['5'])] },
    { s: 'x<7', want: [req('x', 'lt', ['7'])] },
    { s: '\rx', want: [req('x', 'exists')] },
    { s: 'a ', want: [req('a', 'exists')] },
    { s: 'this-is-a-dns.domain.com/key-with-dash', want: [req('this-is-a-dns.domain.com/key-with-dash', 'exists')] },
    {
      s: 'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      want: [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])],
    },
    {
      s: '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      want: [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock'])],
    },
    { s: 'foo  in\t (abc)', want: [req('foo', 'in', ['abc'])] },
    { s: 'x notin\n (abc)', want: [req('x', 'notin', ['abc'])] },
    { s: 'x  notin\t\t\t(abc,def)', want: [req('x', 'notin', ['abc', 'def'])] },
    { s: 'x in (abc,def)', want: [req('x', 'in', ['abc', 'def'])] },
    { s: 'x in (def,abc,abc)', want: [req('x', 'in', ['abc', 'def'])] },
    { s: 'x in (abc,)', want: [req('x', 'in', ['', 'abc'])] },
    { s: 'x in ()', want: [req('x', 'in', [''])] },
    { s: 'x notin ( )', want: [req('x', 'notin', [''])] },
    { s: 'x notin (, a)', want: [req('x', 'notin', ['', 'a'])] },
    {
      s: 'x notin (abc,,def),bar,z in (),w',
      want: [req('x', 'notin', ['', 'abc', 'def']), req('bar', 'exists'), req('z', 'in', ['']), req('w', 'exists')],
    },
    { s: 'x,y in (a)', want: [req('x', 'exists'), req('y', 'in', ['a'])] },
    {
      s: 'x=a,y!=b,z in (h,i,j)',
      want: [req('x', '=', ['a']), req('y', '!=', ['b']), req('z', 'in', ['h', 'i', 'j'])],
    },
    { s: 'a in (x,y,notin, z,in)', want: [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])] },
    { s: 'notin=in', want: [req('notin', '=', ['in'])] },
    { s: 'in in (in)', want: [req('in', 'in', ['in'])] },
    { s: 'x,!y', want: [req('x', 'exists'), req('y', '!')] },
    // A NUL byte reads as the end of input in kube's lexer: it ends the input where a token
    // would start, and is swallowed where it ends one.
    { s: 'x=a\u0000,y', want: [req('x', '=', ['a']), req('y', 'exists')] },
    { s: 'x=a,\u0000y', want: [req('x', '=', ['a']), req('y', 'exists')] },
    { s: 'x=a \u0000,y', want: [req('x', '=', ['a'])] },
  ])('$s', ({ s, want }) => {
    expect(parseLabelSelector(s)).toEqual({ requirements: want, matchesNothing: false });
  });
});

describe('parseLabelSelector: invalid selectors are 400s with kube’s text', () => {
  it.each<{ s: string; message: string }>([
    { s: 'x=a||y=b', message: `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE}` },
    { s: 'x==a==b', message: "found '==', expected: ',' or 'end of string'" },
    { s: '!x=a', message: "found '=', expected: ',' or 'end of string'" },
    { s: 'x<a', message: `unable to parse requirement: values[0]: Invalid value: "a": ${NOT_INTEGER}` },
    { s: 'x>', message: `unable to parse requirement: values[0]: Invalid value: "": ${NOT_INTEGER}` },
    { s: 'x,,y', message: "found ',', expected: identifier after ','" },
    { s: ',x,y', message: "found ',', expected: !, identifier, or 'end of string'" },
    {
      s: 'x nott in (y)',
      message: "unable to parse requirement: found 'nott', expected: '=', '!=', '==', 'in', notin'",
    },
    { s: 'a in (xyz),', message: "found '', expected: identifier after ','" },
    { s: 'a in (xyz)b notin ()', message: "found 'b', expected: ',' or 'end of string'" },
    { s: 'a in (xyz abc)', message: "unable to parse requirement: found 'abc', expected: ',' or ')'" },
    { s: 'a notin(', message: "unable to parse requirement: found '', expected: ',', ')' or identifier" },
    { s: 'a (', message: "unable to parse requirement: found '(', expected: '=', '!=', '==', 'in', notin'" },
    { s: '(', message: "found '(', expected: !, identifier, or 'end of string'" },
    { s: 'x in a', message: "unable to parse requirement: found 'a' expected: '('" },
    { s: 'x in (a,=)', message: "unable to parse requirement: found '=', expected: ',', or identifier" },
    { s: 'x=(a)', message: "unable to parse requirement: found '(', expected: identifier" },
    { s: '!', message: "unable to parse requirement: found '', expected: identifier" },
    { s: '!=a', message: "found '!=', expected: !, identifier, or 'end of string'" },
    { s: 'x=a, \u0000y', message: "found '', expected: identifier after ','" },
    // Keys are checked against a nil field path, values against values[i][key].
    { s: 'a_', message: `unable to parse requirement: <nil>: Invalid value: "a_": ${NAME_PART}` },
    { s: 'app:monolith', message: `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART}` },
    { s: 'a/b/c=d', message: `unable to parse requirement: <nil>: Invalid value: "a/b/c": ${TOO_MANY_SLASHES}` },
    {
      s: 'app.kubernetes_io/name=x',
      message: `unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": ${PREFIX_PART}`,
    },
    {
      s: `${'k'.repeat(64)}`,
      message: `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    },
    { s: '/x', message: `unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty` },
    {
      s: `x=${'v'.repeat(64)}`,
      message: `unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    },
    { s: 'x in (b_,a)', message: `unable to parse requirement: values[1][x]: Invalid value: "b_": ${LABEL_VALUE}` },
    { s: 'x>-1', message: `unable to parse requirement: values[0][x]: Invalid value: "-1": ${LABEL_VALUE}` },
    {
      s: 'x>a_',
      message: `unable to parse requirement: [values[0]: Invalid value: "a_": ${NOT_INTEGER}, values[0][x]: Invalid value: "a_": ${LABEL_VALUE}]`,
    },
  ])('$s', ({ s, message }) => {
    const err = apiError(() => parseLabelSelector(s));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
  });
});

// kube's TestSelectorMatches and TestRequirementSelectorMatching.
describe('matchesLabels', () => {
  it.each<{ s: string; labels: Record<string, string> | undefined; want: boolean }>([
    { s: '', labels: { x: 'y' }, want: true },
    { s: '', labels: undefined, want: true },
    { s: 'x=y', labels: { x: 'y' }, want: true },
    { s: 'x=y,z=w', labels: { x: 'y', z: 'w' }, want: true },
    { s: 'x!=y,z!=w', labels: { x: 'z', z: 'a' }, want: true },
    { s: 'notin=in', labels: { notin: 'in' }, want: true },
    { s: 'x', labels: { x: 'z' }, want: true },
    { s: '!x', labels: { y: 'z' }, want: true },
    { s: 'x>1', labels: { x: '2' }, want: true },
    { s: 'x<1', labels: { x: '0' }, want: true },
    { s: 'x=z', labels: {}, want: false },
    { s: 'x=y', labels: { x: 'z' }, want: false },
    { s: 'x=y,z=w', labels: { x: 'w', z: 'w' }, want: false },
    { s: 'x!=y,z!=w', labels: { x: 'z', z: 'w' }, want: false },
    { s: 'x', labels: { y: 'z' }, want: false },
    { s: '!x', labels: { x: 'z' }, want: false },
    { s: 'x>1', labels: { x: '0' }, want: false },
    { s: 'x<1', labels: { x: '2' }, want: false },
    { s: 'foo=bar,baz=blah', labels: { foo: 'bar', baz: 'blah' }, want: true },
    { s: 'foo=blah', labels: { foo: 'bar', baz: 'blah' }, want: false },
    { s: 'foo=bar,foobar=bar,baz=blah', labels: { foo: 'bar', baz: 'blah' }, want: false },
    { s: 'x in (foo),y notin (alpha)', labels: { x: 'foo', y: 'baz' }, want: true },
    { s: 'x in (foo),y in (alpha)', labels: { x: 'foo', y: 'baz' }, want: false },
    { s: 'x notin (),y', labels: { y: '' }, want: true },
    { s: '!x,y', labels: { y: '' }, want: true },
    { s: 'x notin (),!y', labels: { y: '' }, want: false },
    { s: 'x in ()', labels: { y: 'baz' }, want: false },
    { s: 'x in ()', labels: { x: '' }, want: true },
    { s: 'x=', labels: { x: '' }, want: true },
    { s: 'x=', labels: {}, want: false },
    { s: 'x!=a', labels: {}, want: true },
    { s: 'z>1', labels: { z: '2' }, want: true },
    { s: 'z>1', labels: { z: 'v2' }, want: false },
    { s: 'z>1', labels: {}, want: false },
    // int64 comparison, not float: these differ only past 2^53.
    { s: 'z<9223372036854775807', labels: { z: '9223372036854775806' }, want: true },
    { s: 'z>9007199254740992', labels: { z: '9007199254740993' }, want: true },
    { s: 'z>1', labels: { z: '9223372036854775808' }, want: false },
    // Only own properties are labels.
    { s: 'constructor', labels: {}, want: false },
  ])('$s on $labels', ({ s, labels, want }) => {
    expect(matchesLabels(parseLabelSelector(s), labels)).toBe(want);
  });
});

describe('labelSelectorFromMeta', () => {
  it.each<{ name: string; sel: MetaLabelSelector | null | undefined; labels: Record<string, string>; want: boolean }>([
    { name: 'absent matches nothing', sel: undefined, labels: {}, want: false },
    { name: 'null matches nothing', sel: null, labels: { a: 'b' }, want: false },
    { name: 'empty matches everything', sel: {}, labels: { a: 'b' }, want: true },
    { name: 'empty lists match everything', sel: { matchLabels: {}, matchExpressions: [] }, labels: {}, want: true },
    {
      name: 'matchLabels',
      sel: { matchLabels: { app: 'web', tier: 'fe' } },
      labels: { app: 'web', tier: 'fe', x: 'y' },
      want: true,
    },
    {
      name: 'matchLabels mismatch',
      sel: { matchLabels: { app: 'web', tier: 'fe' } },
      labels: { app: 'web' },
      want: false,
    },
    {
      name: 'In',
      sel: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'qa'] }] },
      labels: { env: 'qa' },
      want: true,
    },
    {
      name: 'NotIn',
      sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      labels: { env: 'prod' },
      want: false,
    },
    {
      name: 'NotIn without the key',
      sel: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      labels: {},
      want: true,
    },
    {
      name: 'Exists',
      sel: { matchExpressions: [{ key: 'env', operator: 'Exists' }] },
      labels: { env: '' },
      want: true,
    },
    {
      name: 'DoesNotExist',
      sel: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] },
      labels: { env: '' },
      want: false,
    },
    {
      name: 'both',
      sel: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      labels: { app: 'web', env: 'dev' },
      want: false,
    },
  ])('$name', ({ sel, labels, want }) => {
    expect(matchesLabels(labelSelectorFromMeta(sel), labels)).toBe(want);
  });

  it.each<{ sel: MetaLabelSelector; message: string }>([
    {
      sel: { matchExpressions: [{ key: 'a', operator: 'Foo' }] },
      message: '"Foo" is not a valid label selector operator',
    },
    {
      sel: { matchExpressions: [{ key: 'a', operator: 'in', values: ['b'] }] },
      message: '"in" is not a valid label selector operator',
    },
    {
      sel: { matchExpressions: [{ key: 'a', operator: 'In' }] },
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      sel: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      sel: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] },
      message: 'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist',
    },
    { sel: { matchLabels: { a_: 'b' } }, message: `key: Invalid value: "a_": ${NAME_PART}` },
    { sel: { matchLabels: { app: 'a b' } }, message: `values[0][app]: Invalid value: "a b": ${LABEL_VALUE}` },
    {
      sel: { matchExpressions: [{ key: 'a_', operator: 'In', values: ['ok', 'b_'] }] },
      message: `[key: Invalid value: "a_": ${NAME_PART}, values[1][a_]: Invalid value: "b_": ${LABEL_VALUE}]`,
    },
    // matchLabels are checked (in key order) before matchExpressions.
    {
      sel: { matchLabels: { z_: '1', y_: '2' }, matchExpressions: [{ key: 'a', operator: 'Bad' }] },
      message: `key: Invalid value: "y_": ${NAME_PART}`,
    },
  ])('$message', ({ sel, message }) => {
    const err = apiError(() => labelSelectorFromMeta(sel));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });
});

describe('parseGoInt64', () => {
  it.each<{ s: string; want: bigint | string }>([
    { s: '0', want: 0n },
    { s: '-0', want: 0n },
    { s: '+12', want: 12n },
    { s: '007', want: 7n },
    { s: '-9223372036854775808', want: -9223372036854775808n },
    { s: '9223372036854775807', want: 9223372036854775807n },
    { s: '9223372036854775808', want: 'parsing "9223372036854775808": value out of range' },
    { s: '', want: 'parsing "": invalid syntax' },
    { s: '+', want: 'parsing "+": invalid syntax' },
    { s: '1e3', want: 'parsing "1e3": invalid syntax' },
    { s: ' 1', want: 'parsing " 1": invalid syntax' },
    { s: '１', want: 'parsing "１": invalid syntax' },
    { s: '\u0000', want: 'parsing "\\x00": invalid syntax' },
    { s: '\u0085', want: 'parsing "\\u0085": invalid syntax' },
    { s: 'é"', want: 'parsing "é\\"": invalid syntax' },
  ])('$s', ({ s, want }) => {
    const got = parseGoInt64(s);
    expect('value' in got ? got.value : got.error).toEqual(want);
  });
});
