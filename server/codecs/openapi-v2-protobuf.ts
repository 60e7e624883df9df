// The protobuf form of the swagger 2.0 document (`/openapi/v2` with Accept
// `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), which kubectl reads for
// `explain --output=plaintext-openapiv2` and 1.27's client-side validation. kube builds it from the
// JSON bytes it serves (kube-openapi handler ToProtoBinary: gnostic's openapi_v2.ParseDocument,
// then proto.Marshal); so do we, with gnostic's rules for each JSON key:
//   - camelCase keys are the snake_case proto fields (`$ref` is `_ref`);
//   - `x-` keys become vendor_extension pairs, and every free-form value (vendor extensions,
//     default, example, enum items) an `Any` whose `yaml` holds the value's YAML text;
//   - JSON maps (paths, definitions, properties, responses, ...) become ordered Named* pairs;
//   - the unions pick their branch as gnostic does (a `$ref` parameter or response is a
//     JsonReference, a parameter's `in` picks its sub-schema, `type: file` a FileSchema, ...).
// Zero values are left out, as proto3 marshalling leaves them out. gnostic fails the whole document
// on a key it does not know (kube then answers 503); we skip such keys instead.
//
// The YAML text: gnostic re-marshals the yaml.v3 node parsed from the JSON, which keeps the JSON's
// flow and double-quoted styles, so it reads as JSON with `: ` and `, ` separators and a final
// newline. Ours is written that way; kubectl parses it with a YAML parser, so only its value counts.
//
// The messages are those of github.com/google/gnostic-models openapiv2/OpenAPIv2.proto (package
// openapi.v2), with their published field numbers; `Any.value` (a google.protobuf.Any that gnostic
// never fills for documents it parses) is declared as bytes, which is the same on the wire.
import type { Root, Type } from 'protobufjs';
import { protobuf } from '../../apimachinery/apis/kube-messages.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../apimachinery/object.js';

const PRIMITIVE_FIELDS = `
  string format = 2;
  PrimitivesItems items = 3;
  string collection_format = 4;
  Any default = 5;
  double maximum = 6;
  bool exclusive_maximum = 7;
  double minimum = 8;
  bool exclusive_minimum = 9;
  int64 max_length = 10;
  int64 min_length = 11;
  string pattern = 12;
  int64 max_items = 13;
  int64 min_items = 14;
  bool unique_items = 15;
  repeated Any enum = 16;
  double multiple_of = 17;`;

/** The non-body parameter sub-schemas: same fields, numbered from `first` on (formData and query have allow_empty_value). */
function subSchema(name: string, allowEmpty: boolean): string {
  let n = 1;
  const f = (decl: string): string => `  ${decl} = ${n++};\n`;
  let body = f('bool required') + f('string in') + f('string description') + f('string name');
  if (allowEmpty) body += f('bool allow_empty_value');
  for (const decl of [
    'string type',
    'string format',
    'PrimitivesItems items',
    'string collection_format',
    'Any default',
    'double maximum',
    'bool exclusive_maximum',
    'double minimum',
    'bool exclusive_minimum',
    'int64 max_length',
    'int64 min_length',
    'string pattern',
    'int64 max_items',
    'int64 min_items',
    'bool unique_items',
    'repeated Any enum',
    'double multiple_of',
    'repeated NamedAny vendor_extension',
  ])
    body += f(decl);
  return `message ${name} {\n${body}}\n`;
}

