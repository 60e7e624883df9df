// Answers in JSON byte for byte as kube-apiserver writes them: its serializer encodes each document
// with Go's json.Encoder (k8s.io/apimachinery/pkg/runtime/serializer/json), which escapes `<`, `>`,
// `&`, U+2028 and U+2029 in strings and ends the document with a newline. Objects, lists, Status,
// discovery and watch events alike; the values read back unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { openWatch } from '../../helpers/watch-stream.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const VALUE = '<b>Tom & Jerry</b>\u2028\u2029';
const ESCAPED = '\\u003cb\\u003eTom \\u0026 Jerry\\u003c/b\\u003e\\u2028\\u2029';

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
});

afterAll(async () => {
  await server.close();
});

/** What a JSON answer must be: escaped as Go escapes, one newline at the end, and nothing raw. */
function expectGoJson(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  expect(text.slice(0, -1)).not.toContain('\n');
  expect(text).not.toMatch(/[<>&\u2028\u2029]/);
}

describe('JSON answers', () => {
  it('writes an object as Go does, from its create on', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'html' }, data: { page: VALUE } };
    const created = await call('POST', CMS, { body });
    expect(created.status).toBe(201);
    expectGoJson(created.text);
    expect(created.text).toContain(`"data":{"page":"${ESCAPED}"}`);
    expect(Number(created.headers['content-length'])).toBe(Buffer.byteLength(created.text));

    const got = await call('GET', `${CMS}/html`);
    expectGoJson(got.text);
    expect((got.json as typeof body).data).toEqual({ page: VALUE });
    // The create's reply, made of its stored text, and the GET's are the same bytes.
    expect(got.text).toBe(created.text);
    const updated = await call('PUT', `${CMS}/html`, { body: got.json });
    expect(updated.status).toBe(200);
    expectGoJson(updated.text);
    expect(updated.text).toContain(`"data":{"page":"${ESCAPED}"}`);
  });

  it('writes a list as Go does, its items without their own newlines', async () => {
    const list = await call('GET', `${CMS}?fieldSelector=metadata.name%3Dhtml`);
    expectGoJson(list.text);
    expect(list.text.endsWith(']}\n')).toBe(true);
    expect((list.json as { items: { data: Record<string, string> }[] }).items[0]!.data['page']).toBe(VALUE);
  });

  it('writes a Status and discovery as Go does', async () => {
    const missing = await call('GET', `${CMS}/${encodeURIComponent('no-such')}`);
    expect(missing.status).toBe(404);
    expectGoJson(missing.text);
    const apis = await call('GET', '/apis');
    expectGoJson(apis.text);
    const conflict = await call('POST', CMS, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'html' } },
    });
    expect(conflict.status).toBe(409);
    expectGoJson(conflict.text);
  });

  it('writes watch events as Go does', async () => {
    const watch = await openWatch(server, `${CMS}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dhtml`, {
      decode: (line) => line,
    });
    try {
      const [line] = await watch.next(1);
      expect(line).toContain(ESCAPED);
      expect(line).not.toMatch(/[<>&\u2028\u2029]/);
      expect((JSON.parse(line!) as { object: { data: Record<string, string> } }).object.data['page']).toBe(VALUE);
    } finally {
      watch.close();
    }
  });
});
