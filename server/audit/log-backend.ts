// The audit log backend (kube's plugin/pkg/audit/log, --audit-log-*): one JSON event per line to a
// file, rotated as gopkg.in/natefinch/lumberjack.v2 rotates kube's, or to stdout for `-`. Writes are
// queued and done asynchronously, so a slow or full disk never stalls requests; a failed write is
// logged and its events dropped, as kube's HandlePluginError does, and never crashes the server.
import { closeSync, openSync } from 'node:fs';
import { type FileHandle, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { type Logger, silentLogger } from '../../apimachinery/log.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { mkdirAll } from '../../apimachinery/mkdir-all.js';
import { fsReason } from '../startup/errors.js';
import type { AuditEvent, AuditSink } from './event.js';

const MEGABYTE = 1024 * 1024;
/** lumberjack's default when MaxSize is 0: kube's --audit-log-maxsize 0 means 100 MB, not unlimited. */
const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

interface RotationOptions {
  /** --audit-log-maxsize: megabytes before rotation; 0 means lumberjack's 100. */
  maxSizeMB?: number;
  /** --audit-log-maxbackup: rotated files kept; 0 keeps all (unless too old). */
  maxBackups?: number;
  /** --audit-log-maxage: days rotated files are kept, by the time in their name; 0 keeps all. */
  maxAgeDays?: number;
  /** The clock for backup names and age; tests pin it. */
  now?: () => Date;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** lumberjack's backup timestamp, Go layout `2006-01-02T15-04-05.000`, in UTC (kube leaves LocalTime off). */
export function formatBackupTime(t: Date): string {
  return (
    `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}` +
    `T${pad(t.getUTCHours())}-${pad(t.getUTCMinutes())}-${pad(t.getUTCSeconds())}.${pad(t.getUTCMilliseconds(), 3)}`
  );
}

const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

function parseBackupTime(s: string): Date | undefined {
  const m = BACKUP_TIME.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, sec, ms));
  // time.Parse rejects out-of-range fields (month 13, hour 25); Date.UTC would roll them over.
  return t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === sec
    ? t
    : undefined;
}

/** lumberjack's backupName: `<dir>/<name>-<timestamp><ext>`, the extension kept last. */
export function backupName(filename: string, t: Date): string {
  const base = basename(filename);
  const ext = extname(base);
  return join(dirname(filename), `${base.slice(0, base.length - ext.length)}-${formatBackupTime(t)}${ext}`);
}

/** A file that rotates itself as lumberjack.Logger: by size on write, pruning backups by count and age. */
export class RotatingFile {
  private fh: FileHandle | undefined;
  private size = 0;
  /** The largest single write accepted, in bytes. */
  readonly max: number;
  private readonly now: () => Date;

