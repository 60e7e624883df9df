// cel-spec's conformance tests (@bufbuild/cel-spec: the "simple" tests of github.com/google/cel-spec)
// run through the project's own CEL (cel/: parser, checker, evaluator). Each test is parsed with
// kube's parser options, checked with its declarations (undeclared bindings are `dyn`) unless the
// test disables the check, and evaluated with its bindings; it passes when the value equals the
// expected one, or an error is expected and parsing, checking or evaluation fails. Not counted:
// checkOnly tests and tests over protobuf messages (a CRD rule only sees JSON values).
//
// The sections: the core-language ones a CRD rule uses, string_ext run with kube's strings
// library (cel/kube/strings.ts, cel-go's strings extension at the version kube configures), and
// macros2 (two-variable comprehensions, which kube enables). Failures set aside by name, with
// their reason: cel-eval-set-aside.ts.
//
// make cel-conformance (test/conformance/cel-conformance.ts) prints the figures.
import type { Type as PbType } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Value as PbValue } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import {
  getConformanceSuite,
  type IncrementalTest,
  type IncrementalTestSuite,
} from '@bufbuild/cel-spec/testdata/tests.js';
import { anyUnpack, type Duration as PbDuration, type Timestamp as PbTimestamp } from '@bufbuild/protobuf/wkt';
import { check, KUBE_CHECKER_OPTIONS, standardEnv } from '../../cel/checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from '../../cel/comprehensions.js';
import { variable } from '../../cel/decls.js';
import { activation, Library, program } from '../../cel/eval.js';
import { STRINGS_LIBRARY } from '../../cel/kube/strings.js';
import { KUBE_PARSER_OPTIONS, parse } from '../../cel/parser.js';
import { Source } from '../../cel/source.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  listType,
  mapType,
  NullType,
  StringType,
  TimestampType,
  type Type,
  UintType,
} from '../../cel/types.js';
import {
  CelError,
  Duration,
  MapValue,
  OptionalValue,
  Timestamp,
  TypeValue,
  Uint,
  type Value,
} from '../../cel/values.js';

export const EVAL_SECTIONS = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'macros2',
  'optionals',
  'parse',
  'plumbing',
  'string',
  'string_ext',
  'timestamps',
];

// ---------------------------------------------------------------------------------------------
// The data: expected values in a canonical form, and which tests need protobuf messages

type Canon =
  | { k: 'int' | 'uint'; v: bigint }
  | { k: 'double'; v: number }
  | { k: 'string' | 'type' | 'bytes'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'list'; v: Canon[] }
  | { k: 'map'; v: [Canon, Canon][] }
  | { k: 'timestamp' | 'duration'; s: bigint; n: number }
  | { k: 'optional'; v: Canon | null };

class Unsupported extends Error {}

const registry = getTestRegistry();
const hex = (u8: Uint8Array): string => Buffer.from(u8).toString('hex');

function unpackWkt(v: Extract<PbValue['kind'], { case: 'objectValue' }>['value']): {
  ts?: PbTimestamp;
  dur?: PbDuration;
} {
  const m = anyUnpack(v, registry);
  if (m?.$typeName === 'google.protobuf.Timestamp') return { ts: m as PbTimestamp };
  if (m?.$typeName === 'google.protobuf.Duration') return { dur: m as PbDuration };
  throw new Unsupported(`proto message ${m?.$typeName ?? v.typeUrl}`);
}

