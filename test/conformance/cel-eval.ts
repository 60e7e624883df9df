// cel-spec's simple conformance tests run through the project's own CEL (cel/: parser, checker,
// evaluator), as cel-spec.ts runs them through the environment crd/cel/ has today. Each test is
// parsed with kube's parser options, checked with its declarations (undeclared bindings are
// `dyn`) unless the test disables the check, and evaluated with its bindings; it passes when the
// value equals the expected one, or an error is expected and parsing, checking or evaluation
// fails. Tests over protobuf messages and checkOnly tests are skipped (not counted), as there.
//
// The sections: cel-spec.ts's SECTIONS (those a CRD rule uses), string_ext run with kube's
// strings library (cel/kube/strings.ts, cel-go's strings extension at the version kube
// configures), plus macros2 (two-variable comprehensions, which kube enables). Failures set aside by name, with their reason: cel-eval-set-aside.ts.
//
// npx vite-node test/conformance/cel-eval-report.ts prints the figures.
import type { IncrementalTest } from '@bufbuild/cel-spec/testdata/tests.js';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import type { Type as PbType } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Value as PbValue } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
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
import { type Canon, collect, equal, expected, hex, needsProto, show, Unsupported, unpackWkt } from './cel-spec.js';

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
  /** `section/name`, `#2`... on a repeated name (as cel-spec.ts names them). */
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
