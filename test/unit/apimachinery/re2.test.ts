import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../../apimachinery/re2.js';

describe('compilePattern', () => {
  it('compiles a pattern once, however often schemas repeat it', () => {
    const first = compilePattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$');
    expect(first.re?.matcher('my-name').find()).toBe(true);
    expect(compilePattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')).toBe(first);
  });

  it("gives RE2JS's message for a pattern that does not compile, the same each time", () => {
    const bad = compilePattern('a(b');
    expect(bad.re).toBeUndefined();
    expect(bad.error).toBe('error parsing regexp: missing closing ): `a(b`');
    expect(compilePattern('a(b')).toBe(bad);
  });

  it('keeps a bounded number of patterns, dropping the oldest', () => {
    const oldest = compilePattern('^oldest$');
    for (let i = 0; i < 1024; i++) compilePattern(`^p${i}$`);
    const again = compilePattern('^oldest$');
    expect(again).not.toBe(oldest);
    expect(again.re?.matcher('oldest').find()).toBe(true);
  });
});