const OPENAPI_V2_PROTO = `
syntax = "proto3";
package openapi.v2;

message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Any { bytes value = 1; string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
message BasicAuthenticationSecurity { string type = 1; string description = 2; repeated NamedAny vendor_extension = 3; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; repeated NamedAny vendor_extension = 6; }
message Contact { string name = 1; string url = 2; string email = 3; repeated NamedAny vendor_extension = 4; }
message Default { repeated NamedAny additional_properties = 1; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1;
  Info info = 2;
  string host = 3;
  string base_path = 4;
  repeated string schemes = 5;
  repeated string consumes = 6;
  repeated string produces = 7;
  Paths paths = 8;
  Definitions definitions = 9;
  ParameterDefinitions parameters = 10;
  ResponseDefinitions responses = 11;
  repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13;
  repeated Tag tags = 14;
  ExternalDocs external_docs = 15;
  repeated NamedAny vendor_extension = 16;
}
message Examples { repeated NamedAny additional_properties = 1; }
message ExternalDocs { string description = 1; string url = 2; repeated NamedAny vendor_extension = 3; }
message FileSchema {
  string format = 1; string title = 2; string description = 3; Any default = 4; repeated string required = 5; string type = 6;
  bool read_only = 7; ExternalDocs external_docs = 8; Any example = 9; repeated NamedAny vendor_extension = 10;
}
${subSchema('FormDataParameterSubSchema', true)}
message Header {
  string type = 1;${PRIMITIVE_FIELDS}
  string description = 18;
  repeated NamedAny vendor_extension = 19;
}
${subSchema('HeaderParameterSubSchema', false)}
message Headers { repeated NamedHeader additional_properties = 1; }
message Info {
  string title = 1; string version = 2; string description = 3; string terms_of_service = 4; Contact contact = 5; License license = 6;
  repeated NamedAny vendor_extension = 7;
}
message ItemsItem { repeated Schema schema = 1; }
message JsonReference { string _ref = 1; string description = 2; }
message License { string name = 1; string url = 2; repeated NamedAny vendor_extension = 3; }
message NamedAny { string name = 1; Any value = 2; }
message NamedHeader { string name = 1; Header value = 2; }
message NamedParameter { string name = 1; Parameter value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponse { string name = 1; Response value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedString { string name = 1; string value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter {
  oneof oneof {
    HeaderParameterSubSchema header_parameter_sub_schema = 1;
    FormDataParameterSubSchema form_data_parameter_sub_schema = 2;
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}
message Oauth2AccessCodeSecurity {
  string type = 1; string flow = 2; Oauth2Scopes scopes = 3; string authorization_url = 4; string token_url = 5; string description = 6;
  repeated NamedAny vendor_extension = 7;
}
message Oauth2ApplicationSecurity { string type = 1; string flow = 2; Oauth2Scopes scopes = 3; string token_url = 4; string description = 5; repeated NamedAny vendor_extension = 6; }
message Oauth2ImplicitSecurity { string type = 1; string flow = 2; Oauth2Scopes scopes = 3; string authorization_url = 4; string description = 5; repeated NamedAny vendor_extension = 6; }
message Oauth2PasswordSecurity { string type = 1; string flow = 2; Oauth2Scopes scopes = 3; string token_url = 4; string description = 5; repeated NamedAny vendor_extension = 6; }
message Oauth2Scopes { repeated NamedString additional_properties = 1; }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; ExternalDocs external_docs = 4; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8; Responses responses = 9;
  repeated string schemes = 10; bool deprecated = 11; repeated SecurityRequirement security = 12; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParameterDefinitions { repeated NamedParameter additional_properties = 1; }
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
${subSchema('PathParameterSubSchema', false)}
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message PrimitivesItems {
  string type = 1;${PRIMITIVE_FIELDS}
  repeated NamedAny vendor_extension = 18;
}
message Properties { repeated NamedSchema additional_properties = 1; }
${subSchema('QueryParameterSubSchema', true)}
message Response { string description = 1; SchemaItem schema = 2; Headers headers = 3; Examples examples = 4; repeated NamedAny vendor_extension = 5; }
message ResponseDefinitions { repeated NamedResponse additional_properties = 1; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5; double multiple_of = 6;
  double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10; int64 max_length = 11;
  int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15; bool unique_items = 16;
  int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23; repeated Schema all_of = 24;
  Properties properties = 25; string discriminator = 26; bool read_only = 27; Xml xml = 28; ExternalDocs external_docs = 29;
  Any example = 30; repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; FileSchema file_schema = 2; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem {
  oneof oneof {
    BasicAuthenticationSecurity basic_authentication_security = 1;
    ApiKeySecurity api_key_security = 2;
    Oauth2ImplicitSecurity oauth2_implicit_security = 3;
    Oauth2PasswordSecurity oauth2_password_security = 4;
    Oauth2ApplicationSecurity oauth2_application_security = 5;
    Oauth2AccessCodeSecurity oauth2_access_code_security = 6;
  }
}
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message Tag { string name = 1; string description = 2; ExternalDocs external_docs = 3; repeated NamedAny vendor_extension = 4; }
message TypeItem { repeated string value = 1; }
message VendorExtension { repeated NamedAny additional_properties = 1; }
message Xml { string name = 1; string namespace = 2; string prefix = 3; bool attribute = 4; bool wrapped = 5; repeated NamedAny vendor_extension = 6; }
`;

