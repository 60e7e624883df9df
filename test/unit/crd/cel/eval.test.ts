import { describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import { rulesBlockedBy } from '../../../../crd/cel/eval.js';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../../../cel/kube/limits.js';
import { compileSchema } from '../../../../crd/schema/validate/compile-schema.js';
import { regexCache, regexCounters } from '../../../../cel/regex.js';
import type { JSONSchemaProps, ValidationRule } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const compile = (schema: JSONSchemaProps) => {
  const { errors, rules } = compileSchemaRules(schema, 'spec.validation.openAPIV3Schema');
  expect(errors.map(formatFieldError)).toEqual([]);
  return rules;
};
/** Validates a create (no `old`) or an update, its correlation with the old object as the CR strategy makes it. */
const run = (schema: JSONSchemaProps, obj: unknown, old?: unknown, budget?: number) => {
  const correlation = old === undefined ? undefined : compileSchema(schema).correlate(obj, old);
  const r = compile(schema).validate(obj, correlation, { budget });
  return { errors: r.errors.map(formatFieldError), warnings: r.warnings };
};

// The Cache lab.
const cache: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { size: { type: 'integer' }, maxSize: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.maxSize >= self.size', message: 'maxSize must be >= size' }],
    },
  },
};

const specWith = (rules: ValidationRule[], props: Record<string, JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        ratio: { type: 'number' },
        name: { type: 'string', maxLength: 64 },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
        labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 63 } },
        ...props,
      },
      'x-kubernetes-validations': rules,
    },
  },
});

describe('validate: the Cache lab rule', () => {
  it("rejects {size: 5, maxSize: 2} with kube's text", () => {
    expect(run(cache, { spec: { size: 5, maxSize: 2 } })).toEqual({
      errors: ['spec: Invalid value: "object": maxSize must be >= size'],
      warnings: [],
    });
  });
  it('accepts {size: 1, maxSize: 2}', () => {
    expect(run(cache, { spec: { size: 1, maxSize: 2 } })).toEqual({ errors: [], warnings: [] });
  });
  it('a missing field is a runtime error, as kube', () => {
    expect(run(cache, { spec: { size: 1 } }).errors).toEqual([
      'spec: Invalid value: "object": no such key: maxSize evaluating rule: maxSize must be >= size',
    ]);
  });
  it('no spec, no rule', () => {
    expect(run(cache, { metadata: { name: 'a' } }).errors).toEqual([]);
  });
});

