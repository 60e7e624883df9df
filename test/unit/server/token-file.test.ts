import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminRecord,
  formatTokenRecord,
  generateAdminToken,
  loadOrCreateTokenFile,
  parseCsv,
  parseTokenFile,
  readTokenFile,
  type TokenRecord,
} from '../../../server/authn/token-file.js';
import { StartupError } from '../../../server/startup/errors.js';

// Cases follow Go's encoding/csv reader tests, which is what kube reads --token-auth-file with.
describe('parseCsv (Go encoding/csv rules)', () => {
  const ok: { name: string; input: string; want: string[][] }[] = [
    { name: 'simple', input: 'a,b,c\n', want: [['a', 'b', 'c']] },
    { name: 'no final newline', input: 'a,b,c', want: [['a', 'b', 'c']] },
    {
      name: 'CRLF line ends',
      input: 'a,b\r\nc,d\r\n',
      want: [
        ['a', 'b'],
        ['c', 'd'],
      ],
    },
    { name: 'a bare CR is data', input: 'a,b\rc,d\r\n', want: [['a', 'b\rc', 'd']] },
    { name: 'a final CR at EOF is dropped', input: 'a,b\r', want: [['a', 'b']] },
    { name: 'leading and trailing spaces are kept', input: ' a,  b,   c \n', want: [[' a', '  b', '   c ']] },
    {
      name: 'empty lines are skipped',
      input: '\na,b,c\n\n\r\nd,e,f\n\n',
      want: [
        ['a', 'b', 'c'],
        ['d', 'e', 'f'],
      ],
    },
    { name: 'a whitespace line is a record', input: ' \n', want: [[' ']] },
    { name: 'trailing comma: an empty last field', input: 'a,b,c,\n', want: [['a', 'b', 'c', '']] },
    { name: 'trailing comma at EOF', input: 'a,b,c,', want: [['a', 'b', 'c', '']] },
    { name: 'only commas', input: ',,\n', want: [['', '', '']] },
    { name: 'quoted fields', input: '"a","b c","d"\n', want: [['a', 'b c', 'd']] },
    { name: 'quoted comma', input: 'tok,user,uid,"g1,g2"\n', want: [['tok', 'user', 'uid', 'g1,g2']] },
    { name: 'doubled quote is a quote', input: '"a ""quoted"" word",b\n', want: [['a "quoted" word', 'b']] },
    { name: 'empty quoted field', input: '"",a\n', want: [['', 'a']] },
    {
      name: 'quoted field across lines',
      input: '"a\nb",c\nd,e\n',
      want: [
        ['a\nb', 'c'],
        ['d', 'e'],
      ],
    },
    { name: 'CRLF inside quotes becomes LF', input: '"a\r\nb",c\r\n', want: [['a\nb', 'c']] },
    { name: 'an empty line inside quotes is data', input: '"a\n\nb"\n', want: [['a\n\nb']] },
    { name: 'quoted last field at EOF', input: 'a,"b"', want: [['a', 'b']] },
    { name: 'variable field counts', input: 'a\nb,c,d\n', want: [['a'], ['b', 'c', 'd']] },
    {
      name: 'RFC 4180 sample',
      input: '#field1,field2\n"aaa","bb\nb"\n"a,a","b""bb"\n',
      want: [
        ['#field1', 'field2'],
        ['aaa', 'bb\nb'],
        ['a,a', 'b"bb'],
      ],
    },
    { name: 'empty input', input: '', want: [] },
  ];
  it.each(ok)('$name', ({ input, want }) => expect(parseCsv(input)).toEqual(want));

  const bad: { name: string; input: string; error: string }[] = [
    {
      name: 'bare quote in an unquoted field',
      input: 'a""b,c\n',
      error: 'parse error on line 1, column 2: bare " in non-quoted field',
    },
    {
      name: 'quote after a space',
      input: 'a "word","b"\n',
      error: 'parse error on line 1, column 3: bare " in non-quoted field',
    },
    {
      name: 'a space before a quoted field makes it unquoted',
      input: 'a, "b"\n',
      error: 'parse error on line 1, column 4: bare " in non-quoted field',
    },
    {
      name: 'trailing quote',
      input: '"a word",b"\n',
      error: 'parse error on line 1, column 11: bare " in non-quoted field',
    },
    {
      name: 'bare quote on a later line',
      input: 'a,b\nc,d"\n',
      error: 'parse error on line 2, column 4: bare " in non-quoted field',
    },
    {
      name: 'extraneous quote in a quoted field',
      input: '"a "word","b"\n',
      error: 'parse error on line 1, column 4: extraneous or missing " in quoted-field',
    },
    {
      name: 'text after the closing quote',
      input: '"a"b,c\n',
      error: 'parse error on line 1, column 3: extraneous or missing " in quoted-field',
    },
    {
      name: 'unterminated quote at EOF',
      input: '"abc',
      error: 'parse error on line 1, column 5: extraneous or missing " in quoted-field',
    },
    {
      name: 'unterminated quote with a newline',
      input: 'x,"abc\n',
      error: 'parse error on line 1, column 8: extraneous or missing " in quoted-field',
    },
    {
      name: 'error on a later line of a record',
      input: 'a,"b\nc"d,e\n',
      error: 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field',
    },
  ];
  it.each(bad)('error: $name', ({ input, error }) => expect(() => parseCsv(input)).toThrow(error));
});

