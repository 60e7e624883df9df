// The layers of ARCHITECTURE.md, enforced: imports go downwards only. A relative import whose
// target lies in a layer the importing file's layer may not use fails here, naming file, line and
// rule; so does one inside server/ that goes up server/'s own order. Our own small checker rather
// than dependency-cruiser: the rules are a table of folders and a list, and reading `from '...'`
// specifiers is all it takes.
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

/**
 * server/ inside, bottom first: each of its folders and root files may import only those before
 * it (and itself). The root files come last: they assemble the server from the folders, and no
 * folder imports them back.
 */
export const SERVER_ORDER: readonly string[] = [
  'registry',
  'controllers',
  'codecs',
  'startup',
  'request',
  'client',
  'audit',
  'authz',
  'authn',
  'identity',
  'pipeline',
  'metrics',
  'endpoints',
  'validate',
  'dynamic-admission',
  'version.ts',
  'health.ts',
  'kubeconfig.ts',
  'metrics.ts',
  'pki.ts',
  'shared-identity.ts',
  'provision.ts',
  'testing',
  'options.ts',
  'flags.ts',
  'api.ts',
  'serve.ts',
  'index.ts',
  'migrate-storage.ts',
  'rotate-service-account-key.ts',
  'main.ts',
];

const repoPath = (file: string): string => relative(REPO_ROOT, file).split(sep).join('/');

export function layerOf(file: string): string | undefined {
  const rel = repoPath(file);
  return layerNames.find((l) => rel === l || rel.startsWith(`${l}/`));
}

/**
 * The folder (`authz`) or root file (`serve.ts`) of server/ that holds a file, named by its source
 * or, as imports name it, by its output (`serve.js`); undefined outside server/.
 */
export function serverPartOf(file: string): string | undefined {
  const rel = repoPath(file);
  return rel.startsWith('server/') ? rel.slice('server/'.length).split('/')[0]!.replace(/\.js$/, '.ts') : undefined;
}

/** Why an import from one part of server/ to another breaks SERVER_ORDER; undefined when it does not. */
function serverOrderRule(from: string, to: string): string | undefined {
  const rank = SERVER_ORDER.indexOf(from);
  if (rank < 0) return `server/${from} has no place in SERVER_ORDER`;
  const target = SERVER_ORDER.indexOf(to);
  if (target < 0) return `server/${to} has no place in SERVER_ORDER`;
  if (target <= rank) return undefined;
  const below = SERVER_ORDER.slice(0, rank);
  return `server/${from} may import ${below.length > 0 ? below.map((p) => `server/${p}`).join(', ') : 'nothing else of server/'}`;
}

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

export interface Violation {
  file: string;
  line: number;
  target: string;
  rule: string;
}

/** The rule an import from `file` to `target` breaks: first the layers, then server/'s order. */
function brokenRule(file: string, target: string): string | undefined {
  const from = layerOf(file);
  const to = layerOf(target);
  if (!from || !to) return undefined;
  if (to !== from && !LAYERS[from]!.includes(to))
    return `${from} may import ${LAYERS[from]!.join(', ') || 'nothing of ours'}`;
  const fromPart = serverPartOf(file);
  const toPart = serverPartOf(target);
  if (!fromPart || !toPart || fromPart === toPart) return undefined;
  return serverOrderRule(fromPart, toPart);
}

/** The forbidden relative imports of one source text. */
export function violations(file: string, text: string): Violation[] {
  const out: Violation[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), m[1]!);
    const rule = brokenRule(file, target);
    if (!rule) continue;
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ file: relative(REPO_ROOT, file), line, target: relative(REPO_ROOT, target), rule });
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

  it('SERVER_ORDER places every folder and root file of server/, and nothing else', () => {
    const parts = readdirSync(join(REPO_ROOT, 'server'), { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => e.name);
    expect([...SERVER_ORDER].sort()).toEqual(parts.sort());
  });

  it.each([
    ['apimachinery/errors.ts', "import { x } from '../server/log.js';", 1],
    ['storage/compactor.ts', "import type { Logger } from '../server/log.js';", 1],
    ['storage/compactor.ts', "import type { Logger } from '../apimachinery/log.js';", 0],
    ['crd/cel/eval.ts', "import { Store } from '../../server/registry/store.js';", 1],
    ['server/registry/store.ts', "import { serveResource } from '../endpoints/rest/resource.js';", 1],
    [
      'server/registry/store.ts',
      "import { x } from '../../crd/cel/eval.js';\nimport { y } from './object-meta-ops.js';",
      0,
    ],
    ['admission/namespace-lifecycle.ts', "import type { Store } from '../server/registry/store.js';", 1],
    ['server/endpoints/rest/read.ts', "import type { Store } from '../registry/store.js';", 0],
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
    ['server/pipeline/access.ts', "import { forbiddenError } from '../authz/authorizer.js';", 0],
    ['server/authz/authorizer.ts', "import { authenticate } from '../pipeline/access.js';", 1],
    ['server/authz/authorizer.ts', "import type { RequestInfo } from '../request/request-info.js';", 0],
    ['server/endpoints/watch/registry.ts', "import { DEFAULT_SERVING_LIMITS } from '../../options.js';", 1],
    ['server/options.ts', "import { DEFAULT_INFLIGHT_LIMITS } from './pipeline/max-inflight.js';", 0],
    ['server/pki.ts', "import { startServer } from './index.js';", 1],
    ['server/index.ts', "import { generatePki } from './pki.js';", 0],
    ['server/codecs/protobuf.ts', "import { DecoderError } from './decode-error.js';", 0],
    ['server/codecs/yaml-encode.ts', "import { readBody } from '../endpoints/body.js';", 1],
    ['server/controllers/crd-controller.ts', "import { Informer } from '../registry/informer.js';", 0],
    ['server/registry/store.ts', "import { encodeYaml } from '../codecs/yaml-encode.js';", 1],
    ['server/endpoints/rest/read.ts', "import { x } from '../../unplaced/x.js';", 1],
  ])('%s with %j: %i violation(s)', (file, text, want) => {
    expect(violations(join(REPO_ROOT, file), text)).toHaveLength(want);
  });
});
