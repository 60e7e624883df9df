// Which representation a GET or LIST answers with, from the Accept header: the object itself,
// a meta.k8s.io Table (kubectl get), or PartialObjectMetadata (metadata-only clients); and the media
// type it is written in: JSON, YAML (kube's serializers have it for every document, but no stream
// serializer: a watch in YAML is refused), or (built-in kinds, metadata) kube's protobuf.
import { ApiError, notAcceptable } from '../../apimachinery/errors.js';
import { parseAccept } from './negotiate.js';

/** `list`: whether PartialObjectMetadataList (rather than PartialObjectMetadata) was asked for. */
export type OutputFormat = { kind: 'Object' } | { kind: 'Table' } | { kind: 'PartialObjectMetadata'; list: boolean };

/** What a 406 lists: the resource serializers' media types (kube's NegotiateOutputMediaType). */
const SERVED = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * The result the handler is answering with, so a PartialObjectMetadata conversion of the wrong
 * shape is refused as kube's asPartialObjectMetadata(List) does: `goType` is what Go's %T prints for it.
 */
export interface OutputTarget {
  list: boolean;
  goType: string;
}

/** What a watch's 406 lists: the media types with a stream serializer (MediaTypesForSerializer). */
const SERVED_STREAMS = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

/** The media types a reply document is written in. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const YAML_MEDIA_TYPE = 'application/yaml';
export type ReplyMediaType = 'application/json' | typeof YAML_MEDIA_TYPE | typeof PROTOBUF_MEDIA_TYPE;

/** The Accept clause a reply answers: the representation, and the media type it goes out in. */
export interface Negotiated {
  format: OutputFormat;
  mediaType: ReplyMediaType;
}

export interface NegotiateOptions {
  /**
   * Whether the resource's own objects have a protobuf encoding: built-in kinds do, custom
   * resources do not (kube leaves protobuf out of their standard serializers). PartialObjectMetadata
   * is protobuf either way; a Table never is.
   */
  objectProtobuf: boolean;
  /** False for errors: kube writes a Status with DefaultEndpointRestrictions, no conversions. */
  conversions?: boolean;
  target?: OutputTarget;
}

/**
 * The first Accept clause (in goautoneg's order) this endpoint can answer, or undefined for none.
 * Wildcards name JSON: it is the first media type kube serves.
 */
export function negotiateOutput(accept: string | undefined, opts: NegotiateOptions): Negotiated | undefined {
  if (!accept) return { format: { kind: 'Object' }, mediaType: 'application/json' };
  const conversions = opts.conversions ?? true;
  const target = opts.target;
  for (const media of parseAccept(accept)) {
    const json = media.type === 'application/json' || media.type === 'application/*' || media.type === '*/*';
    const protobuf = media.type === PROTOBUF_MEDIA_TYPE;
    const yaml = media.type === YAML_MEDIA_TYPE;
    if (!json && !protobuf && !yaml) continue;
    // YAML has no stream serializer, so a clause asking for a stream in it accepts nothing.
    if (yaml && media.params['stream']) continue;
    const mediaType: ReplyMediaType = json ? 'application/json' : yaml ? YAML_MEDIA_TYPE : PROTOBUF_MEDIA_TYPE;
    const { as, g: group } = media.params;
    if (as) {
      if (!conversions) continue;
      // application/* was never one of the conversion media types matched here.
      if (group !== 'meta.k8s.io' || media.type === 'application/*') continue;
      if (as === 'Table') {
        if (protobuf) continue;
        return { format: { kind: 'Table' }, mediaType };
      }
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
        const list = as === 'PartialObjectMetadataList';
        if (target && target.list && !list) throw notAcceptableConversion(`you requested PartialObjectMetadata, but the requested object is a list (${target.goType})`);
        if (target && !target.list && list) throw notAcceptableConversion(`you requested PartialObjectMetadataList, but the requested object is not a list (${target.goType})`);
        return { format: { kind: 'PartialObjectMetadata', list }, mediaType };
      }
      continue;
    }
    if (protobuf && !opts.objectProtobuf) continue;
    return { format: { kind: 'Object' }, mediaType };
  }
  return undefined;
}

/**
 * The representation a GET, LIST or watch answers with (a 406 when none is acceptable). Custom
 * resources are known by their Go type, Unstructured; without a target (a watch) protobuf is
 * assumed possible, and the writer falls back to JSON for a kind it cannot encode.
 *
 * A watch negotiates twice, as kube's ListResource and then serveWatch do: a 406 listing every
 * served media type when nothing is acceptable, then a 406 listing the streaming ones when the
 * clause chosen has no stream serializer (YAML), without falling back to a later clause.
 */
export function outputFormat(accept: string | undefined, target?: OutputTarget): OutputFormat {
  const objectProtobuf = !target || !target.goType.startsWith('*unstructured.');
  const negotiated = negotiateOutput(accept, { objectProtobuf, ...(target ? { target } : {}) });
  if (!negotiated) throw notAcceptable(SERVED);
  if (!target && negotiated.mediaType === YAML_MEDIA_TYPE) throw notAcceptable(SERVED_STREAMS);
  return negotiated.format;
}

/** handlers.errNotAcceptable: a 406 whose message is the conversion's complaint. */
function notAcceptableConversion(message: string): ApiError {
  const status = notAcceptable([]).status;
  return new ApiError({ ...status, message });
}
