// OpenAPI documents: /openapi/v3 (an index of group versions, each with a content hash),
// /openapi/v3/<gv> (one OpenAPI 3.0 document per group version) and /openapi/v2 (swagger 2.0 of
// everything). kubectl reads them for client-side validation, `explain` and apply. What we emit
// follows kube's CRD builder (apiextensions-apiserver pkg/controller/openapi/builder), its v2
// conversion (openapi/v2/conversion.go) and kube-openapi's builder3 and handlers.
//
// Documents are built on first request, per group version, and kept as the bytes served (v2 as
// each group version's paths and definitions, merged when asked); a group version is rebuilt only
// when its resources change, so one CRD update does not rebuild every document (kube's known
// memory and CPU cost), and a first request for one group version builds that one alone.
import { createHash } from 'node:crypto';
import { META_DEFINITIONS } from '../../../apimachinery/apis/meta-schemas.js';
import { deepEqual } from '../../../apimachinery/equality.js';
import { KUBE_VERSION } from '../../../apimachinery/kube-version.js';
import { parseJSON, stringifySortedJSON } from '../../../apimachinery/json.js';
import type { JsonObject, JsonValue } from '../../../apimachinery/object.js';
import { encodeOpenAPIV2 } from '../../codecs/openapi-v2-protobuf.js';
import type { Document } from '../discovery.js';
import {
  type Flavor,
  LIBRARY,
  type OpenAPIResource,
  Refs,
  definitionName,
  isCompiledIn,
  groupVersionPath,
} from './definitions.js';
import { addResourcePaths } from './paths.js';
import { builtinSchema, kindSchema, listSchema } from './schemas.js';

/** The Catalog, as far as OpenAPI reads it. */
export interface OpenAPISource {
  readonly generation: number;
  all(): readonly OpenAPIResource[];
}

interface Built {
  paths: JsonObject;
  schemas: JsonObject;
}

/** One group version's paths and definitions, in either flavor. */
function buildGroupVersion(resources: readonly OpenAPIResource[], flavor: Flavor): Built {
  const refs = new Refs(flavor);
  const paths: JsonObject = {};
  const schemas: JsonObject = {};
  for (const r of resources) {
    schemas[definitionName(r, r.names.kind)] = kindSchema(r, refs);
    // Resources that are only ever created (access reviews) have no list.
    if (r.names.listKind) schemas[definitionName(r, r.names.listKind)] = listSchema(r, refs);
    addResourcePaths(paths, r, refs);
  }
  // A Set's iteration also visits names added while it runs: the definitions' own references.
  for (const name of refs.used) {
    if (Object.hasOwn(schemas, name)) continue;
    const build = LIBRARY[name];
    const carried =
      refs.carried.get(name) ?? (Object.hasOwn(META_DEFINITIONS, name) ? META_DEFINITIONS[name] : undefined);
    if (build) schemas[name] = build(refs);
    else if (carried) schemas[name] = builtinSchema(carried, refs);
  }
  return { paths, schemas };
}

/** Go marshals maps with sorted keys; sorting ours keeps a document's bytes (and hash) stable. */
const stableStringify = (value: JsonValue): string => stringifySortedJSON(value);

/** kube's computeETag (kube-openapi handler3): uppercase hex SHA-512 of the served bytes. */
const hashOf = (body: string): string => createHash('sha512').update(body).digest('hex').toUpperCase();

function textDocument(body: string): Document & { hash: string } {
  const hash = hashOf(body);
  return { body, etag: `"${hash}"`, hash };
}

const toDocument = (value: JsonValue): Document & { hash: string } => textDocument(stableStringify(value));

/** An object's members, each serialized already or an object of such members. */
type Members = ReadonlyMap<string, string | Members>;

/** The object as stableStringify would write it (keys sorted at every level), in one string. */
function sortedObjectText(members: Members): string {
  const parts: string[] = [];
  const write = (m: Members): void => {
    parts.push('{');
    [...m.keys()].sort().forEach((k, i) => {
      const v = m.get(k)!;
      parts.push(i > 0 ? ',' : '', JSON.stringify(k), ':');
      if (typeof v === 'string') parts.push(v);
      else write(v);
    });
    parts.push('}');
  };
  write(members);
  return parts.join('');
}

/** Each member of an object, serialized on its own. */
const memberTexts = (o: JsonObject): Map<string, string> =>
  new Map(Object.entries(o).map(([k, v]) => [k, stableStringify(v)]));

const KUBE_GIT_VERSION = `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.${KUBE_VERSION.patch}`;

/** What a resource shows in a document: the rest of a catalog descriptor (its store...) shows nowhere. */
const shown = (r: OpenAPIResource): OpenAPIResource => ({
  group: r.group,
  version: r.version,
  names: r.names,
  namespaced: r.namespaced,
  verbs: r.verbs,
  subresources: r.subresources,
  ...(r.schema ? { schema: r.schema } : {}),
});

/** Whether two lists of resources make the same documents: the same descriptors, or equal in all they show. */
const sameResources = (a: readonly OpenAPIResource[], b: readonly OpenAPIResource[]): boolean =>
  a.length === b.length && a.every((r, i) => r === b[i] || deepEqual(shown(r), shown(b[i]!)));

