import { describe, expect, it } from 'vitest';
import { aggregateErrors } from '../../../apimachinery/errors.js';

describe('aggregateErrors (utilerrors.NewAggregate(...).Error())', () => {
  it.each<[string[], string]>([
    [[], ''],
    [['a'], 'a'],
    [['a', 'a'], 'a'],
    [['a', 'b'], '[a, b]'],
    [['a', 'b', 'a'], '[a, b]'],
  ])('%j', (errs, want) => {
    expect(aggregateErrors(errs)).toBe(want);
  });
});
