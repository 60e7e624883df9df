// The cel-spec conformance data (@bufbuild/cel-spec: the "simple" tests of github.com/google/cel-spec)
// run through our CEL environment (crd/cel/env.ts compileExpression: kube's base environment, its
// libraries, RE2 regexes, the cost meter), over the core-language sections a CRD rule uses.
//
// A test is compiled with its declared variables (bindings without a declaration are `dyn`), type-checked
// unless the test disables the check, and evaluated with its bindings. It passes when the result
// equals the expected value, or when an error is expected and compiling or evaluating fails.
// Out of scope, not counted: tests that only check types (checkOnly), tests over protobuf messages
// (TestAllTypes, enums, wrappers, Any: a CRD rule only sees JSON values), and the sections of
// extensions kube does not enable for CRD rules.
//
// The failures we know of are listed by exact name, each with its reason (REASONS below), in
// cel-set-aside.ts; cel-spec.test.ts fails on any other failure. Regenerate the list with
// `npx vite-node test/conformance/cel-conformance.ts -- --write-set-aside` (REGENERATE below).
//
// Run: make cel-conformance (test/conformance/cel-conformance.ts prints the table).
import {
  getConformanceSuite,
  type IncrementalTest,
  type IncrementalTestSuite,
} from '@bufbuild/cel-spec/testdata/tests.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import type { Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import { anyUnpack, type Duration as PbDuration, type Timestamp as PbTimestamp } from '@bufbuild/protobuf/wkt';
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { compileExpression } from '../../crd/cel/env.js';
import { SET_ASIDE } from './cel-set-aside.js';

/** The core-language sections a CRD rule uses (kube enables the strings extension and optionals). */
export const SECTIONS = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'optionals',
  'parse',
  'plumbing',
  'string',
  'string_ext',
  'timestamps',
];

// ---------------------------------------------------------------------------------------------
// Canonical values, to compare what we return with what the test expects

export type Canon =
  | { k: 'int' | 'uint'; v: bigint }
  | { k: 'double'; v: number }
  | { k: 'string' | 'type' | 'bytes'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'list'; v: Canon[] }
  | { k: 'map'; v: [Canon, Canon][] }
  | { k: 'timestamp' | 'duration'; s: bigint; n: number }
  | { k: 'optional'; v: Canon | null };

export class Unsupported extends Error {}

const registry = getTestRegistry();
export const hex = (u8: Uint8Array): string => Buffer.from(u8).toString('hex');

export function unpackWkt(v: Extract<Value['kind'], { case: 'objectValue' }>['value']): {
  ts?: PbTimestamp;
  dur?: PbDuration;
} {
  const m = anyUnpack(v, registry);
  if (m?.$typeName === 'google.protobuf.Timestamp') return { ts: m as PbTimestamp };
  if (m?.$typeName === 'google.protobuf.Duration') return { dur: m as PbDuration };
  throw new Unsupported(`proto message ${m?.$typeName ?? v.typeUrl}`);
}

export function expected(val: Value): Canon {
  const kind = val.kind;
  switch (kind.case) {
    case 'int64Value':
      return { k: 'int', v: kind.value };
    case 'uint64Value':
      return { k: 'uint', v: kind.value };
    case 'doubleValue':
      return { k: 'double', v: kind.value };
    case 'stringValue':
      return { k: 'string', v: kind.value };
    case 'bytesValue':
      return { k: 'bytes', v: hex(kind.value) };
    case 'boolValue':
      return { k: 'bool', v: kind.value };
    case 'nullValue':
      return { k: 'null' };
    case 'listValue':
      return { k: 'list', v: kind.value.values.map(expected) };
    case 'mapValue':
      return { k: 'map', v: kind.value.entries.map((e) => [expected(e.key!), expected(e.value!)] as [Canon, Canon]) };
    case 'typeValue':
      return { k: 'type', v: kind.value };
    case 'objectValue': {
      const { ts, dur } = unpackWkt(kind.value);
      if (ts) return { k: 'timestamp', s: ts.seconds, n: ts.nanos };
      return { k: 'duration', s: dur!.seconds, n: dur!.nanos };
    }
    default:
      throw new Unsupported(`expected value kind ${kind.case}`);
  }
}

