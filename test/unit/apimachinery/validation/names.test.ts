import { describe, expect, it } from 'vitest';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isPathSegmentPrefix,
  isQualifiedName,
  isValidLabelValue,
  regexError,
  validateDNS1035Label,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validatePathSegmentName,
} from '../../../../apimachinery/validation/names.js';

// kube's messages, written out in full (note Go's double space before "or").
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const TOO_MANY_SLASHES =
  "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

describe('regexError', () => {
  it.each([
    { examples: [], want: "msg (regex used for validation is 'x')" },
    { examples: ['a'], want: "msg (e.g. 'a', regex used for validation is 'x')" },
    { examples: ['a', 'b', 'c'], want: "msg (e.g. 'a',  or 'b',  or 'c', regex used for validation is 'x')" },
  ])('$examples', ({ examples, want }) => {
    expect(regexError('msg', 'x', ...examples)).toBe(want);
  });
});

describe('isDNS1123Subdomain', () => {
  it.each([
    { value: 'a', want: [] },
    { value: '0', want: [] },
    { value: 'example.com', want: [] },
    { value: 'a-b.c-d.e1', want: [] },
    { value: 'a'.repeat(253), want: [] },
    { value: '', want: [SUBDOMAIN] },
    { value: 'Example', want: [SUBDOMAIN] },
    { value: '-a', want: [SUBDOMAIN] },
    { value: 'a-', want: [SUBDOMAIN] },
    { value: 'a..b', want: [SUBDOMAIN] },
    { value: 'a_b', want: [SUBDOMAIN] },
    { value: 'a.', want: [SUBDOMAIN] },
    { value: 'a\n', want: [SUBDOMAIN] },
    { value: 'a'.repeat(254), want: ['must be no more than 253 characters'] },
    // Lengths are Go's len(): bytes.
    { value: 'é'.repeat(127), want: ['must be no more than 253 characters', SUBDOMAIN] },
  ])('$value', ({ value, want }) => {
    expect(isDNS1123Subdomain(value)).toEqual(want);
  });
});

describe('isDNS1123Label', () => {
  it.each([
    { value: 'my-name', want: [] },
    { value: '123-abc', want: [] },
    { value: 'a'.repeat(63), want: [] },
    { value: 'a.b', want: ['must not contain dots'] },
    { value: 'A', want: [LABEL] },
    { value: '', want: [LABEL] },
    { value: 'a_b', want: [LABEL] },
    { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
    { value: `${'a'.repeat(62)}.b`, want: ['must be no more than 63 characters', 'must not contain dots'] },
  ])('$value', ({ value, want }) => {
    expect(isDNS1123Label(value)).toEqual(want);
  });
});

describe('isDNS1035Label', () => {
  it.each([
    { value: 'my-name', want: [] },
    { value: 'abc-123', want: [] },
    { value: '1abc', want: [DNS1035] },
    { value: 'a.b', want: [DNS1035] },
    { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
  ])('$value', ({ value, want }) => {
    expect(isDNS1035Label(value)).toEqual(want);
  });
});

describe('isQualifiedName', () => {
  it.each([
    { value: 'a', want: [] },
    { value: 'MyName', want: [] },
    { value: 'my.name_1-x', want: [] },
    { value: 'example.com/MyName', want: [] },
    { value: 'kubernetes.io/metadata.name', want: [] },
    { value: 'a'.repeat(63), want: [] },
    { value: '', want: ['name part must be non-empty', NAME_PART] },
    { value: '-a', want: [NAME_PART] },
    { value: 'a b', want: [NAME_PART] },
    { value: 'a'.repeat(64), want: ['name part must be no more than 63 characters'] },
    { value: '/a', want: ['prefix part must be non-empty'] },
    { value: 'Example.com/a', want: [`prefix part ${SUBDOMAIN}`] },
    { value: 'example.com/', want: ['name part must be non-empty', NAME_PART] },
    { value: 'a/b/c', want: [TOO_MANY_SLASHES] },
  ])('$value', ({ value, want }) => {
    expect(isQualifiedName(value)).toEqual(want);
  });
});

describe('isValidLabelValue', () => {
  it.each([
    { value: '', want: [] },
    { value: 'MyValue', want: [] },
    { value: 'my_value', want: [] },
    { value: '12345', want: [] },
    { value: 'a b', want: [LABEL_VALUE] },
    { value: '-a', want: [LABEL_VALUE] },
    { value: 'a/b', want: [LABEL_VALUE] },
    { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
  ])('$value', ({ value, want }) => {
    expect(isValidLabelValue(value)).toEqual(want);
  });
});

describe('isPathSegmentName / isPathSegmentPrefix', () => {
  it.each([
    { value: 'web', name: [], prefix: [] },
    { value: '', name: [], prefix: [] },
    { value: 'Web_1~', name: [], prefix: [] },
    { value: '.', name: ["may not be '.'"], prefix: [] },
    { value: '..', name: ["may not be '..'"], prefix: [] },
    { value: 'a/b', name: ["may not contain '/'"], prefix: ["may not contain '/'"] },
    { value: 'a%2F', name: ["may not contain '%'"], prefix: ["may not contain '%'"] },
    {
      value: '/%',
      name: ["may not contain '/'", "may not contain '%'"],
      prefix: ["may not contain '/'", "may not contain '%'"],
    },
  ])('$value', ({ value, name, prefix }) => {
    expect(isPathSegmentName(value)).toEqual(name);
    expect(isPathSegmentPrefix(value)).toEqual(prefix);
  });
});

describe('name validators (ValidateNameFunc)', () => {
  it.each([
    { fn: validateDNS1123Subdomain, name: 'web', prefix: false, want: [] },
    { fn: validateDNS1123Subdomain, name: 'web-', prefix: false, want: [SUBDOMAIN] },
    // generateName may end in a dash: kube masks it before checking.
    { fn: validateDNS1123Subdomain, name: 'web-', prefix: true, want: [] },
    { fn: validateDNS1123Subdomain, name: 'a-', prefix: true, want: [] },
    { fn: validateDNS1123Subdomain, name: 'Web-', prefix: true, want: [SUBDOMAIN] },
    // maskTrailingDash drops two characters, so a prefix of 254 bytes passes the 253 limit.
    { fn: validateDNS1123Subdomain, name: `${'a'.repeat(253)}-`, prefix: true, want: [] },
    { fn: validateDNS1123Subdomain, name: '-', prefix: true, want: [SUBDOMAIN] },
    { fn: validateDNS1123Label, name: 'ns-', prefix: true, want: [] },
    { fn: validateDNS1123Label, name: 'ns-', prefix: false, want: [LABEL] },
    { fn: validateDNS1123Label, name: 'a.b', prefix: false, want: ['must not contain dots'] },
    { fn: validateDNS1035Label, name: 'x-', prefix: true, want: [] },
    { fn: validateDNS1035Label, name: '12-', prefix: true, want: [DNS1035] },
    // ...and a two-character prefix is judged as 'a' alone.
    { fn: validateDNS1035Label, name: '1-', prefix: true, want: [] },
    { fn: validatePathSegmentName, name: '..', prefix: false, want: ["may not be '..'"] },
    { fn: validatePathSegmentName, name: '..', prefix: true, want: [] },
    { fn: validatePathSegmentName, name: 'a/', prefix: true, want: ["may not contain '/'"] },
  ])('$name (prefix=$prefix)', ({ fn, name, prefix, want }) => {
    expect(fn(name, prefix)).toEqual(want);
  });

  it('defaults to a full name, not a prefix', () => {
    expect(validateDNS1123Subdomain('web-')).toEqual([SUBDOMAIN]);
  });
});
