import { describe, expect, it } from 'vitest';
import { badRequest } from '../../../../server/errors.js';
import { type FieldValidation, parseFieldValidation, strictDecoding } from '../../../../server/endpoints/field-validation.js';
import { apiError } from '../../../helpers/api-error.js';

describe('parseFieldValidation', () => {
  it.each([
    ['', 'Warn'],
    ['fieldValidation=Strict', 'Strict'],
    ['fieldValidation=Warn', 'Warn'],
    ['fieldValidation=Ignore', 'Ignore'],
  ])('%j is %s', (query, want) => {
    expect(parseFieldValidation(new URLSearchParams(query), 'CreateOptions')).toBe(want);
  });

  it('refuses anything else as kube: 422 on the options kind', () => {
    const err = apiError(() => parseFieldValidation(new URLSearchParams('fieldValidation=strict'), 'PatchOptions'));
    expect([err.code, err.status.message]).toEqual([422, 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Warn", "Strict"']);
  });
});

describe('strictDecoding', () => {
  const run = (directive: FieldValidation, duplicates: string[], unknown: string[]) => {
    const warnings: string[] = [];
    const check = strictDecoding((t) => warnings.push(t), directive, duplicates, (m) => badRequest(m));
    let message: string | undefined;
    try {
      check(unknown);
    } catch (err) {
      message = (err as { status: { message: string } }).status.message;
    }
    return { warnings, message };
  };

  it.each([
    { name: 'nothing found: nothing to say', directive: 'Strict' as const, dup: [], unknown: [], want: { warnings: [], message: undefined } },
    {
      name: 'Strict: one error, duplicates first, joined as kube joins them',
      directive: 'Strict' as const,
      dup: ['spec.size'],
      unknown: ['spec.sise', 'spec.x'],
      want: { warnings: [], message: 'strict decoding error: duplicate field "spec.size", unknown field "spec.sise", unknown field "spec.x"' },
    },
    { name: 'Warn: one warning each', directive: 'Warn' as const, dup: ['a'], unknown: ['b'], want: { warnings: ['duplicate field "a"', 'unknown field "b"'], message: undefined } },
    { name: 'Ignore: silence', directive: 'Ignore' as const, dup: ['a'], unknown: ['b'], want: { warnings: [], message: undefined } },
  ])('$name', ({ directive, dup, unknown, want }) => {
    expect(run(directive, dup, unknown)).toEqual(want);
  });
});
