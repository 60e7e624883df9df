// Content negotiation as kube-apiserver does it (apiserver/pkg/endpoints/handlers/negotiation,
// on github.com/munnerz/goautoneg): the Accept header's clauses in goautoneg's order, the first
// clause that a served media type matches and the endpoint allows (a Table or
// PartialObjectMetadata conversion is asked for with `;as=...;g=...;v=...`), else a 406 listing
// what is served. Also Go's mime.ParseMediaType for request bodies, and the patch handler's
// cruder reading of Content-Type.
import { notAcceptable } from '../../apimachinery/errors.js';
import { parseGoBool } from '../request/request-info.js';

/** One clause of an Accept header. */
export interface AcceptClause {
  /** The whole media range: `application/json`, `application/*`, `*\/*`. */
  type: string;
  mainType: string;
  subType: string;
  /** Every parameter but q, values trimmed. */
  params: Record<string, string>;
  q: number;
}

/** goautoneg's sort.Sort ordering: higher q first, then concrete types before wildcards. */
function acceptLess(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.mainType !== '*' && b.mainType === '*') return true;
  return a.subType !== '*' && b.subType === '*';
}

/**
 * goautoneg.ParseAccept. Clauses without a `/` (other than a bare `*`) are dropped; an
 * unparsable q reads as 0. Go's sort.Sort is an insertion sort for the dozen or fewer clauses
 * clients send, reproduced here so that equal clauses keep the client's order as they do in kube.
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const [range = '', ...rawParams] = trimSpaces(rawPart).split(';');
    const halves = range.split('/');
    const mainType = trimSpaces(halves[0]!);
    let subType: string;
    if (halves.length === 1 && mainType === '*') subType = '*';
    else if (halves.length === 2) subType = trimSpaces(halves[1]!);
    else continue;
    const clause: AcceptClause = { type: `${mainType}/${subType}`, mainType, subType, params: {}, q: 1 };
    for (const param of rawParams) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const name = trimSpaces(param.slice(0, eq));
      if (name === 'q') clause.q = parseGoFloat(param.slice(eq + 1));
      else clause.params[name] = trimSpaces(param.slice(eq + 1));
    }
    clauses.push(clause);
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && acceptLess(clauses[j]!, clauses[j - 1]!); j--) {
      [clauses[j - 1], clauses[j]] = [clauses[j]!, clauses[j - 1]!];
    }
  }
  return clauses;
}

/**
 * goautoneg.Negotiate, as kube-openapi's handlers call it: the first offer (`type/subtype`) the
 * most preferred clause accepts; clauses with q 0 accept nothing; no Accept header accepts all.
 */
export function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  for (const clause of parseAccept(accept?.trim() ? accept : '*/*')) {
    if (clause.q === 0) continue;
    const match = offers.find((offer) => {
      const [type, subType] = offer.split('/');
      return (
        (clause.mainType === '*' || clause.mainType === type) && (clause.subType === '*' || clause.subType === subType)
      );
    });
    if (match) return match;
  }
  return undefined;
}

/** strings.Trim(s, " "): spaces only, not tabs. */
const trimSpaces = (s: string): string => s.replace(/^ +| +$/g, '');

/**
 * strconv.ParseFloat(s, 32) as goautoneg calls it, error ignored: 0 for what Go cannot parse
 * (hex floats are not read here), the float32 rounding of the rest.
 */
function parseGoFloat(s: string): number {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return 0;
  return Math.fround(Number(s));
}

/** A media type the server can write (kube's runtime.SerializerInfo). */
export interface ServedMediaType {
  /** `application/json`, `application/yaml`, `application/vnd.kubernetes.protobuf`. */
  mediaType: string;
  /** Whether watch streams can be written in it. */
  streams?: boolean;
}

/** The object kind the client wants instead of the resource's own (`as`, `g`, `v`). */
export interface ConvertTarget {
  group: string;
  version: string;
  kind: string;
}

/** kube's negotiation.EndpointRestrictions: what one endpoint can do with a media type. */
interface EndpointRestrictions {
  allowsMediaTypeTransform(mainType: string, subType: string, target: ConvertTarget | undefined): boolean;
  allowsServerVersion(version: string): boolean;
  allowsStreamSchema(schema: string): boolean;
}

