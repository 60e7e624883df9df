// The sealed record: what opens it (the same token under the same prefix and key) and what does
// not (another token, another prefix, a flipped bit), and the envelopes a record may not be.
import { describe, expect, it } from 'vitest';
import {
  type Sealed,
  deriveKey,
  keyFor,
  open,
  parseSealed,
  scryptParamsProblem,
  seal,
} from '../../../../server/identity/seal.js';

// Cheap parameters for the cases that are not about the KDF's cost.
const FAST = { N: 2 ** 10, r: 8, p: 1 };
const AAD = 'mini-apiserver cluster identity v1\0/a\0/mini-apiserver/identity';

describe('seal and open', async () => {
  const k = await deriveKey('s3cret', undefined, FAST);
  const sealed = seal('{"hello":"world"}', k, AAD);

  it('round-trips with the same token, salt and additional data', async () => {
    const again = await keyFor('s3cret', sealed);
    expect(open(sealed, again.key, AAD)).toBe('{"hello":"world"}');
    expect(sealed.ciphertext).not.toContain('hello');
  });

  it.each<[string, () => Promise<[Sealed, Buffer, string]>]>([
    ['another token', async () => [sealed, (await keyFor('s3cret!', sealed)).key, AAD]],
    ['another prefix', async () => [sealed, k.key, AAD.replace('\0/a\0', '\0/b\0')]],
    ['no prefix', async () => [sealed, k.key, AAD.replace('\0/a\0', '\0\0')]],
    [
      'a flipped bit in the ciphertext',
      async () => {
        const data = Buffer.from(sealed.ciphertext, 'base64');
        data[0]! ^= 1;
        return [{ ...sealed, ciphertext: data.toString('base64') }, k.key, AAD];
      },
    ],
    ['another nonce', async () => [{ ...sealed, nonce: Buffer.alloc(12).toString('base64') }, k.key, AAD]],
    ['a ciphertext shorter than the tag', async () => [{ ...sealed, ciphertext: 'AAAA' }, k.key, AAD]],
  ])('does not open with %s', async (_name, make) => {
    const [s, key, aad] = await make();
    expect(open(s, key, aad)).toBeUndefined();
  });

  it('uses a fresh nonce every time: the same plaintext seals differently', () => {
    const a = seal('same', k, AAD);
    const b = seal('same', k, AAD);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('records the salt and parameters it needs to derive the key again', () => {
    expect(sealed.kdf).toEqual({ name: 'scrypt', salt: k.salt.toString('base64'), ...FAST });
    expect(parseSealed(JSON.stringify(sealed))).toEqual(sealed);
  });
});

describe('deriveKey', () => {
  it('derives the same key from the same token and salt, another from another salt or token', async () => {
    const salt = Buffer.alloc(16, 7);
    const [a, b, c, d] = await Promise.all([
      deriveKey('t', salt, FAST),
      deriveKey('t', salt, FAST),
      deriveKey('t', Buffer.alloc(16, 8), FAST),
      deriveKey('u', salt, FAST),
    ]);
    expect(a.key.equals(b.key)).toBe(true);
    expect(a.key.equals(c.key)).toBe(false);
    expect(a.key.equals(d.key)).toBe(false);
    expect(a.key).toHaveLength(32);
  });

  it('runs with the default parameters (N = 2^15) within node’s memory limit', async () => {
    const k = await deriveKey('t');
    expect(k.params).toEqual({ N: 2 ** 15, r: 8, p: 1 });
    expect(k.salt).toHaveLength(16);
  });
});

describe('scryptParamsProblem', () => {
  it.each<[string, { N: number; r: number; p: number }, string | undefined]>([
    ['the defaults', { N: 2 ** 15, r: 8, p: 1 }, undefined],
    ['2^17', { N: 2 ** 17, r: 8, p: 1 }, undefined],
    ['N not a power of two', { N: 1000, r: 8, p: 1 }, 'N must be a power of two above 1, not 1000'],
    ['N of 1', { N: 1, r: 8, p: 1 }, 'N must be a power of two above 1, not 1'],
    ['a fraction', { N: 1024, r: 8.5, p: 1 }, 'N, r and p must be positive integers'],
    ['zero', { N: 1024, r: 0, p: 1 }, 'N, r and p must be positive integers'],
    [
      'a gigabyte',
      { N: 2 ** 20, r: 8, p: 1 },
      'scrypt parameters N=1048576 r=8 p=1 ask more than this server spends on a key',
    ],
    [
      'many lanes',
      { N: 1024, r: 8, p: 64 },
      'scrypt parameters N=1024 r=8 p=64 ask more than this server spends on a key',
    ],
  ])('%s', (_name, params, want) => {
    expect(scryptParamsProblem(params)).toBe(want);
  });
});

describe('parseSealed', () => {
  const good = {
    kind: 'MiniApiserverSealedIdentity',
    version: 1,
    kdf: { name: 'scrypt', salt: 'c2FsdA==', N: 1024, r: 8, p: 1 },
    nonce: Buffer.alloc(12).toString('base64'),
    ciphertext: 'AAAA',
  };
  it.each<[string, string, string]>([
    ['not JSON', '{', 'not JSON'],
    ['another kind', JSON.stringify({ ...good, kind: 'Secret' }), 'not a MiniApiserverSealedIdentity'],
    ['a later version', JSON.stringify({ ...good, version: 2 }), 'version 2 is not one this server reads (1)'],
    ['another KDF', JSON.stringify({ ...good, kdf: { ...good.kdf, name: 'pbkdf2' } }), 'kdf must be scrypt'],
    [
      'parameters as text',
      JSON.stringify({ ...good, kdf: { ...good.kdf, N: '1024' } }),
      'kdf needs numbers N, r and p',
    ],
    [
      'a cost no start should pay',
      JSON.stringify({ ...good, kdf: { ...good.kdf, N: 2 ** 24 } }),
      'scrypt parameters N=16777216 r=8 p=1 ask more than this server spends on a key',
    ],
    ['salt not base64', JSON.stringify({ ...good, kdf: { ...good.kdf, salt: 'no!' } }), 'kdf.salt must be base64'],
    ['no ciphertext', JSON.stringify({ ...good, ciphertext: undefined }), 'ciphertext must be base64'],
    ['a short nonce', JSON.stringify({ ...good, nonce: 'AAAA' }), 'nonce must be 12 bytes'],
  ])('refuses %s', (_name, text, want) => {
    expect(parseSealed(text)).toBe(want);
  });
});