describe('validate: rule results and messages', () => {
  const cases: { name: string; rules: ValidationRule[]; obj: unknown; want: string[] }[] = [
    {
      name: 'default message',
      rules: [{ rule: 'self.size < 3' }],
      obj: { size: 5 },
      want: ['spec: Invalid value: "object": failed rule: self.size < 3'],
    },
    {
      name: 'messageExpression',
      rules: [{ rule: 'self.size < 3', messageExpression: "self.name + ' is too big'" }],
      obj: { size: 5, name: 'cache' },
      want: ['spec: Invalid value: "object": cache is too big'],
    },
    {
      name: 'messageExpression error falls back to message',
      rules: [{ rule: 'self.size < 3', message: 'too big', messageExpression: "self.name + '!'" }],
      obj: { size: 5 },
      want: ['spec: Invalid value: "object": too big'],
    },
    // kube logs why a message could not be used and falls back to the rule's own.
    {
      name: 'messageExpression too long',
      rules: [{ rule: 'self.size < 3', messageExpression: "'x'.replace('x', 'y') + '" + 'a'.repeat(5200) + "'" }],
      obj: { size: 5 },
      want: ['spec: Invalid value: "object": failed rule: self.size < 3'],
    },
    {
      name: 'messageExpression on two lines',
      rules: [{ rule: 'self.size < 3', message: 'too big', messageExpression: "'a\\nb'" }],
      obj: { size: 5 },
      want: ['spec: Invalid value: "object": too big'],
    },
    {
      name: 'messageExpression of spaces',
      rules: [{ rule: 'self.size < 3', messageExpression: "'  '" }],
      obj: { size: 5 },
      want: ['spec: Invalid value: "object": failed rule: self.size < 3'],
    },
    {
      name: 'reason Forbidden',
      rules: [{ rule: 'self.size < 3', message: 'no', reason: 'FieldValueForbidden' }],
      obj: { size: 5 },
      want: ['spec: Forbidden: no'],
    },
    {
      name: 'reason Required',
      rules: [{ rule: 'has(self.name)', message: 'name please', reason: 'FieldValueRequired' }],
      obj: { size: 5 },
      want: ['spec: Required value: name please'],
    },
    {
      name: 'reason Duplicate',
      rules: [{ rule: 'self.size < 3', reason: 'FieldValueDuplicate' }],
      obj: { size: 5 },
      want: ['spec: Duplicate value: "object"'],
    },
    {
      name: 'fieldPath',
      rules: [{ rule: 'self.size < 3', message: 'too big', fieldPath: '.size' }],
      obj: { size: 5 },
      want: ['spec.size: Invalid value: "object": too big'],
    },
    {
      name: 'fieldPath into a map',
      rules: [{ rule: "self.labels['a'] == 'b'", message: 'want b', fieldPath: ".labels['a']" }],
      obj: { labels: { a: 'c' } },
      want: ['spec.labels[a]: Invalid value: "object": want b'],
    },
    {
      name: 'int vs double',
      rules: [{ rule: 'self.ratio == 2.0 && self.size == 2 && self.ratio >= self.size' }],
      obj: { ratio: 2, size: 2 },
      want: [],
    },
    {
      name: 'int64 arithmetic overflows as CEL',
      rules: [{ rule: 'self.size * self.size > 0' }],
      obj: { size: 4_000_000_000_000 },
      want: ['spec: Invalid value: "object": integer overflow evaluating rule: self.size * self.size > 0'],
    },
    {
      name: 'int-or-string as int',
      rules: [{ rule: "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')" }],
      obj: { port: 8080 },
      want: [],
    },
    {
      name: 'int-or-string as string',
      rules: [{ rule: "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')" }],
      obj: { port: '50' },
      want: [
        'spec: Invalid value: "object": failed rule: type(self.port) == int ? self.port > 0 : self.port.endsWith(\'%\')',
      ],
    },
    {
      name: 'dyn mismatch',
      rules: [{ rule: 'self.port > 0' }],
      obj: { port: 'a' },
      want: [
        `spec: Invalid value: "object": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.port > 0`,
      ],
    },
    // kube's validation_test.go: "self.array[100] == 0": "index out of bounds: 100" (cel-go's missingIndex).
    {
      name: 'index past the end',
      rules: [{ rule: "self.tags[100] == 'a'" }],
      obj: { tags: ['a'] },
      want: [`spec: Invalid value: "object": index out of bounds: 100 evaluating rule: self.tags[100] == 'a'`],
    },
    {
      name: 'index of another type',
      rules: [{ rule: "self.tags[dyn('a')] == 'a'" }],
      obj: { tags: ['a'] },
      want: [
        `spec: Invalid value: "object": unsupported index type 'string' in list evaluating rule: self.tags[dyn('a')] == 'a'`,
      ],
    },
    { name: 'optional syntax', rules: [{ rule: "self.?name.orValue('x') == 'x'" }], obj: { size: 1 }, want: [] },
    {
      name: 'several rules, each reported',
      rules: [{ rule: 'self.size < 3' }, { rule: 'self.size < 4' }],
      obj: { size: 5 },
      want: [
        'spec: Invalid value: "object": failed rule: self.size < 3',
        'spec: Invalid value: "object": failed rule: self.size < 4',
      ],
    },
  ];
  it.each(cases)('$name', ({ rules, obj, want }) => {
    expect(run(specWith(rules), { spec: obj }).errors).toEqual(want);
  });

  // kube 1.33 prints the schema's type as the bad value (1.35 prints a scalar's value).
  it('the bad value is the schema type', () => {
    const schema = specWith([], {
      n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 3', message: 'small' }] },
      s: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self != "x"', message: 'not x' }] },
      l: {
        type: 'array',
        maxItems: 5,
        items: { type: 'integer' },
        'x-kubernetes-validations': [{ rule: 'self.size() < 2', message: 'short' }],
      },
    });
    expect(run(schema, { spec: { n: 7, s: 'x', l: [1, 2, 3] } }).errors).toEqual([
      'spec.n: Invalid value: "integer": small',
      'spec.s: Invalid value: "string": not x',
      'spec.l: Invalid value: "array": short',
    ]);
  });

  it('rules at the root see apiVersion, kind and metadata.name; a root error is at <nil>', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('x')", message: 'x-names only' }],
    };
    expect(run(schema, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'y' }, spec: {} }).errors).toEqual([
      '<nil>: Invalid value: "object": x-names only',
    ]);
  });

  it('items of lists and values of maps are validated with their paths', () => {
    const schema = specWith([], {
      list: {
        type: 'array',
        maxItems: 5,
        items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'positive' }] },
      },
      map: {
        type: 'object',
        maxProperties: 5,
        additionalProperties: {
          type: 'string',
          maxLength: 5,
          'x-kubernetes-validations': [{ rule: "self != ''", message: 'non-empty' }],
        },
      },
    });
    expect(run(schema, { spec: { list: [1, -1], map: { a: '', b: 'x' } } }).errors).toEqual([
      'spec.list[1]: Invalid value: "integer": positive',
      'spec.map[a]: Invalid value: "string": non-empty',
    ]);
  });
});

