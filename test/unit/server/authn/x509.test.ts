// Real certificates over a real TLS server: the server asks for a client certificate, lets a bad one
// through (rejectUnauthorized: false) and the authenticator decides, as kube-apiserver does.
import { createHash, webcrypto } from 'node:crypto';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCa, issueServingCert, type KeyPair } from '../../../../server/pki.js';
import { DAY, type Issued, issue } from '../../../helpers/client-certs.js';
import { X509Authenticator, certificateIdentifier, type X509Outcome } from '../../../../server/authn/x509.js';

x509.cryptoProvider.set(webcrypto);
let server: Server;
let port: number;
let serverCa: KeyPair;
let clientCa: Issued;
let otherCa: Issued;
const outcomes: X509Outcome[] = [];
const authn = new X509Authenticator();

beforeAll(async () => {
  serverCa = await generateCa();
  const serving = await issueServingCert(serverCa, { ips: ['127.0.0.1'], dns: ['localhost'] });
  clientCa = await issue({ subject: 'CN=client-ca', ca: true });
  otherCa = await issue({ subject: 'CN=other-ca', ca: true });
  server = createServer(
    { key: serving.key, cert: serving.cert, ca: clientCa.cert, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      outcomes.push(authn.authenticate(req));
      res.end('ok');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** One request over a fresh connection (no session reuse), presenting `client` and its chain. */
async function call(client?: { cert: string; key: string }): Promise<X509Outcome> {
  outcomes.length = 0;
  await new Promise<void>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', ca: serverCa.cert, ...(client ?? {}), agent: false },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end();
  });
  return outcomes[0]!;
}

describe('X509Authenticator over TLS', () => {
  it('no client certificate: no opinion', async () => {
    expect(await call()).toEqual({ kind: 'none' });
  });

  it('a certificate from the client CA: CN is the user, O values the groups', async () => {
    const c = await issue({ subject: 'CN=alice, O=devs, O=system:masters', issuer: clientCa });
    const fp = createHash('sha256').update(Buffer.from(c.x.rawData)).digest('hex');
    expect(await call(c)).toEqual({
      kind: 'user',
      user: {
        name: 'alice',
        groups: ['devs', 'system:masters'],
        extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fp}`] },
      },
    });
  });

  it('no O: no groups', async () => {
    const c = await issue({ subject: 'CN=bob', issuer: clientCa });
    const out = await call(c);
    expect(out.kind === 'user' && out.user).toMatchObject({ name: 'bob', groups: [] });
  });

  it('no CN: no opinion', async () => {
    const c = await issue({ subject: 'O=devs', issuer: clientCa });
    expect(await call(c)).toEqual({ kind: 'none' });
  });

  it('through an intermediate the client sends', async () => {
    const intermediate = await issue({ subject: 'CN=intermediate', issuer: clientCa, ca: true });
    const leaf = await issue({ subject: 'CN=carol, O=ops', issuer: intermediate });
    const out = await call({ cert: leaf.cert + intermediate.cert, key: leaf.key });
    expect(out.kind === 'user' && out.user).toMatchObject({ name: 'carol', groups: ['ops'] });
  });

  it("another CA: refused, kube's reason", async () => {
    const c = await issue({ subject: 'CN=mallory, O=system:masters', issuer: otherCa });
    expect(await call(c)).toEqual({
      kind: 'invalid',
      reason: `verifying certificate ${certificateIdentifier(c.x)} failed: x509: certificate signed by unknown authority`,
    });
  });

  it('self-signed: refused', async () => {
    const c = await issue({ subject: 'CN=self' });
    const out = await call(c);
    expect(out).toEqual({
      kind: 'invalid',
      reason: `verifying certificate ${certificateIdentifier(c.x)} failed: x509: certificate signed by unknown authority`,
    });
  });

  it('expired: refused', async () => {
    const notAfter = new Date(Date.now() - DAY);
    const c = await issue({ subject: 'CN=old', issuer: clientCa, notBefore: new Date(Date.now() - 3 * DAY), notAfter });
    const out = await call(c);
    expect(out.kind).toBe('invalid');
    expect(out.kind === 'invalid' && out.reason).toMatch(
      new RegExp(
        `failed: x509: certificate has expired or is not yet valid: current time \\S+Z is after ${notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z')}$`,
      ),
    );
  });

  it('a server-only certificate: refused for its key usage', async () => {
    const c = await issue({ subject: 'CN=server', issuer: clientCa, eku: [x509.ExtendedKeyUsage.serverAuth] });
    expect(await call(c)).toEqual({
      kind: 'invalid',
      reason: `verifying certificate ${certificateIdentifier(c.x)} failed: x509: certificate specifies an incompatible key usage`,
    });
  });
});

describe('certificateIdentifier', () => {
  it('decimal serial, colon-separated upper-case key ids', async () => {
    const c = await issue({ subject: 'CN=id', issuer: clientCa });
    const id = certificateIdentifier(c.x);
    expect(id).toMatch(/^SN=\d+, SKID=([0-9A-F]{2}:)+[0-9A-F]{2}, AKID=([0-9A-F]{2}:)+[0-9A-F]{2}$/);
    expect(id.startsWith(`SN=${BigInt('0x' + c.x.serialNumber).toString()}`)).toBe(true);
  });
});

describe('X509Authenticator on plain HTTP', () => {
  it('no TLS: no opinion', () => {
    expect(authn.authenticate({ socket: {} } as never)).toEqual({ kind: 'none' });
  });
});
