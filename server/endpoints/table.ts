// meta.k8s.io/v1 Table output, what `kubectl get` asks for: columns from the CRD's
// additionalPrinterColumns evaluated with JSONPath (Name and Age when none are declared), cells
// rendered by the server (kubectl prints them as they are), each row's object a
// PartialObjectMetadata unless includeObject says otherwise.
import type { PrinterColumn } from '../../apimachinery/apis/apiextensions.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { humanDuration } from './table/human-duration.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import type { ServedColumn } from '../registry/catalog.js';
import { lazyRequire } from '../../apimachinery/lazy-require.js';

// Loaded by the first Table with a JSONPath column, not by every start.
const jsonpath = lazyRequire<typeof import('jsonpath-plus')>('jsonpath-plus');

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** metav1.ObjectMeta's swagger doc for creationTimestamp, which the default Age column carries. */
const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** apiextensions' serveDefaultColumnsIfEmpty: the column a CRD version without printer columns gets. */
const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  jsonPath: '.metadata.creationTimestamp',
};

export function partialObjectMetadata(obj: KubeObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/** kube's JSONPath `.spec.size` (or `{.spec.size}`) as jsonpath-plus's `$.spec.size`. */
function toJsonPath(path: string): string {
  const inner = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  return inner.startsWith('$') ? inner : `$${inner.startsWith('.') || inner.startsWith('[') ? '' : '.'}${inner}`;
}

function cell(obj: KubeObject, col: ServedColumn, nowMs: number): unknown {
  if (col.value) return col.value(obj);
  let values: unknown[];
  try {
    values = jsonpath().JSONPath({
      path: toJsonPath(col.jsonPath),
      json: obj as object,
      wrap: true,
      eval: false,
    }) as unknown[];
  } catch {
    return null;
  }
  if (values.length === 0 || values[0] === undefined || values[0] === null) return null;
  const value = values.length === 1 ? values[0] : values;
  if ((col.type === 'date' || col.age) && typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? value : humanDuration(nowMs - t);
  }
  if (col.type === 'string' && typeof value === 'object') return stringifyJSON(value);
  return value;
}

export function buildTable(
  objects: KubeObject[],
  columns: ServedColumn[] | undefined,
  listMeta: Record<string, unknown>,
  include: IncludeObject,
  /** The server clock's time (ms), which ages are counted to. */
  nowMs: number,
): Record<string, unknown> {
  const cols = columns?.length ? columns : [AGE_COLUMN];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      ...cols.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    rows: objects.map((obj) => {
      const row: Record<string, unknown> = {
        cells: [obj.metadata.name ?? '', ...cols.map((c) => cell(obj, c, nowMs))],
      };
      if (include === 'Metadata') row['object'] = partialObjectMetadata(obj);
      else if (include === 'Object') row['object'] = obj;
      // A nil RawExtension marshals as null: the key stays.
      else row['object'] = null;
      return row;
    }),
  };
}