describe('validate: transition rules', () => {
  const schema = specWith([{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }]);
  it('do not run on create', () => {
    expect(run(schema, { spec: { name: 'a' } }).errors).toEqual([]);
  });
  it('run on update', () => {
    expect(run(schema, { spec: { name: 'a' } }, { spec: { name: 'b' } }).errors).toEqual([
      'spec: Invalid value: "object": name is immutable',
    ]);
    expect(run(schema, { spec: { name: 'a' } }, { spec: { name: 'a' } }).errors).toEqual([]);
  });
  it('do not run when the old value is absent', () => {
    expect(run(schema, { spec: { name: 'a' } }, { metadata: {} }).errors).toEqual([]);
  });
  it('optionalOldSelf runs on create with oldSelf empty', () => {
    const s = specWith([
      {
        rule: '!oldSelf.hasValue() || self.size >= oldSelf.value().size',
        message: 'size may only grow',
        optionalOldSelf: true,
      },
    ]);
    expect(run(s, { spec: { size: 1 } }).errors).toEqual([]);
    expect(run(s, { spec: { size: 1 } }, { spec: { size: 2 } }).errors).toEqual([
      'spec: Invalid value: "object": size may only grow',
    ]);
  });
  it('map-list items correlate by key', () => {
    const s = specWith([], {
      items: {
        type: 'array',
        maxItems: 5,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['k'],
        items: {
          type: 'object',
          required: ['k'],
          properties: { k: { type: 'string', maxLength: 5 }, v: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'v may only grow' }],
        },
      },
    });
    expect(
      run(
        s,
        {
          spec: {
            items: [
              { k: 'b', v: 1 },
              { k: 'a', v: 1 },
            ],
          },
        },
        { spec: { items: [{ k: 'a', v: 2 }] } },
      ).errors,
    ).toEqual(['spec.items[1]: Invalid value: "object": v may only grow']);
  });
});

describe('validate: ratcheting', () => {
  const schema = specWith([], {
    name: {
      type: 'string',
      maxLength: 64,
      'x-kubernetes-validations': [{ rule: "self.startsWith('a')", message: 'must start with a' }],
    },
  });
  it('an unchanged failing value is a warning on update', () => {
    expect(run(schema, { spec: { name: 'b', size: 2 } }, { spec: { name: 'b', size: 1 } })).toEqual({
      errors: [],
      warnings: ['spec.name: Invalid value: "string": must start with a'],
    });
  });
  it('a changed failing value is an error', () => {
    expect(run(schema, { spec: { name: 'c' } }, { spec: { name: 'b' } })).toEqual({
      errors: ['spec.name: Invalid value: "string": must start with a'],
      warnings: [],
    });
  });
  it('a create is never ratcheted', () => {
    expect(run(schema, { spec: { name: 'b' } }).errors).toEqual([
      'spec.name: Invalid value: "string": must start with a',
    ]);
  });
});

