import { describe, expect, it } from 'vitest';
import { parseValidateArgs } from '../../../../server/validate/command.js';

describe('parseValidateArgs', () => {
  it.each([
    [['-f', 'a.yaml'], { files: ['a.yaml'], old: [], output: undefined }],
    [
      ['-f=a.yaml', '--filename', 'b.yaml', '--filename=c.yaml', '-fd.yaml'],
      { files: ['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml'], old: [], output: undefined },
    ],
    [['-f', '-', '--old', 'o.yaml', '--old=p.yaml'], { files: ['-'], old: ['o.yaml', 'p.yaml'], output: undefined }],
    [['-f', 'a', '-o', 'yaml'], { files: ['a'], old: [], output: 'yaml' }],
    [['-f', 'a', '--output=json'], { files: ['a'], old: [], output: 'json' }],
    [['-ojson', '-f', 'a'], { files: ['a'], old: [], output: 'json' }],
  ])('%j', (argv, args) => {
    expect(parseValidateArgs(argv)).toEqual({ args });
  });

  it.each([
    [[], 'no objects: give -f FILE (or -f - for stdin)'],
    [['--old', 'o'], 'no objects: give -f FILE (or -f - for stdin)'],
    [['-f'], 'flag needs an argument: -f'],
    [['-f', 'a', '--old'], 'flag needs an argument: --old'],
    [['-f', 'a', '-o', 'wide'], 'unsupported output format "wide": json or yaml'],
    [['-f', 'a', '--force'], 'unknown flag: --force'],
    [['-f', 'a', 'b.yaml'], 'unexpected argument "b.yaml"'],
    [['-f', '-', '--old', '-'], 'stdin (-) can be read only once'],
  ])('%j: %s', (argv, error) => {
    expect(parseValidateArgs(argv)).toEqual({ error });
  });

  it.each([[['-h']], [['-f', 'a', '--help']]])('%j: help', (argv) => {
    expect(parseValidateArgs(argv)).toEqual({ help: true });
  });
});
