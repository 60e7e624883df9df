import { describe, expect, it } from 'vitest';
import {
  continueExpired,
  decodeContinue,
  encodeContinue,
  listExpired,
} from '../../../../server/registry/continue-token.js';
import { apiError } from '../../../helpers/api-error.js';

/** A token from raw JSON text (or bytes), as kube's tests build them with json.Marshal. */
const tokenOf = (json: string | Buffer): string => Buffer.from(json).toString('base64url');
const v1 = (rv: number | string, start: string): string =>
  tokenOf(JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(rv), start }));

const PREFIX = '/registry/cache.example.com/caches/';

describe('encodeContinue', () => {
  it.each<{ name: string; rv: number; key: string; prefix: string; want: string }>([
    {
      // {"v":"meta.k8s.io/v1","rv":12345,"start":"default/web\u0000"}
      name: 'the next key after default/web',
      rv: 12345,
      key: '/registry/caches/default/web\u0000',
      prefix: '/registry/caches/',
      want: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoiZGVmYXVsdC93ZWJcdTAwMDAifQ',
    },
    {
      // {"v":"meta.k8s.io/v1","rv":-1,"start":"default/web\u0000"}
      name: 'rv -1',
      rv: -1,
      key: '/registry/caches/default/web\u0000',
      prefix: '/registry/caches/',
      want: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiZGVmYXVsdC93ZWJcdTAwMDAifQ',
    },
    {
      // {"v":"meta.k8s.io/v1","rv":7,"start":"a\u003cb\u003e\u0026c"}: Go escapes <, > and &.
      name: 'HTML-safe escapes',
      rv: 7,
      key: '/p/a<b>&c',
      prefix: '/p/',
      want: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJhXHUwMDNjYlx1MDAzZVx1MDAyNmMifQ',
    },
  ])('$name', ({ rv, key, prefix, want }) => {
    expect(encodeContinue(rv, key, prefix)).toBe(want);
  });

  it('a key outside the prefix is a 500', () => {
    const err = apiError(() => encodeContinue(1, '/registry/other/x', PREFIX));
    expect(err.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: unable to encode next field: the key and key prefix do not match',
    });
  });

  it('round-trips through decodeContinue', () => {
    const key = `${PREFIX}default/web\u0000`;
    expect(decodeContinue(encodeContinue(42, key, PREFIX), PREFIX)).toEqual({ startKey: key, revision: 42 });
  });
});

