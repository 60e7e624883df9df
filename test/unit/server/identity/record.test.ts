// The shared identity's plaintext: what decodes (every part loads) and what is refused, by name.
import { beforeAll, describe, expect, it } from 'vitest';
import { formatTokenRecord, generateAdminToken } from '../../../../server/authn/token-file.js';
import {
  type ClusterIdentity,
  decodeIdentity,
  encodeIdentity,
  newServiceAccountKey,
} from '../../../../server/identity/record.js';
import { generateCa } from '../../../../server/pki.js';

let id: ClusterIdentity;
beforeAll(async () => {
  id = {
    ca: await generateCa(),
    serviceAccountKeys: [newServiceAccountKey(), newServiceAccountKey()],
    tokenFile: formatTokenRecord(generateAdminToken()),
  };
});

const with_ = (patch: Record<string, unknown>): string =>
  JSON.stringify({ ...JSON.parse(encodeIdentity(id)), ...patch });

describe('decodeIdentity', () => {
  it('round-trips an identity', () => {
    expect(decodeIdentity(encodeIdentity(id))).toEqual(id);
  });

  it.each<[string, () => string, string]>([
    ['not JSON', () => 'x', 'not JSON'],
    ['a list', () => '[]', 'not an object'],
    ['no CA key', () => with_({ ca: { cert: id.ca.cert } }), 'ca needs cert and key'],
    ['no signing keys', () => with_({ serviceAccountKeys: [] }), 'serviceAccountKeys must list at least one PEM key'],
    [
      'a signing key that is no key',
      () => with_({ serviceAccountKeys: [id.serviceAccountKeys[0], 'junk'] }),
      'serviceAccountKeys[1]: data does not contain a valid RSA or ECDSA private key',
    ],
    ['no token file', () => with_({ tokenFile: 1 }), 'tokenFile must be a string'],
    ['an empty token file', () => with_({ tokenFile: '' }), 'tokenFile has no tokens'],
    [
      'a token file kube would refuse',
      () => with_({ tokenFile: 'a,b\n' }),
      'tokenFile: must have at least 3 columns (token, user name, user uid), found 2',
    ],
  ])('refuses %s', (_name, text, want) => {
    expect(decodeIdentity(text())).toBe(want);
  });
});
