// Writing answers: the media type a reply goes out in (JSON, YAML, protobuf) from the request's
// Accept header and what the reply is, and kube's Retry-After on a Status that asks for a retry.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { notFound, tooLargeResourceVersion } from '../../../../apimachinery/errors.js';
import { sendJson, writeStatus } from '../../../../server/endpoints/respond.js';
import { negotiateResourceOutput } from '../../../../server/endpoints/output.js';

interface Written {
  code: number;
  headers: Record<string, string>;
  body: string;
}

/** A response that records what is written, for a request with this Accept header. */
function response(accept?: string): { res: ServerResponse; written: () => Written } {
  let out: Written | undefined;
  const res = {
    req: { headers: accept === undefined ? {} : { accept } },
    headersSent: false,
    writeHead(code: number, headers: Record<string, string>) {
      out = { code, headers, body: '' };
      return res;
    },
    end(body: string | Buffer) {
      out!.body = Buffer.isBuffer(body) ? body.toString('latin1') : body;
    },
  };
  return { res: res as unknown as ServerResponse, written: () => out! };
}

const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { n: '1' } };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };

describe('sendJson: the media type', () => {
  it.each<[string | undefined, object, string]>([
    [undefined, widget, 'application/json'],
    ['application/yaml', widget, 'application/yaml'],
    ['application/json, application/yaml', widget, 'application/json'],
    ['application/yaml;q=0.9, application/json', widget, 'application/json'],
    // Custom resources have no protobuf encoding: the next clause decides.
    ['application/vnd.kubernetes.protobuf, application/yaml', widget, 'application/yaml'],
    ['application/vnd.kubernetes.protobuf, application/json', widget, 'application/json'],
    ['application/vnd.kubernetes.protobuf, application/yaml', configMap, 'application/vnd.kubernetes.protobuf'],
    ['application/yaml, application/vnd.kubernetes.protobuf', configMap, 'application/yaml'],
  ])('Accept %s, %o: %s', (accept, value, want) => {
    const { res, written } = response(accept);
    // Custom resources negotiate without protobuf for their own objects.
    sendJson(res, 200, value, negotiateResourceOutput(accept, value === configMap).mediaType);
    expect(written().headers['Content-Type']).toBe(want);
    expect(written().headers['Content-Length']).toBe(
      String(Buffer.byteLength(written().body, want.includes('protobuf') ? 'latin1' : 'utf8')),
    );
  });

  it('writes YAML in kube shape', () => {
    const { res, written } = response('application/yaml');
    sendJson(res, 200, widget, 'application/yaml');
    expect(written().body).toBe('apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  "n": "1"\n');
  });
});

describe('writeStatus', () => {
  it('a Status in YAML when YAML is asked for', () => {
    const { res, written } = response('application/yaml');
    writeStatus(res, notFound({ group: '', name: 'configmaps' }, 'x'));
    expect(written()).toMatchObject({ code: 404, headers: { 'Content-Type': 'application/yaml' } });
    expect(written().body).toContain('message: configmaps "x" not found\n');
  });

  it('Retry-After when the Status asks for a retry (ErrorNegotiated), not otherwise', () => {
    const retry = response();
    writeStatus(retry.res, tooLargeResourceVersion(10, 5));
    expect(retry.written().headers['Retry-After']).toBe('1');
    const none = response();
    writeStatus(none.res, notFound({ group: '', name: 'configmaps' }, 'x'));
    expect(none.written().headers['Retry-After']).toBeUndefined();
  });
});
