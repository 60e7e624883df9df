// A CRD schema compiled for validation: each node with what kube-openapi reads of it (types, with
// x-kubernetes-int-or-string as [integer, string]; supported formats only; a compiled pattern),
// and the list types and embedded resources the other validators look for.
import type { RE2JS } from 're2js';
import { compilePattern } from '../../../apimachinery/re2.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type FormatCheck, formatCheck } from '../../../apimachinery/validation/strfmt.js';
import { isJsonObject } from '../../../apimachinery/object.js';

export interface Node {
  /** `type` as kube-openapi sees it: [type], or [integer, string] for x-kubernetes-int-or-string. */
  types: string[];
  /** The schema's own `type` (the structural type). */
  rawType: string;
  nullable: boolean;
  /** `format` if kube keeps it (a supported format), else ''. */
  format: string;
  formatCheck?: FormatCheck;
  enumValues?: unknown[];
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  patternRe?: RE2JS;
  patternError?: string;
  maximum?: number;
  exclusiveMaximum: boolean;
  minimum?: number;
  exclusiveMinimum: boolean;
  multipleOf?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems: boolean;
  items?: Node;
  tupleItems?: Node[];
  maxProperties?: number;
  minProperties?: number;
  required: string[];
  properties: Map<string, Node>;
  /** undefined when absent; a boolean for `true`/`false`; the schema otherwise. */
  additionalProperties?: Node | boolean;
  allOf: Node[];
  anyOf: Node[];
  oneOf: Node[];
  not?: Node;
  listType?: string;
  listMapKeys: string[];
  embedded: boolean;
  /** Whether this node or one below it (items, properties, additionalProperties) has a listType: listTypeErrors skips the rest. */
  listTypesWithin: boolean;
  /** Whether this node or one below it (items, properties, additionalProperties) is an embedded resource: embeddedErrors skips the rest. */
  embeddedWithin: boolean;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const schemaList = (v: unknown): Node[] => (Array.isArray(v) ? v.map(compileNode) : []);

export function compileNode(raw: unknown): Node {
  const s = (isJsonObject(raw) ? raw : {}) as JSONSchemaProps & Record<string, unknown>;
  const rawType = typeof s.type === 'string' ? s.type : '';
  const types = s['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : rawType ? [rawType] : [];
  const check = typeof s.format === 'string' ? formatCheck(s.format) : undefined;
  const node: Node = {
    types,
    rawType,
    nullable: s.nullable === true,
    format: check ? (s.format as string) : '',
    exclusiveMaximum: s.exclusiveMaximum === true,
    exclusiveMinimum: s.exclusiveMinimum === true,
    uniqueItems: s.uniqueItems === true,
    required: Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [],
    properties: new Map(),
    allOf: schemaList(s.allOf),
    anyOf: schemaList(s.anyOf),
    oneOf: schemaList(s.oneOf),
    listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys'])
      ? s['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string')
      : [],
    embedded: s['x-kubernetes-embedded-resource'] === true,
    listTypesWithin: false,
    embeddedWithin: false,
  };
  if (check) node.formatCheck = check;
  if (Array.isArray(s.enum)) node.enumValues = s.enum;
  const set = <K extends keyof Node>(k: K, v: Node[K] | undefined): void => {
    if (v !== undefined) node[k] = v;
  };
  set('maxLength', num(s.maxLength));
  set('minLength', num(s.minLength));
  set('maximum', num(s.maximum));
  set('minimum', num(s.minimum));
  set('multipleOf', num(s.multipleOf));
  set('maxItems', num(s.maxItems));
  set('minItems', num(s.minItems));
  set('maxProperties', num(s.maxProperties));
  set('minProperties', num(s.minProperties));
  if (typeof s.pattern === 'string' && s.pattern !== '') {
    node.pattern = s.pattern;
    const { re, error } = compilePattern(s.pattern);
    if (re) node.patternRe = re;
    else node.patternError = error;
  }
  if (Array.isArray(s.items)) node.tupleItems = s.items.map(compileNode);
  else if (isJsonObject(s.items)) node.items = compileNode(s.items);
  if (isJsonObject(s.properties))
    for (const [k, v] of Object.entries(s.properties)) node.properties.set(k, compileNode(v));
  if (typeof s.additionalProperties === 'boolean') node.additionalProperties = s.additionalProperties;
  else if (isJsonObject(s.additionalProperties)) node.additionalProperties = compileNode(s.additionalProperties);
  if (isJsonObject(s.not)) node.not = compileNode(s.not);
  if (typeof s['x-kubernetes-list-type'] === 'string') node.listType = s['x-kubernetes-list-type'];
  const extra = additionalSchema(node);
  node.listTypesWithin =
    node.listType !== undefined ||
    node.items?.listTypesWithin === true ||
    extra?.listTypesWithin === true ||
    [...node.properties.values()].some((p) => p.listTypesWithin);
  node.embeddedWithin =
    node.embedded ||
    node.items?.embeddedWithin === true ||
    extra?.embeddedWithin === true ||
    [...node.properties.values()].some((p) => p.embeddedWithin);
  return node;
}

export const additionalSchema = (n: Node): Node | undefined =>
  typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined;
