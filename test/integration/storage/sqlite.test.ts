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
    const c1 = await store.create('/c', '1'); // superseded at the compact revision: the value its event carries
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
      expect(ids).toEqual([a2.modRevision, c1.modRevision, cDel.modRevision, a3.modRevision]);
      expect([a1, b1, bDel].map((kv) => ids.includes(kv.modRevision))).toEqual([false, false, false]);
    } finally {
      db.close();
    }

    // The next compaction starts at the last one's revision: it removes that row's previous one and
    // the marker, and keeps a3's previous row, which a watch from a3 replays.
    const again = await fixture.open();
    await again.compact(a3.modRevision);
    await again.close();
    const after = new Database(fixture.file, { readonly: true });
    try {
      const ids = after
        .prepare<[], { id: number }>('SELECT id FROM log ORDER BY id')
        .all()
        .map((r) => r.id);
      expect(ids).toEqual([a2.modRevision, a3.modRevision]);
    } finally {
      after.close();
    }
  });

  it("writes an object once: an update's or delete's previous value is its previous row, found when a watch replays it", async () => {
    const store = await fixture.open();
    const a1 = await store.create('/a', 'first');
    const a2 = await store.update('/a', 'second', a1.modRevision);
    const aDel = await store.delete('/a');
    await store.close();

    const db = new Database(fixture.file, { readonly: true });
    try {
      const rows = db.prepare<[], { id: number; value: string; old_value: string | null }>(
        'SELECT id, value, old_value FROM log ORDER BY id',
      );
      expect(rows.all()).toEqual([
        { id: a1.modRevision, value: 'first', old_value: null },
        { id: a2.modRevision, value: 'second', old_value: null },
        { id: aDel.modRevision, value: '', old_value: null },
      ]);
    } finally {
      db.close();
    }

    const reopened = await fixture.open();
    const rec = recordWatch(reopened, '/', 0);
    await rec.until(() => rec.events.length === 3, 'the three events');
    expect(rec.events).toEqual([
      { type: 'create', kv: a1 },
      { type: 'update', kv: a2, prevKv: a1 },
      { type: 'delete', kv: aDel, prevKv: a2 },
    ]);
    rec.close();
  });

  it('replays the rows an earlier version wrote, which carry their previous value themselves', async () => {
    const store = await fixture.open();
    const a1 = await store.create('/a', 'first');
    await store.close();

    // The earlier layout: an update's row holds the previous value, and compaction removed the row it
    // came from.
    const db = new Database(fixture.file);
    try {
      db.prepare(
        `INSERT INTO log (name, created, deleted, create_revision, prev_revision, value, old_value)
         VALUES ('/a', 0, 0, ?, ?, 'second', 'first')`,
      ).run(a1.modRevision, a1.modRevision);
      db.prepare('DELETE FROM log WHERE id = ?').run(a1.modRevision);
    } finally {
      db.close();
    }

    const reopened = await fixture.open();
    const a2 = { key: '/a', value: 'second', createRevision: a1.modRevision, modRevision: a1.modRevision + 1 };
    expect(await reopened.get('/a')).toEqual(a2);
    const rec = recordWatch(reopened, '/', a1.modRevision);
    await rec.until(() => rec.events.length === 1, 'the update');
    expect(rec.events).toEqual([{ type: 'update', kv: a2, prevKv: a1 }]);
    rec.close();
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
