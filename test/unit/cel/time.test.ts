// Timestamps, durations and the int()/uint() conversions as kube's cel-go (v0.23) has them
// (cel/time.ts, cel/functions.ts), through kubeEnvironment: zone arguments, getters,
// conversions and range errors. A value a literal would carry is passed as the dyn variable `x`
// where kube's literal validators would refuse the literal at compile.
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../../cel/cost.js';
import { variable } from '../../../cel/decls.js';
import { activation, program } from '../../../cel/eval.js';
import { KUBE_COST_OPTIONS, KubeCostEstimator } from '../../../cel/kube/cost.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import { DynType } from '../../../cel/types.js';
import { CelError, Duration, Timestamp, Uint, type Value } from '../../../cel/values.js';

const kube = kubeEnvironment('StoredExpressions');
const env = kube.checkerEnv().addIdents(variable('x', DynType));

function compiled(expr: string) {
  const c = kube.compile(expr, env);
  if (c.issues !== undefined) throw new Error(c.issues.toDisplayString());
  return c.ast;
}

/** The value, or the evaluation's error thrown with cel-go's text. */
function run(expr: string, x: Value = null): Value {
  const v = program(compiled(expr), kube.programOptions).eval(activation({ x })).value;
  if (v instanceof CelError) throw new Error(v.message);
  return v;
}

const NS = 1_000_000_000n;

/** 2009-02-13T23:31:30.123Z, a Friday, day 43 of the year. */
const T = "timestamp('2009-02-13T23:31:30.123Z')";