/** A conformance binding as our engine's runtime value (what toCel produces for JSON, plus uint/bytes/time). */
function toNative(val: Value): unknown {
  const kind = val.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'uint64Value':
      return new UnsignedInt(kind.value);
    case 'listValue':
      return kind.value.values.map(toNative);
    case 'mapValue':
      return new Map(kind.value.entries.map((e) => [toNative(e.key!), toNative(e.value!)]));
    case 'objectValue': {
      const { ts, dur } = unpackWkt(kind.value);
      if (ts) return new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6));
      return new Duration(dur!.seconds, dur!.nanos);
    }
    case 'enumValue':
    case 'typeValue':
    case undefined:
      throw new Unsupported(`binding of kind ${kind.case}`);
    default:
      return kind.value;
  }
}

const ENGINE_TYPE_NAMES: Record<string, string> = { null: 'null_type', optional: 'optional_type' };

function fromNative(x: unknown): Canon {
  switch (typeof x) {
    case 'bigint':
      return { k: 'int', v: x };
    case 'number':
      return { k: 'double', v: x };
    case 'string':
      return { k: 'string', v: x };
    case 'boolean':
      return { k: 'bool', v: x };
  }
  if (x === null) return { k: 'null' };
  if (x instanceof Uint8Array) return { k: 'bytes', v: hex(x) };
  if (x instanceof UnsignedInt) return { k: 'uint', v: x.value };
  if (x instanceof Date) {
    const ms = x.getTime();
    const s = Math.floor(ms / 1000);
    return { k: 'timestamp', s: BigInt(s), n: (ms - s * 1000) * 1e6 };
  }
  if (x instanceof Duration) return { k: 'duration', s: x.seconds, n: x.nanos };
  if (x instanceof Optional) return { k: 'optional', v: x.hasValue() ? fromNative(x.value()) : null };
  if (Array.isArray(x)) return { k: 'list', v: x.map(fromNative) };
  if (x instanceof Map)
    return { k: 'map', v: [...x.entries()].map(([a, b]) => [fromNative(a), fromNative(b)] as [Canon, Canon]) };
  if (typeof x === 'object' && x.constructor?.name === 'Type') {
    // The engine spells a few type names its own way; the type is the same.
    const name = (x as { name: string }).name;
    return { k: 'type', v: ENGINE_TYPE_NAMES[name] ?? name };
  }
  if (typeof x === 'object')
    return { k: 'map', v: Object.entries(x).map(([a, b]) => [{ k: 'string', v: a }, fromNative(b)] as [Canon, Canon]) };
  throw new Error(`unknown result ${String(x)}`);
}

export function equal(a: Canon, b: Canon): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'double': {
      const y = (b as { v: number }).v;
      return a.v === y || (Number.isNaN(a.v) && Number.isNaN(y));
    }
    case 'null':
      return true;
    case 'list': {
      const y = (b as { v: Canon[] }).v;
      return a.v.length === y.length && a.v.every((x, i) => equal(x, y[i]!));
    }
    case 'map': {
      const y = (b as { v: [Canon, Canon][] }).v;
      return a.v.length === y.length && a.v.every(([k, v]) => y.some(([k2, v2]) => equal(k, k2) && equal(v, v2)));
    }
    case 'timestamp':
    case 'duration': {
      const y = b as { s: bigint; n: number };
      return a.s === y.s && a.n === y.n;
    }
    case 'optional': {
      const y = (b as { v: Canon | null }).v;
      return a.v === null || y === null ? a.v === y : equal(a.v, y);
    }
    default:
      return a.v === (b as { v: unknown }).v;
  }
}

