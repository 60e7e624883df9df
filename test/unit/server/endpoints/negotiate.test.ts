import { describe, expect, it } from 'vitest';
import {
  negotiate,
  type AcceptClause,
  type ServedMediaType,
  defaultEndpointRestrictions,
  isPrettyPrint,
  negotiateMediaTypeOptions,
  negotiateOutputMediaType,
  parseAccept,
  parseMediaType,
  patchMediaType,
  resourceEndpointRestrictions,
} from '../../../../server/endpoints/negotiate.js';
import { negotiateResourceOutput, watchMediaType } from '../../../../server/endpoints/output.js';
import { apiError } from '../../../helpers/api-error.js';

const TABLE_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const clause = (type: string, params: Record<string, string> = {}, q = 1): AcceptClause => {
  const [mainType = '', subType = ''] = type.split('/');
  return { type, mainType, subType, params, q };
};

describe('parseAccept (goautoneg.ParseAccept)', () => {
  it.each<{ header: string; want: AcceptClause[] }>([
    { header: '', want: [] },
    { header: 'application/json', want: [clause('application/json')] },
    {
      header: TABLE_ACCEPT,
      want: [
        clause('application/json', { as: 'Table', v: 'v1', g: 'meta.k8s.io' }),
        clause('application/json', { as: 'Table', v: 'v1beta1', g: 'meta.k8s.io' }),
        clause('application/json'),
      ],
    },
    {
      header: DISCOVERY_ACCEPT,
      want: [
        clause('application/json', { g: 'apidiscovery.k8s.io', v: 'v2', as: 'APIGroupDiscoveryList' }),
        clause('application/json', { g: 'apidiscovery.k8s.io', v: 'v2beta1', as: 'APIGroupDiscoveryList' }),
        clause('application/json'),
      ],
    },
    { header: 'application/json, */*;q=0.8', want: [clause('application/json'), clause('*/*', {}, Math.fround(0.8))] },
    {
      header: 'application/vnd.kubernetes.protobuf,application/json',
      want: [clause('application/vnd.kubernetes.protobuf'), clause('application/json')],
    },
    // Concrete types before wildcards at the same q; higher q first.
    { header: '*/*, application/json', want: [clause('application/json'), clause('*/*')] },
    { header: 'text/*;q=0.5, text/html', want: [clause('text/html'), clause('text/*', {}, 0.5)] },
    {
      header: 'application/json;q=0.5, application/yaml',
      want: [clause('application/yaml'), clause('application/json', {}, 0.5)],
    },
    { header: 'a/b;q=0.5, */*', want: [clause('*/*'), clause('a/b', {}, 0.5)] },
    // goautoneg's comparison lets a concrete type pass a wildcard of higher q.
    {
      header: '*/*;q=0.9, a/b;q=0.1',
      want: [clause('a/b', {}, Math.fround(0.1)), clause('*/*', {}, Math.fround(0.9))],
    },
    // Equal clauses keep the client's order.
    { header: 'a/x, b/y, c/z', want: [clause('a/x'), clause('b/y'), clause('c/z')] },
    // A bare `*` is */*; anything else without exactly one `/` is dropped.
    { header: '*', want: [clause('*/*')] },
    { header: 'application, a/b/c, x/y', want: [clause('x/y')] },
    { header: ' , ,', want: [] },
    // Spaces (not tabs) are trimmed around types and parameter names and values.
    { header: ' application/json ; charset = utf-8 ', want: [clause('application/json', { charset: 'utf-8' })] },
    { header: 'x/y;novalue;a=b=c', want: [clause('x/y', { a: 'b=c' })] },
    // q is parsed as written, untrimmed; what Go cannot parse is 0.
    { header: 'x/y;q=abc', want: [clause('x/y', {}, 0)] },
    { header: 'x/y; q= 0.5', want: [clause('x/y', {}, 0)] },
    { header: 'x/y;q=0', want: [clause('x/y', {}, 0)] },
    { header: 'x/y;q=.5', want: [clause('x/y', {}, 0.5)] },
    { header: 'x/y;q=1e400', want: [clause('x/y', {}, Infinity)] },
  ])('$header', ({ header, want }) => {
    expect(parseAccept(header)).toEqual(want);
  });
});

