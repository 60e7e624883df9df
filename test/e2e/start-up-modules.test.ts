// What a start loads: the binary, restarted on its data dir, serves /readyz without having loaded
// the packages only some requests need (protobufjs, yaml, ws, re2js, prom-client, jsonpath-plus, jose:
// apimachinery/lazy-require.ts and the jose import in server/authn). A static import of one of them would put its load back
// into every start; this test names the package that came back. The loads are recorded by a
// preloaded hook on both of Node's loaders (CommonJS require and ES module resolution).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, request, startServerProcess } from '../helpers/server-process.js';
import { loadLog } from '../helpers/load-log.js';

const LAZY = ['protobufjs', 'yaml', 'ws', 're2js', 'prom-client', 'jsonpath-plus', 'jose'];

const scratch = mkdtempSync(join(tmpdir(), 'start-up-modules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a restart of the binary', () => {
  it('is ready without loading protobufjs, yaml, ws, re2js, prom-client, jsonpath-plus or jose', async () => {
    const dataDir = join(scratch, 'data');
    const first = await startServerProcess({ dataDir });
    await first.stop();

    const { hook, log, read } = loadLog(scratch);
    const child = spawn(process.execPath, ['--require', hook, BIN, '--data-dir', dataDir, '--secure-port', '0'], {
      env: { ...process.env, LOAD_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /serving on (https:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
      });
      let ready = 0;
      for (let i = 0; i < 200 && ready !== 200; i++) {
        ready = (await request(`${url}/readyz`, { ca: first.ca }).catch(() => ({ status: 0 }))).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 25));
      }
      expect(ready).toBe(200);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    // The hook sees the start's own loads (the SQLite addon, whose JavaScript is in the bundle): it works.
    const loaded = read();
    expect([...loaded].some((p) => p.endsWith('better_sqlite3.node'))).toBe(true);
    expect(LAZY.filter((p) => loaded.has(p))).toEqual([]);
  }, 60_000);

  it("replaces a code cache V8 refuses with the bundle's own, and starts all the same", async () => {
    // bin/mini-apiserver's cache: a line naming the bundle (size, mtime), then V8's data.
    const bundle = join(REPO_ROOT, 'dist', 'bin', 'main.cjs');
    const cache = `${bundle}.cache`;
    const st = statSync(bundle);
    const key = `${st.size} ${st.mtimeMs}\n`;
    writeFileSync(cache, `${key}not V8's code cache`);
    const server = await startServerProcess({ dataDir: join(scratch, 'refused') });
    expect((await request(`${server.url}/readyz`, { ca: server.ca })).status).toBe(200);
    await server.stop();
    const written = readFileSync(cache);
    expect(written.subarray(0, key.length).toString()).toBe(key);
    expect(written.length).toBeGreaterThan(100_000);
  }, 60_000);
});
