// Which objects this server writes and reads as protobuf, by `apiVersion/kind`: every kind of the
// table and its list, under the message its Go package names (each kind's module says which), and
// the types no kind owns (kube-messages.ts).
import type { Type } from 'protobufjs';
import { TYPE_MESSAGES, kubeProtos, messageName } from '../../apimachinery/apis/kube-messages.js';
import { BUILTIN_KINDS } from '../registry/builtin/table.js';

const MESSAGES: ReadonlyMap<string, string> = new Map([
  ...TYPE_MESSAGES,
  ...BUILTIN_KINDS.flatMap((k) => {
    const { goPackage } = k;
    if (goPackage === undefined) return [];
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    const kinds = k.names.listKind ? [k.names.kind, k.names.listKind] : [k.names.kind];
    return kinds.map((kind) => [`${apiVersion}/${kind}`, messageName(goPackage, kind)] as const);
  }),
]);

const resolved = new Map<string, Type>();

/** Whether a kind (`apiVersion/kind`) can be written and read as protobuf, without loading the definitions. */
export const hasProtobufKind = (apiVersion: string, kind: string): boolean => MESSAGES.has(`${apiVersion}/${kind}`);

/** The message of a kind (`apiVersion/kind`) this server can write and read as protobuf. */
export function protobufKind(apiVersion: string, kind: string): Type | undefined {
  const key = `${apiVersion}/${kind}`;
  const name = MESSAGES.get(key);
  if (name === undefined) return undefined;
  let type = resolved.get(key);
  if (!type) resolved.set(key, (type = kubeProtos().root.lookupType(name)));
  return type;
}
