// The embedded backend: SQLite as a revision log, as kine lays it out. Every create, update and
// delete appends one row; the row id is the revision. A key's state at revision R is its newest
// row with id <= R (absent when that row is a delete marker).
//
// better-sqlite3 is synchronous and this process holds the database exclusively, so DB work never
// interleaves: writes are serialized by the event loop, and the in-memory revision counters cannot
// drift from the table.
//
// Group commit: writes issued in the same turn of the event loop are committed together in one
// transaction, so N concurrent writers pay one fsync instead of N
// (etcd batches its backend commits the same way). Every write is still acknowledged only after
// the commit that made it durable, and fails or succeeds on its own.
import { closeSync, fchmodSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { mkdirAll } from '../apimachinery/mkdir-all.js';
import { compacted, conflict, futureRevision, keyExists, notFound, tooLarge, unavailable } from './errors.js';
import {
  MAX_VALUE_BYTES,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchCallbacks,
  type WatchEvent,
  type WatchHandle,
  type WatchProgressSupport,
} from './interface.js';
import {
  type RestoreResult,
  type SnapshotChange,
  type SnapshotInfo,
  type SnapshotScope,
  inScope,
  restoreCounts,
  snapshotDiff,
} from './snapshot.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS log (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    name            TEXT    NOT NULL,
    created         INTEGER NOT NULL,
    deleted         INTEGER NOT NULL,
    -- 0 on created rows: their create revision is their own id, unknown before the insert
    create_revision INTEGER NOT NULL,
    -- the id of the key's previous row, 0 for a key's first row
    prev_revision   INTEGER NOT NULL,
    -- '' on delete markers
    value           TEXT    NOT NULL,
    -- The previous value, as earlier versions wrote it on updates and deletes. Now NULL:
    -- the previous value is the row at prev_revision, which compaction keeps while a watch may
    -- replay this row, so an update of a large object writes it once, not twice.
    old_value       TEXT
  );
  -- deleted is in the index so a range decides which rows it returns before reading any of them.
  CREATE INDEX IF NOT EXISTS log_name_id_deleted ON log (name, id, deleted);
  -- Two writes from the same revision of a key cannot both commit.
  CREATE UNIQUE INDEX IF NOT EXISTS log_name_prev_revision ON log (name, prev_revision);
  CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  -- Snapshots (snapshot.ts): the live keys of a scope as of a revision, outside the log.
  CREATE TABLE IF NOT EXISTS snapshot (
    name     TEXT    PRIMARY KEY,
    revision INTEGER NOT NULL,
    scope    TEXT    NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS snapshot_kv (
    snapshot TEXT NOT NULL,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (snapshot, name)
  ) WITHOUT ROWID;
`;

/** What a live key needs. */
const LIVE_COLUMNS = 'id, name, created, create_revision, value';

interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
  /** The previous value, for an update or delete (the row at prev_revision); null on a create. */
  old_value: string | null;
}

/** A key's newest row as a write checks it; its value is the previous value of what it appends. */
type LatestRow = Omit<Row, 'old_value'>;

type LiveRow = Pick<Row, 'id' | 'name' | 'created' | 'create_revision' | 'value'>;
type NewestRow = LiveRow & Pick<Row, 'deleted'>;

interface Watcher {
  prefix: string;
  callbacks: WatchCallbacks;
  /** Events not yet handed to onEvents; replayed ones first, then live ones in commit order. */
  pending: WatchEvent[];
  /** Set when the watch ends from our side; delivered after the pending events. */
  error?: Error;
  scheduled: boolean;
  closed: boolean;
  /** requestProgress was called: report the revision after the pending events. */
  progress: boolean;
}

interface PendingWrite {
  /** Reads, then its INSERTs, the last things it does: one row, or a restore's every change. */
  fn: () => Row[];
  resolve(rows: Row[]): void;
  reject(err: unknown): void;
}

/**
 * better-sqlite3's addon, by the path its install builds or downloads it to. Its own loader (the
 * bindings package) reads its caller's stack and probes a dozen directories, a few ms of every
 * start; elsewhere (a debug build) that loader still finds it.
 */
function sqliteAddon(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    return undefined;
  }
}

export class SqliteStorage implements Storage {
  readonly backend = 'sqlite';

  private readonly watchers = new Set<Watcher>();
  /** Writes waiting for the next group commit, in the order they were issued. */
  private pending: PendingWrite[] = [];
  private readonly stmt: ReturnType<typeof prepare>;

  private constructor(
    private readonly db: Db,
    private revision: number,
    private compactRevision: number,
  ) {
    this.stmt = prepare(db);
  }

  static open(path: string): SqliteStorage {
    if (path !== ':memory:') {
      mkdirAll(dirname(path), 0o700);
      // Every object is in this file: the owner's only, whatever the umask. SQLite would create it
      // 0644 less the umask, and gives its -wal and -shm files the database's own mode.
      const fd = openSync(path, 'a', 0o600);
      try {
        fchmodSync(fd, 0o600);
      } finally {
        closeSync(fd);
      }
    }
    // timeout 0: the lock is held for the owner's lifetime, so waiting for it is pointless.
    const nativeBinding = sqliteAddon();
    const db = new Database(path, { timeout: 0, ...(nativeBinding ? { nativeBinding } : {}) });
    try {
      // EXCLUSIVE before WAL: no shared-memory index is created, and the write below takes a lock
      // that is kept until close; the OS drops it if the process dies, so no stale lock files.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      // In WAL mode NORMAL syncs only at checkpoints: a commit acknowledged just before a power
      // loss could vanish. FULL syncs the WAL on every commit.
      db.pragma('synchronous = FULL');
      db.exec(`BEGIN EXCLUSIVE; ${SCHEMA} COMMIT;`);
    } catch (err) {
      db.close();
      if (isBusy(err)) throw new Error(`data directory is in use by another process: ${path}`);
      throw err;
    }
    const revision = db.prepare<[], { r: number }>('SELECT COALESCE(MAX(id), 0) AS r FROM log').get()?.r ?? 0;
    const compactRevision =
      db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_revision'").get()?.value ?? 0;
    return new SqliteStorage(db, revision, compactRevision);
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const rev = this.readRevision(opts?.revision);
    const row = this.stmt.latestAt.get(key, rev);
    if (!row || row[4]) return undefined;
    const [id, created, create_revision, value] = row;
    return liveKv({ id, name: key, created, create_revision, value });
  }

  async modRevision(key: string): Promise<number | undefined> {
    const row = this.stmt.latestRevision.get(key, this.revision);
    return row && !row[1] ? row[0] : undefined;
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const rev = this.readRevision(opts.revision);
    const from = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const end = prefixEnd(prefix);
    // 0 or absent means no limit, as in etcd; one extra row tells whether the limit cut anything.
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const fetch = limit > 0 ? limit + 1 : -1;
    const rows =
      end === undefined ? this.stmt.rangeOpen.all(from, rev, fetch) : this.stmt.range.all(from, end, rev, fetch);
    const more = limit > 0 && rows.length > limit;
    return { kvs: (more ? rows.slice(0, limit) : rows).map(liveKv), more, revision: rev };
  }

  async count(prefix: string): Promise<number> {
    const end = prefixEnd(prefix);
    const rev = this.readRevision(undefined);
    const row = end === undefined ? this.stmt.countOpen.get(prefix, rev) : this.stmt.count.get(prefix, end, rev);
    return row?.n ?? 0;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    checkSize(key, value);
    const row = await this.write(() => {
      const latest = this.stmt.latest.get(key);
      if (latest && !latest.deleted) throw keyExists(key);
      return this.append(key, {
        created: 1,
        deleted: 0,
        create_revision: 0,
        prev_revision: latest?.id ?? 0,
        value,
        old_value: null,
      });
    });
    return liveKv(row);
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    checkSize(key, value);
    const row = await this.write(() => {
      const latest = this.liveLatest(key, expectedRevision);
      return this.append(key, {
        created: 0,
        deleted: 0,
        create_revision: createRevisionOf(latest),
        prev_revision: latest.id,
        value,
        old_value: latest.value,
      });
    });
    return liveKv(row);
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    const row = await this.write(() => {
      const latest = this.liveLatest(key, expectedRevision);
      return this.append(key, {
        created: 0,
        deleted: 1,
        create_revision: createRevisionOf(latest),
        prev_revision: latest.id,
        value: '',
        old_value: latest.value,
      });
    });
    return toEvent(row).kv;
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    const w: Watcher = { prefix, callbacks, pending: [], scheduled: false, closed: false, progress: false };
    if (!this.db.open) {
      this.end(w, unavailable('storage closed'));
    } else if (afterRevision + 1 < this.compactRevision) {
      // Events from afterRevision + 1 on are needed; the row at the compact revision itself is
      // always kept, so only a start below it is gone (etcd draws the same line).
      this.end(w, compacted(afterRevision + 1, this.compactRevision));
    } else {
      // Replay and registration happen in the same synchronous step, so no write can fall between
      // them: nothing is missed and nothing is delivered twice.
      if (afterRevision < this.revision) {
        const end = prefixEnd(prefix);
        const rows =
          end === undefined
            ? this.stmt.logOpen.all(afterRevision, prefix)
            : this.stmt.log.all(afterRevision, prefix, end);
        w.pending = rows.map(toEvent);
        if (w.pending.length > 0) this.schedule(w);
      }
      this.watchers.add(w);
    }
    return {
      close: () => {
        w.closed = true;
        this.watchers.delete(w);
      },
      requestProgress: () => {
        w.progress = true;
        this.schedule(w);
      },
    };
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compact(revision: number): Promise<void> {
    if (revision > this.revision) {
      throw new Error(`cannot compact at revision ${revision}: the current revision is ${this.revision}`);
    }
    if (revision <= this.compactRevision) return;
    const from = this.compactRevision;
    this.db.transaction(() => {
      // Rows up to the previous compaction were already handled, so only the new stretch is read.
      this.stmt.compactSuperseded.run(from, revision);
      this.stmt.compactMarkers.run(from, revision);
      this.stmt.setCompactRevision.run(revision);
    })();
    this.compactRevision = revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compactRevision;
  }

  async watchProgressSupport(): Promise<WatchProgressSupport> {
    // A progress report is queued behind the watcher's pending events, so it is exact.
    return { supported: true, reason: 'sqlite reports progress after every pending event' };
  }

  async ping(): Promise<boolean> {
    return this.db.open;
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    // Writes already issued are committed, not dropped: their callers are waiting for the answer.
    this.commit();
    this.db.close();
    for (const w of this.watchers) this.end(w, unavailable('storage closed'));
    this.watchers.clear();
  }

  async saveSnapshot(name: string, scope: SnapshotScope): Promise<SnapshotInfo> {
    if (!this.db.open) throw unavailable('storage closed');
    const revision = this.revision;
    let keys = 0;
    let bytes = 0;
    // Synchronous, so no write commits in between: the copy is the state at `revision`.
    this.db.transaction(() => {
      this.stmt.deleteSnapshotKvs.run(name);
      this.stmt.putSnapshot.run(name, revision, JSON.stringify(scope));
      for (const row of this.liveRows(scope.prefix, revision)) {
        if (!inScope(row.name, scope)) continue;
        this.stmt.putSnapshotKv.run(name, row.name, row.value);
        keys++;
        bytes += Buffer.byteLength(row.value);
      }
    })();
    return { revision, keys, bytes };
  }

  async restoreSnapshot(name: string): Promise<RestoreResult> {
    let counts = { created: 0, updated: 0, deleted: 0 };
    // One queued write: the difference is worked out and written inside the group commit's
    // transaction, so nothing committed between reading and writing can be missed.
    const rows = await this.writeRows(() => {
      const snapshot = this.stmt.getSnapshot.get(name);
      if (!snapshot) throw notFound(name);
      const scope = JSON.parse(snapshot.scope) as SnapshotScope;
      const saved = new Map(this.stmt.snapshotKvs.all(name).map((r) => [r.name, r.value]));
      // The newest row of each key, delete markers too: the live ones are what a restore compares,
      // and a marker is the row a key created again follows (one read, not one per key created).
      const newest = this.newestRows(scope.prefix).filter((r) => inScope(r.name, scope));
      const markers = new Map(newest.filter((r) => r.deleted).map((r) => [r.name, r.id]));
      const current = newest.filter((r) => !r.deleted).map(liveKv);
      const changes = snapshotDiff(saved, current);
      counts = restoreCounts(changes);
      return changes.map((c) => this.appendChange(c, markers.get(c.key) ?? 0));
    });
    return { revision: rows.at(-1)?.id ?? this.revision, ...counts };
  }

  async deleteSnapshot(name: string): Promise<void> {
    if (!this.db.open) throw unavailable('storage closed');
    this.db.transaction(() => {
      this.stmt.deleteSnapshotKvs.run(name);
      this.stmt.deleteSnapshot.run(name);
    })();
  }

  async snapshotNames(): Promise<string[]> {
    if (!this.db.open) throw unavailable('storage closed');
    return this.stmt.snapshotNames.all().map((r) => r.name);
  }

  /** The live rows under `prefix` at `revision`, in key order. */
  private liveRows(prefix: string, revision: number): LiveRow[] {
    const end = prefixEnd(prefix);
    return end === undefined
      ? this.stmt.rangeOpen.all(prefix, revision, -1)
      : this.stmt.range.all(prefix, end, revision, -1);
  }

  /** The newest row of every key under `prefix`, delete markers included, in no particular order. */
  private newestRows(prefix: string): NewestRow[] {
    const end = prefixEnd(prefix);
    return end === undefined ? this.stmt.newestOpen.all(prefix) : this.stmt.newest.all(prefix, end);
  }

  /**
   * A restore's change as the log row create, update or delete would append; `marker`: the id of
   * the delete marker a key not live now follows (0 for a key never written).
   */
  private appendChange(c: SnapshotChange, marker: number): Row {
    const live = c.current;
    if (live) {
      const fields = {
        created: 0,
        create_revision: live.createRevision,
        prev_revision: live.modRevision,
        old_value: live.value,
      };
      return c.value === undefined
        ? this.append(c.key, { ...fields, deleted: 1, value: '' })
        : this.append(c.key, { ...fields, deleted: 0, value: c.value });
    }
    return this.append(c.key, {
      created: 1,
      deleted: 0,
      create_revision: 0,
      prev_revision: marker,
      value: c.value ?? '',
      old_value: null,
    });
  }

  /** The revision a read is served at; 0 or absent means the current one, as in etcd. */
  private readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    if (requested < this.compactRevision) throw compacted(requested, this.compactRevision);
    if (requested > this.revision) throw futureRevision(requested);
    return requested;
  }

  private liveLatest(key: string, expectedRevision: number | undefined): LatestRow {
    const latest = this.stmt.latest.get(key);
    if (!latest || latest.deleted) throw notFound(key);
    if (expectedRevision !== undefined && latest.id !== expectedRevision) {
      throw conflict(key, expectedRevision, latest.id);
    }
    return latest;
  }

  private append(name: string, fields: Omit<Row, 'id' | 'name'>): Row {
    const { created, deleted, create_revision, prev_revision, value } = fields;
    const info = this.stmt.insert.run(name, created, deleted, create_revision, prev_revision, value);
    return { id: Number(info.lastInsertRowid), name, ...fields };
  }

  /** Queues a write for the next group commit; resolves with its row once that commit is durable. */
  private async write(fn: () => Row): Promise<Row> {
    return (await this.writeRows(() => [fn()]))[0]!;
  }

  /** Queues writes of several rows that commit together, in the next group commit. */
  private writeRows(fn: () => Row[]): Promise<Row[]> {
    if (!this.db.open) return Promise.reject(unavailable('storage closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ fn, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.commit());
    });
  }

  /** Commits every queued write in one transaction, then publishes the rows in revision order. */
  private commit(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ rows: Row[] } | { err: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          // No savepoint is needed: a write's checks come before its INSERTs, and a statement
          // that fails leaves nothing behind.
          try {
            outcomes.push({ rows: w.fn() });
          } catch (err) {
            // SQLite rolls the whole transaction back on some errors (a full disk, I/O): later
            // statements would then autocommit one by one, so the batch fails as a whole.
            if (!this.db.inTransaction) throw err;
            outcomes.push({ err });
          }
        }
      })();
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if ('err' in outcome) return w.reject(outcome.err);
      for (const row of outcome.rows) {
        this.revision = row.id;
        this.publish(row);
      }
      w.resolve(outcome.rows);
    });
  }

  private publish(row: Row): void {
    if (this.watchers.size === 0) return;
    const event = toEvent(row);
    for (const w of this.watchers) {
      if (row.name.startsWith(w.prefix)) {
        w.pending.push(event);
        this.schedule(w);
      }
    }
  }

  private end(w: Watcher, err: Error): void {
    w.error = err;
    this.watchers.delete(w);
    this.schedule(w);
  }

  /** Delivery is always deferred, never inside the write call that caused it. */
  private schedule(w: Watcher): void {
    if (w.scheduled) return;
    w.scheduled = true;
    queueMicrotask(() => {
      w.scheduled = false;
      if (w.closed) return;
      if (w.pending.length > 0) {
        const events = w.pending;
        w.pending = [];
        w.callbacks.onEvents(events);
      }
      // Every committed write is published as it commits, so nothing up to this.revision is owed.
      if (w.progress && !w.closed && !w.error) {
        w.progress = false;
        w.callbacks.onProgress?.(this.revision);
      }
      if (w.error && !w.closed) {
        w.closed = true;
        w.callbacks.onError(w.error);
      }
    });
  }
}

function prepare(db: Db) {
  // The newest row of each name in [from, end) at or below a revision, walked in name order so
  // LIMIT stops early; delete markers are dropped after the newest row is picked, so a deleted key
  // does not resurface with an older value. INDEXED BY: the planner may otherwise walk the
  // (name, prev_revision) index and read every superseded row just to test `deleted` (2x slower).
  const liveSql = (columns: string, bounded: boolean): string => `
    SELECT ${columns} FROM log AS kv INDEXED BY log_name_id_deleted
    WHERE name >= ? ${bounded ? 'AND name < ?' : ''}
      AND id = (SELECT MAX(id) FROM log WHERE name = kv.name AND id <= ?) AND deleted = 0`;
  const rangeSql = (bounded: boolean): string => `${liveSql(LIVE_COLUMNS, bounded)} ORDER BY name LIMIT ?`;
  const newestSql = (bounded: boolean): string => `
    SELECT ${LIVE_COLUMNS}, deleted FROM log WHERE id IN (
      SELECT MAX(id) FROM log WHERE name >= ? ${bounded ? 'AND name < ?' : ''} GROUP BY name)`;
  // A watch replays what happened after a recent revision: walk the ids after it, not every row of
  // the prefix (+name keeps the planner off the name indexes, which would then sort by id). An
  // update's or delete's previous value is its previous row's, found by id (a row of an earlier
  // version carries it itself).
  const logSql = (bounded: boolean): string => `
    SELECT kv.id, kv.name, kv.created, kv.deleted, kv.create_revision, kv.prev_revision, kv.value,
      COALESCE(kv.old_value, prev.value) AS old_value
    FROM log AS kv LEFT JOIN log AS prev ON prev.id = kv.prev_revision AND NOT kv.created
    WHERE kv.id > ? AND +kv.name >= ? ${bounded ? 'AND +kv.name < ?' : ''} ORDER BY kv.id`;
  return {
    latest: db.prepare<[string], LatestRow>(
      'SELECT id, name, created, deleted, create_revision, prev_revision, value FROM log WHERE name = ? ORDER BY id DESC LIMIT 1',
    ),
    // A get takes its row as an array: better-sqlite3 builds a row object property by property,
    // which costs a get as much as SQLite's own work does.
    latestAt: db
      .prepare<[string, number], [id: number, created: number, createRevision: number, value: string, deleted: number]>(
        'SELECT id, created, create_revision, value, deleted FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1',
      )
      .raw(true),
    // The same row's revision alone, from the (name, id, deleted) index without reading the row.
    latestRevision: db
      .prepare<[string, number], [id: number, deleted: number]>(
        'SELECT id, deleted FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1',
      )
      .raw(true),
    // Each key's newest row, found by one walk of a name index (any: the rowid is in each) rather
    // than a lookup per row.
    newest: db.prepare<[string, string], NewestRow>(newestSql(true)),
    newestOpen: db.prepare<[string], NewestRow>(newestSql(false)),
    range: db.prepare<[string, string, number, number], LiveRow>(rangeSql(true)),
    rangeOpen: db.prepare<[string, number, number], LiveRow>(rangeSql(false)),
    count: db.prepare<[string, string, number], { n: number }>(liveSql('COUNT(*) AS n', true)),
    countOpen: db.prepare<[string, number], { n: number }>(liveSql('COUNT(*) AS n', false)),
    log: db.prepare<[number, string, string], Row>(logSql(true)),
    logOpen: db.prepare<[number, string], Row>(logSql(false)),
    // Positional parameters: binding them by name from an object costs every write about 1 µs more.
    insert: db.prepare<
      [name: string, created: number, deleted: number, createRevision: number, prevRevision: number, value: string]
    >(
      `INSERT INTO log (name, created, deleted, create_revision, prev_revision, value)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    // Rows replaced by a later row below the compact revision (the row at it is the first a watch
    // may replay, and its previous row holds the value its event carries as prevKv: the next
    // compaction, starting there, removes it)...
    compactSuperseded: db.prepare<[number, number]>(
      'DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id >= ? AND id < ? AND prev_revision > 0)',
    ),
    // ...and delete markers below it (the one at it carries the event a watch from it replays).
    compactMarkers: db.prepare<[number, number]>('DELETE FROM log WHERE deleted = 1 AND id >= ? AND id < ?'),
    getSnapshot: db.prepare<[string], { revision: number; scope: string }>(
      'SELECT revision, scope FROM snapshot WHERE name = ?',
    ),
    snapshotKvs: db.prepare<[string], { name: string; value: string }>(
      'SELECT name, value FROM snapshot_kv WHERE snapshot = ? ORDER BY name',
    ),
    snapshotNames: db.prepare<[], { name: string }>('SELECT name FROM snapshot ORDER BY name'),
    putSnapshot: db.prepare<[string, number, string]>(
      `INSERT INTO snapshot (name, revision, scope) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, scope = excluded.scope`,
    ),
    putSnapshotKv: db.prepare<[string, string, string]>(
      'INSERT INTO snapshot_kv (snapshot, name, value) VALUES (?, ?, ?)',
    ),
    deleteSnapshot: db.prepare<[string]>('DELETE FROM snapshot WHERE name = ?'),
    deleteSnapshotKvs: db.prepare<[string]>('DELETE FROM snapshot_kv WHERE snapshot = ?'),
    setCompactRevision: db.prepare<[number]>(
      `INSERT INTO meta (name, value) VALUES ('compact_revision', ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    ),
  };
}

function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');
}

function checkSize(key: string, value: string): void {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most values are too short to count.
  if (value.length <= MAX_VALUE_BYTES / 3) return;
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) throw tooLarge(key, bytes, MAX_VALUE_BYTES);
}

function createRevisionOf(row: LiveRow): number {
  return row.created ? row.id : row.create_revision;
}

function liveKv(row: LiveRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: createRevisionOf(row), modRevision: row.id };
}

function toEvent(row: Row): WatchEvent {
  if (row.created) return { type: 'create', kv: liveKv(row) };
  const createRevision = row.create_revision;
  const old = row.old_value ?? '';
  const prevKv: KeyValue = { key: row.name, value: old, createRevision, modRevision: row.prev_revision };
  const kv: KeyValue = row.deleted ? { ...prevKv, modRevision: row.id } : liveKv(row);
  return { type: row.deleted ? 'delete' : 'update', kv, prevKv };
}

/**
 * The smallest string above every string that starts with `prefix`, so `name >= prefix AND
 * name < end` is an exact byte-prefix match that uses the index (LIKE would treat % and _ in keys
 * as wildcards). UTF-8 orders like code points, so bumping the last code point is enough.
 * Undefined when no such bound exists (empty prefix, or only U+10FFFF).
 */
function prefixEnd(prefix: string): string | undefined {
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    let next = (cps.pop() as string).codePointAt(0)! + 1;
    if (next === 0xd800) next = 0xe000; // skip the surrogate range, which UTF-8 cannot encode
    if (next <= 0x10ffff) return cps.join('') + String.fromCodePoint(next);
  }
  return undefined;
}