  constructor(
    readonly filename: string,
    private readonly opts: RotationOptions = {},
  ) {
    this.max = (opts.maxSizeMB && opts.maxSizeMB > 0 ? opts.maxSizeMB : DEFAULT_MAX_SIZE_MB) * MEGABYTE;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Writes each buffer as one lumberjack Write: rotating first when it would take the file past
   * the limit, refusing one larger than the limit. Consecutive buffers go out as one write.
   */
  async write(bufs: Buffer[]): Promise<void> {
    let group: Buffer[] = [];
    let groupBytes = 0;
    const flush = async (): Promise<void> => {
      if (!group.length) return;
      const data = group.length === 1 ? group[0]! : Buffer.concat(group, groupBytes);
      group = [];
      groupBytes = 0;
      await this.fh!.write(data);
    };
    for (const b of bufs) {
      if (b.length > this.max) {
        await flush();
        throw new Error(`write length ${b.length} exceeds maximum file size ${this.max}`);
      }
      if (!this.fh) await this.openExistingOrNew(b.length);
      else if (this.size + b.length > this.max) {
        await flush();
        await this.rotate();
      }
      group.push(b);
      groupBytes += b.length;
      this.size += b.length;
    }
    await flush();
  }

  private async openExistingOrNew(writeLen: number): Promise<void> {
    await this.mill();
    let existing: number | undefined;
    try {
      existing = (await stat(this.filename)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (existing === undefined) return this.openNew();
    if (existing + writeLen >= this.max) return this.rotate();
    this.fh = await open(this.filename, 'a', 0o600);
    this.size = existing;
  }

  private async openNew(): Promise<void> {
    mkdirAll(dirname(this.filename), 0o755);
    let mode = 0o600;
    try {
      const info = await stat(this.filename);
      mode = info.mode & 0o777;
      await rename(this.filename, backupName(this.filename, this.now()));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.fh = await open(this.filename, 'w', mode);
    this.size = 0;
  }

  /** Closes the current file, moves it to its backup name, starts a new one, prunes old backups. */
  async rotate(): Promise<void> {
    await this.closeFile();
    await this.openNew();
    await this.mill();
  }

  /** The backups of this file, newest first, by the time in their names (lumberjack's oldLogFiles). */
  async backups(): Promise<{ path: string; time: Date }[]> {
    const dir = dirname(this.filename);
    const base = basename(this.filename);
    const ext = extname(base);
    const prefix = `${base.slice(0, base.length - ext.length)}-`;
    const out: { path: string; time: Date }[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) continue;
      const name = entry.name;
      // lumberjack also recognises its compressed backups; kube's --audit-log-compress is not offered.
      const bare = name.endsWith(`${ext}.gz`) ? name.slice(0, -3) : name;
      if (!bare.startsWith(prefix) || !bare.endsWith(ext) || bare.length < prefix.length + ext.length) continue;
      const time = parseBackupTime(bare.slice(prefix.length, bare.length - ext.length));
      if (time) out.push({ path: join(dir, name), time });
    }
    return out.sort((a, b) => b.time.getTime() - a.time.getTime());
  }

  /** lumberjack's millRunOnce: keep the newest maxBackups, then drop any older than maxAge days. */
  private async mill(): Promise<void> {
    const maxBackups = this.opts.maxBackups ?? 0;
    const maxAge = this.opts.maxAgeDays ?? 0;
    if (maxBackups <= 0 && maxAge <= 0) return;
    let files: { path: string; time: Date }[];
    try {
      files = await this.backups();
    } catch {
      return;
    }
    const remove: string[] = [];
    if (maxBackups > 0 && maxBackups < files.length) {
      const preserved = new Set<string>();
      const kept: typeof files = [];
      for (const f of files) {
        preserved.add(f.path.replace(/\.gz$/, ''));
        if (preserved.size > maxBackups) remove.push(f.path);
        else kept.push(f);
      }
      files = kept;
    }
    if (maxAge > 0) {
      const cutoff = this.now().getTime() - maxAge * DAY_MS;
      for (const f of files) if (f.time.getTime() < cutoff) remove.push(f.path);
    }
    // lumberjack ignores removal errors: pruning must not stop logging.
    await Promise.all(remove.map((p) => unlink(p).catch(() => undefined)));
  }

  private async closeFile(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    if (fh) await fh.close();
  }

  async close(): Promise<void> {
    await this.closeFile();
  }
}

interface AuditLogOptions extends RotationOptions {
  /** --audit-log-path; `-` writes to stdout. */
  path: string;
  logger?: Logger;
  /** Events queued but not yet written beyond this many bytes are dropped (and logged), not buffered. */
  maxBufferedBytes?: number;
  /** For `-`; tests pass their own. */
  stdout?: NodeJS.WritableStream;
}

/** kube's option checks: `--audit-log-maxage 0 can't be a negative number` and friends, as messages. */
export function validateAuditLogOptions(o: { maxAgeDays?: number; maxBackups?: number; maxSizeMB?: number }): string[] {
  const errs: string[] = [];
  if ((o.maxAgeDays ?? 0) < 0) errs.push(`--audit-log-maxage ${o.maxAgeDays} can't be a negative number`);
  if ((o.maxBackups ?? 0) < 0) errs.push(`--audit-log-maxbackup ${o.maxBackups} can't be a negative number`);
  if ((o.maxSizeMB ?? 0) < 0) errs.push(`--audit-log-maxsize ${o.maxSizeMB} can't be a negative number`);
  return errs;
}

/**
 * kube's ensureLogFile, at start-up: the directory (0700) and the file (0600) must be creatable, so a
 * bad --audit-log-path stops the server instead of losing every event. Throws with one line.
 */
export function ensureLogFile(path: string): void {
  if (path === '-') return;
  try {
    mkdirAll(dirname(path), 0o700);
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Go's PathError, as kube's message carries it: `ensureLogFile: mkdir /proc/x: no such file or directory`.
    throw new Error(`ensureLogFile: ${e.syscall ?? 'open'} ${e.path ?? path}: ${fsReason(err)}`);
  }
}

interface LineWriter {
  readonly max: number;
  write(bufs: Buffer[]): Promise<void>;
  close(): Promise<void>;
}

function stdoutWriter(out: NodeJS.WritableStream): LineWriter {
  return {
    max: Infinity,
    write: (bufs) =>
      new Promise<void>((resolve, reject) => {
        out.write(Buffer.concat(bufs), (err) => (err ? reject(err) : resolve()));
      }),
    close: async () => {},
  };
}

const DEFAULT_MAX_BUFFERED = 64 * MEGABYTE;

/** The log backend: an AuditSink writing JSON lines. */
export class AuditLogBackend implements AuditSink {
  private readonly writer: LineWriter;
  private readonly logger: Logger;
  private readonly maxBuffered: number;
  private queue: Buffer[] = [];
  private queued = 0;
  private draining: Promise<void> | undefined;
  private closed = false;
  /** Events lost to a full queue or a failed write. */
  dropped = 0;

  constructor(opts: AuditLogOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.maxBuffered = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    this.writer = opts.path === '-' ? stdoutWriter(opts.stdout ?? process.stdout) : new RotatingFile(opts.path, opts);
  }

  /** kube's HandlePluginError: one line naming the plugin and how many events were lost. */
  private pluginError(err: unknown, count: number): void {
    this.dropped += count;
    const msg = err instanceof Error ? err.message : String(err);
    this.logger.error(`Error in audit plugin 'log' affecting ${count} audit events: ${msg}`, { plugin: 'log', count });
  }

  processEvents(events: AuditEvent[]): void {
    if (this.closed) {
      this.pluginError(new Error('audit log backend is closed'), events.length);
      return;
    }
    for (const ev of events) {
      let line: Buffer;
      try {
        line = Buffer.from(stringifyJSON(ev) + '\n');
      } catch (err) {
        this.pluginError(err, 1);
        continue;
      }
      if (line.length > this.writer.max) {
        this.pluginError(new Error(`write length ${line.length} exceeds maximum file size ${this.writer.max}`), 1);
        continue;
      }
      if (this.queued + line.length > this.maxBuffered) {
        this.pluginError(new Error(`audit log queue full (${this.maxBuffered} bytes buffered)`), 1);
        continue;
      }
      this.queue.push(line);
      this.queued += line.length;
    }
    if (this.queue.length && !this.draining) this.draining = this.drain();
  }

  private async drain(): Promise<void> {
    // Yield once so the events of one tick go out in one write.
    await Promise.resolve();
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      this.queued = 0;
      try {
        await this.writer.write(batch);
      } catch (err) {
        this.pluginError(err, batch.length);
      }
    }
    this.draining = undefined;
  }

  /** Resolves once everything queued so far is written (or dropped). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Writes what is queued, then closes the file; later events are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    try {
      await this.writer.close();
    } catch (err) {
      this.logger.error(`Error closing audit log: ${err instanceof Error ? err.message : String(err)}`, {
        plugin: 'log',
      });
    }
  }
}