/** A group version's documents, built when first asked for and kept as the bytes served. */
class GroupVersionEntry {
  private v3Doc?: Document & { hash: string };
  /** Its paths and definitions in the swagger 2.0 document, each member serialized. */
  private v2Members?: { paths: Map<string, string>; definitions: Map<string, string> };

  constructor(public resources: readonly OpenAPIResource[]) {}

  v3(): Document & { hash: string } {
    if (!this.v3Doc) {
      const { paths, schemas } = buildGroupVersion(this.resources, 'v3');
      // kube titles built-in group documents after the server and CRD ones after the CRD builder
      const builtin = this.resources.some(isCompiledIn);
      const info = builtin
        ? { title: 'Kubernetes', version: KUBE_GIT_VERSION }
        : { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };
      this.v3Doc = toDocument({ openapi: '3.0.0', info, paths, components: { schemas } });
    }
    return this.v3Doc;
  }

  v2(): { paths: Map<string, string>; definitions: Map<string, string> } {
    if (!this.v2Members) {
      const { paths, schemas } = buildGroupVersion(this.resources, 'v2');
      this.v2Members = { paths: memberTexts(paths), definitions: memberTexts(schemas) };
    }
    return this.v2Members;
  }
}

const SWAGGER_MEMBERS: ReadonlyMap<string, string> = memberTexts({
  swagger: '2.0',
  info: { title: 'Kubernetes', version: KUBE_GIT_VERSION },
  securityDefinitions: {
    BearerToken: {
      description: 'Bearer Token authentication',
      type: 'apiKey',
      name: 'authorization',
      in: 'header',
    },
  },
  security: [{ BearerToken: [] }],
});

export class OpenAPI {
  private seenGeneration = Number.NaN;
  private entries = new Map<string, GroupVersionEntry>();
  private index?: Document;
  private swagger?: Document;
  private swaggerProtobuf?: Buffer;

  constructor(private readonly source: OpenAPISource) {}

  /** The `/openapi/v3` index: every served group version with the hash of its document. */
  v3Index(): Document {
    this.sync();
    if (!this.index) {
      const paths: JsonObject = {};
      for (const [path, entry] of this.entries)
        paths[path] = { serverRelativeURL: serverRelativeURL(path, entry.v3().hash) };
      this.index = toDocument({ paths });
    }
    return this.index;
  }

  /** One group version's document (`api/v1`, `apis/<group>/<version>`), or undefined. */
  v3Group(groupVersionPath: string): Document | undefined {
    this.sync();
    return this.entries.get(groupVersionPath)?.v3();
  }

  /**
   * The swagger 2.0 document of everything: each group version's members, merged (the meta/v1
   * definitions every group version carries are one), in one object written as stableStringify
   * writes it.
   */
  v2(): Document {
    this.sync();
    if (!this.swagger) {
      const paths = new Map<string, string>();
      const definitions = new Map<string, string>();
      for (const entry of this.entries.values()) {
        const members = entry.v2();
        for (const [k, v] of members.paths) paths.set(k, v);
        for (const [k, v] of members.definitions) definitions.set(k, v);
      }
      this.swagger = textDocument(
        sortedObjectText(
          new Map<string, string | Members>([...SWAGGER_MEMBERS, ['paths', paths], ['definitions', definitions]]),
        ),
      );
    }
    return this.swagger;
  }

  /**
   * The swagger 2.0 document as gnostic's protobuf, built as kube builds it: from the JSON bytes
   * served (kube-openapi ToProtoBinary). Both forms share the JSON document's ETag, as in kube.
   */
  v2Protobuf(): { body: Buffer; etag: string } {
    const doc = this.v2();
    if (!this.swaggerProtobuf) this.swaggerProtobuf = encodeOpenAPIV2(parseJSON(doc.body) as JsonValue);
    return { body: this.swaggerProtobuf, etag: doc.etag };
  }

  /**
   * Brings the entries up to date: only group versions whose resources changed get new ones. The
   * catalog replaces a descriptor on change and never mutates one, so a group version holding the
   * same descriptors is unchanged without a look inside; one whose descriptors were replaced by
   * equal ones (a CRD's status written) keeps its documents after one comparison.
   */
  private sync(): void {
    if (this.source.generation === this.seenGeneration) return;
    this.seenGeneration = this.source.generation;
    const grouped = new Map<string, OpenAPIResource[]>();
    for (const r of this.source.all()) {
      const path = groupVersionPath(r.group, r.version);
      const resources = grouped.get(path);
      if (resources) resources.push(r);
      else grouped.set(path, [r]);
    }
    const next = new Map<string, GroupVersionEntry>();
    let changed = grouped.size !== this.entries.size;
    for (const path of [...grouped.keys()].sort()) {
      const resources = grouped.get(path)!;
      const old = this.entries.get(path);
      if (old && sameResources(old.resources, resources)) {
        old.resources = resources;
        next.set(path, old);
      } else {
        next.set(path, new GroupVersionEntry(resources));
        changed = true;
      }
    }
    this.entries = next;
    if (changed) {
      this.index = undefined;
      this.swagger = undefined;
      this.swaggerProtobuf = undefined;
    }
  }
}

/** As kube's constructServerRelativeURL: `/openapi/v3/apis/g/v?hash=...`. */
export const serverRelativeURL = (path: string, hash: string): string => `/openapi/v3/${path}?hash=${hash}`;
