// The layers of DESIGN.md, enforced: imports go downwards only. A relative import whose target
// lies in a layer the importing file's layer may not use fails here, naming file, line and rule.
// Our own small checker rather than dependency-cruiser: the rules are a table of folders, and
// reading `from '...'` specifiers is all it takes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/server-process.js';

/** Each layer (a folder, longest match wins) and the layers it may import besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  apimachinery: [],
  webhook: ['apimachinery'],
  storage: ['apimachinery'],
  cel: ['apimachinery'],
  crd: ['apimachinery', 'cel', 'webhook'],
  admission: ['apimachinery', 'cel', 'crd', 'webhook'],
  'server/registry': ['apimachinery', 'storage', 'cel', 'crd', 'webhook', 'admission'],
  server: ['apimachinery', 'storage', 'cel', 'crd', 'webhook', 'admission', 'server/registry'],
};
const layerNames = Object.keys(LAYERS).sort((a, b) => b.length - a.length);

export function layerOf(file: string): string | undefined {
  const rel = relative(REPO_ROOT, file).split(sep).join('/');
  return layerNames.find((l) => rel === l || rel.startsWith(`${l}/`));
}

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

export interface Violation {
  file: string;
  line: number;
  target: string;
  rule: string;
}

/** The forbidden relative imports of one source text. */
export function violations(file: string, text: string): Violation[] {
  const from = layerOf(file);
  if (!from) return [];
  const out: Violation[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), m[1]!);
    const to = layerOf(target);
    if (!to || to === from || LAYERS[from]!.includes(to)) continue;
    const line = text.slice(0, m.index).split('\n').length;
    out.push({
      file: relative(REPO_ROOT, file),
      line,
      target: relative(REPO_ROOT, target),
      rule: `${from} may import ${LAYERS[from]!.join(', ') || 'nothing of ours'}`,
    });
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('import directions', () => {
  it('every source file imports only downwards', () => {
    const found = ['apimachinery', 'webhook', 'storage', 'cel', 'crd', 'admission', 'server'].flatMap((d) =>
      sources(join(REPO_ROOT, d)).flatMap((f) => violations(f, readFileSync(f, 'utf8'))),
    );
    expect(found.map((v) => `${v.file}:${v.line} imports ${v.target} (${v.rule})`)).toEqual([]);
  });

  it.each([
    ['apimachinery/errors.ts', "import { x } from '../server/log.js';", 1],
    ['storage/compactor.ts', "import type { Logger } from '../server/log.js';", 1],
    ['storage/compactor.ts', "import type { Logger } from '../apimachinery/log.js';", 0],
    ['crd/cel/eval.ts', "import { Store } from '../../server/registry/store.js';", 1],
    ['server/registry/store.ts', "import { serveResource } from '../endpoints/rest.js';", 1],
    [
      'server/registry/store.ts',
      "import { x } from '../../crd/cel/eval.js';\nimport { y } from './object-meta-ops.js';",
      0,
    ],
    ['admission/namespace-lifecycle.ts', "import type { Store } from '../server/registry/store.js';", 1],
    ['server/endpoints/rest.ts', "import type { Store } from '../registry/store.js';", 0],
    ['webhook/client.ts', "import { converterFor } from '../crd/conversion.js';", 1],
    ['webhook/client.ts', "import { goQuote } from '../apimachinery/field-errors.js';", 0],
    ['crd/conversion.ts', "import { postWebhook } from '../webhook/client.js';", 0],
    ['admission/webhook/dispatch.ts', "import { postWebhook } from '../../webhook/client.js';", 0],
    ['storage/cacher.ts', "import { postWebhook } from '../webhook/client.js';", 1],
    ['cel/parser.ts', "import { goQuote } from '../apimachinery/quote.js';", 0],
    ['cel/parser.ts', "import { compileRules } from '../crd/cel/compile.js';", 1],
    ['cel/checker/types.ts', "import type { Store } from '../../server/registry/store.js';", 1],
    ['cel/parser.ts', "import { postWebhook } from '../webhook/client.js';", 1],
    ['crd/cel/compile.ts', "import { parse } from '../../cel/parser.js';", 0],
    ['admission/policy/compile.ts', "import { parse } from '../../cel/parser.js';", 0],
    ['storage/cacher.ts', "import { parse } from '../cel/parser.js';", 1],
    ['webhook/client.ts', "import { parse } from '../cel/parser.js';", 1],
  ])('%s with %j: %i violation(s)', (file, text, want) => {
    expect(violations(join(REPO_ROOT, file), text)).toHaveLength(want);
  });
});
