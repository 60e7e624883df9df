// Which representation a GET or LIST answers with, from the Accept header: the object itself,
// a meta.k8s.io Table (kubectl get), or PartialObjectMetadata (metadata-only clients).
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

export function outputFormat(accept: string | undefined, target?: OutputTarget): OutputFormat {
  if (!accept) return { kind: 'Object' };
  for (const media of parseAccept(accept)) {
    const as = media.params['as'];
    const group = media.params['g'];
    if (as && group === 'meta.k8s.io' && (media.type === 'application/json' || media.type === '*/*')) {
      if (as === 'Table') return { kind: 'Table' };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
        const list = as === 'PartialObjectMetadataList';
        if (target && target.list && !list) throw notAcceptableConversion(`you requested PartialObjectMetadata, but the requested object is a list (${target.goType})`);
        if (target && !target.list && list) throw notAcceptableConversion(`you requested PartialObjectMetadataList, but the requested object is not a list (${target.goType})`);
        return { kind: 'PartialObjectMetadata', list };
      }
      continue;
    }
    if (as) continue;
    if (['application/json', 'application/*', '*/*'].includes(media.type)) return { kind: 'Object' };
  }
  throw notAcceptable(SERVED);
}

/** handlers.errNotAcceptable: a 406 whose message is the conversion's complaint. */
function notAcceptableConversion(message: string): ApiError {
  const status = notAcceptable([]).status;
  return new ApiError({ ...status, message });
}
