import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../apimachinery/log.js';
import type { AuditEvent } from '../../../../server/audit/event.js';
import {
  AuditLogBackend,
  RotatingFile,
  backupName,
  ensureLogFile,
  formatBackupTime,
  validateAuditLogOptions,
} from '../../../../server/audit/log-backend.js';

const MB = 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), 'audit-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => {
  const d = join(root, String(n++));
  mkdirSync(d);
  return d;
};

function event(i: number, pad = 0): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/pods',
    verb: 'list',
    user: { username: 'alice' },
    requestReceivedTimestamp: '2026-11-24T12:00:00.000000Z',
    stageTimestamp: '2026-11-24T12:00:00.000001Z',
    ...(pad ? { annotations: { pad: 'x'.repeat(pad) } } : {}),
  };
}

/** A clock that moves 1 ms per call, so every backup gets its own name. */
function steppingClock(start = Date.UTC(2026, 10, 24, 12, 0, 0)): () => Date {
  let t = start;
  return () => new Date(t++);
}

function captureLogger() {
  const lines: string[] = [];
  return { logger: createLogger({ write: (l) => lines.push(l) }), lines };
}

describe('lumberjack naming', () => {
  it('puts the UTC timestamp before the extension', () => {
    const t = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    expect(formatBackupTime(t)).toBe('2026-01-02T03-04-05.006');
    expect(backupName('/var/log/audit.log', t)).toBe('/var/log/audit-2026-01-02T03-04-05.006.log');
    expect(backupName('/var/log/audit', t)).toBe('/var/log/audit-2026-01-02T03-04-05.006');
  });
});

