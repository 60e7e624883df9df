// What a resource endpoint answers in, decided once per request before its handler does anything
// (kube's handlers call NegotiateOutputMediaType first): the representation (the object itself, a
// meta.k8s.io Table for kubectl get, or PartialObjectMetadata for metadata-only clients) and the
// media type it is written in: JSON, YAML (kube's serializers have it for every document, but no
// stream serializer: a watch in YAML is refused), or (built-in kinds, metadata) kube's protobuf.
// The result is carried to the reply and to the watch; nothing downstream negotiates again.
import { ApiError, notAcceptable } from '../../apimachinery/errors.js';
import {
  type ConvertTarget,
  type ServedMediaType,
  negotiateOutputMediaType,
  resourceEndpointRestrictions,
} from './negotiate.js';

/** The media types a reply document is written in. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const YAML_MEDIA_TYPE = 'application/yaml';
export type ReplyMediaType = 'application/json' | typeof YAML_MEDIA_TYPE | typeof PROTOBUF_MEDIA_TYPE;

interface ServedReply extends ServedMediaType {
  mediaType: ReplyMediaType;
}

/** A resource endpoint's serializers (kube's scope.Serializer), in kube's order: what a 406 lists. */
export const SERVED: readonly ServedReply[] = [
  { mediaType: 'application/json', streams: true },
  { mediaType: YAML_MEDIA_TYPE },
  { mediaType: PROTOBUF_MEDIA_TYPE, streams: true },
];

/** `list`: whether PartialObjectMetadataList (rather than PartialObjectMetadata) was asked for. */
type OutputFormat = { kind: 'Object' } | { kind: 'Table' } | { kind: 'PartialObjectMetadata'; list: boolean };

/** The request's answer as negotiated: its representation, its media type, whether that streams. */
export interface Negotiated {
  readonly format: Readonly<OutputFormat>;
  readonly mediaType: ReplyMediaType;
  readonly streams: boolean;
}

function formatOf(convert: ConvertTarget | undefined): OutputFormat {
  if (!convert) return { kind: 'Object' };
  if (convert.kind === 'Table') return { kind: 'Table' };
  return { kind: 'PartialObjectMetadata', list: convert.kind === 'PartialObjectMetadataList' };
}

/**
 * NegotiateOutputMediaType for a resource endpoint (a 406 when nothing in Accept can be served).
 * `objectProtobuf`: whether the endpoint's own objects have a protobuf encoding; custom resources'
 * do not (kube leaves protobuf out of their standard serializers), PartialObjectMetadata has one
 * either way, a Table never.
 */
export function negotiateResourceOutput(accept: string | undefined, objectProtobuf: boolean): Negotiated {
  // No Accept header and an empty one are negotiated alike.
  const remembered = negotiatedByAccept[objectProtobuf ? 1 : 0];
  let negotiated = remembered.get(accept ?? '');
  if (!negotiated) {
    const standardMediaTypes = SERVED.map((s) => s.mediaType).filter(
      (m) => objectProtobuf || m !== PROTOBUF_MEDIA_TYPE,
    );
    const options = negotiateOutputMediaType(
      accept,
      SERVED,
      resourceEndpointRestrictions({ table: true, standardMediaTypes }),
    );
    negotiated = {
      format: formatOf(options.convert),
      mediaType: options.accepted.mediaType,
      streams: options.accepted.streams === true,
    };
    if (remembered.size >= MAX_REMEMBERED_ACCEPTS) remembered.clear();
    remembered.set(accept ?? '', negotiated);
  }
  return negotiated;
}

/**
 * Answers already negotiated, by Accept header, for endpoints whose objects have no protobuf
 * encoding [0] and those whose objects have one [1]: clients send the same few headers on every
 * request. Shared by the requests that sent the header, hence read-only (a 406 is not kept).
 */
const negotiatedByAccept: [Map<string, Negotiated>, Map<string, Negotiated>] = [new Map(), new Map()];
const MAX_REMEMBERED_ACCEPTS = 256;

/**
 * NegotiateOutputMediaTypeStream, as serveWatch calls it once the watch's options are good: the
 * negotiated media type must have a stream serializer; the 406 lists those that do.
 */
export function watchMediaType(negotiated: Negotiated): ReplyMediaType {
  if (!negotiated.streams)
    throw notAcceptable(SERVED.filter((s) => s.streams).map((s) => `${s.mediaType};stream=watch`));
  return negotiated.mediaType;
}

/**
 * The result the handler answers with, so that a PartialObjectMetadata conversion of the wrong
 * shape is refused as kube's asPartialObjectMetadata(List) does: `goType` is what Go's %T prints for it.
 */
interface OutputTarget {
  list: boolean;
  goType: string;
}

/** transformResponseObject's check of a PartialObjectMetadata conversion against what the handler holds. */
export function checkOutputTarget(format: OutputFormat, target: OutputTarget): void {
  if (format.kind !== 'PartialObjectMetadata' || format.list === target.list) return;
  throw notAcceptableConversion(
    target.list
      ? `you requested PartialObjectMetadata, but the requested object is a list (${target.goType})`
      : `you requested PartialObjectMetadataList, but the requested object is not a list (${target.goType})`,
  );
}

/** handlers.errNotAcceptable: a 406 whose message is the conversion's complaint. */
function notAcceptableConversion(message: string): ApiError {
  const status = notAcceptable([]).status;
  return new ApiError({ ...status, message });
}