// A custom resource: JSON and YAML objects, protobuf only for the meta.k8s.io kinds.
const CR_SERVED: ServedMediaType[] = [
  { mediaType: 'application/json', streams: true },
  { mediaType: 'application/yaml' },
  { mediaType: 'application/vnd.kubernetes.protobuf', streams: true },
];
const CR = resourceEndpointRestrictions({ table: true, standardMediaTypes: ['application/json', 'application/yaml'] });
const NOT_ACCEPTABLE =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

describe('negotiateOutputMediaType on a custom resource', () => {
  it.each<{
    header: string | undefined;
    mediaType: string;
    convert?: { group: string; version: string; kind: string };
  }>([
    { header: undefined, mediaType: 'application/json' },
    { header: '', mediaType: 'application/json' },
    { header: 'application/json', mediaType: 'application/json' },
    { header: 'application/json, */*', mediaType: 'application/json' },
    { header: 'application/json, */*;q=0.8', mediaType: 'application/json' },
    { header: '*/*', mediaType: 'application/json' },
    { header: 'application/*', mediaType: 'application/json' },
    { header: 'application/yaml', mediaType: 'application/yaml' },
    { header: 'text/html, */*;q=0.1', mediaType: 'application/json' },
    { header: 'application/BOGUS, application/json', mediaType: 'application/json' },
    // kubectl 1.32+ typed clients: custom resources have no protobuf, so JSON.
    { header: 'application/vnd.kubernetes.protobuf,application/json', mediaType: 'application/json' },
    {
      header: TABLE_ACCEPT,
      mediaType: 'application/json',
      convert: { group: 'meta.k8s.io', version: 'v1', kind: 'Table' },
    },
    {
      header: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
      mediaType: 'application/json',
      convert: { group: 'meta.k8s.io', version: 'v1beta1', kind: 'Table' },
    },
    {
      header: 'application/yaml;as=Table;v=v1;g=meta.k8s.io',
      mediaType: 'application/yaml',
      convert: { group: 'meta.k8s.io', version: 'v1', kind: 'Table' },
    },
    {
      header: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
      mediaType: 'application/json',
      convert: { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadataList' },
    },
    {
      header: 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json',
      mediaType: 'application/vnd.kubernetes.protobuf',
      convert: { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadata' },
    },
    // Conversions the endpoint cannot make are skipped for the next clause.
    { header: 'application/json;as=BOGUS;v=v1beta1;g=meta.k8s.io, application/json', mediaType: 'application/json' },
    { header: 'application/json;as=Table, application/yaml', mediaType: 'application/yaml' },
    { header: 'application/json;as=Table;v=v2;g=meta.k8s.io, application/yaml', mediaType: 'application/yaml' },
    { header: 'application/json;as=Table;v=v1;g=example.com, application/yaml', mediaType: 'application/yaml' },
    { header: 'application/json;sv=v1, application/yaml', mediaType: 'application/yaml' },
    { header: 'application/yaml;stream=watch, application/json', mediaType: 'application/json' },
    // kube does not skip q=0.
    { header: 'application/json;q=0', mediaType: 'application/json' },
  ])('$header', ({ header, mediaType, convert }) => {
    const got = negotiateOutputMediaType(header, CR_SERVED, CR);
    expect(got.accepted.mediaType).toBe(mediaType);
    expect(got.convert).toEqual(convert);
  });

  it.each<{ header: string }>([
    { header: 'text/html' },
    { header: 'application/json;as=Table' },
    { header: 'application/vnd.kubernetes.protobuf' },
    { header: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io' },
    { header: 'application' },
    { header: '*/json' },
  ])('$header is a 406', ({ header }) => {
    const err = apiError(() => negotiateOutputMediaType(header, CR_SERVED, CR));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: NOT_ACCEPTABLE,
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  it('no Table when the resource cannot be printed', () => {
    const noTable = resourceEndpointRestrictions({ table: false, standardMediaTypes: ['application/json'] });
    const got = negotiateOutputMediaType(TABLE_ACCEPT, CR_SERVED, noTable);
    expect(got).toMatchObject({ accepted: { mediaType: 'application/json' } });
    expect(got.convert).toBeUndefined();
  });

  it('reads the media type parameters', () => {
    expect(
      negotiateMediaTypeOptions('application/json;pretty=1;export=1;profile=local;foo=bar;stream=watch', CR_SERVED, CR),
    ).toEqual({
      accepted: CR_SERVED[0],
      pretty: true,
      stream: 'watch',
      useServerVersion: '',
      export: true,
      profile: 'local',
      unrecognized: ['foo'],
    });
  });

  it('answers a header as the first time, protobuf told apart, and a 406 every time', () => {
    const kubectl = 'application/vnd.kubernetes.protobuf,application/json';
    for (let i = 0; i < 2; i++) {
      expect(negotiateResourceOutput(kubectl, true).mediaType).toBe('application/vnd.kubernetes.protobuf');
      expect(negotiateResourceOutput(kubectl, false).mediaType).toBe('application/json');
      expect(negotiateResourceOutput(undefined, true)).toEqual(negotiateResourceOutput('', true));
      expect(apiError(() => negotiateResourceOutput('text/plain', true)).code).toBe(406);
    }
  });

  it('a watch needs a streaming media type', () => {
    expect(watchMediaType(negotiateResourceOutput('application/json', false))).toBe('application/json');
    const err = apiError(() => watchMediaType(negotiateResourceOutput('application/yaml', false)));
    expect(err.status).toMatchObject({
      code: 406,
      reason: 'NotAcceptable',
      message:
        'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    });
  });
});

// kube's TestNegotiate (negotiation/negotiate_test.go), with the default restrictions.
describe('negotiateOutputMediaType with the default restrictions', () => {
  const json: ServedMediaType[] = [{ mediaType: 'application/json' }];
  const jsonAndProto: ServedMediaType[] = [{ mediaType: 'application/json' }, { mediaType: 'application/protobuf' }];
  it.each<{ header: string; served: ServedMediaType[]; want: string; pretty: boolean }>([
    { header: '', served: json, want: 'application/json', pretty: false },
    { header: '*/*', served: json, want: 'application/json', pretty: false },
    { header: 'application/*', served: json, want: 'application/json', pretty: false },
    { header: 'application/json', served: json, want: 'application/json', pretty: false },
    { header: 'application/json', served: jsonAndProto, want: 'application/json', pretty: false },
    { header: 'application/protobuf', served: jsonAndProto, want: 'application/protobuf', pretty: false },
    { header: 'application/json; pretty=1', served: json, want: 'application/json', pretty: true },
    { header: 'unrecognized/stuff,application/json; pretty=1', served: json, want: 'application/json', pretty: true },
    {
      header: 'application/json;as=BOGUS;v=v1beta1;g=meta.k8s.io, application/json',
      served: json,
      want: 'application/json',
      pretty: false,
    },
    { header: 'application/BOGUS, application/json', served: json, want: 'application/json', pretty: false },
  ])('$header', ({ header, served, want, pretty }) => {
    const got = negotiateOutputMediaType(header, served, defaultEndpointRestrictions);
    expect(got.accepted.mediaType).toBe(want);
    expect(got.pretty).toBe(pretty);
  });

  it.each<{ header: string; served: ServedMediaType[]; message: string }>([
    {
      header: 'application',
      served: [{ mediaType: 'application' }],
      message: 'only the following media types are accepted: application',
    },
    { header: '', served: [], message: 'only the following media types are accepted: ' },
    { header: '*/*', served: [], message: 'only the following media types are accepted: ' },
  ])('$header with $served is a 406', ({ header, served, message }) => {
    const err = apiError(() => negotiateOutputMediaType(header, served, defaultEndpointRestrictions));
    expect(err.status).toMatchObject({ code: 406, reason: 'NotAcceptable', message });
  });
});

describe('isPrettyPrint', () => {
  it.each<{ query: string; ua: string | undefined; want: boolean }>([
    { query: 'pretty=1', ua: undefined, want: true },
    { query: 'pretty=true', ua: 'kubectl/v1.33.1', want: true },
    { query: 'pretty=0', ua: 'curl/8.0', want: false },
    { query: 'pretty=yes', ua: 'curl/8.0', want: false },
    { query: 'pretty=', ua: 'curl/8.0', want: true },
    { query: '', ua: 'curl/8.0', want: true },
    { query: '', ua: 'Wget/1.21', want: true },
    { query: '', ua: 'Mozilla/5.0 (X11; Linux x86_64)', want: true },
    { query: '', ua: 'kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0', want: false },
    { query: '', ua: undefined, want: false },
  ])('$query with $ua', ({ query, ua, want }) => {
    expect(isPrettyPrint(new URLSearchParams(query), ua)).toBe(want);
  });
});

describe('parseMediaType (mime.ParseMediaType)', () => {
  it.each<{ v: string; want: { type: string; params: Record<string, string> } | undefined }>([
    { v: 'application/json', want: { type: 'application/json', params: {} } },
    { v: 'application/apply-patch+yaml', want: { type: 'application/apply-patch+yaml', params: {} } },
    { v: 'application/vnd.kubernetes.protobuf', want: { type: 'application/vnd.kubernetes.protobuf', params: {} } },
    { v: 'Application/JSON; Charset=UTF-8', want: { type: 'application/json', params: { charset: 'UTF-8' } } },
    { v: ' application/json ; charset=utf-8;', want: { type: 'application/json', params: { charset: 'utf-8' } } },
    { v: 'text/plain; charset="utf-8"', want: { type: 'text/plain', params: { charset: 'utf-8' } } },
    { v: 'a/b; x="q\\"uote"; y=""', want: { type: 'a/b', params: { x: 'q"uote', y: '' } } },
    { v: 'a/b; x="C:\\dev"', want: { type: 'a/b', params: { x: 'C:\\dev' } } },
    { v: 'a/b; x=1; x=1', want: { type: 'a/b', params: { x: '1' } } },
    { v: 'application', want: { type: 'application', params: {} } },
    { v: '', want: undefined },
    { v: ';charset=utf-8', want: undefined },
    { v: 'application/', want: undefined },
    { v: 'application json', want: undefined },
    { v: 'a/b c', want: undefined },
    { v: 'a/b; charset', want: undefined },
    { v: 'a/b; x=1; x=2', want: undefined },
    { v: 'a/b;;', want: undefined },
    { v: 'a/b; x=', want: undefined },
    { v: 'a/b; x="unterminated', want: undefined },
  ])('$v', ({ v, want }) => {
    expect(parseMediaType(v)).toEqual(want);
  });
});

describe('patchMediaType', () => {
  it.each<{ v: string | undefined; want: string }>([
    { v: 'application/merge-patch+json', want: 'application/merge-patch+json' },
    { v: 'application/merge-patch+json; charset=utf-8', want: 'application/merge-patch+json' },
    { v: 'Application/Merge-Patch+JSON', want: 'Application/Merge-Patch+JSON' },
    { v: ' application/json-patch+json', want: ' application/json-patch+json' },
    { v: ';x', want: ';x' },
    { v: undefined, want: '' },
  ])('$v', ({ v, want }) => {
    expect(patchMediaType(v)).toBe(want);
  });
});

describe('negotiate (goautoneg.Negotiate, as kube-openapi calls it)', () => {
  const offers = ['application/json', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
  it.each<[string | undefined, string | undefined]>([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    [
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json',
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    ],
    ['application/json;q=0.5, application/*;q=0.9', 'application/json'],
    ['application/json;q=0, text/plain', undefined],
    ['application/json;q=0', undefined],
    ['Application/JSON', undefined],
    ['text/*, application/json;q=0.1', 'application/json'],
  ])('%j -> %s', (accept, want) => {
    expect(negotiate(accept, offers)).toBe(want);
  });
});
