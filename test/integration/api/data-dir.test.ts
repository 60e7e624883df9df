// The data dir holds every object (state.db), the CA key, the admin token and its kubeconfig: it
// and pki/ are created 0700 and every file in them 0600, whatever the umask; a data dir an earlier
// version left looser is tightened at start, with one warning.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServerHandle, createLogger, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'mini-apiserver-modes-'));
  roots.push(root);
  return root;
}

/** Every path in the data dir and pki/, with its permission bits. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': (statSync(dir).mode & 0o777).toString(8) };
  for (const name of readdirSync(dir)) {
    out[name] = (statSync(join(dir, name)).mode & 0o777).toString(8);
    if (name === 'pki')
      for (const f of readdirSync(join(dir, name)))
        out[`pki/${f}`] = (statSync(join(dir, name, f)).mode & 0o777).toString(8);
  }
  return out;
}

/** Starts a server on `dataDir` with the process umask at 000, then writes through it. */
async function startUnderUmask0(dataDir: string, lines: string[] = []): Promise<ServerHandle> {
  const previous = process.umask(0);
  let s: ServerHandle;
  try {
    s = await startServer({ dataDir, logger: createLogger({ level: 'warn', write: (l) => lines.push(l) }) });
  } finally {
    process.umask(previous);
  }
  // A write, so that SQLite's write-ahead log exists too.
  const r = await apiClient(s)('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'modes' } },
  });
  expect(r.status, r.text).toBe(201);
  return s;
}

describe('data dir permissions', () => {
  it('a fresh data dir and all it holds are the owner’s only, under umask 000', async () => {
    const dataDir = join(tempRoot(), 'data');
    const s = await startUnderUmask0(dataDir);
    try {
      const got = modes(dataDir);
      expect(Object.keys(got).sort()).toEqual(
        [
          '.',
          'admin.kubeconfig',
          'pki',
          'pki/apiserver.crt',
          'pki/apiserver.key',
          'pki/ca.crt',
          'pki/ca.key',
          'pki/sa.key',
          'state.db',
          'state.db-wal',
          'tokens.csv',
        ].sort(),
      );
      for (const [path, mode] of Object.entries(got))
        expect(`${path} ${mode}`).toBe(`${path} ${path === '.' || path === 'pki' ? '700' : '600'}`);
    } finally {
      await s.close();
    }
  });

  it('an existing looser data dir is tightened at start, and that is logged once', async () => {
    const dataDir = join(tempRoot(), 'data');
    mkdirSync(join(dataDir, 'pki'), { recursive: true });
    writeFileSync(join(dataDir, 'tokens.csv'), 'looser-token,admin,admin-uid,system:masters\n');
    for (const [path, mode] of [
      ['.', 0o755],
      ['pki', 0o777],
      ['tokens.csv', 0o644],
    ] as const)
      chmodSync(join(dataDir, path), mode);
    const lines: string[] = [];
    const s = await startUnderUmask0(dataDir, lines);
    try {
      for (const [path, mode] of Object.entries(modes(dataDir)))
        expect(`${path} ${mode}`).toBe(`${path} ${path === '.' || path === 'pki' ? '700' : '600'}`);
      const warnings = lines
        .map((l) => JSON.parse(l) as { msg: string; paths?: string[] })
        .filter((l) => l.msg.startsWith('data directory was readable by others'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.paths?.sort()).toEqual([dataDir, join(dataDir, 'pki'), join(dataDir, 'tokens.csv')].sort());
    } finally {
      await s.close();
    }
  });
});
