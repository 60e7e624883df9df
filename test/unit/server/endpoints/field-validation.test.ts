import { describe, expect, it } from 'vitest';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { badRequest } from '../../../../apimachinery/errors.js';
import { type FieldValidation, addWarning, strictDecoding } from '../../../../server/endpoints/field-validation.js';

describe('strictDecoding', () => {
  const run = (directive: FieldValidation, duplicates: string[], unknown: string[]) => {
    const warnings: string[] = [];
    const check = strictDecoding(
      (t) => warnings.push(t),
      directive,
      duplicates,
      (m) => badRequest(m),
    );
    let message: string | undefined;
    try {
      check(unknown);
    } catch (err) {
      message = (err as { status: { message: string } }).status.message;
    }
    return { warnings, message };
  };

  it.each([
    {
      name: 'nothing found: nothing to say',
      directive: 'Strict' as const,
      dup: [],
      unknown: [],
      want: { warnings: [], message: undefined },
    },
    {
      name: 'Strict: one error, duplicates first, joined as kube joins them',
      directive: 'Strict' as const,
      dup: ['spec.size'],
      unknown: ['spec.sise', 'spec.x'],
      want: {
        warnings: [],
        message:
          'strict decoding error: duplicate field "spec.size", unknown field "spec.sise", unknown field "spec.x"',
      },
    },
    {
      name: 'Warn: one warning each',
      directive: 'Warn' as const,
      dup: ['a'],
      unknown: ['b'],
      want: { warnings: ['duplicate field "a"', 'unknown field "b"'], message: undefined },
    },
    {
      name: 'Ignore: silence',
      directive: 'Ignore' as const,
      dup: ['a'],
      unknown: ['b'],
      want: { warnings: [], message: undefined },
    },
  ])('$name', ({ directive, dup, unknown, want }) => {
    expect(run(directive, dup, unknown)).toEqual(want);
  });
});

describe('addWarning', () => {
  const response = (): ServerResponse => new ServerResponse(new IncomingMessage(new Socket()));
  const headers = (res: ServerResponse): string[] => {
    const h = res.getHeader('Warning');
    return (Array.isArray(h) ? h : h === undefined ? [] : [String(h)]).map((v) =>
      Buffer.from(v, 'latin1').toString('utf8'),
    );
  };

  it('writes each text once, Go-quoted, as UTF-8 bytes', () => {
    const res = response();
    addWarning(res, 'unknown field "spec.é"');
    addWarning(res, 'unknown field "spec.é"');
    addWarning(res, 'dépassé 世界');
    expect(headers(res)).toEqual(['299 - "unknown field \\"spec.é\\""', '299 - "dépassé 世界"']);
  });

  it('sends a lone surrogate as U+FFFD instead of failing the response', () => {
    const res = response();
    addWarning(res, 'unknown field "\ud800"');
    expect(headers(res)).toEqual(['299 - "unknown field \\"\ufffd\\""']);
  });

  it('past 4,096 runes in all, cuts every warning to 256 runes and stops adding at the limit (kube warning.go)', () => {
    const res = response();
    addWarning(res, 'a'.repeat(300));
    addWarning(res, 'b'.repeat(5000));
    for (let i = 0; i < 40; i++) addWarning(res, `${i}`.padEnd(300, 'c'));
    const all = headers(res);
    expect(all[0]).toBe(`299 - "${'a'.repeat(256)}"`);
    expect(all[1]).toBe(`299 - "${'b'.repeat(256)}"`);
    expect(all.length).toBe(16); // 16 × 256 runes = 4,096: the next ones are dropped
    expect(all.every((h) => h.length <= 256 + 8)).toBe(true);
  });
});
