// The check every object body passes before a handler looks further: a JSON object of the
// resource's kind and version (built-in kinds may leave the type out), with an object for metadata.
import { type Qualified, badRequest, invalid } from '../../apimachinery/errors.js';
import { invalid as invalidField } from '../../apimachinery/field-errors.js';
import { type JsonObject, type KubeObject, isJsonObject } from '../../apimachinery/object.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { hasProtobufKind } from '../codecs/messages.js';
import type { ResourceDescriptor } from '../registry/catalog.js';
import { DecoderError, transformDecodeError } from '../codecs/decode-error.js';

/** What of a served resource the check reads: its group version, kind and whether it is typed. */
export type BodyTarget = Pick<ResourceDescriptor, 'group' | 'version' | 'goPackage'> & {
  names: Pick<ResourceDescriptor['names'], 'kind'>;
  serving: Pick<ResourceDescriptor['serving'], 'typed'>;
};

/**
 * The internal Go type a built-in kind's handler decodes into, as %T names it: `core.Namespace`, the
 * package its Go package's version sits in (a kind kube does not compile in: its group's first label).
 */
export function internalType(desc: BodyTarget): string {
  const pkg = desc.goPackage?.split('/').at(-2) ?? desc.group.split('.')[0]!;
  return `${pkg}.${desc.names.kind}`;
}

/**
 * A decoded body as an object of the resource's kind and version, as the create and update
 * handlers' decoders check it: built-in kinds may omit type information (typed clients do),
 * custom resources may not (`checkCustom` judges their type first). Also serves resources that
 * are created and never stored (access reviews).
 */
export function checkBodyObject(
  desc: BodyTarget,
  value: unknown,
  errorKind: Qualified,
  checkCustom?: (apiVersion: string, kind: string, obj: JsonObject) => void,
): KubeObject {
  if (!isJsonObject(value)) throw badRequest(`the request body must be a JSON object of kind ${desc.names.kind}`);
  const gv = desc.group ? `${desc.group}/${desc.version}` : desc.version;
  const apiVersion = value['apiVersion'];
  const kind = value['kind'];
  if (apiVersion === undefined && kind === undefined && desc.serving.typed) {
    value['apiVersion'] = gv;
    value['kind'] = desc.names.kind;
  } else {
    if (typeof kind !== 'string' || kind === '')
      throw badRequest("Object 'Kind' is missing in '" + stringifyJSON(value).slice(0, 200) + "'");
    // Another built-in kind decodes into its own Go type, which the codec cannot convert to this one.
    if (
      desc.serving.typed &&
      kind !== desc.names.kind &&
      typeof apiVersion === 'string' &&
      hasProtobufKind(apiVersion, kind)
    ) {
      const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
      const why = `converting (${version}.${kind}) to (${internalType(desc)}): unknown conversion`;
      throw transformDecodeError(desc.names.kind, new DecoderError(why, { version, kind }), Buffer.alloc(0));
    }
    checkCustom?.(typeof apiVersion === 'string' ? apiVersion : '', kind, value);
    if (typeof apiVersion !== 'string' || apiVersion === '')
      throw badRequest("Object 'apiVersion' is missing in '" + stringifyJSON(value).slice(0, 200) + "'");
    if (apiVersion !== gv)
      throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${gv})`);
    if (kind !== desc.names.kind)
      throw badRequest(`the kind in the data (${kind}) does not match the expected kind (${desc.names.kind})`);
  }
  const meta = value['metadata'];
  if (meta === undefined || meta === null) value['metadata'] = {};
  else if (!isJsonObject(meta)) throw invalid(errorKind, '', [invalidField('metadata', meta, 'must be an object')]);
  return value as unknown as KubeObject;
}