describe('validate: runtime cost', () => {
  const nested = (n: number, maxItems?: number): JSONSchemaProps =>
    specWith([], {
      items: {
        type: 'array',
        ...(maxItems ? { maxItems } : {}),
        items: { type: 'integer' },
        'x-kubernetes-validations': [
          {
            rule:
              n === 2
                ? 'self.all(x, self.all(y, x + y >= 0))'
                : 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))',
          },
        ],
      },
    });
  const items = Array.from({ length: 1000 }, (_, i) => i);

  it('a 1,000-item list under a doubly nested all() exceeds the per-call limit', () => {
    expect(run(nested(2, 1000), { spec: { items } }).errors).toEqual([
      `spec.items: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x + y >= 0))`,
    ]);
  });

  it('the triply nested form is refused at CRD write and, if run anyway, stopped at the per-call limit', () => {
    const { errors, rules } = compileSchemaRules(nested(3), 'p');
    expect(errors.length).toBeGreaterThan(0);
    const r = rules.validate({ spec: { items } }, undefined, {});
    expect(r.errors.map(formatFieldError)[0]).toContain('call cost exceeds limit for rule');
    expect(Number(RUNTIME_CEL_COST_BUDGET) - r.remainingBudget).toBeLessThanOrEqual(Number(PER_CALL_LIMIT) + 10);
  });

  it('the per-request budget stops further rules', () => {
    const s = specWith([{ rule: 'self.tags.all(t, t.size() < 10)' }, { rule: 'self.size > 0' }]);
    expect(run(s, { spec: { tags: ['a', 'b', 'c'], size: 1 } }, undefined, 5).errors).toEqual([
      'spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  it('a small list stays within the limits', () => {
    expect(run(nested(2, 1000), { spec: { items: items.slice(0, 100) } }).errors).toEqual([]);
  });

  it('regexes are RE2: a backtracking pattern is one linear search', () => {
    const s = specWith([{ rule: "self.name.matches('^(a+)+$')" }]);
    const before = regexCounters.runs;
    expect(run(s, { spec: { name: 'a'.repeat(40) + '!' } }).errors).toEqual([
      `spec: Invalid value: "object": failed rule: self.name.matches('^(a+)+$')`,
    ]);
    expect(regexCounters.runs - before).toBe(1);
  });
});

describe('validate: regexes from the object', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { s: { type: 'string', maxLength: 10 }, p: { type: 'string' } },
    'x-kubernetes-validations': [{ rule: 'self.s.matches(self.p)' }, { rule: "self.s.find(self.p) == ''" }],
  };
  const errors = (p: string) => run(schema, { s: 'aaa', p }).errors;

  it('a pattern that does not compile is an evaluation error with Go\'s text (find: kube\'s "Illegal regex")', () => {
    expect(errors('(')).toEqual([
      '<nil>: Invalid value: "object": error parsing regexp: missing closing ): `(` evaluating rule: self.s.matches(self.p)',
      `<nil>: Invalid value: "object": Illegal regex: error parsing regexp: missing closing ): \`(\` evaluating rule: self.s.find(self.p) == ''`,
    ]);
  });

  it('a pattern over the bound is refused with Go\'s "expression too large", without being compiled', () => {
    const p = 'a{0,9}'.repeat(50_000);
    expect(errors(p)).toEqual([
      `<nil>: Invalid value: "object": error parsing regexp: expression too large: \`${p}\` evaluating rule: self.s.matches(self.p)`,
      `<nil>: Invalid value: "object": Illegal regex: error parsing regexp: expression too large: \`${p}\` evaluating rule: self.s.find(self.p) == ''`,
    ]);
    expect(regexCache.compiled(p)).toBe(false);
  });

  it('40 rules matching over a 1.4 MB string run out of the request budget, before any match', () => {
    // kube charges each call ⌈1,400,001 · 0.1⌉ · ⌈6 · 0.25⌉ = 280,002 (+3 for the rest of the rule)
    // and runs 35 of them (35 failed rules, then its budget error). The regex work budget
    // (cel/regex.ts REGEX_WORK_BUDGET) refuses the first: 1,400,001 × 8 instructions is over it. kube's text.
    const s40: JSONSchemaProps = {
      type: 'object',
      properties: { s: { type: 'string' } },
      'x-kubernetes-validations': Array.from({ length: 40 }, (_, i) => ({
        rule: `!self.s.matches('(a+)+$')${' '.repeat(i)}`,
      })),
    };
    const before = regexCounters.runs;
    const got = run(s40, { s: 'a'.repeat(1_400_000) }).errors;
    expect(got).toEqual([
      '<nil>: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    expect(regexCounters.runs - before).toBe(0);
  });
});

