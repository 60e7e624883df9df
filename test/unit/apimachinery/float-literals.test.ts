import { describe, expect, it } from 'vitest';
import { type DPath, FLOAT, dchild, dindex } from '../../../apimachinery/float-literals.js';
import { parseJsonExact, parseJsonExactTask } from '../../../apimachinery/json-parse.js';
import { runTaskSliced } from '../../../apimachinery/structured-merge/trampoline.js';
import { formatFieldError } from '../../../apimachinery/field-errors.js';
import { compileSchema } from '../../../crd/schema/validate/compile-schema.js';

/**
 * Every number of a parsed document with its place among the float literals, found by walking the
 * value and the trie in step, as a validator does: `/`-joined keys (which may hold "." and "[").
 */
function numbers(value: unknown, root: DPath): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const todo: Array<[string, unknown, DPath]> = [['', value, root]];
  while (todo.length > 0) {
    const [p, v, d] = todo.pop()!;
    if (typeof v === 'number' || typeof v === 'bigint') out.set(p, d === FLOAT);
    else if (Array.isArray(v)) v.forEach((x, i) => todo.push([`${p}/${i}`, x, dindex(d, i)]));
    else if (typeof v === 'object' && v !== null)
      for (const [k, x] of Object.entries(v)) todo.push([`${p}/${k}`, x, dchild(d, k)]);
  }
  return out;
}

const deepMap = (n: number, inner: string): string => '{"a":'.repeat(n) + inner + '}'.repeat(n);
const deepList = (n: number, inner: string): string => '['.repeat(n) + inner + ']'.repeat(n);
const mapPath = (n: number): string => '/a'.repeat(n);
const listPath = (n: number): string => '/0'.repeat(n);

// Which numbers kube decodes as float64 (a fraction, an exponent, beyond int64) rather than int64.
const CASES: Array<{ name: string; doc: string; floats: Record<string, boolean> }> = [
  { name: 'a float at the root', doc: '1.0', floats: { '': true } },
  { name: 'an integer at the root', doc: '-0', floats: { '': false } },
  {
    name: 'fractions, exponents and int64 bounds',
    doc: '{"a":1,"b":1.0,"c":1e2,"d":-0,"e":9223372036854775808,"f":9223372036854775807,"g":-1E-0}',
    floats: { '/a': false, '/b': true, '/c': true, '/d': false, '/e': true, '/f': false, '/g': true },
  },
  {
    name: 'keys with dots and brackets',
    doc: '{"a.b":{"c[0]":[1,2.5,{"x.y":3.0,"x":{"y":3}}]},"a":{"b":{"c[0]":[1.5]}}}',
    floats: {
      '/a.b/c[0]/0': false,
      '/a.b/c[0]/1': true,
      '/a.b/c[0]/2/x.y': true,
      '/a.b/c[0]/2/x/y': false,
      '/a/b/c[0]/0': true,
    },
  },
  {
    name: 'a list index and a map key alike',
    doc: '{"l":[1.0,1],"m":{"0":1,"1":1.0}}',
    floats: { '/l/0': true, '/l/1': false, '/m/0': false, '/m/1': true },
  },
  {
    name: '9,000 maps deep, floats and integers in a list',
    doc: deepMap(9000, '[1.5,1,2.0,{"b":3e0}]'),
    floats: {
      [`${mapPath(9000)}/0`]: true,
      [`${mapPath(9000)}/1`]: false,
      [`${mapPath(9000)}/2`]: true,
      [`${mapPath(9000)}/3/b`]: true,
    },
  },
  {
    name: '9,000 lists deep, beside integers on the way down',
    doc: deepList(4000, `${deepList(5000, '1.0')},1`),
    floats: { [listPath(9000)]: true, [`${listPath(3999)}/1`]: false },
  },
  {
    name: 'floats in siblings of a deep chain, each container once',
    doc: deepMap(5000, '{"x":[1.0],"y":[1],"z":{"w":2.0}}'),
    floats: {
      [`${mapPath(5000)}/x/0`]: true,
      [`${mapPath(5000)}/y/0`]: false,
      [`${mapPath(5000)}/z/w`]: true,
    },
  },
];

describe('float literals: where kube sees float64 rather than int64', () => {
  it.each(CASES)('$name', ({ doc, floats }) => {
    const r = parseJsonExact(doc);
    expect(Object.fromEntries(numbers(r.value, r.floatLiterals.root))).toEqual(floats);
  });

  it.each(CASES)('$name: the same, parsed in steps', async ({ doc, floats }) => {
    // Steps of 1,024 values: the deep documents pause with thousands of containers open.
    const r = await runTaskSliced(parseJsonExactTask(doc), async () => {}, 0);
    expect(Object.fromEntries(numbers(r.value, r.floatLiterals.root))).toEqual(floats);
  });

  it('a 9,000-deep float reaches the validator: it prints as Go prints a float64', () => {
    const schema = compileSchema({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, enum: [{}] } },
        },
      },
    });
    const errs = (leaf: string): string[] => {
      const r = parseJsonExact(`{"spec":{"free":${deepMap(9000, `[${leaf}]`)}}}`);
      return schema.validate(r.value, { floatLiterals: r.floatLiterals }).map(formatFieldError);
    };
    const printed = (leaf: string): string =>
      `spec.free: Unsupported value: ${'map[string]interface {}{"a":'.repeat(9000)}[]interface {}{${leaf}}${'}'.repeat(9000)}: supported values: "{}"`;
    expect(errs('2500000.0')).toEqual([printed('2.5e+06')]);
    expect(errs('2500000')).toEqual([printed('2500000')]);
  });
});