describe('AuditLogBackend', () => {
  it('writes one JSON event per line and flushes on close', async () => {
    const path = join(freshDir(), 'sub', 'audit.log');
    const backend = new AuditLogBackend({ path });
    backend.processEvents([event(1), event(2)]);
    backend.processEvents([event(3)]);
    await backend.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(['id-1', 'id-2', 'id-3']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('rotates past maxsize and keeps maxbackup backups', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    const backend = new AuditLogBackend({ path, maxSizeMB: 1, maxBackups: 2, now: steppingClock() });
    // ~200 KB per event: five fit in a MB, so 23 events need five files.
    for (let i = 0; i < 23; i++) {
      backend.processEvents([event(i, 200 * 1024)]);
      // Some events one by one, some together: rotation is decided per event either way.
      if (i % 3 === 0) await backend.flush();
    }
    await backend.close();
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    expect(files).toContain('audit.log');
    const backups = files.filter((f) => f !== 'audit.log');
    for (const f of backups) expect(f).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
    const ids = (f: string): number[] =>
      readFileSync(join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => Number((JSON.parse(l) as AuditEvent).auditID.slice(3)));
    for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(MB);
    // Newest backup holds the five events before the current file's three; nothing is split.
    expect(ids('audit.log')).toEqual([20, 21, 22]);
    expect(ids(backups[1]!)).toEqual([15, 16, 17, 18, 19]);
    expect(ids(backups[0]!)).toEqual([10, 11, 12, 13, 14]);
  });

  it('appends to an existing file, and rotates it at start when the next write would fill it', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    writeFileSync(path, 'old\n');
    let backend = new AuditLogBackend({ path, maxSizeMB: 1, now: steppingClock() });
    backend.processEvents([event(1)]);
    await backend.close();
    expect(readFileSync(path, 'utf8').startsWith('old\n{')).toBe(true);

    writeFileSync(path, 'x'.repeat(MB - 100) + '\n');
    backend = new AuditLogBackend({ path, maxSizeMB: 1, now: steppingClock() });
    backend.processEvents([event(2)]);
    await backend.close();
    expect(readdirSync(dir)).toHaveLength(2);
    expect((JSON.parse(readFileSync(path, 'utf8')) as AuditEvent).auditID).toBe('id-2');
  });

  it('removes backups older than maxage days, by the time in their names', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    const now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const day = 24 * 3600 * 1000;
    const old = backupName(path, new Date(now - 10 * day));
    const recent = backupName(path, new Date(now - 1 * day));
    writeFileSync(old, 'old\n');
    writeFileSync(recent, 'recent\n');
    writeFileSync(join(dir, 'audit-notatime.log'), 'other\n');
    writeFileSync(join(dir, 'other.log'), 'other\n');
    const file = new RotatingFile(path, { maxSizeMB: 1, maxAgeDays: 3, now: steppingClock(now) });
    await file.write([Buffer.from('a\n')]);
    await file.rotate();
    await file.close();
    const files = readdirSync(dir).sort();
    expect(files).not.toContain(old.slice(dir.length + 1));
    expect(files).toContain(recent.slice(dir.length + 1));
    expect(files).toContain('audit-notatime.log');
    expect(files).toContain('other.log');
    expect(files).toContain('audit.log');
    const backups = (await file.backups()).map((b) => b.path);
    expect(backups).toHaveLength(2);
    expect(backups[0]).toMatch(/audit-2026-11-24T12-00-00\.\d{3}\.log$/);
    expect(backups[1]).toBe(recent);
  });

  it('drops an event larger than maxsize with lumberjack’s error, and keeps going', async () => {
    const path = join(freshDir(), 'audit.log');
    const { logger, lines } = captureLogger();
    const backend = new AuditLogBackend({ path, maxSizeMB: 1, logger });
    backend.processEvents([event(1, MB + 10), event(2)]);
    await backend.close();
    expect(backend.dropped).toBe(1);
    expect(lines.join('\n')).toMatch(
      /Error in audit plugin 'log' affecting 1 audit events: write length \d+ exceeds maximum file size 1048576/,
    );
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('logs and drops when the file cannot be written, never throwing', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    mkdirSync(path); // a directory where the file should be: every open fails
    const { logger, lines } = captureLogger();
    const backend = new AuditLogBackend({ path, logger });
    backend.processEvents([event(1), event(2)]);
    await backend.flush();
    backend.processEvents([event(3)]);
    await backend.close();
    expect(backend.dropped).toBe(3);
    expect(lines[0]).toContain("Error in audit plugin 'log' affecting 2 audit events");
  });

  it('drops rather than buffering without bound', async () => {
    const path = join(freshDir(), 'audit.log');
    const { logger } = captureLogger();
    const backend = new AuditLogBackend({ path, logger, maxBufferedBytes: 1000 });
    const evs = Array.from({ length: 20 }, (_, i) => event(i));
    backend.processEvents(evs);
    await backend.close();
    const written = readFileSync(path, 'utf8').trim().split('\n').length;
    expect(written).toBeGreaterThan(0);
    expect(written + backend.dropped).toBe(20);
    expect(backend.dropped).toBeGreaterThan(0);
  });

  it('writes to stdout for -', async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    });
    const backend = new AuditLogBackend({ path: '-', stdout: out });
    backend.processEvents([event(1), event(2)]);
    await backend.close();
    const text = Buffer.concat(chunks).toString();
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as AuditEvent).auditID),
    ).toEqual(['id-1', 'id-2']);
  });
});

describe('start-up checks', () => {
  it('creates the file and its directory, or says why not', () => {
    const path = join(freshDir(), 'a', 'b', 'audit.log');
    ensureLogFile(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => ensureLogFile(join(path, 'x.log'))).toThrow(/^ensureLogFile: /);
    expect(() => ensureLogFile('-')).not.toThrow();
  });

  it('rejects negative limits as kube', () => {
    expect(validateAuditLogOptions({ maxAgeDays: -1, maxBackups: 0, maxSizeMB: -2 })).toEqual([
      "--audit-log-maxage -1 can't be a negative number",
      "--audit-log-maxsize -2 can't be a negative number",
    ]);
  });
});