export const show = (c: Canon): string => JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** A declared conformance type as our environment spells it (undefined: not expressible without protos). */
function celType(t: Type | undefined): string | undefined {
  const k = t?.typeKind;
  switch (k?.case) {
    case 'primitive':
      return ({ 1: 'bool', 2: 'int', 3: 'uint', 4: 'double', 5: 'string', 6: 'bytes' } as Record<number, string>)[
        k.value
      ];
    case 'listType': {
      const e = celType(k.value.elemType);
      return e && `list<${e}>`;
    }
    case 'mapType': {
      const a = celType(k.value.keyType);
      const b = celType(k.value.valueType);
      return a && b && `map<${a}, ${b}>`;
    }
    case 'null':
      return 'null';
    case 'dyn':
      return 'dyn';
    case 'wellKnown':
      return ({ 1: 'dyn', 2: 'google.protobuf.Timestamp', 3: 'google.protobuf.Duration' } as Record<number, string>)[
        k.value
      ];
    case 'messageType':
      if (k.value === 'google.protobuf.Timestamp' || k.value === 'google.protobuf.Duration') return k.value;
      return undefined;
    default:
      return undefined;
  }
}

/** Tests over protobuf messages (TestAllTypes, enums, wrappers): out of a CRD rule's reach. */
export function needsProto(t: IncrementalTest): boolean {
  const o = t.original;
  const declared = o.typeEnv
    .map((d) => (d.declKind.case === 'ident' ? (celType(d.declKind.value.type) ?? 'PROTO') : 'FUNCTION'))
    .join(' ');
  if (/TestAllTypes|cel\.expr\.conformance|google\.protobuf\.(?!Timestamp|Duration)|PROTO/.test(o.expr + declared))
    return true;
  if (o.container.startsWith('cel.expr.conformance')) return true;
  const walk = (v: Value | undefined): boolean => {
    const k = v?.kind;
    if (!k) return false;
    if (k.case === 'enumValue') return true;
    if (k.case === 'objectValue') return !/google\.protobuf\.(Timestamp|Duration)$/.test(k.value.typeUrl);
    if (k.case === 'listValue') return k.value.values.some(walk);
    if (k.case === 'mapValue') return k.value.entries.some((e) => walk(e.key) || walk(e.value));
    return false;
  };
  const values: (Value | undefined)[] = Object.values(o.bindings).map((b) =>
    b.kind.case === 'value' ? b.kind.value : undefined,
  );
  if (o.resultMatcher.case === 'value') values.push(o.resultMatcher.value);
  return values.some(walk);
}

// ---------------------------------------------------------------------------------------------
// Running

export type Outcome = 'pass' | 'fail' | 'skip';
export interface TestResult {
  section: string;
  name: string;
  /**
   * `section/name`, the test's name on the set-aside list (cel-set-aside.ts); a name the data
   * repeats (string_ext/index_of has a few) gets `#2`, `#3`... on its later occurrences.
   */
  id: string;
  expr: string;
  outcome: Outcome;
  /** Why it failed or was skipped. */
  detail?: string;
}

const firstLine = (e: unknown): string => String((e as Error)?.message ?? e).split('\n')[0]!;

function runOne(t: IncrementalTest): { outcome: Outcome; detail?: string } {
  const o = t.original;
  if (o.checkOnly) return { outcome: 'skip', detail: 'checkOnly' };
  if (needsProto(t)) return { outcome: 'skip', detail: 'proto' };
  const m = o.resultMatcher;
  if (m.case === 'unknown' || m.case === 'anyUnknowns') return { outcome: 'skip', detail: 'unknowns' };

  const vars: Record<string, string> = {};
  for (const d of o.typeEnv) if (d.declKind.case === 'ident') vars[d.name] = celType(d.declKind.value.type)!;
  const bindings: Record<string, unknown> = {};
  let want: Canon | 'error';
  try {
    for (const [name, b] of Object.entries(o.bindings)) {
      if (b.kind.case !== 'value' || !b.kind.value) return { outcome: 'skip', detail: 'binding is not a value' };
      bindings[name] = toNative(b.kind.value);
      vars[name] ??= 'dyn';
    }
    if (m.case === 'evalError' || m.case === 'anyEvalErrors') want = 'error';
    else if (m.case === 'value') want = expected(m.value);
    else if (m.case === 'typedResult' && m.value.result) want = expected(m.value.result);
    else want = { k: 'bool', v: true };
  } catch (e) {
    if (e instanceof Unsupported) return { outcome: 'skip', detail: e.message };
    throw e;
  }

  let got: unknown;
  try {
    got = compileExpression(o.expr, vars, { check: !o.disableCheck, homogeneousLiterals: false }).evaluate(bindings);
  } catch (e) {
    return want === 'error' ? { outcome: 'pass' } : { outcome: 'fail', detail: `error: ${firstLine(e)}` };
  }
  let c: Canon;
  try {
    c = fromNative(got);
  } catch (e) {
    return { outcome: 'fail', detail: firstLine(e) };
  }
  if (want === 'error') return { outcome: 'fail', detail: `expected an error, got ${show(c)}` };
  return equal(c, want) ? { outcome: 'pass' } : { outcome: 'fail', detail: `got ${show(c)}, want ${show(want)}` };
}