describe('decodeContinue', () => {
  // Cases of kube's Test_decodeContinue (storage/continue_test.go), and more.
  it.each<{ name: string; token: string; prefix: string; want: { startKey: string; revision?: number } }>([
    { name: 'valid', token: v1(1, 'key'), prefix: '/test/', want: { startKey: '/test/key', revision: 1 } },
    { name: 'root path', token: v1(1, '/'), prefix: '/test/', want: { startKey: '/test/', revision: 1 } },
    {
      name: 'leading slash',
      token: v1(3, '/ns/name'),
      prefix: '/test/',
      want: { startKey: '/test/ns/name', revision: 3 },
    },
    {
      name: 'rv -1 means the latest revision',
      token: v1(-1, 'ns/name\u0000'),
      prefix: PREFIX,
      want: { startKey: `${PREFIX}ns/name\u0000` },
    },
    { name: 'any negative rv too', token: v1(-5, 'k'), prefix: '/p/', want: { startKey: '/p/k' } },
    {
      name: 'keys match case-insensitively',
      token: tokenOf('{"V":"meta.k8s.io/v1","RV":7,"Start":"k"}'),
      prefix: '/p/',
      want: { startKey: '/p/k', revision: 7 },
    },
    {
      name: 'the last duplicate wins',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":1,"rv":2,"start":"k"}'),
      prefix: '/p/',
      want: { startKey: '/p/k', revision: 2 },
    },
    {
      name: 'unknown keys and nulls are ignored',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":3,"start":"k","x":[1,{"a":null},"s"],"start":null}'),
      prefix: '/p/',
      want: { startKey: '/p/k', revision: 3 },
    },
    {
      name: 'whitespace and escapes',
      token: tokenOf(' {"v" : "meta.k8s.io\\/v1" , "rv" : 9 , "start" : "a\\u00e9\\ud83d\\ude00"}\n'),
      prefix: '/p/',
      want: { startKey: '/p/a\u00e9\u{1f600}', revision: 9 },
    },
    {
      name: 'a lone surrogate escape is U+FFFD',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":1,"start":"a\\ud800b"}'),
      prefix: '/p/',
      want: { startKey: '/p/a\ufffdb', revision: 1 },
    },
    {
      name: 'newlines in the base64 are skipped',
      token: `${v1(1, 'key').slice(0, 10)}\r\n${v1(1, 'key').slice(10)}`,
      prefix: '/p/',
      want: { startKey: '/p/key', revision: 1 },
    },
  ])('$name', ({ token, prefix, want }) => {
    expect(decodeContinue(token, prefix)).toEqual(want);
  });

  const invalid = (why: string): string => `invalid continue token: continue key is not valid${why}`;
  it.each<{ name: string; token: string; message: string }>([
    {
      name: 'empty version',
      token: tokenOf('{"v":"","rv":1,"start":"key"}'),
      message: invalid(': server does not recognize this encoded version '),
    },
    {
      name: 'invalid version',
      token: tokenOf('{"v":"v1","rv":1,"start":"key"}'),
      message: invalid(': server does not recognize this encoded version v1'),
    },
    {
      name: 'invalid RV',
      token: v1(0, 'key'),
      message: invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)'),
    },
    {
      name: 'missing RV',
      token: tokenOf('{"v":"meta.k8s.io/v1","start":"key"}'),
      message: invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)'),
    },
    { name: 'no start key', token: v1(1, ''), message: invalid(': encoded start key empty (version meta.k8s.io/v1)') },
    { name: 'path traversal - parent', token: v1(1, '../key'), message: invalid(': ../key') },
    { name: 'path traversal - local', token: v1(1, './key'), message: invalid(': ./key') },
    { name: 'path traversal - double parent', token: v1(1, './../key'), message: invalid(': ./../key') },
    { name: 'path traversal - after parent', token: v1(1, 'key/../..'), message: invalid(': key/../..') },
    { name: 'double slash', token: v1(1, 'a//b'), message: invalid(': a//b') },
    { name: 'trailing slash', token: v1(1, 'ns/'), message: invalid(': ns/') },
    {
      name: 'null document',
      token: tokenOf('null'),
      message: invalid(': server does not recognize this encoded version '),
    },
    // base64.RawURLEncoding errors.
    { name: 'one character', token: 'a', message: invalid(': illegal base64 data at input byte 0') },
    { name: 'a lone last character', token: 'abcde', message: invalid(': illegal base64 data at input byte 4') },
    { name: 'padding', token: 'ab==', message: invalid(': illegal base64 data at input byte 2') },
    { name: 'standard alphabet', token: 'ab+c', message: invalid(': illegal base64 data at input byte 2') },
    { name: 'non-ASCII', token: 'abé', message: invalid(': illegal base64 data at input byte 2') },
    // encoding/json errors: syntax first, then the first type mismatch.
    { name: 'empty JSON', token: tokenOf(''), message: invalid(': unexpected end of JSON input') },
    { name: 'truncated object', token: tokenOf('{"v":"meta'), message: invalid(': unexpected end of JSON input') },
    {
      name: 'not JSON',
      token: tokenOf('hello'),
      message: invalid(": invalid character 'h' looking for beginning of value"),
    },
    {
      name: 'after top-level value',
      token: tokenOf('{} x'),
      message: invalid(": invalid character 'x' after top-level value"),
    },
    {
      name: 'after object key',
      token: tokenOf('{"v" 1}'),
      message: invalid(": invalid character '1' after object key"),
    },
    {
      name: 'after key:value pair',
      token: tokenOf('{"v":1 "a":2}'),
      message: invalid(": invalid character '\"' after object key:value pair"),
    },
    {
      name: 'unquoted key',
      token: tokenOf('{v:1}'),
      message: invalid(": invalid character 'v' looking for beginning of object key string"),
    },
    {
      name: 'trailing comma in object',
      token: tokenOf('{"v":1,}'),
      message: invalid(": invalid character '}' looking for beginning of object key string"),
    },
    {
      name: 'after array element',
      token: tokenOf('[1 2]'),
      message: invalid(": invalid character '2' after array element"),
    },
    {
      name: 'trailing comma in array',
      token: tokenOf('[1,]'),
      message: invalid(": invalid character ']' looking for beginning of value"),
    },
    {
      name: 'bad literal',
      token: tokenOf('trx'),
      message: invalid(": invalid character 'x' in literal true (expecting 'u')"),
    },
    { name: 'bad null', token: tokenOf('nul'), message: invalid(': unexpected end of JSON input') },
    { name: 'bad number', token: tokenOf('-x'), message: invalid(": invalid character 'x' in numeric literal") },
    { name: 'leading zero', token: tokenOf('01'), message: invalid(": invalid character '1' after top-level value") },
    {
      name: 'bad fraction',
      token: tokenOf('1.x'),
      message: invalid(": invalid character 'x' after decimal point in numeric literal"),
    },
    { name: 'bad exponent', token: tokenOf('1e+'), message: invalid(': unexpected end of JSON input') },
    {
      name: 'bad exponent char',
      token: tokenOf('1ex'),
      message: invalid(": invalid character 'x' in exponent of numeric literal"),
    },
    { name: 'bad escape', token: tokenOf('"\\x"'), message: invalid(": invalid character 'x' in string escape code") },
    {
      name: 'bad unicode escape',
      token: tokenOf('"\\u12g4"'),
      message: invalid(": invalid character 'g' in \\u hexadecimal character escape"),
    },
    {
      name: 'control character in string',
      token: tokenOf('"a\nb"'),
      message: invalid(": invalid character '\\n' in string literal"),
    },
    {
      name: 'single quote',
      token: tokenOf("'a'"),
      message: invalid(": invalid character '\\'' looking for beginning of value"),
    },
    {
      name: 'control byte',
      token: tokenOf(Buffer.from([0x01])),
      message: invalid(": invalid character '\\x01' looking for beginning of value"),
    },
    {
      name: 'UTF-8 lead byte',
      token: tokenOf('é'),
      message: invalid(": invalid character 'Ã' looking for beginning of value"),
    },
    {
      name: 'C1 byte',
      token: tokenOf(Buffer.from([0x85])),
      message: invalid(": invalid character '\\u0085' looking for beginning of value"),
    },
    {
      name: 'array document',
      token: tokenOf('[]'),
      message: invalid(': json: cannot unmarshal array into Go value of type storage.continueToken'),
    },
    {
      name: 'string document',
      token: tokenOf('"x"'),
      message: invalid(': json: cannot unmarshal string into Go value of type storage.continueToken'),
    },
    {
      name: 'number version',
      token: tokenOf('{"v":1,"rv":1,"start":"k"}'),
      message: invalid(': json: cannot unmarshal number into Go struct field continueToken.v of type string'),
    },
    {
      name: 'string rv',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":"1","start":"k"}'),
      message: invalid(': json: cannot unmarshal string into Go struct field continueToken.rv of type int64'),
    },
    {
      name: 'fractional rv',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":1.5,"start":"k"}'),
      message: invalid(': json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64'),
    },
    {
      name: 'exponent rv',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":1e2,"start":"k"}'),
      message: invalid(': json: cannot unmarshal number 1e2 into Go struct field continueToken.rv of type int64'),
    },
    {
      name: 'rv past int64',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"k"}'),
      message: invalid(
        ': json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64',
      ),
    },
    {
      name: 'object start',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":1,"start":{}}'),
      message: invalid(': json: cannot unmarshal object into Go struct field continueToken.start of type string'),
    },
    {
      name: 'bool rv',
      token: tokenOf('{"v":"meta.k8s.io/v1","rv":true,"start":"k"}'),
      message: invalid(': json: cannot unmarshal bool into Go struct field continueToken.rv of type int64'),
    },
    {
      name: 'the first mismatch is reported',
      token: tokenOf('{"rv":"x","v":2,"rv":5}'),
      message: invalid(': json: cannot unmarshal string into Go struct field continueToken.rv of type int64'),
    },
    {
      name: 'syntax beats type',
      token: tokenOf('{"v":1,}'),
      message: invalid(": invalid character '}' looking for beginning of object key string"),
    },
  ])('$name is a 400', ({ token, message }) => {
    const err = apiError(() => decodeContinue(token, '/test/'));
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

describe('continueExpired', () => {
  it('is a 410 with a token for the same key at the latest revision', () => {
    const key = `${PREFIX}default/web\u0000`;
    const err = continueExpired(key, PREFIX);
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { continue: encodeContinue(-1, key, PREFIX) },
      status: 'Failure',
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      reason: 'Expired',
      code: 410,
    });
    const metadata: Record<string, unknown> = err.status.metadata;
    expect(decodeContinue(String(metadata['continue']), PREFIX)).toEqual({ startKey: key });
  });

  it('without a token when the key cannot be encoded', () => {
    expect(continueExpired('/elsewhere/x', PREFIX).status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      reason: 'Expired',
      code: 410,
    });
  });
});

describe('listExpired', () => {
  it('is kube’s 410 for a compacted list revision', () => {
    expect(listExpired().status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'The resourceVersion for the provided list is too old.',
      reason: 'Expired',
      code: 410,
    });
  });
});

describe('decodeContinue: hostile tokens', () => {
  it('a token nested past what the reader can walk is a 400, not a stack overflow', () => {
    const deep = Buffer.from(`{"x":${'['.repeat(100_000)}`).toString('base64url');
    const err = apiError(() => decodeContinue(deep, '/registry/things/'));
    expect(err.code).toBe(400);
    expect(err.status.message).toMatch(/^invalid continue token: /);
  });
});
