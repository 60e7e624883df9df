// A real HTTPS admission webhook for tests: a free loopback port, a CA of its own, AdmissionReview
// v1 in and out. `answer` decides each response by path (undefined: never answer, a hung webhook);
// every request is recorded in `seen`.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generatePki, servingHosts } from '../../server/pki.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface AdmissionWebhook {
  server: Server;
  /** https://127.0.0.1:<port>, to which a configuration appends its path. */
  url: string;
  /** The CA that signed the server's certificate, base64 as clientConfig.caBundle takes it. */
  caBundle: string;
  seen: Array<{ path: string; request: Json }>;
  close(): Promise<void>;
}

export async function startAdmissionWebhook(
  answer: (path: string, request: Json) => Json | undefined,
  seen: Array<{ path: string; request: Json }> = [],
): Promise<AdmissionWebhook> {
  const pki = await generatePki(servingHosts('127.0.0.1'));
  const server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      const path = (req.url ?? '').split('?')[0]!;
      seen.push({ path, request: review['request'] });
      const response = answer(path, review['request']);
      if (!response) return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review['request']['uid'], ...response },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(pki.caCert).toString('base64'),
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