export function collect(s: IncrementalTestSuite, path: string[], out: { path: string[]; t: IncrementalTest }[]): void {
  for (const t of s.tests) out.push({ path, t });
  for (const c of s.suites) collect(c, [...path, c.name], out);
}

export interface ConformanceReport {
  results: TestResult[];
  sections: { section: string; n: number; pass: number; skipped: number }[];
  n: number;
  pass: number;
  /** Percent of counted (not skipped) tests that pass. */
  pct: number;
}

export function runConformance(sections: readonly string[] = SECTIONS): ConformanceReport {
  const all: { path: string[]; t: IncrementalTest }[] = [];
  for (const s of getConformanceSuite().suites) if (sections.includes(s.name)) collect(s, [s.name], all);
  const seen = new Map<string, number>();
  const results = all.map(({ path, t }): TestResult => {
    const section = path[0]!;
    const name = [...path.slice(1), t.name].join('/');
    const k = (seen.get(`${section}/${name}`) ?? 0) + 1;
    seen.set(`${section}/${name}`, k);
    return {
      section,
      name,
      id: k === 1 ? `${section}/${name}` : `${section}/${name}#${k}`,
      expr: t.original.expr,
      ...runOne(t),
    };
  });
  const bySection = sections.map((section) => {
    const rs = results.filter((r) => r.section === section);
    return {
      section,
      n: rs.filter((r) => r.outcome !== 'skip').length,
      pass: rs.filter((r) => r.outcome === 'pass').length,
      skipped: rs.filter((r) => r.outcome === 'skip').length,
    };
  });
  const n = bySection.reduce((a, s) => a + s.n, 0);
  const pass = bySection.reduce((a, s) => a + s.pass, 0);
  return { results, sections: bySection, n, pass, pct: (100 * pass) / n };
}

// ---------------------------------------------------------------------------------------------
// The tests set aside: failures we know of, each by its exact name, with its reason

/**
 * Why a test is set aside. The first three are kube's own behaviour: kube-apiserver fails those
 * tests too. The fourth cannot arise for a rule (kube type-checks every rule and declares only
 * self and oldSelf). Those four (`kube: true`) are left out of the second figure (kubeRelevant).
 * The rest are gaps of the engine's parser and evaluator, counted as failures in both figures.
 * The README lists these groups with their counts.
 */
export const REASONS = {
  'kube-format': {
    kube: true,
    label:
      "kube: format() is cel-go's original formatter (kube pins ext.Strings version 2): lists/maps as CEL literals, %d of integers only, %f/%e through the en_US printer (∞, × 10ⁿ)",
  },
  'kube-duration-milliseconds': {
    kube: true,
    label: 'kube: duration.getMilliseconds() is the total, as cel-go (the spec: the part below the second)',
  },
  'kube-quoted-fields': {
    kube: true,
    label: 'kube: backtick-quoted field names are opt-in in cel-go and kube does not enable them',
  },
  unchecked: {
    kube: true,
    label:
      'evaluation without a type check: unbound names as runtime errors, non-bool || and && operands, mixed-type ?: branches, dotted variable names',
  },
  'engine-parser': {
    kube: false,
    label:
      "engine parser: [?x] and {?k: v} optional entries, raw bytes literals (br'..'), non-ASCII bytes literals, `.99`",
  },
  'engine-has-optionals': {
    kube: false,
    label:
      'engine: has() of a literal or through an optional, optional selection on optional.none() or an empty literal, type(optional)',
  },
  'engine-cross-type-numbers': {
    kube: false,
    label:
      'engine: cross-type numbers (1.0 == 1, 2u != 2, [1] == [1.0], dyn(3u) in [3], int64 against a double near 2^63, a uint list index)',
  },
  'engine-map-keys': { kube: false, label: 'engine: map literals with duplicate, null or double keys are accepted' },
  'engine-timestamps': {
    kube: false,
    label: 'engine: timestamps are JS Dates (millisecond precision), duration + timestamp',
  },
  'engine-other': {
    kube: false,
    label:
      'other engine gaps: string(bytes) of invalid UTF-8, [].all(e, e > 0) overload clash, exists_one over a map literal',
  },
} as const satisfies Record<string, { kube: boolean; label: string }>;