/** DefaultEndpointRestrictions: no conversions, no server versions, watch streams only. */
export const defaultEndpointRestrictions: EndpointRestrictions = {
  allowsMediaTypeTransform: (_main, _sub, target) => target === undefined,
  allowsServerVersion: () => false,
  allowsStreamSchema: (schema) => schema === 'watch',
};

/**
 * What a resource endpoint allows (RequestScope.AllowsMediaTypeTransform): its own objects in its
 * standard media types (custom resources have no protobuf encoding), a meta.k8s.io v1 or v1beta1
 * Table in JSON or YAML when the resource can be printed, and PartialObjectMetadata(List) in any
 * served media type.
 */
export function resourceEndpointRestrictions(opts: {
  table: boolean;
  standardMediaTypes: readonly string[];
}): EndpointRestrictions {
  return {
    allowsMediaTypeTransform(mainType, subType, target) {
      if (!target)
        return opts.standardMediaTypes.length === 0 || opts.standardMediaTypes.includes(`${mainType}/${subType}`);
      if (target.group !== 'meta.k8s.io' || (target.version !== 'v1' && target.version !== 'v1beta1')) return false;
      if (target.kind === 'Table')
        return opts.table && mainType === 'application' && (subType === 'json' || subType === 'yaml');
      return target.kind === 'PartialObjectMetadata' || target.kind === 'PartialObjectMetadataList';
    },
    allowsServerVersion: () => false,
    allowsStreamSchema: (schema) => schema === 'watch',
  };
}

/** negotiation.MediaTypeOptions: the media type chosen and what its parameters asked for. */
interface MediaTypeOptions<T extends ServedMediaType> {
  accepted: T;
  /** `pretty=1` on the media type (the `pretty` query parameter is isPrettyPrint's business). */
  pretty: boolean;
  stream: string;
  convert?: ConvertTarget;
  useServerVersion: string;
  export: boolean;
  profile: string;
  unrecognized: string[];
}

/** acceptMediaTypeOptions: undefined when the endpoint cannot serve what the parameters ask. */
function acceptMediaTypeOptions<T extends ServedMediaType>(
  params: Record<string, string>,
  accepts: T,
  endpoint: EndpointRestrictions,
): MediaTypeOptions<T> | undefined {
  const options: MediaTypeOptions<T> = {
    accepted: accepts,
    pretty: false,
    stream: '',
    useServerVersion: '',
    export: false,
    profile: '',
    unrecognized: [],
  };
  for (const [k, v] of Object.entries(params)) {
    switch (k) {
      case 'as':
        options.convert = { ...(options.convert ?? { group: '', version: '', kind: '' }), kind: v };
        break;
      case 'g':
        options.convert = { ...(options.convert ?? { group: '', version: '', kind: '' }), group: v };
        break;
      case 'v':
        options.convert = { ...(options.convert ?? { group: '', version: '', kind: '' }), version: v };
        break;
      case 'stream':
        if (v !== '' && (!accepts.streams || !endpoint.allowsStreamSchema(v))) return undefined;
        options.stream = v;
        break;
      case 'sv':
        if (v !== '' && !endpoint.allowsServerVersion(v)) return undefined;
        options.useServerVersion = v;
        break;
      case 'export':
        options.export = v === '1';
        break;
      case 'pretty':
        options.pretty = v === '1';
        break;
      case 'profile':
        options.profile = v;
        break;
      default:
        options.unrecognized.push(k);
    }
  }
  const [mainType = '', subType = ''] = accepts.mediaType.split('/');
  return endpoint.allowsMediaTypeTransform(mainType, subType, options.convert) ? options : undefined;
}

/**
 * NegotiateMediaTypeOptions: no Accept header means the first served type; otherwise clause by
 * clause (q=0 included, as kube does not skip it), the first served type it matches whose
 * parameters the endpoint can honour. Undefined when none.
 */
export function negotiateMediaTypeOptions<T extends ServedMediaType>(
  header: string | undefined,
  served: readonly T[],
  endpoint: EndpointRestrictions,
): MediaTypeOptions<T> | undefined {
  if (!header && served.length > 0) {
    return {
      accepted: served[0]!,
      pretty: false,
      stream: '',
      useServerVersion: '',
      export: false,
      profile: '',
      unrecognized: [],
    };
  }
  for (const clause of parseAccept(header ?? '')) {
    for (const accepts of served) {
      const [mainType, subType] = accepts.mediaType.split('/');
      const matches =
        (clause.mainType === mainType && (clause.subType === subType || clause.subType === '*')) ||
        (clause.mainType === '*' && clause.subType === '*');
      if (!matches) continue;
      const options = acceptMediaTypeOptions(clause.params, accepts, endpoint);
      if (options) return options;
    }
  }
  return undefined;
}

