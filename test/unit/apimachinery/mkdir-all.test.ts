// mkdirAll: Go's os.MkdirAll, which ends with Node's own error where Node's recursive mkdir spins
// (a parent that exists but refuses children with ENOENT: /proc, a dangling symlink).
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirAll } from '../../../apimachinery/mkdir-all.js';

const scratch = mkdtempSync(join(tmpdir(), 'mkdir-all-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('mkdirAll', () => {
  it('makes every missing directory with the mode, and accepts one that exists', () => {
    const deep = join(scratch, 'a', 'b', 'c');
    mkdirAll(deep, 0o700);
    for (const d of [join(scratch, 'a'), join(scratch, 'a', 'b'), deep]) {
      expect(statSync(d).isDirectory()).toBe(true);
      expect(statSync(d).mode & 0o077).toBe(0);
    }
    expect(() => mkdirAll(deep, 0o700)).not.toThrow();
    expect(() => mkdirAll(scratch, 0o700)).not.toThrow();
  });

  it.each([
    ['a parent that refuses children (procfs)', () => '/proc/mini-apiserver-nope/x', 'ENOENT'],
    [
      'a dangling symlink as a parent',
      () => {
        const link = join(scratch, 'dangling');
        symlinkSync(join(scratch, 'no-such-target'), link);
        return join(link, 'x');
      },
      'ENOENT',
    ],
    [
      'a file as a parent',
      () => {
        writeFileSync(join(scratch, 'file'), '');
        return join(scratch, 'file', 'x');
      },
      'ENOTDIR',
    ],
    [
      'a file at the path itself',
      () => {
        writeFileSync(join(scratch, 'file2'), '');
        return join(scratch, 'file2');
      },
      'EEXIST',
    ],
  ])("%s: ends with Node's error", (_name, path, code) => {
    expect(() => mkdirAll(path(), 0o700)).toThrow(expect.objectContaining({ code }));
  });
});
