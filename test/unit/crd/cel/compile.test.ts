import { describe, expect, it } from 'vitest';
import { compileSchemaRules, compileSchemaRulesTask, ruleFieldErrorsOf } from '../../../../crd/cel/compile.js';
import { runTaskSliced } from '../../../../apimachinery/structured-merge/trampoline.js';
import type { JSONSchemaProps, ValidationRule } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const P = 'spec.validation.openAPIV3Schema';
const R = `${P}.properties[spec].x-kubernetes-validations[0]`;
const goRule = (rule: string) =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

const spec = (
  rules: ValidationRule[],
  props: Record<string, JSONSchemaProps> = {},
  extra: JSONSchemaProps = {},
): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        maxSize: { type: 'integer' },
        ratio: { type: 'number' },
        name: { type: 'string', maxLength: 64 },
        port: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 63 } },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
        ...props,
      },
      'x-kubernetes-validations': rules,
      ...extra,
    },
  },
});

const errorsOf = (schema: JSONSchemaProps) => compileSchemaRules(schema, P).errors.map(formatFieldError);

describe('compileSchemaRules: rules that compile', () => {
  const ok: string[] = [
    'self.maxSize >= self.size',
    'self.ratio > 0.5',
    'self.ratio > 1',
    'self.name.startsWith("a") && self.name.size() < 10',
    'self.labels.all(k, self.labels[k].size() > 0)',
    "'app' in self.labels",
    'self.tags.exists(t, t == "x") || self.tags.size() == 0',
    'self.tags.map(t, t.size()).sum() < 100',
    'self.tags.filter(t, t.startsWith("a")).size() <= 3',
    'self.tags.exists_one(t, t == "x") || true',
    'type(self.port) == int ? self.port > 0 : self.port.matches("^[0-9]+%$")',
    'has(self.size) && !has(self.ratio)',
    'self.?size.orValue(0) >= 0',
    'self.name.lowerAscii() == self.name',
    'self.name.replace("a", "b").charAt(0) != "x"',
    'self.tags.isSorted() && self.tags.indexOf("a") < 5',
    'sets.contains(self.tags, ["a"])',
    'self.name.find("[0-9]+") == "" && self.name.findAll("a").size() < 3',
    'self.name.split("-").size() < 5 && self.tags.join("-") != ""',
    'strings.quote(self.name) != ""',
    // An object write compiles every rule as stored: kube 1.33's semver library too.
    'isSemver(self.name) || self.name == ""',
    // The authorization library's functions, declared (a dyn receiver finds them), not bound.
    "dyn(self.port).check('get').allowed()",
    'self == oldSelf',
    "'%s has %d tags'.format([self.name, self.tags.size()]) != ''",
  ];
  it.each(ok)('%s', (rule) => {
    expect(errorsOf(spec([{ rule }]))).toEqual([]);
  });
});

