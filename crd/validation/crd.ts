// Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions with kube-apiserver's field
// paths and messages (apiextensions validation.go). Kube validates the internal version of the
// object, so the v1 object is first read the way kube converts it: when every version carries the
// same schema, subresources or printer columns, they are reported at spec.validation,
// spec.subresources and spec.additionalPrinterColumns, and webhook settings under
// spec.conversion.webhookClientConfig. Structural checks of openAPIV3Schema belong to the schema
// module and plug in through a SchemaValidator.
import { type FieldError, index, invalid, key, required } from '../../apimachinery/field-errors.js';
import { parseGoRequestURI } from '../../apimachinery/go-url.js';
import type { CustomResourceDefinition } from '../../apimachinery/apis/apiextensions.js';
import type { SchemaValidator, ValidationOptions } from './options.js';
import { type Spec, rec, str, list, strings, readNames, readSpec } from './internal-version.js';
import { validateSpec } from './spec.js';
import { validateNames } from './names.js';
import { ACCEPTED_REVIEW_VERSIONS, allowInvalidCABundle } from './conversion.js';
import { call, type Task } from '../../apimachinery/structured-merge/trampoline.js';

/** A task (the schema validator's CEL compile runs sliced in a request): runTask runs it at once. */
export function* validateCRD(crd: CustomResourceDefinition, schemaValidator?: SchemaValidator): Task<FieldError[]> {
  const spec = readSpec(crd.spec);
  const opts: ValidationOptions = {
    requireRecognizedConversionReviewVersion: true,
    requireOpenAPISchema: true,
    allowInvalidCABundle: true, // nothing is served yet, so nothing can break
    schemaValidator,
  };
  return [
    ...validateNameMatchesSpec(crd, spec),
    ...(yield* call(validateSpec(spec, opts))),
    ...validateCRDStatus(crd),
    ...validateStoredVersions(crd, spec),
    ...validateAPIApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

export function* validateCRDUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
  schemaValidator?: SchemaValidator,
): Task<FieldError[]> {
  const spec = readSpec(crd.spec);
  const oldSpec = readSpec(old.spec);
  const established = isConditionTrue(old, 'Established');
  // Rules the stored object already breaks are not tightened on it.
  const opts: ValidationOptions = {
    requireRecognizedConversionReviewVersion:
      !oldSpec.conversion ||
      oldSpec.conversion.reviewVersions.length === 0 ||
      oldSpec.conversion.reviewVersions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v)),
    requireOpenAPISchema: oldSpec.versions.every((v) => v.schemaPresent),
    allowInvalidCABundle: allowInvalidCABundle(oldSpec, established),
    schemaValidator,
    old,
  };
  const errs = yield* call(validateSpec(spec, opts));
  if (established) {
    // Scope and kind shape the stored data and the served API.
    errs.push(...immutable('spec.scope', spec.scope, oldSpec.scope));
    errs.push(...immutable('spec.names.kind', spec.names.kind, oldSpec.names.kind));
  }
  // Both make up metadata.name, which never changes.
  errs.push(...immutable('spec.group', spec.group, oldSpec.group));
  errs.push(...immutable('spec.names.plural', spec.names.plural, oldSpec.names.plural));
  return [
    ...errs,
    ...validateCRDStatus(crd),
    ...validateStoredVersions(crd, spec),
    ...validateAPIApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** The status rules (status.acceptedNames), all kube checks on a write to /status. */
export function validateCRDStatus(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(readNames(rec(crd.status)?.['acceptedNames']), 'status.acceptedNames');
}

function validateNameMatchesSpec(crd: CustomResourceDefinition, spec: Spec): FieldError[] {
  const want = `${spec.names.plural}.${spec.group}`;
  const detail = 'must be spec.names.plural+"."+spec.group';
  const errs: FieldError[] = [];
  const generateName = str(crd.metadata?.generateName);
  const name = str(crd.metadata?.name);
  if (generateName && generateName !== want) errs.push(invalid('metadata.generateName', generateName, detail));
  if (name && name !== want) errs.push(invalid('metadata.name', name, detail));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition, spec: Spec): FieldError[] {
  const path = 'status.storedVersions';
  const stored = strings(rec(crd.status)?.['storedVersions']);
  if (stored.length === 0) return [invalid(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of spec.versions) {
    const known = remaining.has(v.name);
    if (v.storage && !known) errs.push(invalid(path, stored, `must have the storage version ${v.name}`));
    remaining.delete(v.name);
  }
  // Kube walks a Go map here (random order); index order is one of its possible outputs.
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(
      invalid(
        index(path, i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const APPROVAL_PR = 'https://github.com/kubernetes/enhancements/pull/1111';

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

function approvalState(annotations: Record<string, string> | undefined): [ApprovalState, string] {
  const value = annotations?.[APPROVAL_ANNOTATION] ?? '';
  if (!value)
    return ['missing', `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see ${APPROVAL_PR}`];
  if (value.startsWith('unapproved')) return ['bypassed', `not approved: ${JSON.stringify(value)}`];
  const u = parseGoRequestURI(value);
  if (u.ok && u.url.host && u.url.scheme) return ['approved', `approved in ${value}`];
  return [
    'invalid',
    `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see ${APPROVAL_PR}`,
  ];
}

/** Groups under k8s.io and kubernetes.io need an API review, recorded in an annotation. */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  const group = str(rec(crd.spec)?.['group']);
  const protectedGroup = [/^(.+\.)?k8s\.io$/, /^(.+\.)?kubernetes\.io$/].some((re) => re.test(group));
  if (!protectedGroup) return [];
  const [state, reason] = approvalState(crd.metadata?.annotations);
  // An unchanged state never fails, so controllers that only touch the spec keep working.
  if (old && approvalState(old.metadata?.annotations)[0] === state) return [];
  const path = key('metadata.annotations', APPROVAL_ANNOTATION);
  if (state === 'missing') return [required(path, reason)];
  if (state === 'invalid') return [invalid(path, crd.metadata.annotations?.[APPROVAL_ANNOTATION], reason)];
  return [];
}

function validatePreserveUnknownFields(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition | undefined,
): FieldError[] {
  // CRDs stored with it set (from v1beta1 days) may keep it.
  if (old && rec(old.spec)?.['preserveUnknownFields'] === true) return [];
  if (rec(crd.spec)?.['preserveUnknownFields'] !== true) return [];
  return [
    invalid(
      'spec.preserveUnknownFields',
      true,
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ),
  ];
}

function immutable(path: string, value: string, oldValue: string): FieldError[] {
  return value === oldValue ? [] : [invalid(path, value, 'field is immutable')];
}

function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return list(rec(crd.status)?.['conditions']).some((c) => rec(c)?.['type'] === type && rec(c)?.['status'] === 'True');
}
