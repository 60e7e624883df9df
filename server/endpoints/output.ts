// Which representation a GET or LIST answers with, from the Accept header: the object itself,
// a meta.k8s.io Table (kubectl get), or PartialObjectMetadata (metadata-only clients).
import { notAcceptable } from '../errors.js';
import { parseAccept } from './negotiate.js';

export type OutputFormat = { kind: 'Object' } | { kind: 'Table' } | { kind: 'PartialObjectMetadata' };

const SERVED = [
  'application/json',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
];

export function outputFormat(accept: string | undefined): OutputFormat {
  if (!accept) return { kind: 'Object' };
  for (const media of parseAccept(accept)) {
    const as = media.params['as'];
    const group = media.params['g'];
    if (as && group === 'meta.k8s.io' && (media.type === 'application/json' || media.type === '*/*')) {
      if (as === 'Table') return { kind: 'Table' };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'PartialObjectMetadata' };
      continue;
    }
    if (as) continue;
    if (['application/json', 'application/*', '*/*'].includes(media.type)) return { kind: 'Object' };
  }
  throw notAcceptable(SERVED);
}
