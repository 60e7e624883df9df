// A write's query parameters, decoded and validated together as kube's ValidateCreateOptions,
// ValidateUpdateOptions and ValidatePatchOptions: one 422 on the options kind lists every bad one.
import { describe, expect, it } from 'vitest';
import {
  APPLY_PATCH_TYPE,
  managerFromUserAgent,
  parseWriteOptions,
} from '../../../../server/endpoints/write-options.js';
import { apiError } from '../../../helpers/api-error.js';

const parse = (
  query: string,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' = 'CreateOptions',
  userAgent?: string,
  patchType?: string,
) => parseWriteOptions(new URLSearchParams(query), kind, userAgent, patchType);

describe('parseWriteOptions', () => {
  it.each([
    ['', 'Warn'],
    ['fieldValidation=Strict', 'Strict'],
    ['fieldValidation=Warn', 'Warn'],
    ['fieldValidation=Ignore', 'Ignore'],
  ])('fieldValidation %j is %s', (query, want) => {
    expect(parse(query).fieldValidation).toBe(want);
  });

  it.each<[string, string | undefined, string]>([
    ['fieldManager=helm', 'kubectl/v1.33.0 (linux/amd64)', 'helm'],
    ['', 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['', 'Go-http-client/1.1', 'Go-http-client'],
    ['', undefined, ''],
  ])('fieldManager of %j with User-Agent %j is %j', (query, ua, want) => {
    expect(parse(query, 'UpdateOptions', ua).fieldManager).toBe(want);
  });

  it.each<[string, boolean]>([
    ['force=true', true],
    ['force=yes', true],
    ['force=', true],
    ['force=0', false],
    ['force=FALSE', false],
    ['', false],
  ])('the parameter codec reads %j as %s', (query, want) => {
    expect(parse(`fieldManager=m&${query}`, 'PatchOptions', undefined, APPLY_PATCH_TYPE).force).toBe(want);
  });

  it.each<[string, string, string | undefined, string]>([
    [
      'apply without fieldManager',
      '',
      APPLY_PATCH_TYPE,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    ],
    [
      'force on a merge patch',
      'force=true',
      'application/merge-patch+json',
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ],
    [
      'force=false on a merge patch too',
      'force=false',
      'application/merge-patch+json',
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ],
    [
      'every error at once, in kube order',
      `fieldManager=${'m'.repeat(129)}&dryRun=Some&fieldValidation=strict&force=1`,
      'application/json-patch+json',
      'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, fieldManager: Too long: may not be more than 128 bytes, dryRun: Unsupported value: []string{"Some"}: supported values: "All", fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Warn", "Strict"]',
    ],
    [
      'a control character in the manager',
      'fieldManager=a%07b',
      APPLY_PATCH_TYPE,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
    ],
  ])('%s', (_name, query, patchType, message) => {
    const err = apiError(() => parse(query, 'PatchOptions', 'kubectl/v1.33.0', patchType));
    expect([err.code, err.status.reason, err.status.message]).toEqual([422, 'Invalid', message]);
  });

  it('a 128-byte manager is fine', () => {
    expect(parse(`fieldManager=${'m'.repeat(128)}`).fieldManager).toHaveLength(128);
  });
});

describe('managerFromUserAgent', () => {
  it.each<[string, string]>([
    ['kubectl/v1.27.16 (linux/amd64) kubernetes/cbb86e0', 'kubectl'],
    ['node-fetch', 'node-fetch'],
    ['a\tb/1', 'ab'],
    [`${'é'.repeat(100)}/1`, 'é'.repeat(64)],
  ])('%j is %j', (ua, want) => {
    expect(managerFromUserAgent(ua)).toBe(want);
  });
});