describe('compileSchemaRules: compile and type errors, as kube words them', () => {
  const cases: { rule: string; want: string }[] = [
    {
      rule: 'self.replicaz > 0',
      want: `compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'\n | self.replicaz > 0\n | ....^`,
    },
    {
      rule: "self.size + 'a' == 'b'",
      want: `compilation failed: ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(int, string)'\n | self.size + 'a' == 'b'\n | ..........^`,
    },
    {
      rule: 'nosuch(self.size)',
      want: `compilation failed: ERROR: <input>:1:7: undeclared reference to 'nosuch' (in container '')\n | nosuch(self.size)\n | ......^`,
    },
    {
      rule: 'self.name.startsWith(1)',
      want: `compilation failed: ERROR: <input>:1:21: found no matching overload for 'startsWith' applied to 'string.(int)'\n | self.name.startsWith(1)\n | ....................^`,
    },
    {
      rule: 'x > 1',
      want: `compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x > 1\n | ^`,
    },
    { rule: 'self.size', want: 'cel expression must evaluate to a bool' },
    { rule: 'self.port', want: 'cel expression must evaluate to a bool' },
    // base.go declares the authorization library for every use, CRD rules too (no `authorizer`).
    {
      rule: "self.name.name() == ''",
      want: `compilation failed: ERROR: <input>:1:15: found no matching overload for 'name' applied to 'string.()'\n | self.name.name() == ''\n | ..............^`,
    },
  ];
  it.each(cases)('$rule', ({ rule, want }) => {
    expect(errorsOf(spec([{ rule }]))).toEqual([`${R}.rule: Invalid value: ${goRule(rule)}: ${want}`]);
  });

  it("cel.bind is not in kube 1.33's CRD environment (no ext.Bindings)", () => {
    const [e] = errorsOf(spec([{ rule: 'cel.bind(n, self.name, n.size() < 64)' }]));
    expect(e).toContain(
      ": compilation failed: ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(n, self.name, n.size() < 64)\n | ^",
    );
  });

  it('a syntax error is a compilation failure at the rule', () => {
    const [e] = errorsOf(spec([{ rule: 'self.size >' }]));
    expect(e).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{.*\}: compilation failed: ERROR: <input>:1:12: Syntax error: /,
    );
  });

  it('rules at every level are compiled, with their paths', () => {
    const schema = spec([], {
      items: {
        type: 'array',
        maxItems: 5,
        items: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.m > 0' }],
        },
      },
      byName: {
        type: 'object',
        maxProperties: 5,
        additionalProperties: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == "a"' }] },
      },
    });
    const errs = errorsOf(schema);
    expect(errs).toHaveLength(2);
    expect(errs[0]).toContain(
      `${P}.properties[spec].properties[byName].additionalProperties.x-kubernetes-validations[0].rule: Invalid value:`,
    );
    expect(errs[0]).toContain(`found no matching overload for '_==_' applied to '(int, string)'`);
    expect(errs[1]).toContain(
      `${P}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Invalid value:`,
    );
    expect(errs[1]).toContain(`undefined field 'm'`);
  });

  it('the resource root has apiVersion, kind and metadata.name', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object' } },
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('a') && self.kind == 'Cache'" }],
    };
    expect(compileSchemaRules(schema, P).errors).toEqual([]);
  });
});

