// spec's rules: group, scope, versions (storage, deprecation warnings, per-version schema,
// subresources and columns), names, and the parts checked in their own files.
import { type FieldError, child, invalid, required } from '../../apimachinery/field-errors.js';
import { isGoPrintable } from '../../apimachinery/quote.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import type { ValidationOptions } from './options.js';
import { type Rec, type Version, type Spec, isAbsent, rec } from './internal-version.js';
import { validateEnum } from './enum.js';
import { validateSchema, specHasDefaults } from './schema-root.js';
import { validateNames } from './names.js';
import { validateSubresources } from './subresources.js';
import { validateColumn } from './printer-columns.js';
import { validateConversion } from './conversion.js';
import { call, type Task } from '../../apimachinery/structured-merge/trampoline.js';
import { appendAll } from '../../apimachinery/append.js';

const SCOPES = ['Cluster', 'Namespaced'];

export function* validateSpec(spec: Spec, opts: ValidationOptions): Task<FieldError[]> {
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(required('spec.group'));
  else {
    const dns = isDNS1123Subdomain(spec.group);
    if (dns.length) errs.push(invalid('spec.group', spec.group, dns.join(',')));
    else if (spec.group.split('.').length < 2)
      errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  errs.push(...validateEnum('spec.scope', spec.scope, SCOPES));

  const topSchema = rec(spec.validation?.['openAPIV3Schema']);
  if (opts.requireOpenAPISchema) {
    if (!topSchema) {
      spec.versions.forEach((v, i) => {
        if (!rec(v.schema?.['openAPIV3Schema']))
          errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      });
    }
  } else if (!spec.preserveUnknownFields && !topSchema) {
    spec.versions.forEach((v, i) => {
      if (v.served && !rec(v.schema?.['openAPIV3Schema'])) {
        errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
      }
    });
  }
  if (spec.preserveUnknownFields && specHasDefaults(spec)) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  for (const [i, v] of spec.versions.entries()) {
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const path = `spec.versions[${i}]`;
    const dns = isDNS1035Label(v.name);
    if (dns.length) errs.push(invalid(child(path, 'name'), v.name, dns.join(',')));
    appendAll(errs, yield* call(validateVersion(spec, v, path, opts)));
  }
  if (!unique) errs.push(invalid('spec.versions', spec.rawVersions, 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(invalid('spec.versions', spec.rawVersions, 'must have exactly one version marked as storage version'));
  if (spec.version) {
    // Kube's internal spec.version mirrors versions[0].name, so a bad name is reported twice.
    const dns = isDNS1035Label(spec.version);
    if (dns.length) errs.push(invalid('spec.version', spec.version, dns.join(',')));
  }

  if (!spec.names.plural) errs.push(required('spec.names.plural'));
  if (!spec.names.singular) errs.push(required('spec.names.singular'));
  if (!spec.names.kind) errs.push(required('spec.names.kind'));
  if (!spec.names.listKind) errs.push(required('spec.names.listKind'));
  appendAll(errs, validateNames(spec.names, 'spec.names'));

  errs.push(
    ...(yield* call(validateSchema(spec.validation, hasAnyStatusEnabled(spec), 'spec.validation', spec.version, opts))),
  );
  errs.push(...validateSubresources(spec.subresources, 'spec.subresources'));
  spec.columns.forEach((c, i) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${i}]`)));

  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errs.push(
      invalid(
        'spec.conversion.strategy',
        spec.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  appendAll(errs, validateConversion(spec.conversion, opts));
  return errs;
}

function* validateVersion(spec: Spec, v: Version, path: string, opts: ValidationOptions): Task<FieldError[]> {
  const errs: FieldError[] = [];
  for (const detail of deprecationWarningErrors(v.deprecated, v.deprecationWarning)) {
    errs.push(invalid(child(path, 'deprecationWarning'), v.deprecationWarning, detail));
  }
  const statusEnabled = hasStatusEnabled(subresourcesForVersion(spec, v.name));
  appendAll(errs, yield* call(validateSchema(v.schema, statusEnabled, child(path, 'schema'), v.name, opts)));
  errs.push(...validateSubresources(v.subresources, child(path, 'subresources')));
  v.columns.forEach((c, i) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`)));
  return errs;
}

const MAX_DEPRECATION_WARNING = 256;

function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning) > MAX_DEPRECATION_WARNING) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  // Go reports the byte offset of the first rune unicode.IsPrint rejects.
  let offset = 0;
  for (const ch of warning) {
    if (!isGoPrintable(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

/** The subresources that apply to a version, wherever kube's conversion put them. */
function subresourcesForVersion(spec: Spec, name: string): Rec | undefined {
  if (!spec.versions.some((v) => v.subresources)) return spec.subresources;
  return spec.versions.find((v) => v.name === name)?.subresources;
}

const hasStatusEnabled = (sub: Rec | undefined): boolean => !isAbsent(sub?.['status']);
const hasAnyStatusEnabled = (spec: Spec): boolean =>
  hasStatusEnabled(spec.subresources) || spec.versions.some((v) => hasStatusEnabled(v.subresources));