describe('timestamp getters and zones', () => {
  it.each([
    // no zone: UTC
    [`${T}.getFullYear()`, 2009n],
    [`${T}.getMonth()`, 1n],
    [`${T}.getDayOfYear()`, 43n],
    [`${T}.getDayOfMonth()`, 12n],
    [`${T}.getDate()`, 13n],
    [`${T}.getDayOfWeek()`, 5n],
    [`${T}.getHours()`, 23n],
    [`${T}.getMinutes()`, 31n],
    [`${T}.getSeconds()`, 30n],
    [`${T}.getMilliseconds()`, 123n],
    ["timestamp('2008-12-31T12:00:00Z').getDayOfYear()", 365n], // leap year, counted from 0
    ["timestamp('1969-12-31T23:59:59.999Z').getMilliseconds()", 999n],
    ["timestamp('0001-01-01T00:00:00Z').getFullYear()", 1n],
    // numeric offsets: the sign of the hours applies to the minutes
    [`${T}.getDayOfMonth('+11:00')`, 13n],
    ["timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", 11n],
    ["timestamp('2009-02-13T02:00:00Z').getHours('-02:30')", 23n],
    ["timestamp('2009-02-13T02:00:00Z').getMinutes('-02:30')", 30n],
    ["timestamp('2009-02-13T02:00:00Z').getMinutes('-00:30')", 30n],
    ["timestamp('2009-02-13T02:00:00Z').getHours('-00:30')", 1n],
    [`${T}.getFullYear('-09:30')`, 2009n],
    [`${T}.getHours('02:00')`, 1n],
    [`${T}.getSeconds('-00:00')`, 30n],
    [`${T}.getMinutes('+05:45')`, 16n],
    ["timestamp('2009-12-31T23:00:00Z').getFullYear('+01:00')", 2010n],
    ["timestamp('2009-12-31T23:00:00Z').getDayOfYear('+01:00')", 0n],
    ["timestamp('0001-01-01T00:00:00Z').getFullYear('-01:00')", 0n],
    // cel-go v0.23 (kube 1.33) checks no range: 24 hours, 60 minutes and negative minutes are offsets too
    [`${T}.getHours('+24:00')`, 23n],
    [`${T}.getHours('+01:60')`, 1n],
    [`${T}.getHours('01:-30')`, 0n],
    // zone names (Go's time.LoadLocation)
    [`${T}.getDate('Australia/Sydney')`, 14n],
    [`${T}.getDayOfMonth('US/Central')`, 12n],
    ["timestamp('2009-02-13T02:00:00Z').getDayOfMonth('America/St_Johns')", 11n],
    [`${T}.getMinutes('Asia/Kathmandu')`, 16n],
    [`${T}.getHours('America/Los_Angeles')`, 15n], // PST, UTC-8
    ["timestamp('2009-07-13T23:31:30Z').getHours('America/Los_Angeles')", 16n], // PDT, UTC-7
    ["timestamp('1800-01-01T12:00:00Z').getMinutes('America/Los_Angeles')", 7n], // LMT, UTC-7:52:58
    [`${T}.getDayOfWeek('UTC')`, 5n],
    [`${T}.getHours('')`, 23n], // LoadLocation("") is UTC
    [`${T}.getMilliseconds('Asia/Kathmandu')`, 123n],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it.each([
    [`${T}.getHours('Mars/Olympus_Mons')`, 'unknown time zone Mars/Olympus_Mons'],
    [`${T}.getHours('america/los_angeles')`, 'unknown time zone america/los_angeles'], // zoneinfo names are case-sensitive
    [`${T}.getHours('+0530')`, 'unknown time zone +0530'],
    [`${T}.getHours('x:00')`, 'strconv.Atoi: parsing "x": invalid syntax'],
    [`${T}.getHours('+01:00:00')`, 'strconv.Atoi: parsing "00:00": invalid syntax'],
    [`${T}.getHours('1:99999999999999999999')`, 'strconv.Atoi: parsing "99999999999999999999": value out of range'],
  ])('%s: %s', (expr, message) => {
    expect(() => run(expr)).toThrow(message);
  });
});

describe('duration getters', () => {
  it.each([
    ["duration('10000s').getHours()", 2n],
    ["duration('3730s').getMinutes()", 62n],
    ["duration('3730s').getSeconds()", 3730n],
    ["duration('123.321456789s').getMilliseconds()", 123321n], // the total, as cel-go (the spec: 321)
    ["duration('2h').getMilliseconds()", 7_200_000n],
    ["duration('-1.5s').getMilliseconds()", -1500n],
    ["duration('-1.5s').getSeconds()", -1n], // totals truncate toward zero
    ["duration('-90m').getHours()", -1n],
    ["(duration('1s') - duration('2.5s')).getSeconds()", -1n],
    ["(duration('1s') - duration('2.5s')).getMilliseconds()", -1500n],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });
});

describe('conversions of timestamps and durations', () => {
  it.each([
    ["string(timestamp('2009-02-13T23:31:30Z'))", '2009-02-13T23:31:30Z'],
    ["string(timestamp('2009-02-13T23:31:30.5Z'))", '2009-02-13T23:31:30.5Z'],
    ["string(timestamp('2009-02-13T23:31:30.120+01:00'))", '2009-02-13T22:31:30.12Z'],
    ["string(timestamp('0001-01-01T00:00:00Z'))", '0001-01-01T00:00:00Z'],
    ["string(duration('1000000s'))", '1000000s'],
    ["string(duration('1.5s'))", '1.5s'],
    ["string(duration('1h'))", '3600s'],
    ["string(duration('-1ns'))", '-0.000000001s'],
    ["string(duration('0s'))", '0s'],
    ["string(duration('123.321456789s'))", '123.321456789s'],
    ["int(timestamp('2009-02-13T23:31:30Z'))", 1234567890n],
    ["int(timestamp('1969-12-31T23:59:59.5Z'))", -1n], // Unix seconds round down, as Go's Time.Unix()
    ['timestamp(timestamp(1000000000)) == timestamp(1000000000)', true],
    ["duration(duration('100s')) == duration('100s')", true],
    ["timestamp(253402300799) == timestamp('9999-12-31T23:59:59Z')", true],
    ["timestamp(-62135596800) == timestamp('0001-01-01T00:00:00Z')", true],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });
});

describe('timestamp(string): RFC 3339 only, years 1 to 9999', () => {
  const at = (ms: number, nanos = 0n): Timestamp => new Timestamp(BigInt(ms) * 1_000_000n + nanos);
  it.each([
    ['2009-02-13T23:31:30Z', at(Date.UTC(2009, 1, 13, 23, 31, 30))],
    ['2009-02-13T23:31:30.123456789Z', at(Date.UTC(2009, 1, 13, 23, 31, 30), 123_456_789n)],
    ['2009-02-14T01:01:30+01:30', at(Date.UTC(2009, 1, 13, 23, 31, 30))],
    ['2009-02-13T20:31:30-03:00', at(Date.UTC(2009, 1, 13, 23, 31, 30))],
    ['2008-02-29T00:00:00Z', at(Date.UTC(2008, 1, 29))],
    ['0000-12-31T23:00:00-01:00', at(Date.parse('0001-01-01T00:00:00Z'))], // in range once in UTC
    ['9999-12-31T23:59:59.999999999Z', at(Date.parse('9999-12-31T23:59:59Z'), 999_999_999n)],
  ])('%s', (s, want) => {
    expect(run('timestamp(x)', s)).toEqual(want);
  });

  // What Go's time.Parse refuses is cel-go's conversion error; what it takes outside years 1 to
  // 9999, its overflow.
  it.each([
    ['2009-02-13 23:31:30Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T23:31:30', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T23:31:30+0100', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T23:31:30.Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-2-13T23:31:30Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T24:00:00Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T23:31:60Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-13-01T00:00:00Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-13T23:31:30+24:00', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['Fri, 13 Feb 2009 23:31:30 GMT', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-30T00:00:00Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['2009-02-29T00:00:00Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['10000-01-01T00:00:00Z', "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ['0000-01-01T00:00:00Z', 'timestamp overflow'],
    ['9999-12-31T23:59:59-00:01', 'timestamp overflow'],
    ['0001-01-01T00:00:00+00:01', 'timestamp overflow'],
  ])('%s: %s', (s, message) => {
    expect(() => run('timestamp(x)', s)).toThrow(message);
  });

  it('holds timestamp(int) to the same range', () => {
    expect(() => run('timestamp(x)', 253402300800n)).toThrow('timestamp overflow');
    expect(() => run('timestamp(x)', -62135596801n)).toThrow('timestamp overflow');
  });
});

describe('duration(string): Go durations, int64 nanoseconds as cel-go', () => {
  it.each([
    ['1h30m', 5_400_000_000_000n],
    ['-1.5s', -1_500_000_000n],
    ['.5s', 500_000_000n],
    ['1.s', 1_000_000_000n],
    ['0', 0n],
    ['-0', 0n],
    ['+5m', 300_000_000_000n],
    ['300ms', 300_000_000n],
    ['1us', 1_000n],
    ['1\u00b5s', 1_000n],
    ['1\u03bcs', 1_000n],
    ['1.000000001s', 1_000_000_001n],
    ['0.1h', 360_000_000_000n],
    ['9223372036.854775807s', 9_223_372_036_854_775_807n],
    ['-9223372036.854775808s', -9_223_372_036_854_775_808n],
    ['2562047h', 9_223_369_200_000_000_000n],
  ])('%s', (s, want) => {
    expect(run('duration(x)', s)).toEqual(new Duration(want));
  });

  // Anything time.ParseDuration refuses, an overflow included, is cel-go's conversion error.
  it.each([
    '',
    '1',
    '.s',
    's',
    '1x',
    '1h 2m',
    '--1s',
    '320000000000s',
    '-320000000000s',
    '9223372036.854775808s',
    '2562048h',
    `${'9'.repeat(40)}ns`,
  ])('%j', (s) => {
    expect(() => run('duration(x)', s)).toThrow("type conversion error from 'string' to 'google.protobuf.Duration'");
  });
});

describe('int() and uint()', () => {
  it.each([
    ['int(42u)', 42n],
    ['int(0u)', 0n],
    ['int(9223372036854775807u)', (1n << 63n) - 1n],
    ['int(uint(int(uint(7))))', 7n],
    ['int(-7.9)', -7n],
    ['int(11.5)', 11n],
    ['int(9223372036854774784.0)', 9223372036854774784n], // the largest double below 2^63
    ["int('-987')", -987n],
    ["int('+5')", 5n],
    ['uint(1.9)', new Uint(1n)],
    ['uint(-0.0)', new Uint(0n)],
    ['uint(18446744073709549568.0)', new Uint(18446744073709549568n)], // the largest double below 2^64
    ["uint('300')", new Uint(300n)],
    ['uint(9223372036854775807)', new Uint((1n << 63n) - 1n)],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([
    ['int(9223372036854775808u)', 'integer overflow'],
    ['int(18446744073709551615u)', 'integer overflow'],
    ['int(9223372036854775807.0)', 'integer overflow'],
    ['int(-9223372036854775808.0)', 'integer overflow'],
    ['int(18446744073709551615.0)', 'integer overflow'],
    ['int(1e99)', 'integer overflow'],
    ["int(double('NaN'))", 'integer overflow'],
    ["int(double('-Infinity'))", 'integer overflow'],
    ["int('')", "type conversion error from 'string' to 'int'"],
    ["int('0b11')", "type conversion error from 'string' to 'int'"],
    ["int(' 1')", "type conversion error from 'string' to 'int'"],
    ["int('9223372036854775808')", "type conversion error from 'string' to 'int'"],
    ['uint(-1)', 'unsigned integer overflow'],
    ['uint(-0.5)', 'unsigned integer overflow'],
    ['uint(6.022e23)', 'unsigned integer overflow'],
    ['uint(18446744073709551615.0)', 'unsigned integer overflow'],
    ["uint(double('NaN'))", 'unsigned integer overflow'],
    ["uint('')", "type conversion error from 'string' to 'uint'"],
    ["uint('+5')", "type conversion error from 'string' to 'uint'"],
    ["uint('18446744073709551616')", "type conversion error from 'string' to 'uint'"],
  ])('%s: %s', (expr, message) => {
    expect(() => run(expr)).toThrow(message);
  });

  it('dispatches a dyn argument at run time', () => {
    expect(run('int(x)', new Uint(5n))).toBe(5n);
    expect(run('int(x)', 2.5)).toBe(2n);
    expect(run('int(x)', '12')).toBe(12n);
  });
});

describe("their estimated cost, kube's", () => {
  it.each([
    // Calls cost 1 plus their arguments, '+' 1 plus its operands: (1 + 1) + (1 + 1) + 1.
    ["duration('1h').getHours() + int(timestamp(0))", 5n],
    ["string(timestamp('2009-02-13T23:31:30Z')).size()", 3n],
  ])('%s costs %s', (expr, max) => {
    expect(estimateCost(compiled(expr), new KubeCostEstimator(), KUBE_COST_OPTIONS).max).toBe(max);
  });
});

it('keeps a timestamp exact to the nanosecond', () => {
  expect(run("timestamp('2009-02-13T23:31:30.000000001Z')")).toEqual(new Timestamp(1234567890n * NS + 1n));
});
