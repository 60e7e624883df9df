// kube's --token-auth-file: CSV records `token,user,uid[,"group1,group2"]`, read with the rules of
// Go's encoding/csv (kube reads it with csv.NewReader and FieldsPerRecord = -1), so a file that
// kube-apiserver accepts means the same thing here and one it rejects is rejected here too.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../apimachinery/user.js';
import { StartupError, fsReason } from '../startup/errors.js';
import { writeFileAtomic } from '../startup/write-file-atomic.js';

export interface TokenRecord {
  token: string;
  user: UserInfo;
}

class CsvError extends Error {
  override name = 'CsvError';
}

const BARE_QUOTE = 'bare " in non-quoted field';
const BAD_QUOTE = 'extraneous or missing " in quoted-field';

/** Go's ParseError text: the record's first line is named too when the error is on a later one. */
function csvError(recordLine: number, line: number, column: number, what: string): CsvError {
  const where = recordLine === line ? '' : `record on line ${recordLine}; `;
  return new CsvError(`${where}parse error on line ${line}, column ${column}: ${what}`);
}

/** Lines with their '\n', as Go's reader sees them: "\r\n" becomes "\n", a last line's '\r' goes. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    let line = nl < 0 ? text.slice(start) : text.slice(start, nl + 1);
    start = nl < 0 ? text.length : nl + 1;
    if (line.endsWith('\r\n')) line = line.slice(0, -2) + '\n';
    else if (nl < 0 && line.endsWith('\r')) line = line.slice(0, -1);
    lines.push(line);
  }
  return lines;
}

const newlineLength = (s: string): number => (s.endsWith('\n') ? 1 : 0);

/**
 * Records of a CSV text under encoding/csv's defaults: ',' separates, empty lines are skipped,
 * spaces are kept, a quoted field may hold commas, newlines and "" (a quote); a quote anywhere in
 * an unquoted field, or a stray one after a closing quote, is an error.
 */
export function parseCsv(text: string): string[][] {
  const lines = splitLines(text);
  const records: string[][] = [];
  let next = 0;
  while (next < lines.length) {
    let line = lines[next++]!;
    let lineNo = next;
    if (line.length === newlineLength(line)) continue;
    const recordLine = lineNo;
    const fields: string[] = [];
    let col = 1;
    field: for (;;) {
      if (line[0] !== '"') {
        const comma = line.indexOf(',');
        const value = comma >= 0 ? line.slice(0, comma) : line.slice(0, line.length - newlineLength(line));
        const quote = value.indexOf('"');
        if (quote >= 0) throw csvError(recordLine, lineNo, col + quote, BARE_QUOTE);
        fields.push(value);
        if (comma < 0) break;
        line = line.slice(comma + 1);
        col += comma + 1;
        continue;
      }
      line = line.slice(1);
      col += 1;
      let value = '';
      for (;;) {
        const quote = line.indexOf('"');
        if (quote >= 0) {
          value += line.slice(0, quote);
          line = line.slice(quote + 1);
          col += quote + 1;
          if (line[0] === '"') {
            value += '"';
            line = line.slice(1);
            col += 1;
          } else if (line[0] === ',') {
            line = line.slice(1);
            col += 1;
            fields.push(value);
            continue field;
          } else if (line.length === newlineLength(line)) {
            fields.push(value);
            break field;
          } else {
            throw csvError(recordLine, lineNo, col - 1, BAD_QUOTE);
          }
        } else if (line.length > 0 && next < lines.length) {
          // The quoted field goes on to the next line.
          value += line;
          line = lines[next++]!;
          lineNo = next;
          col = 1;
        } else {
          throw csvError(recordLine, lineNo, col + line.length, BAD_QUOTE);
        }
      }
    }
    records.push(fields);
  }
  return records;
}

/**
 * Token records in file order, as kube reads them: fewer than 3 columns is an error; an empty
 * token is skipped and a repeated one replaces the earlier, each with a warning; the optional
 * fourth column is split on commas into groups; further columns are ignored.
 */
export function parseTokenFile(text: string): { records: TokenRecord[]; warnings: string[] } {
  const byToken = new Map<string, TokenRecord>();
  const warnings: string[] = [];
  parseCsv(text).forEach((row, i) => {
    if (row.length < 3)
      throw new CsvError(`must have at least 3 columns (token, user name, user uid), found ${row.length}`);
    const [token, name, uid, groups] = row as [string, string, string, string | undefined];
    if (token === '') {
      warnings.push(`empty token in record ${i + 1}: ignored`);
      return;
    }
    if (byToken.has(token)) warnings.push(`duplicate token in record ${i + 1}: it replaces the earlier one`);
    const user: UserInfo = { name, groups: groups === undefined ? [] : groups.split(',') };
    if (uid !== '') user.uid = uid;
    byToken.set(token, { token, user });
  });
  return { records: [...byToken.values()], warnings };
}

/** One CSV field as Go's csv.Writer quotes it (plus `always`, for the groups column). */
function csvField(value: string, always = false): string {
  if (!always && !/[",\r\n]|^[ \t]/.test(value)) return value;
  return `"${value.replaceAll('"', '""')}"`;
}

export function formatTokenRecord({ token, user }: TokenRecord): string {
  return (
    [csvField(token), csvField(user.name), csvField(user.uid ?? ''), csvField(user.groups.join(','), true)].join(',') +
    '\n'
  );
}

/** A fresh cluster-admin token: 256 random bits, base64url (no character CSV would quote). */
export function generateAdminToken(): TokenRecord {
  return {
    token: randomBytes(32).toString('base64url'),
    user: { name: 'admin', uid: randomUUID(), groups: ['system:masters'] },
  };
}

/** The token the admin kubeconfig carries: the first system:masters user, else the first user. */
export function adminRecord(records: readonly TokenRecord[]): TokenRecord | undefined {
  return records.find((r) => r.user.groups.includes('system:masters')) ?? records[0];
}

async function readTokenText(path: string, missingOk: boolean): Promise<string | undefined> {
  try {
    // Synchronous, as the start's other calls on the data dir (startup/write-file-atomic.ts).
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (missingOk && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StartupError(`cannot read token file ${path}: ${fsReason(err)}`);
  }
}

function parseTokenFileAt(path: string, text: string): { records: TokenRecord[]; warnings: string[] } {
  try {
    return parseTokenFile(text);
  } catch (err) {
    throw new StartupError(`invalid token file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function readTokenFile(path: string): Promise<{ records: TokenRecord[]; warnings: string[] }> {
  return parseTokenFileAt(path, (await readTokenText(path, false))!);
}

/** The data dir's tokens.csv: read when present, else created with one admin token. */
export async function loadOrCreateTokenFile(path: string): Promise<{ records: TokenRecord[]; warnings: string[] }> {
  const text = await readTokenText(path, true);
  if (text !== undefined) return parseTokenFileAt(path, text);
  const admin = generateAdminToken();
  await writeFileAtomic(path, formatTokenRecord(admin), 0o600);
  return { records: [admin], warnings: [] };
}