describe('parseTokenFile (kube tokenfile semantics)', () => {
  const user = (name: string, groups: string[], uid?: string): TokenRecord['user'] =>
    uid === undefined ? { name, groups } : { name, uid, groups };
  const cases: { name: string; input: string; records: TokenRecord[]; warnings?: string[] }[] = [
    {
      name: 'three columns: no groups',
      input: 'tok,alice,u1\n',
      records: [{ token: 'tok', user: user('alice', [], 'u1') }],
    },
    { name: 'one group', input: 'tok,alice,u1,dev\n', records: [{ token: 'tok', user: user('alice', ['dev'], 'u1') }] },
    {
      name: 'quoted groups split on commas',
      input: 'tok,alice,u1,"dev,ops"\n',
      records: [{ token: 'tok', user: user('alice', ['dev', 'ops'], 'u1') }],
    },
    {
      name: 'an empty groups column is one empty group, as strings.Split gives',
      input: 'tok,alice,u1,""\n',
      records: [{ token: 'tok', user: user('alice', [''], 'u1') }],
    },
    { name: 'empty uid is no uid', input: 'tok,alice,\n', records: [{ token: 'tok', user: user('alice', []) }] },
    {
      name: 'columns after the fourth are ignored',
      input: 'tok,alice,u1,"a,b",extra,more\n',
      records: [{ token: 'tok', user: user('alice', ['a', 'b'], 'u1') }],
    },
    {
      name: 'quoted token with a quote',
      input: '"to""k",alice,u1\n',
      records: [{ token: 'to"k', user: user('alice', [], 'u1') }],
    },
    {
      name: 'spaces are part of the values',
      input: 'tok, alice,u1\n',
      records: [{ token: 'tok', user: user(' alice', [], 'u1') }],
    },
    {
      name: 'several users in file order',
      input: 't1,alice,u1,"system:masters"\n\nt2,bob,u2\n',
      records: [
        { token: 't1', user: user('alice', ['system:masters'], 'u1') },
        { token: 't2', user: user('bob', [], 'u2') },
      ],
    },
    {
      name: 'an empty token is skipped with a warning',
      input: ',alice,u1\nt2,bob,u2\n',
      records: [{ token: 't2', user: user('bob', [], 'u2') }],
      warnings: ['empty token in record 1: ignored'],
    },
    {
      name: 'a repeated token replaces the earlier one',
      input: 't,alice,u1\nt,bob,u2\n',
      records: [{ token: 't', user: user('bob', [], 'u2') }],
      warnings: ['duplicate token in record 2: it replaces the earlier one'],
    },
    { name: 'an empty file has no tokens', input: '', records: [] },
  ];
  it.each(cases)('$name', ({ input, records, warnings }) => {
    expect(parseTokenFile(input)).toEqual({ records, warnings: warnings ?? [] });
  });

  it.each([
    ['two columns', 'tok,alice\n', 'must have at least 3 columns (token, user name, user uid), found 2'],
    ['a whitespace line', 'tok,alice,u1\n \n', 'must have at least 3 columns (token, user name, user uid), found 1'],
    ['CSV syntax', 'tok,al"ice,u1\n', 'parse error on line 1, column 7: bare " in non-quoted field'],
  ])('rejects %s', (_, input, error) => expect(() => parseTokenFile(input)).toThrow(error));
});

