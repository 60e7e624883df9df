// Our CEL layer builds on no library's internals: a file under cel/ may import a package only
// through an entry point the package declares (its name, or a subpath its package.json
// `exports` lists), never a file path inside it (`pkg/dist/...`, `pkg/lib/internal.js`) and
// never node_modules by a relative path. The engine cel/ replaces was read through its
// internals and patched at runtime; this keeps that from coming back.
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/server-process.js';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The package's declared `exports` keys ('.' and subpaths), or undefined when it declares none. */
export type ExportsOf = (pkg: string) => readonly string[] | undefined;

export function packageExports(pkg: string): readonly string[] | undefined {
  try {
    const json = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      exports?: unknown;
    };
    const e = json.exports;
    if (e === undefined || typeof e === 'string' || Array.isArray(e)) return e === undefined ? undefined : ['.'];
    const keys = Object.keys(e as object);
    return keys.some((k) => k.startsWith('.')) ? keys : ['.'];
  } catch {
    return undefined;
  }
}

const isBuiltin = (s: string): boolean => s.startsWith('node:') || builtinModules.includes(s.split('/')[0]!);

/** Does a declared export (possibly a `*` pattern) cover this subpath? */
function declared(exportsKeys: readonly string[], subpath: string): boolean {
  return exportsKeys.some((k) => {
    if (k === subpath) return true;
    const star = k.indexOf('*');
    return star >= 0 && subpath.startsWith(k.slice(0, star)) && subpath.endsWith(k.slice(star + 1));
  });
}

/** The imports of one source text that reach past a package's public entry points. */
export function entryPointViolations(file: string, text: string, exportsOf: ExportsOf = packageExports): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1]!;
    const line = text.slice(0, m.index).split('\n').length;
    const where = `${file}:${line} imports ${spec}`;
    if (spec.startsWith('.')) {
      if (spec.split('/').includes('node_modules')) out.push(`${where} (a package's files by path)`);
      continue;
    }
    if (isBuiltin(spec)) continue;
    const parts = spec.split('/');
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    const rest = parts.slice(spec.startsWith('@') ? 2 : 1);
    if (rest.length === 0) continue;
    const keys = exportsOf(name);
    if (keys === undefined || !declared(keys, `./${rest.join('/')}`))
      out.push(`${where} (not an entry point ${name} declares)`);
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('CEL uses packages only through their public entry points', () => {
  it.each(['cel', 'crd/cel', 'admission/cel'])('every file under %s/', (dir) => {
    const found = sources(join(REPO_ROOT, dir)).flatMap((f) =>
      entryPointViolations(relative(REPO_ROOT, f), readFileSync(f, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  const fakeExports: ExportsOf = (pkg) =>
    ({ re2js: ['.'], '@bufbuild/cel-spec': ['.', './testdata/*.js'], 'some-lib': ['.', './evaluator'] })[pkg];

  it.each([
    ["import { RE2JS } from 're2js';", 0],
    ["import { readFileSync } from 'node:fs';", 0],
    ["import path from 'path';", 0],
    ["import { x } from '../apimachinery/json.js';", 0],
    ["import { Environment } from 'some-lib/evaluator';", 0],
    ["const t = require('@bufbuild/cel-spec/testdata/parsing.js');", 0],
    ["import { x } from 're2js/build/index.js';", 1],
    ["import { Parser } from 'some-lib/lib/parser.js';", 1],
    ["const p = await import('some-lib/dist/parser.js');", 1],
    ["import { x } from '../node_modules/re2js/build/index.js';", 1],
    ["import 'unknown-pkg/internal/thing.js';", 1],
    ["import { a } from 're2js';\nimport { b } from 're2js/src/b.js';", 1],
  ])('%j: %i violation(s)', (text, want) => {
    expect(entryPointViolations('cel/x.ts', text, fakeExports)).toHaveLength(want);
  });
});
