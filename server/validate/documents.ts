// Files of objects as kubectl reads them (`kubectl create -f`): YAML documents split at `---`
// lines (apimachinery's YAMLReader), each decoded as the server decodes a YAML body, empty ones
// skipped, and a list's items taken one by one, typed by the list when they carry no type
// (unstructured's decodeToList). A CustomResourceDefinition keeps plain numbers, as the server
// decodes a built-in kind; every other object keeps integers exact to int64, as custom resources.
import { type JsonObject, isJsonObject } from '../../apimachinery/object.js';
import { jsonKind } from '../../apimachinery/json.js';
import { CRD_GROUP } from '../../apimachinery/apis/apiextensions.js';
import { YamlDecodeError, decodeYaml } from '../codecs/yaml-decode.js';

/** Input that cannot be read as objects: the command's one line, exit code 2. */
export class ValidateInputError extends Error {
  override readonly name = 'ValidateInputError';
}

/** One YAML document of a file and the line (from 1) where it starts. */
interface YamlDocument {
  text: string;
  line: number;
}

/** A decoded object and the line of the document it came from. */
export interface ReadObject {
  object: JsonObject;
  line: number;
}

const SEPARATOR = '---';

/**
 * The documents of a YAML stream as kube's YAMLReader splits them: a line that starts with `---`
 * ends the document before it (if it has any lines) and may carry only spaces and a comment after.
 */
export function splitYamlDocuments(text: string): YamlDocument[] {
  const docs: YamlDocument[] = [];
  let lines: string[] = [];
  let start = 1;
  const all = text.split(/(?<=\n)/);
  all.forEach((line, i) => {
    if (line.startsWith(SEPARATOR)) {
      const rest = line.slice(SEPARATOR.length).trim();
      if (rest !== '' && !rest.startsWith('#'))
        throw new ValidateInputError(`line ${i + 1}: invalid Yaml document separator: ${rest}`);
      if (lines.length > 0) docs.push({ text: lines.join(''), line: start });
      lines = [];
      start = i + 2;
      return;
    }
    lines.push(line);
  });
  if (lines.join('') !== '') docs.push({ text: lines.join(''), line: start });
  return docs;
}

/**
 * A document's objects: the document, or, when it has `items`, each item, given the list's
 * apiVersion and its kind without the `List` suffix when it has neither (unstructured's decodeToList).
 */
export function itemsOf(doc: JsonObject): JsonObject[] {
  const items = doc['items'];
  if (items === undefined || items === null) return [doc];
  if (!Array.isArray(items)) throw new ValidateInputError(`items must be a list, not ${jsonKind(items)}`);
  const apiVersion = typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '';
  const kind = typeof doc['kind'] === 'string' ? doc['kind'].replace(/List$/, '') : '';
  return items.map((item, i) => {
    if (!isJsonObject(item)) throw new ValidateInputError(`items[${i}] must be an object, not ${jsonKind(item)}`);
    const typed = (k: string): boolean => typeof item[k] === 'string' && item[k] !== '';
    if (!typed('kind') && !typed('apiVersion')) {
      item['kind'] = kind;
      item['apiVersion'] = apiVersion;
    }
    return item;
  });
}

/** Whether the object is a CustomResourceDefinition (of any apiextensions version). */
export const isCRD = (obj: JsonObject): boolean =>
  obj['kind'] === 'CustomResourceDefinition' &&
  typeof obj['apiVersion'] === 'string' &&
  obj['apiVersion'].startsWith(`${CRD_GROUP}/`);

/** The objects of a YAML or JSON file, in order; an ValidateInputError names the line of what cannot be read. */
export async function readObjects(text: string): Promise<ReadObject[]> {
  const out: ReadObject[] = [];
  for (const doc of splitYamlDocuments(text)) {
    const items = await decodeItems(doc, true);
    if (items === undefined) continue;
    // Decoded again for its CustomResourceDefinitions: the same items, in the same places.
    const plain = items.some(isCRD) ? await decodeItems(doc, false) : undefined;
    items.forEach((item, i) => {
      out.push({ object: plain && isCRD(item) ? plain[i]! : item, line: doc.line });
    });
  }
  return out;
}

/** A document's objects, or undefined for an empty one (kubectl skips it). */
async function decodeItems(doc: YamlDocument, int64: boolean): Promise<JsonObject[] | undefined> {
  const at = (message: string): ValidateInputError => new ValidateInputError(`line ${doc.line}: ${message}`);
  let value: unknown;
  try {
    value = await decodeYaml(doc.text, int64);
  } catch (err) {
    if (!(err instanceof YamlDecodeError)) throw err;
    const line =
      err.offset === undefined ? doc.line : doc.line + (doc.text.slice(0, err.offset).match(/\n/g)?.length ?? 0);
    throw new ValidateInputError(`line ${line}: ${err.message}`);
  }
  if (value === null) return undefined;
  if (!isJsonObject(value)) throw at(`a document must be an object, not ${jsonKind(value)}`);
  try {
    return itemsOf(value);
  } catch (err) {
    throw err instanceof ValidateInputError ? at(err.message) : err;
  }
}