describe('compileSchemaRules: rule fields', () => {
  const cases: { name: string; rule: ValidationRule; want: string[] }[] = [
    { name: 'empty rule', rule: { rule: ' ' }, want: [`${R}.rule: Required value: rule is not specified`] },
    {
      name: 'blank message',
      rule: { rule: 'true', message: ' ' },
      want: [`${R}.message: Invalid value: " ": message must be non-empty if specified`],
    },
    {
      name: 'message with newline',
      rule: { rule: 'true', message: 'a\nb' },
      want: [`${R}.message: Invalid value: "a\\nb": message must not contain line breaks`],
    },
    {
      name: 'multi-line rule without message',
      rule: { rule: 'true &&\ntrue' },
      want: [`${R}.message: Required value: message must be specified if rule contains line breaks`],
    },
    {
      name: 'blank messageExpression',
      rule: { rule: 'true', messageExpression: ' ' },
      want: [`${R}.messageExpression: Required value: messageExpression must be non-empty if specified`],
    },
    {
      name: 'unknown reason',
      rule: { rule: 'true', reason: 'FieldValueBogus' as ValidationRule['reason'] },
      want: [
        `${R}.reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      ],
    },
    {
      name: 'fieldPath to nowhere',
      rule: { rule: 'true', fieldPath: '.nope' },
      want: [`${R}.fieldPath: Invalid value: ".nope": fieldPath must be a valid path`],
    },
    { name: 'fieldPath ok', rule: { rule: 'true', fieldPath: ".labels['a']" }, want: [] },
    {
      name: 'messageExpression must be a string',
      rule: { rule: 'true', messageExpression: 'self.size' },
      want: [
        `${R}.messageExpression: Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"self.size", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string`,
      ],
    },
    {
      name: 'optionalOldSelf without oldSelf',
      rule: { rule: 'true', optionalOldSelf: true },
      want: [`${R}.optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`],
    },
  ];
  it.each(cases)('$name', ({ rule, want }) => {
    expect(errorsOf(spec([rule]))).toEqual(want);
  });

  it('messageExpression compile errors', () => {
    const [e] = errorsOf(spec([{ rule: 'true', messageExpression: 'self.nope' }]));
    expect(e).toContain(`${R}.messageExpression: Invalid value: apiextensions.ValidationRule{`);
    expect(e).toContain(`messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'`);
  });

  it('oldSelf on the uncorrelatable portion (under an atomic list) is refused', () => {
    const schema = spec([], {
      list: {
        type: 'array',
        maxItems: 3,
        items: {
          type: 'object',
          properties: { a: { type: 'string', maxLength: 5 } },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
        },
      },
    });
    expect(errorsOf(schema)).toEqual([
      `${P}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[spec].properties[list]`,
    ]);
  });
});

// kube's texts name no bound to add (this server named them once; kube's do not).
describe('compileSchemaRules: static cost', () => {
  it('an O(n²) rule over an unbounded list of unbounded strings is refused', () => {
    const errs = errorsOf(
      spec([{ rule: 'self.items.all(x, self.items.all(y, x == y))' }], {
        items: { type: 'array', items: { type: 'string' } },
      }),
    );
    expect(errs).toEqual([
      `${R}.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${R}.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it('the same rule with maxItems and maxLength is accepted', () => {
    expect(
      errorsOf(
        spec([{ rule: 'self.items.all(x, self.items.all(y, x == y))' }], {
          items: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } },
        }),
      ),
    ).toEqual([]);
  });

  it('a factor under 100x is printed with one decimal', () => {
    const errs = errorsOf(
      spec([{ rule: 'self.items.all(x, self.items.all(y, self.items.all(z, x + y + z > 0)))' }], {
        items: { type: 'array', maxItems: 150, items: { type: 'integer' } },
      }),
    );
    expect(errs[0]).toMatch(
      /^.*\.rule: Forbidden: estimated rule cost exceeds budget by factor of \d+\.\dx \(try simplifying/,
    );
  });

  it('a rule under an unbounded list is multiplied by the list cardinality', () => {
    const schema = spec([], {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { s: { type: 'string' } },
          'x-kubernetes-validations': [{ rule: "self.s.matches('^[a-z]+$')" }],
        },
      },
    });
    const errs = errorsOf(schema);
    expect(errs[0]).toBe(
      `${P}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
  });

  it("a messageExpression's cost is its own, not multiplied by how often the rule may run", () => {
    // string(int) has no size cel-go can bound, so a concatenation with it costs past any limit.
    const messageExpression = "'size ' + string(self.size)";
    expect(errorsOf(spec([{ rule: 'true', messageExpression }]))).toEqual([
      `${R}.messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${R}.messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    // Under a list of 1,000 items the same message costs what it costs once.
    expect(
      errorsOf(
        spec([], {
          list: {
            type: 'array',
            maxItems: 1000,
            items: {
              type: 'string',
              maxLength: 10,
              'x-kubernetes-validations': [{ rule: 'true', messageExpression: "self + ' is bad'" }],
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('join() of a list literal is refused: kube cannot size its elements', () => {
    expect(errorsOf(spec([{ rule: '["a", "b"].join("-") == "a-b"' }]))[0]).toBe(
      `${R}.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
  });
});

describe('compileSchemaRules: regex literals, as cel-go checks them', () => {
  // ValidateRegexLiterals (kube's base environment, 1.29+) compiles the pattern of matches() at
  // compile time: `invalid matches argument` at the literal. The interpreter's regex
  // optimizations compile find()/findAll() patterns (and matches(s, p)'s) when the program is
  // built: `program instantiation failed: <Go's error>`.
  const cases: { rule: string; want: string }[] = [
    {
      rule: "self.name.matches('(')",
      want: "compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('(')\n | ..................^",
    },
    {
      rule: "self.name.matches('[a-z') || self.name.matches('a{1001}')",
      want: "compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('[a-z') || self.name.matches('a{1001}')\n | ..................^\nERROR: <input>:1:48: invalid matches argument\n | self.name.matches('[a-z') || self.name.matches('a{1001}')\n | ...............................................^",
    },
    {
      rule: "self.name.find('(?<=a)b') == ''",
      want: 'program instantiation failed: error parsing regexp: invalid named capture: `(?<=a)b`',
    },
    {
      rule: "self.name.findAll('x**').size() == 0",
      want: 'program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`',
    },
    // The global form: the validator looks at the first argument (the string), the optimization at the pattern.
    {
      rule: "matches(self.name, 'a(')",
      want: 'program instantiation failed: error parsing regexp: missing closing ): `a(`',
    },
    // Over the bound on what one pattern may cost to compile (Go would take it): Go's text for an oversized program.
    {
      rule: `self.name.matches('${'a{0,9}'.repeat(2000)}')`,
      want: `compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('${'a{0,9}'.repeat(2000)}')\n | ..................^`,
    },
  ];
  it.each(cases)('$rule', ({ rule, want }) => {
    expect(errorsOf(spec([{ rule }]))).toEqual([`${R}.rule: Invalid value: ${goRule(rule)}: ${want}`]);
  });

  it('valid literals compile', () => {
    expect(
      errorsOf(
        spec([
          {
            rule: "self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && self.name.find('[0-9]+') == '' && matches(self.name, '(?i)^A')",
          },
        ]),
      ),
    ).toEqual([]);
  });

  it('in a messageExpression', () => {
    const bad = (messageExpression: string) => errorsOf(spec([{ rule: 'false', messageExpression }]))[0];
    expect(bad("self.name.matches('(') ? 'a' : 'b'")).toContain(
      ': messageExpression compilation failed: ERROR: <input>:1:19: invalid matches argument',
    );
    expect(bad("self.name.find('(')")).toContain(
      ': messageExpression instantiation failed: error parsing regexp: missing closing ): `(`',
    );
  });
});

describe('compileSchemaRules: the estimated cost of a regex', () => {
  // ⌈(maxLength + 1) · 0.1⌉ · ⌈|pattern| · 0.25⌉; an unbounded string is 3 MiB - 2.
  const regexRule = (pattern: string) =>
    spec([{ rule: `self.text.matches('${pattern}')` }], { text: { type: 'string' } });

  it('a short literal pattern on an unbounded string is within the limit', () => {
    expect(errorsOf(regexRule('(a+)+$'))).toEqual([]);
  });

  it('a 200-character literal pattern on an unbounded string is not: 314,573 · 50', () => {
    expect(errorsOf(regexRule('a'.repeat(200)))).toEqual([
      `${R}.rule: Forbidden: estimated rule cost exceeds budget by factor of 1.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it('a pattern from the object is sized by its maxLength, 4 bytes a character as kube sizes strings', () => {
    const rule = [{ rule: 'self.text.matches(self.pattern)' }];
    // ⌈401 · 0.1⌉ · ⌈400 · 0.25⌉ = 41 · 100.
    expect(
      errorsOf(spec(rule, { text: { type: 'string', maxLength: 100 }, pattern: { type: 'string', maxLength: 100 } })),
    ).toEqual([]);
    // 5 · 786,432: within the limit, so a 3 MiB pattern can reach the rule at runtime.
    expect(errorsOf(spec(rule, { text: { type: 'string', maxLength: 10 }, pattern: { type: 'string' } }))).toEqual([]);
    // 41 · 786,432 and 401 · 786,432.
    const refused = (factor: string) =>
      `${R}.rule: Forbidden: estimated rule cost exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
    expect(errorsOf(spec(rule, { text: { type: 'string', maxLength: 100 }, pattern: { type: 'string' } }))).toEqual([
      refused('3.2x'),
    ]);
    // Past the schema's total too: 315,359,232 of 100,000,000.
    expect(errorsOf(spec(rule, { text: { type: 'string', maxLength: 1000 }, pattern: { type: 'string' } }))).toEqual([
      refused('31.5x'),
      `${R}.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 3.2x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });
});

describe('compileSchemaRules: deep values in a schema', () => {
  it('takes an example nested 5,000 deep (past what JSON.stringify recurses) without a stack overflow', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = [deep];
    const schema = {
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, example: deep } },
      'x-kubernetes-validations': [{ rule: 'has(self.spec)' }],
    } as JSONSchemaProps;
    expect(compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema').errors).toEqual([]);
  });
});

describe("compileSchemaRules: kube's order and kube's other checks", () => {
  it("reports the rules' own fields first, and checks no CEL of a node with such an error below it", () => {
    const schema = spec([{ rule: 'self.nope == 1' }], {
      a: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self.nope' }] },
      c: { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', message: ' ' }] },
    });
    expect(errorsOf(schema)).toEqual([
      `${P}.properties[spec].properties[c].x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`,
      `${P}.properties[spec].properties[a].x-kubernetes-validations[0].rule: Invalid value: ${goRule('self.nope')}: compilation failed: ERROR: <input>:1:5: type 'string' does not support field selection\n | self.nope\n | ....^`,
    ]);
  });

  it('refuses optionalOldSelf on a rule that does not compile, as kube does', () => {
    const rule: ValidationRule = { rule: 'self.nope == oldSelf', optionalOldSelf: true };
    expect(errorsOf(spec([rule]))).toEqual([
      `${R}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.nope == oldSelf", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(0xc000000000)}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == oldSelf\n | ....^`,
      `${R}.optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  it('a node CEL cannot see (no type) cannot carry rules, in a schema met before or not', () => {
    // The second schema differs elsewhere: its node's type is known from the first.
    for (const other of ['a', 'b']) {
      const schema = spec([], {
        [other]: { type: 'string' },
        x: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] },
      });
      expect(errorsOf(schema)).toEqual([
        `${P}.properties[spec].properties[x].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations`,
      ]);
    }
  });

  it('types a node met before for rules not compiled there before', () => {
    // At a CRD write (preexisting given) the rules are other compiles than an object write's.
    const x: JSONSchemaProps = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.n > 0' }, { rule: 'self.m > 0' }],
    };
    const want = [
      `${P}.properties[spec].properties[x].x-kubernetes-validations[1].rule: Invalid value: ${goRule('self.m > 0')}: compilation failed: ERROR: <input>:1:5: undefined field 'm'\n | self.m > 0\n | ....^`,
    ];
    const none = { rules: new Set<string>(), messageExpressions: new Set<string>() };
    const at = (other: string, preexisting?: typeof none) =>
      compileSchemaRules(spec([], { [other]: { type: 'string' }, x }), P, { preexisting }).errors.map(formatFieldError);
    expect(at('a')).toEqual(want);
    expect(at('b', none)).toEqual(want);
  });

  it("lists each expression's cost, the rule's times its cardinality, and their total", () => {
    const r = compileSchemaRules(
      spec([{ rule: 'self.tags.all(t, t.size() < 10)', messageExpression: 'self.name' }], {
        list: {
          type: 'array',
          maxItems: 3,
          items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
        },
      }),
      P,
    );
    expect(r.errors).toEqual([]);
    // self > 0: self 1 + `>` 1, × 3 items. all(): self.tags 2 + the result 1 + 10 items × (the
    // loop's condition 2 + its step: the accumulator 1 + t.size() 2 + `<` 1; `&&` adds nothing).
    // The message: self.name, 2.
    expect(r.costs).toEqual([
      { path: `${P}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule`, cost: 6n },
      { path: `${R}.rule`, cost: 63n },
      { path: `${R}.messageExpression`, cost: 2n },
    ]);
    expect(r.total).toBe(71n);
  });
});

// One compile per schema content (kept with paths relative to its root): each caller's path and
// options give the same errors and costs a compile at that path would.
describe('compileSchemaRules: one schema at several paths', () => {
  const uncorrelatable = () =>
    spec([{ rule: 'self.tags.all(a, self.tags.all(b, a.size() + b.size() < 9999))' }], {
      tags: { type: 'array', items: { type: 'string' } },
      list: {
        type: 'array',
        maxItems: 3,
        items: {
          type: 'object',
          properties: { a: { type: 'string', maxLength: 5 } },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
        },
      },
    });
  const at = (path: string, suppressPerExpressionCost = false) =>
    compileSchemaRules(uncorrelatable(), path, { suppressPerExpressionCost }).errors.map(formatFieldError);
  // Children first: the list's items, then spec's own rule.
  const expected = (path: string, suppressed = false) => [
    `${path}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${path}.properties[spec].properties[list]`,
    ...(suppressed
      ? []
      : [
          `${path}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
        ]),
    `${path}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    `${path}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  ];

  it("re-roots every path, the oldSelf error's list included, and leaves out suppressed costs only", () => {
    expect(at(P)).toEqual(expected(P));
    expect(at('spec.versions[1].schema.openAPIV3Schema')).toEqual(expected('spec.versions[1].schema.openAPIV3Schema'));
    expect(at(P, true)).toEqual(expected(P, true));
    expect(at(P)).toEqual(expected(P));
    expect(compileSchemaRules(uncorrelatable(), '').costs[0]!.path).toBe(
      'properties[spec].properties[list].items.x-kubernetes-validations[0].rule',
    );
  });

  it('compiles the rules of a sub-schema two properties share, at both', () => {
    const shared: JSONSchemaProps = {
      type: 'string',
      maxLength: 5,
      'x-kubernetes-validations': [{ rule: 'self.nope' }],
    };
    expect(errorsOf(spec([], { a: shared, b: shared })).map((e) => e.slice(0, e.indexOf(':')))).toEqual([
      `${P}.properties[spec].properties[a].x-kubernetes-validations[0].rule`,
      `${P}.properties[spec].properties[b].x-kubernetes-validations[0].rule`,
    ]);
  });
});

describe('compileSchemaRulesTask: the programs planned when asked, a step each', () => {
  // A sliced run whose every slice ends at once, counting the turns it gave.
  const turns = async (options: { plan?: boolean }): Promise<number> => {
    let n = 0;
    const schema = spec([
      { rule: 'self.name.size() > 0', messageExpression: "'no ' + self.name" },
      { rule: "self.name != 'x'" },
      { rule: "self.name != 'y'" },
    ]);
    await runTaskSliced(compileSchemaRulesTask(schema, P, options), async () => void n++, 0);
    return n;
  };

  it('plans the 4 programs of a compilation kept unplanned, then none again', async () => {
    await turns({});
    // A turn at least for each program planned, beside those the look-up takes.
    const planning = await turns({ plan: true });
    const planned = await turns({ plan: true });
    expect(planning - planned).toBeGreaterThanOrEqual(4);
  });
});

describe("compileSchemaRules: one type's rules in schemas that differ elsewhere", () => {
  // The same ruled node under lists of different sizes, in schemas otherwise unlike.
  const schemaWith = (maxItems: number, other: string): JSONSchemaProps =>
    spec([], {
      [other]: { type: 'string' },
      list: {
        type: 'array',
        maxItems,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['a'],
        items: {
          type: 'object',
          required: ['a'],
          properties: { a: { type: 'string', maxLength: 50 }, v: { type: 'string', maxLength: 50 } },
          'x-kubernetes-validations': [
            { rule: 'self.a.startsWith(self.v)', messageExpression: '"v is " + self.v', fieldPath: '.v' },
          ],
        },
      },
    });

  it("costs each by its own node's cardinality", () => {
    const small = compileSchemaRules(schemaWith(3, 'x'), P);
    const large = compileSchemaRules(schemaWith(1000, 'y'), P);
    expect(small.errors).toEqual([]);
    expect(large.errors).toEqual([]);
    expect(large.costs[0]!.cost * 3n).toBe(small.costs[0]!.cost * 1000n);
  });

  it('tells apart nodes whose rule-holding children differ deep inside', () => {
    // spec's rule reads a list inside a child that has rules of its own: only the list's bound differs.
    const nested = (maxItems: number): JSONSchemaProps =>
      spec([{ rule: "self.child.list.all(x, x.startsWith('a'))" }], {
        child: {
          type: 'object',
          properties: { list: { type: 'array', maxItems, items: { type: 'string', maxLength: 10 } } },
          'x-kubernetes-validations': [{ rule: 'self.list.size() > 0' }],
        },
      });
    const specCost = (maxItems: number) =>
      compileSchemaRules(nested(maxItems), P).costs.find((c) => c.path === `${R}.rule`)!.cost;
    const small = specCost(3);
    expect(specCost(300)).toBeGreaterThan(small * 50n);
    expect(specCost(3)).toBe(small);
  });

  it('compiles alike nodes that differ in descriptions, but not in a field named description', () => {
    const node = (doc: string, maxLength: number): JSONSchemaProps => ({
      type: 'object',
      description: doc,
      properties: { description: { type: 'string', description: doc, maxLength } },
      'x-kubernetes-validations': [{ rule: "self.description.matches('^a+$')", messageExpression: 'self.description' }],
    });
    const costs = (doc: string, maxLength: number, other: string) =>
      compileSchemaRules(spec([], { [other]: { type: 'string' }, x: node(doc, maxLength) }), P).costs.map(
        (c) => c.cost,
      );
    const short = costs('one', 5, 'a');
    expect(costs('two', 5, 'b')).toEqual(short);
    expect(costs('three', 5000, 'c')[0]).toBeGreaterThan(short[0]! * 100n);
  });

  it('refuses a rule only a stored CRD may keep, wherever it was compiled before', () => {
    const semver = (other: string): JSONSchemaProps =>
      spec([], {
        [other]: { type: 'string' },
        v: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'isSemver(self)' }] },
      });
    const rule = 'isSemver(self)';
    const stored = { rules: new Set([rule]), messageExpressions: new Set<string>() };
    const none = { rules: new Set<string>(), messageExpressions: new Set<string>() };
    expect(compileSchemaRules(semver('a'), P, { preexisting: stored }).errors).toEqual([]);
    expect(compileSchemaRules(semver('b'), P, { preexisting: none }).errors.map(formatFieldError)).toEqual([
      expect.stringContaining(`${P}.properties[spec].properties[v].x-kubernetes-validations[0].rule: Invalid value`),
    ]);
    expect(compileSchemaRules(semver('c'), P).errors).toEqual([]);
    expect(compileSchemaRules(semver('d'), P, { preexisting: stored }).errors).toEqual([]);
  });
});

describe('ruleFieldErrorsOf: a schema of the wrong shape', () => {
  it('is passed by, not thrown on (the decode keeps it out; a 500 would be the cost of a miss)', () => {
    const malformed = {
      type: 'object',
      properties: {
        a: { items: null, allOf: 5, 'x-kubernetes-validations': 5 },
        b: { not: 'x', anyOf: [null, 5], 'x-kubernetes-validations': [null, 5, { rule: '' }] },
        c: null,
      },
    } as unknown as JSONSchemaProps;
    expect(ruleFieldErrorsOf(malformed, P).map(formatFieldError)).toEqual([
      `${P}.properties[b].x-kubernetes-validations[2].rule: Required value: rule is not specified`,
    ]);
  });
});
