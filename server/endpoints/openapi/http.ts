// The answers to GETs of /openapi/v2 and /openapi/v3[/<gv>], as kube-openapi's handlers give
// them: media types negotiated (v2 also as gnostic's protobuf), ETags and 304s, a stale v3 hash
// redirected to the current one, which is then cached as immutable.
import { type ApiError, notAcceptable, notFoundPath } from '../../../apimachinery/errors.js';
import { negotiate } from '../negotiate.js';
import { type OpenAPI, serverRelativeURL } from './documents.js';

interface OpenAPIResponse {
  code: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const JSON_TYPE = 'application/json';
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The deprecated spelling, which kubectl sends; kube answers with the current one. */
const V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function statusResponse(err: ApiError): OpenAPIResponse {
  const body = JSON.stringify(err.status);
  return {
    code: err.code,
    headers: { 'Content-Type': JSON_TYPE, 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  };
}

function ok(body: string, headers: Record<string, string>): OpenAPIResponse {
  return { code: 200, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, body };
}

/** Go's checkIfNoneMatch (net/http ServeContent): `*`, or any listed ETag equal to ours, weakly compared. */
function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

function v2Response(openapi: OpenAPI, accept: string | undefined, ifNoneMatch: string | undefined): OpenAPIResponse {
  const type = negotiate(accept, [JSON_TYPE, V2_PROTOBUF_DEPRECATED, V2_PROTOBUF]);
  if (type === undefined) {
    // kube answers an empty 406 here; we answer with a Status, as every other error.
    return statusResponse(notAcceptable([JSON_TYPE, V2_PROTOBUF]));
  }
  // kube-openapi's handler: one ETag (the quoted hash of the JSON document) for both forms,
  // `Vary: Accept`, and http.ServeContent's 304 for a matching If-None-Match.
  const doc = type === JSON_TYPE ? openapi.v2() : openapi.v2Protobuf();
  const headers = { 'Content-Type': type === JSON_TYPE ? JSON_TYPE : V2_PROTOBUF, ETag: doc.etag, Vary: 'Accept' };
  if (noneMatchHits(ifNoneMatch, doc.etag)) return { code: 304, headers: { ETag: doc.etag, Vary: 'Accept' }, body: '' };
  return { code: 200, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(doc.body)) }, body: doc.body };
}

function v3GroupResponse(
  openapi: OpenAPI,
  groupVersion: string,
  query: URLSearchParams,
  accept: string | undefined,
): OpenAPIResponse {
  const doc = openapi.v3Group(groupVersion);
  // kube's aggregator answers an empty 404 for a group version nobody serves
  if (!doc) return statusResponse(notFoundPath());
  // we have no protobuf encoding of v3 documents; kubectl only ever asks for JSON
  if (!negotiate(accept, [JSON_TYPE])) return statusResponse(notAcceptable([JSON_TYPE]));
  const hash = doc.etag.slice(1, -1);
  const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, ETag: doc.etag, Vary: 'Accept' };
  const requested = query.get('hash');
  if (requested) {
    // kube (handler3): a stale hash is redirected to the current one, which is then immutable
    if (requested !== hash)
      return {
        code: 301,
        headers: { ...headers, Location: serverRelativeURL(groupVersion, hash), 'Content-Length': '0' },
        body: '',
      };
    const expires = new Date();
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers['Cache-Control'] = 'public, immutable';
    headers['Expires'] = expires.toUTCString();
  }
  return ok(doc.body, headers);
}

/** The answer to a GET of an `/openapi/...` path (`path` without a trailing slash). */
export function openapiResponse(
  openapi: OpenAPI,
  path: string,
  query: URLSearchParams,
  accept: string | undefined,
  ifNoneMatch?: string,
): OpenAPIResponse {
  if (path === '/openapi/v2') return v2Response(openapi, accept, ifNoneMatch);
  if (path === '/openapi/v3') {
    const doc = openapi.v3Index();
    return ok(doc.body, { 'Content-Type': JSON_TYPE, ETag: doc.etag });
  }
  if (path.startsWith('/openapi/v3/'))
    return v3GroupResponse(openapi, path.slice('/openapi/v3/'.length), query, accept);
  return statusResponse(notFoundPath());
}