describe('formatTokenRecord', () => {
  it.each<[string, TokenRecord, string]>([
    [
      'the documented shape',
      { token: 'tok', user: { name: 'admin', uid: 'u', groups: ['system:masters'] } },
      'tok,admin,u,"system:masters"\n',
    ],
    ['several groups', { token: 'tok', user: { name: 'a', uid: 'u', groups: ['g1', 'g2'] } }, 'tok,a,u,"g1,g2"\n'],
    [
      'values that need quoting',
      { token: 't"k', user: { name: 'a,b', uid: ' u', groups: [] } },
      '"t""k","a,b"," u",""\n',
    ],
  ])('%s', (_, record, want) => {
    expect(formatTokenRecord(record)).toBe(want);
  });

  it('round-trips through the parser', () => {
    const records: TokenRecord[] = [
      generateAdminToken(),
      { token: 'x"y', user: { name: 'we,ird', uid: 'line\nbreak', groups: ['a', 'b c'] } },
    ];
    expect(parseTokenFile(records.map(formatTokenRecord).join('')).records).toEqual(records);
  });
});

describe('generateAdminToken / adminRecord', () => {
  it('makes a long, CSV-safe, random system:masters token', () => {
    const a = generateAdminToken();
    const b = generateAdminToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.user).toMatchObject({ name: 'admin', groups: ['system:masters'] });
  });

  it('prefers the first system:masters user, else the first user', () => {
    const plain: TokenRecord = { token: 'p', user: { name: 'p', groups: ['dev'] } };
    const admin: TokenRecord = { token: 'a', user: { name: 'a', groups: ['x', 'system:masters'] } };
    expect(adminRecord([plain, admin])).toBe(admin);
    expect(adminRecord([plain])).toBe(plain);
    expect(adminRecord([])).toBeUndefined();
  });
});

describe('token files on disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates tokens.csv once (mode 0600) and reads the same token afterwards', async () => {
    const path = join(dir, 'tokens.csv');
    const first = await loadOrCreateTokenFile(path);
    const bytes = readFileSync(path, 'utf8');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(bytes).toMatch(/^[A-Za-z0-9_-]{43},admin,[0-9a-f-]{36},"system:masters"\n$/);
    const second = await loadOrCreateTokenFile(path);
    expect(second.records).toEqual(first.records);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('reports unreadable and invalid files in one line with the path', async () => {
    const missing = join(dir, 'missing.csv');
    await expect(readTokenFile(missing)).rejects.toThrow(
      new StartupError(`cannot read token file ${missing}: no such file or directory`),
    );
    const invalid = join(dir, 'invalid.csv');
    writeFileSync(invalid, 'tok,user\n');
    await expect(readTokenFile(invalid)).rejects.toThrow(
      new StartupError(
        `invalid token file ${invalid}: must have at least 3 columns (token, user name, user uid), found 2`,
      ),
    );
  });
});
