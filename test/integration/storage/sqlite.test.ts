// What only the embedded SQLite backend promises: one process per data file, an in-memory mode,
// and the revision log's layout on disk (WAL, compaction, the same-revision guard).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../../../storage/errors.js';
import { SqliteStorage } from '../../../storage/sqlite.js';
import { builtModule, recordWatch } from '../../helpers/backends.js';
import { createSqliteFixture } from '../../helpers/sqlite-fixture.js';

type Fixture = Awaited<ReturnType<typeof createSqliteFixture>>;

let fixture: Fixture;
beforeEach(async () => {
  fixture = await createSqliteFixture();
});
afterEach(async () => {
  await fixture.teardown();
});

/** Opens the file in a child process; resolves with its first line: 'ready' or 'refused: <message>'. */
async function openInChild(file: string): Promise<{ child: ChildProcess; line: string }> {
  const code = `
    const [mod, file] = process.argv.slice(1);
    const { SqliteStorage } = await import(mod);
    try {
      const store = SqliteStorage.open(file);
      await store.create('/held-by-child', 'yes');
      console.log('ready');
      setInterval(() => {}, 60_000);
    } catch (err) {
      console.log('refused: ' + err.message);
      process.exit(3);
    }`;
  const mod = pathToFileURL(builtModule('storage/sqlite.ts')).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, mod, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8');
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (status) => reject(new Error(`child exited (${status}) before answering: ${out}`)));
  });
  return { child, line };
}

describe('sqlite: one process per data file', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('refuses a second process with one clear line, and frees the file when the holder is killed', async () => {
    const holder = await openInChild(fixture.file);
    children.push(holder.child);
    expect(holder.line).toBe('ready');

    expect(() => SqliteStorage.open(fixture.file)).toThrow(
      new Error(`data directory is in use by another process: ${fixture.file}`),
    );

    holder.child.kill('SIGKILL');
    await once(holder.child, 'exit');
    const store = await fixture.open();
    expect((await store.get('/held-by-child'))?.value).toBe('yes');

    const second = await openInChild(fixture.file);
    children.push(second.child);
    expect(second.line).toBe(`refused: data directory is in use by another process: ${fixture.file}`);
  });

  it('refuses a second opener in the same process until the first closes', async () => {
    const store = await fixture.open();
    expect(() => SqliteStorage.open(fixture.file)).toThrow(/data directory is in use by another process/);
    await store.close();
    const again = SqliteStorage.open(fixture.file);
    await again.close();
  });
});

describe('sqlite: storage modes and edges', () => {
  it("works in ':memory:'", async () => {
    const store = SqliteStorage.open(':memory:');
    const rec = recordWatch(store, '/m/', 0);
    const a = await store.create('/m/a', '1');
    const a2 = await store.update('/m/a', '2', a.modRevision);
    expect((await store.range('/m/')).kvs).toEqual([a2]);
    await rec.until(() => rec.events.length === 2, 'two events');
    expect(rec.events.map((e) => e.type)).toEqual(['create', 'update']);
    await store.compact(a2.modRevision);
    const err: unknown = await store.get('/m/a', { revision: a.modRevision }).catch((e: unknown) => e);
    expect(isStorageError(err, 'Compacted')).toBe(true);
    rec.close();
    await store.close();
  });

  it('fails reads and compactions at a future revision; compacting backwards is a no-op', async () => {
    const store = await fixture.open();
    const a = await store.create('/a', '1');
    await expect(store.get('/a', { revision: a.modRevision + 1 })).rejects.toThrow(/future revision/);
    await expect(store.range('/', { revision: a.modRevision + 1 })).rejects.toThrow(/future revision/);
    await expect(store.compact(a.modRevision + 1)).rejects.toThrow(/current revision/);
    await store.compact(a.modRevision);
    await store.compact(a.modRevision - 1);
    expect(await store.compactedRevision()).toBe(a.modRevision);
  });

  it('ends watches with Unavailable when the store closes, and refuses new ones', async () => {
    const store = await fixture.open();
    const rec = recordWatch(store, '/', 0);
    await store.create('/a', '1');
    await store.close();
    await rec.until(() => rec.errors.length === 1, 'the error');
    expect(rec.events).toHaveLength(1);
    expect(isStorageError(rec.errors[0], 'Unavailable')).toBe(true);

    const late = recordWatch(store, '/', 0);
    await late.until(() => late.errors.length === 1, 'the error of a watch opened after close');
    expect(isStorageError(late.errors[0], 'Unavailable')).toBe(true);
  });
});

describe('sqlite: the revision log on disk', () => {
  it('is a WAL-mode log whose compaction keeps only what reads and watches at or after it need', async () => {
    const store = await fixture.open();
    const a1 = await store.create('/a', '1'); // superseded by a2: removed
    const a2 = await store.update('/a', '2', a1.modRevision); // the latest at the compact revision: kept
    const b1 = await store.create('/b', '1'); // superseded by its delete: removed
    const bDel = await store.delete('/b'); // a delete marker below the compact revision: removed
    const c1 = await store.create('/c', '1');
    const cDel = await store.delete('/c'); // the delete marker at the compact revision: kept
    const a3 = await store.update('/a', '3', a2.modRevision); // after the compact revision: kept
    await store.compact(cDel.modRevision);

    // The marker at the compact revision lets a watch start exactly there.
    const rec = recordWatch(store, '/', cDel.modRevision - 1);
    await rec.until(() => rec.events.length === 2, 'the two newest events');
    expect(rec.events).toEqual([
      { type: 'delete', kv: cDel, prevKv: c1 },
      { type: 'update', kv: a3, prevKv: a2 },
    ]);
    rec.close();
    await store.close();

    const db = new Database(fixture.file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const ids = db
        .prepare<[], { id: number }>('SELECT id FROM log ORDER BY id')
        .all()
        .map((r) => r.id);
      expect(ids).toEqual([a2.modRevision, cDel.modRevision, a3.modRevision]);
      expect([a1, b1, bDel].map((kv) => ids.includes(kv.modRevision))).toEqual([false, false, false]);
    } finally {
      db.close();
    }
  });

  it('refuses two rows from the same revision of a key (the UNIQUE(name, prev_revision) guard)', async () => {
    const store = await fixture.open();
    const a = await store.create('/a', '1');
    await store.update('/a', '2', a.modRevision);
    await store.close();

    const db = new Database(fixture.file);
    try {
      const racingUpdate = db.prepare(
        `INSERT INTO log (name, created, deleted, create_revision, prev_revision, value, old_value)
         VALUES ('/a', 0, 0, ?, ?, 'lost', '1')`,
      );
      expect(() => racingUpdate.run(a.modRevision, a.modRevision)).toThrow(/UNIQUE constraint failed/);
    } finally {
      db.close();
    }
  });
});
