// A create's reply is made of the text it stored (the resourceVersion put in): it must be the bytes
// any later reply encodes for the object, here a restarted server's, which decodes what was stored.
// So must the watch cache's objects that were never decoded: a create's, an apply's that created,
// and the CRD controller's status write's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, installCrd, simpleCrd } from '../../helpers/crds.js';
import { eventually } from '../../helpers/eventually.js';

const GROUP = 'replies.example.com';
/** An annotation that makes a body large (give-way.ts's LARGE_WRITE_BYTES), with escapes to decode. */
const LONG_NOTE = `${'a long note \\u003cb\\u003e \\"quoted\\" '.repeat(2500)}end`;
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;

let dataDir: string;
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'create-reply-'));
  server = await startServer({ storage: 'sqlite', dataDir });
  call = apiClient(server);
  await installCrd(
    call,
    simpleCrd(GROUP, 'widgets', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer' },
            color: { type: 'string', default: 'blue' },
            big: { type: 'integer' },
          },
        },
      },
    }),
  );
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a create's reply", () => {
  it('is the body a restarted server answers with for the object', async () => {
    const bodies = {
      // apiVersion and kind first: the reply is the stored text with the resourceVersion put in.
      first: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"first","labels":{"a":"b"}},"spec":{"size":1,"big":9223372036854775807}}`,
      // kind after metadata, and no labels: encoded as ever.
      later: `{"apiVersion":"${GROUP}/v1","metadata":{"name":"later"},"kind":"Widget","spec":{"size":2}}`,
      // Only a name in its metadata before the server's fields.
      bare: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"bare"}}`,
      // Large bodies, ASCII (its strings copied from its bytes) and not (sliced from its text).
      large: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"large","annotations":{"note":"${LONG_NOTE}"}}}`,
      unicode: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"unicode","annotations":{"note":"${LONG_NOTE} \u00e9t\u00e9 ☂ 😀"}}}`,
    };
    const replies: Record<string, string> = {};
    for (const [name, raw] of Object.entries(bodies)) {
      const r = await call('POST', WIDGETS, { raw });
      expect(r.status).toBe(201);
      replies[name] = r.text;
    }
    expect(replies['first']).toContain('"big":9223372036854775807');
    expect(replies['large']).toContain('note \\u003cb\\u003e \\"quoted\\" a long');
    // Server-side applies that create: their managedFields are the field manager's, not the body's.
    const applies = {
      applied: `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"applied","labels":{"a":"b"}},"spec":{"size":3}}`,
      'applied-large': `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"applied-large","annotations":{"note":"${LONG_NOTE}"}},"spec":{"size":4}}`,
      'applied-unicode': `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"applied-unicode","annotations":{"note":"été ☂"}},"spec":{"size":5}}`,
    };
    for (const [name, raw] of Object.entries(applies)) {
      const applied = await call('PATCH', `${WIDGETS}/${name}?fieldManager=tester`, {
        raw,
        contentType: 'application/apply-patch+yaml',
      });
      expect(applied.status).toBe(201);
      replies[name] = applied.text;
    }
    // The watch cache holds what the writes wrote (resourceVersion 0 reads it).
    for (const name of Object.keys(replies))
      expect((await call('GET', `${WIDGETS}/${name}?resourceVersion=0`)).text).toBe(replies[name]);
    // The CRD as its controller's status write left it, in the watch cache.
    const crd = `${CRDS_PATH}/widgets.${GROUP}`;
    const cachedCrd = await eventually('the CRD established in the watch cache', async () => {
      const r = await call('GET', `${crd}?resourceVersion=0`);
      return r.text.includes('"type":"Established","status":"True"') ? r.text : undefined;
    });
    await server.close();
    server = await startServer({ storage: 'sqlite', dataDir });
    call = apiClient(server);
    for (const name of Object.keys(replies)) expect((await call('GET', `${WIDGETS}/${name}`)).text).toBe(replies[name]);
    expect((await call('GET', crd)).text).toBe(cachedCrd);
  });
});