let root: Root | undefined;
/** The definitions, parsed with the first protobuf request for the document. */
function openapiRoot(): Root {
  if (root) return root;
  const pb = protobuf();
  root = new pb.Root();
  pb.parse(OPENAPI_V2_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

type Msg = Record<string, unknown>;

const types = new Map<string, Type>();
const typeOf = (name: string): Type => {
  let t = types.get(name);
  if (!t) types.set(name, (t = openapiRoot().lookupType(`openapi.v2.${name}`)));
  return t;
};

/** gnostic's `openapi.v2.Document`, for tests that decode what the server answers. */
export const openapiV2Document = (): Type => typeOf('Document');

/** The YAML text gnostic keeps for a free-form value: flow style, as JSON, ending in a newline. */
export function yamlOf(value: JsonValue): string {
  return `${flow(value)}\n`;
}

function flow(value: JsonValue | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (isJsonObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${flow(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

const anyOf = (value: JsonValue): Msg => ({ yaml: yamlOf(value) });

/** `basePath` → `base_path`, `$ref` → `_ref`. */
const fieldName = (key: string): string =>
  key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Each JSON map's entries as Named* pairs, their values converted by `value`. */
const named = (json: JsonValue, value: (v: JsonValue) => unknown): Msg[] =>
  isJsonObject(json) ? Object.entries(json).map(([name, v]) => ({ name, value: value(v) })) : [];

const obj = (json: JsonValue): JsonObject => (isJsonObject(json) ? json : {});

/**
 * The unions and maps gnostic builds by hand; every other message is converted field by field.
 * Each returns the message, or undefined to leave the field out.
 */
const SPECIAL: Record<string, (json: JsonValue) => Msg | undefined> = {
  Any: (json) => anyOf(json),
  TypeItem: (json) => ({
    value: Array.isArray(json) ? json.filter((v) => typeof v === 'string') : typeof json === 'string' ? [json] : [],
  }),
  ItemsItem: (json) => ({ schema: (Array.isArray(json) ? json : [json]).map((s) => convert('Schema', s)) }),
  StringArray: (json) => ({ value: Array.isArray(json) ? json.filter((v) => typeof v === 'string') : [] }),
  AdditionalPropertiesItem: (json) =>
    typeof json === 'boolean' ? { boolean: json } : { schema: convert('Schema', json) },
  ParametersItem: (json) =>
    typeof obj(json)['$ref'] === 'string'
      ? { json_reference: convert('JsonReference', json) }
      : { parameter: convert('Parameter', json) },
  Parameter: (json) =>
    obj(json)['in'] === 'body'
      ? { body_parameter: convert('BodyParameter', json) }
      : { non_body_parameter: convert('NonBodyParameter', json) },
  NonBodyParameter: (json) => {
    const branch = {
      header: 'HeaderParameterSubSchema',
      formData: 'FormDataParameterSubSchema',
      query: 'QueryParameterSubSchema',
      path: 'PathParameterSubSchema',
    }[String(obj(json)['in'])];
    return branch
      ? { [fieldName(branch.charAt(0).toLowerCase() + branch.slice(1))]: convert(branch, json) }
      : undefined;
  },
  ResponseValue: (json) =>
    typeof obj(json)['$ref'] === 'string'
      ? { json_reference: convert('JsonReference', json) }
      : { response: convert('Response', json) },
  SchemaItem: (json) =>
    obj(json)['type'] === 'file' ? { file_schema: convert('FileSchema', json) } : { schema: convert('Schema', json) },
  SecurityDefinitionsItem: (json) => {
    const o = obj(json);
    const flows: Record<string, string> = {
      implicit: 'Oauth2ImplicitSecurity',
      password: 'Oauth2PasswordSecurity',
      application: 'Oauth2ApplicationSecurity',
      accessCode: 'Oauth2AccessCodeSecurity',
    };
    const branch =
      o['type'] === 'basic'
        ? 'BasicAuthenticationSecurity'
        : o['type'] === 'apiKey'
          ? 'ApiKeySecurity'
          : o['type'] === 'oauth2'
            ? flows[String(o['flow'])]
            : undefined;
    return branch
      ? { [fieldName(branch.charAt(0).toLowerCase() + branch.slice(1))]: convert(branch, json) }
      : undefined;
  },
  Paths: (json) => {
    const o = obj(json);
    return {
      vendor_extension: extensions(o),
      path: Object.entries(o)
        .filter(([k]) => k.startsWith('/'))
        .map(([name, v]) => ({ name, value: convert('PathItem', v) })),
    };
  },
  Responses: (json) => {
    const o = obj(json);
    return {
      response_code: Object.entries(o)
        .filter(([k]) => !k.startsWith('x-'))
        .map(([name, v]) => ({ name, value: convert('ResponseValue', v) })),
      vendor_extension: extensions(o),
    };
  },
};

/** Messages that are a JSON map: their one field holds Named* pairs of this value type. */
const MAPS: Record<string, string> = {
  Default: 'Any',
  Definitions: 'Schema',
  Examples: 'Any',
  Headers: 'Header',
  Oauth2Scopes: 'string',
  ParameterDefinitions: 'Parameter',
  Properties: 'Schema',
  ResponseDefinitions: 'Response',
  SecurityDefinitions: 'SecurityDefinitionsItem',
  SecurityRequirement: 'StringArray',
  VendorExtension: 'Any',
};

const extensions = (o: JsonObject): Msg[] =>
  Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: anyOf(v) }));

/** A scalar field's value from JSON, or undefined for a zero value or a value of the wrong type. */
function scalar(protoType: string, v: JsonValue | bigint): unknown {
  switch (protoType) {
    case 'string':
      return typeof v === 'string' && v !== '' ? v : undefined;
    case 'bool':
      return v === true ? true : undefined;
    case 'double':
      return typeof v === 'number' && v !== 0 ? v : typeof v === 'bigint' && v !== 0n ? Number(v) : undefined;
    case 'int64':
      if (typeof v === 'number' && Number.isInteger(v) && v !== 0) return v;
      if (typeof v === 'bigint' && v !== 0n) {
        const bits = BigInt.asUintN(64, v);
        return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0, unsigned: false };
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The message `typeName` (a simple name in openapi.v2) of a JSON value, as gnostic builds it. */
function convert(typeName: string, json: JsonValue): Msg | undefined {
  const special = SPECIAL[typeName];
  if (special) return special(json);
  if (!isJsonObject(json)) return undefined;
  const mapped = MAPS[typeName];
  if (mapped)
    return {
      additional_properties: named(json, (v) =>
        mapped === 'string' ? (typeof v === 'string' ? v : '') : convert(mapped, v),
      ),
    };
  const type = typeOf(typeName);
  const out: Msg = {};
  for (const [key, v] of Object.entries(json)) {
    if (key.startsWith('x-')) continue;
    const field = type.fields[fieldName(key)];
    if (!field || field.name === 'vendor_extension') continue;
    const elementType = field.resolvedType ? field.resolvedType.name : field.type;
    const one = (x: JsonValue): unknown => (field.resolvedType ? convert(elementType, x) : scalar(field.type, x));
    if (field.repeated) {
      // gnostic reads `enum` and the string lists from arrays only
      const items = (Array.isArray(v) ? v : [])
        .map((x) => (elementType === 'Any' ? anyOf(x) : one(x)))
        .filter((x) => x !== undefined);
      if (items.length) out[field.name] = items;
    } else {
      const value = one(v);
      if (value !== undefined) out[field.name] = value;
    }
  }
  if (type.fields['vendor_extension']) {
    const ext = extensions(json);
    if (ext.length) out['vendor_extension'] = ext;
  }
  return out;
}

/** gnostic's Document for the swagger 2.0 JSON document `doc`, encoded. */
export function encodeOpenAPIV2(doc: JsonValue): Buffer {
  // protobufjs encodes plain objects as they are; fromObject would only copy them
  return Buffer.from(
    openapiV2Document()
      .encode(convert('Document', doc) ?? {})
      .finish(),
  );
}
