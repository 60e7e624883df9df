import { describe, expect, it } from 'vitest';
import { goQuote } from '../../../apimachinery/quote.js';

describe('goQuote', () => {
  it.each([
    ['', '""'],
    ['metadata.f0', '"metadata.f0"'],
    [" !#$%&'()*+,-./:;<=>?@[]^_`{|}~", '" !#$%&\'()*+,-./:;<=>?@[]^_`{|}~"'],
    ['a"b', '"a\\"b"'],
    ['a\\b', '"a\\\\b"'],
    ['tab\there\n', '"tab\\there\\n"'],
    ['\x00\x1f\x7f', '"\\x00\\x1f\\x7f"'],
    ['é☃', '"é☃"'],
    ['\u00a0', '"\\u00a0"'],
    ['\u{1F600}', '"\u{1F600}"'],
    ['\u{E0001}', '"\\U000e0001"'],
    ['\ud800x', '"\ufffdx"'],
  ])('%j as strconv.Quote writes it', (s, quoted) => {
    expect(goQuote(s)).toBe(quoted);
  });
});