export type Reason = keyof typeof REASONS;

/** One entry of cel-set-aside.ts: a test's id (TestResult.id) and why it is set aside. */
export interface SetAside {
  name: string;
  reason: Reason;
}

/** The command that rewrites cel-set-aside.ts from a run (see setAsideSource). */
export const REGENERATE = 'npx vite-node test/conformance/cel-conformance.ts -- --write-set-aside';

const isReason = (r: string): r is Reason => Object.hasOwn(REASONS, r);
const line = (t: TestResult): string => `${t.id}: ${t.expr.replace(/\s*\n\s*/g, ' ')} -- ${t.detail ?? ''}`;

export interface SetAsideCheck {
  /** Failing tests that are not on the list: these fail the guard. */
  unlisted: TestResult[];
  /** Entries that are not well-formed (a reason REASONS lacks, a name listed twice): these fail it too. */
  malformed: string[];
  /** Listed tests that now pass: printed, so the list can be trimmed (regenerate it). */
  nowPassing: SetAside[];
  /** Listed names the run no longer has as a counted test (renamed, removed, now skipped): printed too. */
  stale: SetAside[];
}

/** The run against the set-aside list (the list is the argument for tests of this check). */
export function checkSetAside(r: ConformanceReport, list: readonly SetAside[] = SET_ASIDE): SetAsideCheck {
  const byId = new Map(r.results.map((t) => [t.id, t]));
  const listed = new Map<string, SetAside>();
  const malformed: string[] = [];
  for (const e of list) {
    if (!isReason(e.reason))
      malformed.push(
        `${e.name}: unknown reason ${JSON.stringify(e.reason)} (one of: ${Object.keys(REASONS).join(', ')})`,
      );
    if (listed.has(e.name)) malformed.push(`${e.name}: listed twice`);
    listed.set(e.name, e);
  }
  const nowPassing: SetAside[] = [];
  const stale: SetAside[] = [];
  for (const e of listed.values()) {
    const t = byId.get(e.name);
    if (t?.outcome === 'pass') nowPassing.push(e);
    else if (t?.outcome !== 'fail') stale.push(e);
  }
  const unlisted = r.results.filter((t) => t.outcome === 'fail' && !listed.has(t.id));
  return { unlisted, malformed, nowPassing, stale };
}

/** What checkSetAside found, as lines to print (empty when the list matches the run exactly). */
export function describeSetAside(c: SetAsideCheck): string[] {
  const out: string[] = [];
  if (c.unlisted.length) {
    out.push(
      `${c.unlisted.length} failing test(s) not on the set-aside list (test/conformance/cel-set-aside.ts): a regression, or a new known failure to list with its reason (${REGENERATE}, then review):`,
    );
    for (const t of c.unlisted) out.push(`  ${line(t)}`);
  }
  if (c.malformed.length) {
    out.push(`${c.malformed.length} malformed set-aside entr(y/ies):`);
    for (const m of c.malformed) out.push(`  ${m}`);
  }
  if (c.nowPassing.length) {
    out.push(`${c.nowPassing.length} set-aside test(s) now pass: trim the list (${REGENERATE}):`);
    for (const e of c.nowPassing) out.push(`  ${e.name} (${e.reason})`);
  }
  if (c.stale.length) {
    out.push(
      `${c.stale.length} set-aside name(s) the run does not have as a counted test (renamed, removed or skipped): trim the list (${REGENERATE}):`,
    );
    for (const e of c.stale) out.push(`  ${e.name} (${e.reason})`);
  }
  return out;
}

