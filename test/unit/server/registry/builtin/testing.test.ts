// testing.mini-apiserver.io's rules beyond its schemas: one action (or a delay) per Fault, Go
// durations, kube's verbs; the one Clock and the field each mode needs; and the helpers both the
// server and the typed client read times with.
import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../../../../../apimachinery/apis/testing.js';
import { type FieldError, formatFieldError } from '../../../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import {
  faultActionText,
  goDurationMs,
  rfc3339Micros,
  validateClock,
  validateFaultSpec,
} from '../../../../../server/registry/builtin/testing.js';
import { clockSetting } from '../../../../../server/testing/clock.js';

const texts = (errs: FieldError[]): string[] => errs.map(formatFieldError);

describe('validateFaultSpec', () => {
  it.each<[string, FaultSpec, string[]]>([
    ['an action', { action: { error: { code: 409 } } }, []],
    ['a delay alone', { delay: '250ms' }, []],
    ['a delay and an action', { delay: '1s', action: { resetConnection: {} } }, []],
    [
      'neither',
      { count: 1 },
      [
        'spec.action: Required value: an action (one of error, errorAfterCommit, resetConnection, endWatch, expireHistory) or a delay is required',
      ],
    ],
    [
      'two actions',
      { action: { error: { code: 500 }, endWatch: { afterEvents: 0 } } },
      [
        'spec.action: Forbidden: may not set more than one of error, errorAfterCommit, resetConnection, endWatch, expireHistory: error, endWatch are set',
      ],
    ],
    [
      'a delay that is not a Go duration',
      { delay: '2 seconds' },
      ['spec.delay: Invalid value: "2 seconds": time: unknown unit " seconds" in duration "2 seconds"'],
    ],
    ['a negative delay', { delay: '-1s' }, ['spec.delay: Invalid value: "-1s": must not be negative']],
    [
      'a verb kube does not have',
      { action: { resetConnection: {} }, match: { verbs: ['get', 'post'] } },
      [
        'spec.match.verbs[1]: Unsupported value: "post": supported values: "*", "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"',
      ],
    ],
  ])('%s', (_name, spec, want) => {
    expect(texts(validateFaultSpec(spec))).toEqual(want);
  });
});

const clockObj = (name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'testing.mini-apiserver.io/v1alpha1', kind: 'Clock', metadata: { name }, spec }) as KubeObject;

describe('validateClock', () => {
  it.each<[string, KubeObject, string[]]>([
    ['real', clockObj('cluster', { mode: 'Real' }), []],
    ['frozen at a time', clockObj('cluster', { mode: 'Frozen', time: '2030-01-01T00:00:00Z' }), []],
    ['offset', clockObj('cluster', { mode: 'Offset', offset: '-90m' }), []],
    [
      'another name',
      clockObj('mine', { mode: 'Real' }),
      ['metadata.name: Unsupported value: "mine": supported values: "cluster"'],
    ],
    [
      'frozen without a time',
      clockObj('cluster', { mode: 'Frozen' }),
      ['spec.time: Required value: a Frozen clock needs the time it shows'],
    ],
    [
      'a time on a real clock',
      clockObj('cluster', { mode: 'Real', time: '2030-01-01T00:00:00Z' }),
      ['spec.time: Forbidden: only a Frozen clock has a time'],
    ],
    [
      'offset without one',
      clockObj('cluster', { mode: 'Offset' }),
      ['spec.offset: Required value: an Offset clock needs its offset'],
    ],
    [
      'an offset that is not a Go duration',
      clockObj('cluster', { mode: 'Offset', offset: '1 hour' }),
      ['spec.offset: Invalid value: "1 hour": time: unknown unit " hour" in duration "1 hour"'],
    ],
    [
      'an offset on a frozen clock',
      clockObj('cluster', { mode: 'Frozen', time: '2030-01-01T00:00:00Z', offset: '1h' }),
      ['spec.offset: Forbidden: only an Offset clock has an offset'],
    ],
  ])('%s', (_name, obj, want) => {
    expect(texts(validateClock(obj))).toEqual(want);
  });
});

describe('goDurationMs', () => {
  it.each<[string, number | string]>([
    ['1h30m', 5_400_000],
    ['-1.5s', -1500],
    ['250ms', 250],
    ['1us', 0.001],
    ['0', 0],
    ['5', 'time: missing unit in duration "5"'],
  ])('%s', (text, want) => {
    expect(goDurationMs(text)).toBe(want);
  });
});

describe('rfc3339Micros', () => {
  const base = Date.UTC(2030, 0, 2, 3, 4, 5) * 1000;
  it.each<[string, number | undefined]>([
    ['2030-01-02T03:04:05Z', base],
    ['2030-01-02T03:04:05.123456Z', base + 123_456],
    ['2030-01-02T03:04:05.5Z', base + 500_000],
    ['2030-01-02T04:04:05.000001+01:00', base + 1],
    ['yesterday', undefined],
  ])('%s', (text, want) => {
    expect(rfc3339Micros(text)).toBe(want);
  });
});

describe('clockSetting', () => {
  it.each([
    [undefined, { mode: 'Real' }],
    [{ mode: 'Real' as const }, { mode: 'Real' }],
    [
      { mode: 'Frozen' as const, time: '1970-01-01T00:00:01.000002Z' },
      { mode: 'Frozen', atMicros: 1_000_002 },
    ],
    [
      { mode: 'Offset' as const, offset: '-1m' },
      { mode: 'Offset', offsetMicros: -60_000_000 },
    ],
  ])('%j', (spec, want) => {
    expect(clockSetting(spec)).toEqual(want);
  });
});

describe('faultActionText', () => {
  const fault = (spec: FaultSpec): KubeObject => ({ metadata: { name: 'f' }, spec }) as unknown as KubeObject;
  it.each<[FaultSpec, string]>([
    [{ action: { error: { code: 409 } } }, 'error 409'],
    [{ action: { errorAfterCommit: { code: 504 } } }, 'errorAfterCommit 504'],
    [{ action: { endWatch: { afterEvents: 3 } } }, 'endWatch 3'],
    [{ delay: '2s', action: { resetConnection: {} } }, 'delay 2s, resetConnection'],
    [{ delay: '2s' }, 'delay 2s'],
  ])('%j: %s', (spec, want) => {
    expect(faultActionText(fault(spec))).toBe(want);
  });
});
