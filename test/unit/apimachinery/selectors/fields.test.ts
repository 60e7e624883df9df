import { describe, expect, it } from 'vitest';
import {
  type FieldLabelConversion,
  type FieldTerm,
  convertFieldSelector,
  defaultMetaV1FieldLabels,
  matchesFields,
  parseFieldSelector,
  requiresExactMatch,
  supportedFieldLabels,
} from '../../../../apimachinery/selectors/fields.js';
import { apiError } from '../../../helpers/api-error.js';

const eq = (field: string, value: string): FieldTerm => ({ field, operator: '=', value });
const ne = (field: string, value: string): FieldTerm => ({ field, operator: '!=', value });

// Inputs from kube's fields/selector_test.go, plus its escaping rules.
describe('parseFieldSelector', () => {
  it.each<{ s: string; want: FieldTerm[] }>([
    { s: '', want: [] },
    { s: ',', want: [] },
    { s: 'x=a,y=b,z=c', want: [eq('x', 'a'), eq('y', 'b'), eq('z', 'c')] },
    { s: 'x!=a,y=b', want: [ne('x', 'a'), eq('y', 'b')] },
    { s: 'x==a', want: [eq('x', 'a')] },
    { s: 'notin=in', want: [eq('notin', 'in')] },
    // Terms are sorted by their text before parsing, as kube does.
    { s: 'x=a,a=x', want: [eq('a', 'x'), eq('x', 'a')] },
    {
      s: 'metadata.name=web,metadata.namespace=default',
      want: [eq('metadata.name', 'web'), eq('metadata.namespace', 'default')],
    },
    {
      s: 'involvedObject.uid=1,involvedObject.name=web,involvedObject.kind=Cache',
      want: [eq('involvedObject.kind', 'Cache'), eq('involvedObject.name', 'web'), eq('involvedObject.uid', '1')],
    },
    { s: 'a=', want: [eq('a', '')] },
    { s: 'a!=', want: [ne('a', '')] },
    { s: '=b', want: [eq('', 'b')] },
    { s: 'a=!b', want: [eq('a', '!b')] },
    { s: 'a= b ', want: [eq('a', ' b ')] },
    { s: 'a=b,,c=d', want: [eq('a', 'b'), eq('c', 'd')] },
    // Backslash escapes in values: \\, \, and \=.
    { s: 'a=b\\,c,d=e', want: [eq('a', 'b,c'), eq('d', 'e')] },
    { s: 'a=\\=', want: [eq('a', '=')] },
    { s: 'a=\\\\', want: [eq('a', '\\')] },
    { s: 'a=x\\\\,b=y', want: [eq('a', 'x\\'), eq('b', 'y')] },
    // The field is split at the first operator and not unescaped.
    { s: 'a\\=b', want: [eq('a\\', 'b')] },
  ])('$s', ({ s, want }) => {
    expect(parseFieldSelector(s)).toEqual({ terms: want });
  });

  it.each<{ s: string; message: string }>([
    { s: 'x=a||y=b', message: 'invalid field selector: unescaped character in value: 61' },
    { s: 'x==a==b', message: 'invalid field selector: unescaped character in value: 61' },
    { s: 'foo', message: "invalid selector: 'foo'; can't understand 'foo'" },
    { s: 'metadata.name=name1,foo', message: "invalid selector: 'metadata.name=name1,foo'; can't understand 'foo'" },
    { s: 'a=\\x', message: 'invalid field selector: invalid escape sequence: \\x' },
    { s: 'a=b\\', message: 'invalid field selector: invalid escape sequence: \\' },
    { s: 'a\\=b=c', message: 'invalid field selector: unescaped character in value: 61' },
    // Sorted first, so the first term to fail is the first in byte order.
    { s: 'z,a', message: "invalid selector: 'z,a'; can't understand 'a'" },
  ])('$s is a 400', ({ s, message }) => {
    const err = apiError(() => parseFieldSelector(s));
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

describe('matchesFields', () => {
  const labelset = { foo: 'bar', baz: 'blah' };
  it.each<{ s: string; fields: Record<string, string>; want: boolean }>([
    { s: '', fields: { x: 'y' }, want: true },
    { s: 'x=y', fields: { x: 'y' }, want: true },
    { s: 'x=y,z=w', fields: { x: 'y', z: 'w' }, want: true },
    { s: 'x!=y,z!=w', fields: { x: 'z', z: 'a' }, want: true },
    { s: 'notin=in', fields: { notin: 'in' }, want: true },
    { s: 'x=y', fields: { x: 'z' }, want: false },
    { s: 'x=y,z=w', fields: { x: 'w', z: 'w' }, want: false },
    { s: 'x!=y,z!=w', fields: { x: 'z', z: 'w' }, want: false },
    { s: 'foo=bar', fields: labelset, want: true },
    { s: 'baz=blah', fields: labelset, want: true },
    { s: 'foo=bar,baz=blah', fields: labelset, want: true },
    { s: 'foo=blah', fields: labelset, want: false },
    { s: 'baz=bar', fields: labelset, want: false },
    { s: 'foo=bar,foobar=bar,baz=blah', fields: labelset, want: false },
    // A field the set lacks reads as "".
    { s: 'x=', fields: {}, want: true },
    { s: 'x!=a', fields: {}, want: true },
    { s: 'metadata.namespace=default', fields: { 'metadata.name': 'web' }, want: false },
    { s: 'toString=', fields: {}, want: true },
    { s: 'a=b\\,c', fields: { a: 'b,c' }, want: true },
  ])('$s on $fields', ({ s, fields, want }) => {
    expect(matchesFields(parseFieldSelector(s), fields)).toBe(want);
  });
});

// kube's TestRequiresExactMatch, on parsed selectors.
describe('requiresExactMatch', () => {
  it.each<{ s: string; field: string; want: string | undefined }>([
    { s: '', field: 'test', want: undefined },
    { s: 'a=b', field: 'test', want: undefined },
    { s: 'test=b', field: 'test', want: 'b' },
    { s: 'test=', field: 'test', want: '' },
    { s: 'test!=b', field: 'test', want: undefined },
    { s: 'a=x,test=b', field: 'test', want: 'b' },
    { s: 'test=z,test=a', field: 'test', want: 'a' },
  ])('$field in $s', ({ s, field, want }) => {
    expect(requiresExactMatch(parseFieldSelector(s), field)).toBe(want);
  });
});

describe('convertFieldSelector', () => {
  const namespacedCR = supportedFieldLabels(['metadata.name', 'metadata.namespace', 'spec.color']);
  const clusterCR = supportedFieldLabels(['metadata.name']);

  it.each<{ name: string; s: string; convert: FieldLabelConversion; want: FieldTerm[] }>([
    {
      name: 'namespaced CR metadata fields',
      s: 'metadata.name=web,metadata.namespace=default',
      convert: namespacedCR,
      want: [eq('metadata.name', 'web'), eq('metadata.namespace', 'default')],
    },
    { name: 'selectable field', s: 'spec.color!=red', convert: namespacedCR, want: [ne('spec.color', 'red')] },
    { name: 'empty selector', s: '', convert: clusterCR, want: [] },
    {
      name: 'default conversion accepts metadata.namespace',
      s: 'metadata.namespace=x',
      convert: defaultMetaV1FieldLabels,
      want: [eq('metadata.namespace', 'x')],
    },
  ])('$name', ({ s, convert, want }) => {
    expect(convertFieldSelector(parseFieldSelector(s), convert)).toEqual({ terms: want });
  });

  it('renames what the conversion renames and drops what it empties', () => {
    const legacy: FieldLabelConversion = (label, value) => {
      if (label === 'spec.host') return { label: 'spec.nodeName', value };
      if (label === 'ignored') return { label: '', value: '' };
      return { label, value };
    };
    expect(convertFieldSelector(parseFieldSelector('spec.host=n1,ignored=x,a=b'), legacy)).toEqual({
      terms: [eq('a', 'b'), eq('spec.nodeName', 'n1')],
    });
  });

  it.each<{ name: string; s: string; convert: FieldLabelConversion; message: string }>([
    {
      name: 'CR unknown field',
      s: 'spec.size=1',
      convert: namespacedCR,
      message: 'field label not supported: spec.size',
    },
    {
      name: 'cluster-scoped CR namespace',
      s: 'metadata.namespace=default',
      convert: clusterCR,
      message: 'field label not supported: metadata.namespace',
    },
    {
      name: 'first in sorted order',
      s: 'status.x=1,spec.y=2',
      convert: namespacedCR,
      message: 'field label not supported: spec.y',
    },
    { name: 'empty field', s: '=x', convert: namespacedCR, message: 'field label not supported: ' },
    {
      name: 'kind without a conversion func',
      s: 'spec.foo=bar',
      convert: defaultMetaV1FieldLabels,
      message: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
  ])('$name is a 400', ({ s, convert, message }) => {
    const err = apiError(() => convertFieldSelector(parseFieldSelector(s), convert));
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