/** The failing tests per reason (REASONS' order), then those not on the list. */
export function failureCauses(r: ConformanceReport, list: readonly SetAside[] = SET_ASIDE): [string, number][] {
  const reasonOf = new Map(list.map((e) => [e.name, e.reason]));
  const counts = new Map<string, number>(Object.values(REASONS).map(({ label }) => [label, 0]));
  const UNLISTED =
    'not on the set-aside list (cel-set-aside.ts) or UNREVIEWED there: a regression, or a failure to list';
  counts.set(UNLISTED, 0);
  for (const t of r.results) {
    if (t.outcome !== 'fail') continue;
    const reason = reasonOf.get(t.id);
    const label = reason !== undefined && isReason(reason) ? REASONS[reason].label : UNLISTED;
    counts.set(label, counts.get(label)! + 1);
  }
  return [...counts].filter(([, n]) => n > 0);
}

/**
 * The pass rate over the tests kube-apiserver itself passes and a rule can meet: the failing tests
 * listed with a `kube: true` reason left out of the count (never a passing test, never an unlisted
 * failure).
 */
export function kubeRelevant(
  r: ConformanceReport,
  list: readonly SetAside[] = SET_ASIDE,
): { n: number; pass: number; pct: number } {
  const kube = new Set(list.filter((e) => isReason(e.reason) && REASONS[e.reason].kube).map((e) => e.name));
  const excluded = r.results.filter((t) => t.outcome === 'fail' && kube.has(t.id)).length;
  const n = r.n - excluded;
  return { n, pass: r.pass, pct: (100 * r.pass) / n };
}

/**
 * cel-set-aside.ts as it should read after this run: every failing test, in REASONS' order then
 * the run's, each with the reason it has on `previous` (the current list); a failure not on it
 * gets the reason UNREVIEWED, which is no Reason: `make typecheck` and the guard refuse it until
 * someone writes the right one. Tests that pass now, or are gone, are dropped.
 */
export function setAsideSource(r: ConformanceReport, previous: readonly SetAside[] = SET_ASIDE): string {
  const reasonOf = new Map(previous.map((e) => [e.name, e.reason as string]));
  const order = [...Object.keys(REASONS), 'UNREVIEWED'];
  const failing = r.results
    .filter((t) => t.outcome === 'fail')
    .map((t) => ({ t, reason: reasonOf.get(t.id) ?? 'UNREVIEWED' }))
    .map((e) => ({ ...e, reason: order.includes(e.reason) ? e.reason : 'UNREVIEWED' }));
  const clip = (s: string): string => (s.length > 160 ? `${s.slice(0, 157)}...` : s);
  const out = [
    '// The cel-spec conformance tests set aside: the failures we know of, each by its exact name',
    '// (TestResult.id: section/name) with its reason (REASONS in cel-spec.ts says what each means and',
    '// which ones the second figure leaves out). cel-spec.test.ts fails on a failing test that is not',
    '// here, and prints the ones here that pass again. Generated, then reviewed; to regenerate:',
    '//',
    `//   ${REGENERATE}`,
    '//',
    '// which keeps each listed reason, drops what passes now, and adds new failures as UNREVIEWED',
    '// (not a reason: write the right one, after checking the failure is not a regression). Each',
    "// entry's comment is the expression and what the run got, for the reviewer.",
    "import type { SetAside } from './cel-spec.js';",
    '',
    'export const SET_ASIDE: readonly SetAside[] = [',
  ];
  for (const reason of order) {
    const group = failing.filter((e) => e.reason === reason);
    if (group.length === 0) continue;
    out.push(
      `  // ${reason}: ${group.length} (${reason in REASONS ? REASONS[reason as Reason].label : 'new failures: check each, then give it its reason'})`,
    );
    for (const { t } of group) {
      out.push(`  // ${clip(`${t.expr.replace(/\s*\n\s*/g, ' ')} -- ${t.detail ?? ''}`)}`);
      out.push(`  { name: ${JSON.stringify(t.id)}, reason: ${JSON.stringify(reason)} },`);
    }
  }
  out.push('];', '');
  return out.join('\n');
}

export const summaryLine = (r: ConformanceReport): string => `cel conformance: ${r.pct.toFixed(1)}% of ${r.n} tests`;