describe('validate: values deeper than the engine recurses', () => {
  it("are a 422 field error in cel-go's words, not a stack overflow", () => {
    // The request decoder allows 10,000 levels; the converters and == recurse per level.
    let x: unknown = 1;
    for (let i = 0; i < 9000; i++) x = { a: x };
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { x: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      'x-kubernetes-validations': [{ rule: 'self.x == self.x' }],
    };
    // Today the stack runs out (kube's Go stacks do not); what must not show is JS's message.
    const errors = run(schema, { x }).errors;
    expect(errors.filter((e) => e !== '<nil>: Internal error: internal error: max recursion depth exceeded')).toEqual(
      [],
    );
  });
});

describe('validate: a messageExpression reads oldSelf on an update, as kube binds it there', () => {
  const schema = specWith([{ rule: 'self.size < 3', message: 'too big', messageExpression: "'was ' + oldSelf.name" }]);

  it('on an update, whatever the rule reads', () => {
    expect(run(schema, { spec: { size: 5, name: 'b' } }, { spec: { size: 1, name: 'a' } }).errors).toEqual([
      'spec: Invalid value: "object": was a',
    ]);
  });

  it('on a create, no oldSelf: the rule message', () => {
    expect(run(schema, { spec: { size: 5, name: 'b' } }).errors).toEqual(['spec: Invalid value: "object": too big']);
  });
});

describe('validate: messageExpression limits, as kube words them', () => {
  const schema = specWith([
    { rule: 'false', messageExpression: "self.tags.map(x, self.tags.map(y, x + y)).size() > 0 ? 'many' : 'none'" },
    { rule: 'false', message: 'second' },
  ]);
  const obj = { spec: { tags: ['a', 'b', 'c', 'd', 'e'] } };

  it('past the per-call limit: no further rules', () => {
    const r = compile(schema).validate(obj, undefined, { perCallLimit: 20 });
    expect(r.errors.map(formatFieldError)).toEqual([
      `spec: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "self.tags.map(x, self.tags.map(y, x + y)).size() > 0 ? 'many' : 'none'"`,
    ]);
  });

  it('past the budget: no further rules', () => {
    const r = compile(schema).validate(obj, undefined, { budget: 20 });
    expect(r.errors.map(formatFieldError)).toEqual([
      'spec: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });
});

describe('rulesBlockedBy (kube’s hasBlockingErr)', () => {
  it.each([
    ['FieldValueTypeInvalid', true],
    ['FieldValueRequired', true],
    ['FieldValueNotSupported', true],
    ['FieldValueTooLong', true],
    ['FieldValueTooMany', true],
    ['FieldValueInvalid', false],
    ['FieldValueForbidden', false],
  ] as const)('%s blocks the rules: %s', (type, blocks) => {
    const blocked = rulesBlockedBy([{ type, field: 'spec.x', detail: '' }]);
    expect(blocked === undefined ? undefined : formatFieldError(blocked)).toBe(
      blocks
        ? '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'
        : undefined,
    );
  });
});

describe('validate: ratcheting correlates map-list items by key, whatever their order', () => {
  const schema = specWith([], {
    items: {
      type: 'array',
      maxItems: 5,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
      items: {
        type: 'object',
        required: ['k'],
        properties: { k: { type: 'string', maxLength: 5 }, v: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.v > 0', message: 'v must be positive' }],
      },
    },
  });
  const old = {
    spec: {
      items: [
        { k: 'a', v: 0 },
        { k: 'b', v: 1 },
      ],
    },
  };

  it('an unchanged failing item moved in the list is a warning', () => {
    const moved = {
      spec: {
        items: [
          { k: 'b', v: 1 },
          { k: 'a', v: 0 },
        ],
      },
    };
    expect(run(schema, moved, old)).toEqual({
      errors: [],
      warnings: ['spec.items[1]: Invalid value: "object": v must be positive'],
    });
  });

  it('a new failing item is an error', () => {
    const added = { spec: { items: [...old.spec.items, { k: 'c', v: -1 }] } };
    expect(run(schema, added, old)).toEqual({
      errors: ['spec.items[2]: Invalid value: "object": v must be positive'],
      warnings: ['spec.items[0]: Invalid value: "object": v must be positive'],
    });
  });
});
