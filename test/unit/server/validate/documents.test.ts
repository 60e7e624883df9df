import { describe, expect, it } from 'vitest';
import { ValidateInputError, itemsOf, readObjects, splitYamlDocuments } from '../../../../server/validate/documents.js';

describe('splitYamlDocuments (apimachinery YAMLReader)', () => {
  it.each([
    ['one document', 'a: 1\n', [['a: 1\n', 1]]],
    ['no final newline', 'a: 1', [['a: 1', 1]]],
    [
      'separators, leading, between and trailing',
      '---\na: 1\n---\nb: 2\n---\n',
      [
        ['a: 1\n', 2],
        ['b: 2\n', 4],
      ],
    ],
    [
      'a comment after the separator',
      'a: 1\n--- # two\nb: 2\n',
      [
        ['a: 1\n', 1],
        ['b: 2\n', 3],
      ],
    ],
    [
      'spaces after the separator, and CRLF',
      'a: 1\r\n---  \r\nb: 2\r\n',
      [
        ['a: 1\r\n', 1],
        ['b: 2\r\n', 3],
      ],
    ],
    ['empty documents are kept (they decode to nothing)', '---\n---\n# c\n', [['# c\n', 3]]],
    ['`---` inside a line is no separator', 'a: "---"\n  ---\n', [['a: "---"\n  ---\n', 1]]],
    ['nothing', '', []],
  ] as const)('%s', (_name, text, want) => {
    expect(splitYamlDocuments(text).map((d) => [d.text, d.line])).toEqual(want);
  });

  it('refuses text after a separator, as kube does', () => {
    expect(() => splitYamlDocuments('a: 1\n--- b: 2\n')).toThrow(
      new ValidateInputError('line 2: invalid Yaml document separator: b: 2'),
    );
  });
});

describe('itemsOf (unstructured decodeToList)', () => {
  it.each([
    ['an object', { kind: 'Cache', apiVersion: 'v1' }, [{ kind: 'Cache', apiVersion: 'v1' }]],
    ['items: null is no list', { kind: 'X', items: null }, [{ kind: 'X', items: null }]],
    [
      'untyped items get the list type, less List',
      { apiVersion: 'a/v1', kind: 'CacheList', items: [{ metadata: { name: 'x' } }] },
      [{ metadata: { name: 'x' }, kind: 'Cache', apiVersion: 'a/v1' }],
    ],
    [
      'an item with either field keeps its own',
      { apiVersion: 'a/v1', kind: 'List', items: [{ kind: 'Foo' }, { apiVersion: 'b/v1' }] },
      [{ kind: 'Foo' }, { apiVersion: 'b/v1' }],
    ],
    ['an empty list', { kind: 'List', items: [] }, []],
  ] as const)('%s', (_name, doc, want) => {
    expect(itemsOf(structuredClone(doc) as never)).toEqual(want);
  });

  it.each([
    ['items that are no list', { items: 3 }, 'items must be a list, not number'],
    ['an item that is no object', { items: [{}, 'x'] }, 'items[1] must be an object, not string'],
  ])('refuses %s', (_name, doc, message) => {
    expect(() => itemsOf(doc as never)).toThrow(new ValidateInputError(message));
  });
});

describe('readObjects', () => {
  it('keeps integers exact in objects and plain in CRDs, as the server decodes each', async () => {
    const text = `apiVersion: v1
kind: List
items:
- {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {n: 9007199254740993}}
- {apiVersion: a/v1, kind: A, spec: {n: 9007199254740993}}
`;
    const specs = (await readObjects(text)).map((r) => r.object['spec']);
    expect(specs).toEqual([{ n: 9007199254740992 }, { n: 9007199254740993n }]);
  });

  it('skips empty documents', async () => {
    const read = await readObjects('# only a comment\n---\nkind: A\n---\n---\nkind: B\n');
    expect(read).toEqual([
      { object: { kind: 'A' }, line: 3 },
      { object: { kind: 'B' }, line: 6 },
    ]);
  });

  it.each([
    [
      'a document that is no object: its first line',
      'kind: A\n---\n- 1\n',
      'line 3: a document must be an object, not array',
    ],
    ['a bad list item', '---\nitems: [1]\n', 'line 2: items[0] must be an object, not number'],
    ['a YAML error: its own line', 'kind: A\n---\na: 1\nb: [\n', 'line 5: '],
  ])('names the line of %s', async (_name, text, message) => {
    const err = await readObjects(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidateInputError);
    expect((err as Error).message.startsWith(message), (err as Error).message).toBe(true);
  });
});
