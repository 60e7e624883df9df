import { describe, expect, it } from 'vitest';
import type { Status } from '../../../../apimachinery/errors.js';
import { badRequest, invalid, notFoundPath } from '../../../../apimachinery/errors.js';
import { invalid as invalidField, required } from '../../../../apimachinery/field-errors.js';
import { kubectlErrorText, statusText } from '../../../../server/validate/kubectl-text.js';
import type { Outcome } from '../../../../server/validate/validate.js';

const CACHE = { group: 'cache.example.com', name: 'Cache' };
const status = (over: Partial<Status>): Status => ({ ...invalid(CACHE, 'c', []).status, ...over });

describe('statusText (kubectl checkErr after AddSourceToErr)', () => {
  it.each([
    [
      'one cause: on the line',
      invalid(CACHE, 'c', [invalidField('spec.size', 30, 'too big')]).status,
      'The Cache "c" is invalid: spec.size: Invalid value: 30: too big\n',
    ],
    [
      'several causes: a list, after a line ending in a space',
      invalid(CACHE, 'c', [invalidField('spec.size', 30, 'too big'), required('spec.engine')]).status,
      'The Cache "c" is invalid: \n* spec.size: Invalid value: 30: too big\n* spec.engine: Required value\n',
    ],
    [
      'the same cause twice: once',
      invalid(CACHE, 'c', [required('spec.a'), required('spec.a')]).status,
      'The Cache "c" is invalid: spec.a: Required value\n',
    ],
    ['no causes', status({ details: { name: 'c', kind: 'Cache', causes: [] } }), 'The Cache "c" is invalid\n'],
    [
      'a name Go quotes',
      invalid(CACHE, 'c"1', [required('spec.a')]).status,
      'The Cache "c\\"1" is invalid: spec.a: Required value\n',
    ],
    [
      'no kind or name, no causes: the message, with the file',
      status({ message: 'm', details: {} }),
      'The request is invalid: error when creating "f.yaml": m\n',
    ],
    [
      'no details: the message, with the file',
      (({ details: _d, ...s }) => ({ ...s, message: 'm' }))(invalid(CACHE, 'c', []).status),
      'The request is invalid: error when creating "f.yaml": m\n',
    ],
    [
      'another reason: Error from server, with the file',
      badRequest('resourceVersion should not be set on objects to be created').status,
      'Error from server (BadRequest): error when creating "f.yaml": resourceVersion should not be set on objects to be created\n',
    ],
    [
      'no reason',
      { ...notFoundPath().status, reason: '' },
      'Error from server: error when creating "f.yaml": the server could not find the requested resource\n',
    ],
  ] as const)('%s', (_name, s, want) => {
    expect(statusText(s, 'f.yaml', 'creating')).toBe(want);
  });
});

describe('kubectlErrorText', () => {
  const base = { apiVersion: 'cache.example.com/v1', kind: 'Cache', namespace: '', name: 'c', warnings: [] };
  it.each([
    ['accepted: nothing', { ...base, operation: 'create', result: 'valid', object: { metadata: {} } }, ''],
    [
      "no resource: cli-runtime's mapping error",
      {
        ...base,
        operation: 'create',
        result: 'no-match',
        message: 'no matches for kind "Cache" in version "cache.example.com/v1"',
      },
      'error: resource mapping not found for name: "c" namespace: "" from "f.yaml": no matches for kind "Cache" in version "cache.example.com/v1"\nensure CRDs are installed first\n',
    ],
    [
      'an update that is refused: replacing',
      { ...base, operation: 'update', result: 'invalid', status: badRequest('no').status },
      'Error from server (BadRequest): error when replacing "f.yaml": no\n',
    ],
  ] as const)('%s', (_name, outcome, want) => {
    expect(kubectlErrorText(outcome as Outcome, 'f.yaml')).toBe(want);
  });
});