function expected(val: PbValue): Canon {
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

function equal(a: Canon, b: Canon): boolean {
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

const show = (c: Canon): string => JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Tests over protobuf messages (TestAllTypes, enums, wrappers): out of a CRD rule's reach. */
function needsProto(t: IncrementalTest): boolean {
  const o = t.original;
  const declared = o.typeEnv
    .map((d) =>
      d.declKind.case === 'ident' ? (toType(d.declKind.value.type) === undefined ? 'PROTO' : '') : 'FUNCTION',
    )
    .join(' ');
  if (/TestAllTypes|cel\.expr\.conformance|google\.protobuf\.(?!Timestamp|Duration)|PROTO/.test(o.expr + declared))
    return true;
  if (o.container.startsWith('cel.expr.conformance')) return true;
  const walk = (v: PbValue | undefined): boolean => {
    const k = v?.kind;
    if (!k) return false;
    if (k.case === 'enumValue') return true;
    if (k.case === 'objectValue') return !/google\.protobuf\.(Timestamp|Duration)$/.test(k.value.typeUrl);
    if (k.case === 'listValue') return k.value.values.some(walk);
    if (k.case === 'mapValue') return k.value.entries.some((e) => walk(e.key) || walk(e.value));
    return false;
  };
  const values: (PbValue | undefined)[] = Object.values(o.bindings).map((b) =>
    b.kind.case === 'value' ? b.kind.value : undefined,
  );
  if (o.resultMatcher.case === 'value') values.push(o.resultMatcher.value);
  return values.some(walk);
}

function collect(s: IncrementalTestSuite, path: string[], out: { path: string[]; t: IncrementalTest }[]): void {
  for (const t of s.tests) out.push({ path, t });
  for (const c of s.suites) collect(c, [...path, c.name], out);
}

// ---------------------------------------------------------------------------------------------
// Running

/** The strings extension, for the string_ext section only. */
const STRINGS = new Library(STRINGS_LIBRARY.functions, STRINGS_LIBRARY.impls);

const NS = 1_000_000_000n;

/** A declared conformance type as a cel/ type (undefined: a message type, which cel/ has none of). */
function toType(t: PbType | undefined): Type | undefined {
  const k = t?.typeKind;
  switch (k?.case) {
    case 'primitive':
      return (
        { 1: BoolType, 2: IntType, 3: UintType, 4: DoubleType, 5: StringType, 6: BytesType } as Record<number, Type>
      )[k.value];
    case 'listType': {
      const e = toType(k.value.elemType);
      return e && listType(e);
    }
    case 'mapType': {
      const a = toType(k.value.keyType);
      const b = toType(k.value.valueType);
      return a && b && mapType(a, b);
    }
    case 'null':
      return NullType;
    case 'dyn':
      return DynType;
    case 'wellKnown':
      return ({ 1: DynType, 2: TimestampType, 3: DurationType } as Record<number, Type>)[k.value];
    case 'messageType':
      return k.value === 'google.protobuf.Timestamp'
        ? TimestampType
        : k.value === 'google.protobuf.Duration'
          ? DurationType
          : undefined;
    default:
      return undefined;
  }
}

/** A conformance binding as a cel/ value. */
function toValue(val: PbValue): Value {
  const kind = val.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
    case 'int64Value':
      return kind.value;
    case 'uint64Value':
      return new Uint(kind.value);
    case 'bytesValue':
      return kind.value;
    case 'listValue':
      return kind.value.values.map(toValue);
    case 'mapValue': {
      const m = new MapValue();
      for (const e of kind.value.entries) m.set(toValue(e.key!) as string, toValue(e.value!));
      return m;
    }
    case 'typeValue':
      return TypeValue.of(kind.value);
    case 'objectValue': {
      const { ts, dur } = unpackWkt(kind.value);
      if (ts) return new Timestamp(ts.seconds * NS + BigInt(ts.nanos));
      return new Duration(dur!.seconds * NS + BigInt(dur!.nanos));
    }
    default:
      throw new Unsupported(`binding of kind ${kind.case}`);
  }
}

/** A cel/ value in the canonical form the expected values take. */
function canon(v: Value): Canon {
  switch (typeof v) {
    case 'bigint':
      return { k: 'int', v };
    case 'number':
      return { k: 'double', v };
    case 'string':
      return { k: 'string', v };
    case 'boolean':
      return { k: 'bool', v };
  }
  if (v === null) return { k: 'null' };
  if (v instanceof Uint) return { k: 'uint', v: v.value };
  if (v instanceof Uint8Array) return { k: 'bytes', v: hex(v) };
  if (v instanceof Timestamp || v instanceof Duration) {
    // Protobuf's form: seconds toward zero and nanos of the same sign for durations, nanos in [0, 1e9) for timestamps.
    const s =
      v instanceof Timestamp ? (v.nanos >= 0n || v.nanos % NS === 0n ? v.nanos / NS : v.nanos / NS - 1n) : v.nanos / NS;
    return { k: v instanceof Timestamp ? 'timestamp' : 'duration', s, n: Number(v.nanos - s * NS) };
  }
  if (v instanceof TypeValue) return { k: 'type', v: v.name };
  if (v instanceof OptionalValue) return { k: 'optional', v: v.value === undefined ? null : canon(v.value) };
  if (v instanceof MapValue)
    return {
      k: 'map',
      v: [...v.pairs()].map(([a, b]) => [canon(a instanceof Uint ? a : a), canon(b)] as [Canon, Canon]),
    };
  return { k: 'list', v: (v as readonly Value[]).map(canon) };
}

export type Outcome = 'pass' | 'fail' | 'skip';
export interface EvalTestResult {
  section: string;
  /** `section/name`, `#2`... on a repeated name. */
  id: string;
  expr: string;
  outcome: Outcome;
  detail?: string;
}

const firstLine = (s: string): string => s.split('\n')[0]!;

function runOne(t: IncrementalTest, section: string): { outcome: Outcome; detail?: string } {
  const o = t.original;
  if (o.checkOnly) return { outcome: 'skip', detail: 'checkOnly' };
  if (needsProto(t)) return { outcome: 'skip', detail: 'proto' };
  const m = o.resultMatcher;
  if (m.case === 'unknown' || m.case === 'anyUnknowns') return { outcome: 'skip', detail: 'unknowns' };
  let want: Canon | 'error';
  const bindings: Record<string, Value> = {};
  const strings = section === 'string_ext';
  const env = standardEnv({ ...KUBE_CHECKER_OPTIONS, container: o.container }).addFunctions(
    ...TWO_VAR_COMPREHENSION_FUNCTIONS,
  );
  if (strings) env.addFunctions(...STRINGS_LIBRARY.functions);
  const options = strings ? { library: STRINGS } : {};
  try {
    for (const d of o.typeEnv) {
      if (d.declKind.case !== 'ident') return { outcome: 'skip', detail: 'function declaration' };
      const ty = toType(d.declKind.value.type);
      if (ty === undefined) return { outcome: 'skip', detail: 'proto' };
      env.addIdents(variable(d.name, ty));
    }
    for (const [name, b] of Object.entries(o.bindings)) {
      if (b.kind.case !== 'value' || !b.kind.value) return { outcome: 'skip', detail: 'binding is not a value' };
      bindings[name] = toValue(b.kind.value);
      if (env.findIdent(name) === undefined) env.addIdents(variable(name, DynType));
    }
    if (m.case === 'evalError' || m.case === 'anyEvalErrors') want = 'error';
    else if (m.case === 'value') want = expected(m.value);
    else if (m.case === 'typedResult' && m.value.result) want = expected(m.value.result);
    else want = { k: 'bool', v: true };
  } catch (e) {
    if (e instanceof Unsupported) return { outcome: 'skip', detail: e.message };
    throw e;
  }
  const failed = (why: string): { outcome: Outcome; detail?: string } =>
    want === 'error' ? { outcome: 'pass' } : { outcome: 'fail', detail: why };
  const parsed = parse(o.expr, KUBE_PARSER_OPTIONS);
  if (parsed.issues.errors.length > 0) return failed(`parse: ${firstLine(parsed.issues.toDisplayString())}`);
  let prog;
  if (o.disableCheck) prog = program(parsed.ast, options);
  else {
    const checked = check(parsed.ast, new Source(o.expr), env);
    if (checked.issues.errors.length > 0) return failed(`check: ${firstLine(checked.issues.toDisplayString())}`);
    prog = program(checked.ast, options);
  }
  const r = prog.eval(activation(bindings));
  if (r.value instanceof CelError) return failed(`error: ${r.value.message}`);
  const got = canon(r.value);
  if (want === 'error') return { outcome: 'fail', detail: `expected an error, got ${show(got)}` };
  return equal(got, want) ? { outcome: 'pass' } : { outcome: 'fail', detail: `got ${show(got)}, want ${show(want)}` };
}

export interface EvalReport {
  results: EvalTestResult[];
  sections: { section: string; n: number; pass: number; skipped: number }[];
  n: number;
  pass: number;
}

export function runEvalConformance(sections: readonly string[] = EVAL_SECTIONS): EvalReport {
  const all: { path: string[]; t: IncrementalTest }[] = [];
  for (const s of getConformanceSuite().suites) if (sections.includes(s.name)) collect(s, [s.name], all);
  const seen = new Map<string, number>();
  const results = all.map(({ path, t }): EvalTestResult => {
    const section = path[0]!;
    const name = `${section}/${[...path.slice(1), t.name].join('/')}`;
    const k = (seen.get(name) ?? 0) + 1;
    seen.set(name, k);
    let r: { outcome: Outcome; detail?: string };
    try {
      r = runOne(t, section);
    } catch (e) {
      r = { outcome: 'fail', detail: `threw: ${e instanceof Error ? e.message : String(e)}` };
    }
    return { section, id: k === 1 ? name : `${name}#${k}`, expr: t.original.expr, ...r };
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
  return {
    results,
    sections: bySection,
    n: bySection.reduce((a, s) => a + s.n, 0),
    pass: bySection.reduce((a, s) => a + s.pass, 0),
  };
}
