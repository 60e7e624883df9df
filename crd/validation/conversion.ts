// spec.conversion: the strategy, and for a webhook its clientConfig (kube's shared url and
// service checks, the caBundle as client-go reads it) and the ConversionReview versions.
import { type FieldError, forbidden, index, invalid, required } from '../../apimachinery/field-errors.js';
import { isDNS1035Label } from '../../apimachinery/validation/names.js';
import { validateWebhookService, validateWebhookURL } from '../../apimachinery/validation/webhook.js';
import { caBundleError } from '../../webhook/ca-bundle.js';
import type { ValidationOptions } from './options.js';
import { type Conversion, type Spec, rec, str } from './internal-version.js';
import { validateEnum } from './enum.js';
import { appendAll } from '../../apimachinery/append.js';

const STRATEGIES = ['None', 'Webhook'];

/** ConversionReview versions this server (and the one before it) understands. */
export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const NOT_WEBHOOK = 'should not be set when strategy is not set to Webhook';

export function validateConversion(conv: Conversion | undefined, opts: ValidationOptions): FieldError[] {
  if (!conv) return [];
  const errs = validateEnum('spec.conversion.strategy', conv.strategy, STRATEGIES);
  const ccPath = 'spec.conversion.webhookClientConfig';
  const reviewPath = 'spec.conversion.conversionReviewVersions';
  const cc = conv.clientConfig;
  if (conv.strategy !== 'Webhook') {
    if (cc) errs.push(forbidden(ccPath, NOT_WEBHOOK));
    if (conv.reviewVersions.length > 0) errs.push(forbidden(reviewPath, NOT_WEBHOOK));
    return errs;
  }
  if (!cc) errs.push(required(ccPath, 'required when strategy is set to Webhook'));
  else {
    const url = typeof cc['url'] === 'string' ? cc['url'] : undefined;
    const service = rec(cc['service']);
    if ((url === undefined) === (service === undefined))
      errs.push(required(ccPath, 'exactly one of url or service is required'));
    else if (url !== undefined) errs.push(...validateWebhookURL(`${ccPath}.url`, url));
    else if (service) errs.push(...validateWebhookService(`${ccPath}.service`, service));
    const caBundle = str(cc['caBundle']);
    if (caBundle && !opts.allowInvalidCABundle) {
      const why = caBundleError(caBundle);
      if (why) errs.push(invalid(`${ccPath}.caBundle`, caBundle, why));
    }
  }
  appendAll(
    errs,
    validateReviewVersions(conv.reviewVersions, opts.requireRecognizedConversionReviewVersion, reviewPath),
  );
  return errs;
}

function validateReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const detail of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, detail));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/** Kube accepts a broken caBundle unless the CRD is established with a working one. */
export function allowInvalidCABundle(oldSpec: Spec, established: boolean): boolean {
  if (!established) return true;
  const caBundle = str(oldSpec.conversion?.clientConfig?.['caBundle']);
  return caBundle !== '' && caBundleError(caBundle) !== undefined;
}