/** NegotiateOutputMediaType: the 406 lists every served media type. */
export function negotiateOutputMediaType<T extends ServedMediaType>(
  header: string | undefined,
  served: readonly T[],
  endpoint: EndpointRestrictions,
): MediaTypeOptions<T> {
  const options = negotiateMediaTypeOptions(header, served, endpoint);
  if (!options) throw notAcceptable(served.map((s) => s.mediaType));
  return options;
}

/**
 * isPrettyPrint: a `pretty` query parameter that is set decides (strconv.ParseBool, false when it
 * does not parse); otherwise curl, Wget and browsers get indented output.
 */
export function isPrettyPrint(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pretty = query.get('pretty') ?? '';
  if (pretty !== '') return parseGoBool(pretty) ?? false;
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

// ---- Content-Type ----------------------------------------------------------------------------

interface MediaType {
  /** Lowercased `type/subtype`. */
  type: string;
  /** Parameter names lowercased, values as sent (quoted strings unquoted). */
  params: Record<string, string>;
}

const TSPECIALS = '()<>@,;:\\"/[]?=';
const isTokenChar = (c: string): boolean => c > ' ' && c < '\x7f' && !TSPECIALS.includes(c);

function consumeToken(v: string): [string, string] {
  let i = 0;
  while (i < v.length && isTokenChar(v[i]!)) i++;
  return [v.slice(0, i), v.slice(i)];
}

/** A token, or a quoted string with `\` escaping only tspecials; `['', v]` when neither. */
function consumeValue(v: string): [string, string] {
  if (!v.startsWith('"')) return consumeToken(v);
  let out = '';
  for (let i = 1; i < v.length; i++) {
    const c = v[i]!;
    if (c === '"') return [out, v.slice(i + 1)];
    if (c === '\\' && i + 1 < v.length && TSPECIALS.includes(v[i + 1]!)) {
      out += v[++i];
      continue;
    }
    if (c === '\r' || c === '\n') return ['', v];
    out += c;
  }
  return ['', v];
}

/**
 * Go's mime.ParseMediaType (without RFC 2231 continuations, which no Kubernetes client sends).
 * Undefined where Go returns an error, which kube answers with a 415.
 */
export function parseMediaType(v: string): MediaType | undefined {
  const semi = v.indexOf(';');
  const base = semi < 0 ? v : v.slice(0, semi);
  const type = base.toLowerCase().trim();
  const [main, afterMain] = consumeToken(type);
  if (main === '') return undefined;
  if (afterMain !== '') {
    if (!afterMain.startsWith('/')) return undefined;
    const [sub, rest] = consumeToken(afterMain.slice(1));
    if (sub === '' || rest !== '') return undefined;
  }
  const params: Record<string, string> = {};
  let rest = v.slice(base.length);
  for (;;) {
    rest = rest.trimStart();
    if (rest === '') break;
    const param = consumeMediaParam(rest);
    if (!param) {
      // A trailing `;` is tolerated; anything else unparsable is an error.
      if (rest.trim() === ';') break;
      return undefined;
    }
    const previous = params[param.name];
    if (previous !== undefined && previous !== param.value) return undefined;
    params[param.name] = param.value;
    rest = param.rest;
  }
  return { type, params };
}

function consumeMediaParam(v: string): { name: string; value: string; rest: string } | undefined {
  let rest = v.trimStart();
  if (!rest.startsWith(';')) return undefined;
  const [rawName, afterName] = consumeToken(rest.slice(1).trimStart());
  if (rawName === '') return undefined;
  rest = afterName.trimStart();
  if (!rest.startsWith('=')) return undefined;
  rest = rest.slice(1).trimStart();
  const [value, afterValue] = consumeValue(rest);
  if (value === '' && afterValue === rest) return undefined;
  return { name: rawName.toLowerCase(), value, rest: afterValue };
}

/**
 * The patch handler's reading of Content-Type: everything before the first `;` (when the `;` is
 * not the first character), compared as is, untrimmed and case-sensitive.
 */
export function patchMediaType(contentType: string | undefined): string {
  const v = contentType ?? '';
  const semi = v.indexOf(';');
  return semi > 0 ? v.slice(0, semi) : v;
}
