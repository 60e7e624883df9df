// kube's name and key validators (k8s.io/apimachinery/pkg/util/validation, api/validate/content,
// api/validation/generic.go), returning kube's exact messages. Each `is*` function returns the list
// of problems (empty when valid); callers wrap them in field errors, as kube does.
//
// Which validator names a custom resource: apiextensions-apiserver's customResourceValidator
// (pkg/registry/customresource/validator.go) runs ValidateObjectMetaAccessor with
// `validation.NameIsDNSSubdomain`, so CR names are DNS-1123 subdomains (253 bytes). The generic
// registry then runs ValidateObjectMetaAccessor again with the path-segment validator
// (rest.BeforeCreate / validateCommonFields on update); any DNS-1123 subdomain passes that one, so
// on create it never adds an error for CRs. Namespaces use NameIsDNSLabel (ValidateNamespaceName).

/** A DNS-1123 label's maximum length, in bytes. */
const DNS1123_LABEL_MAX_LENGTH = 63;
/** A DNS-1123 subdomain's maximum length, in bytes: the limit on most object names. */
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** A DNS-1035 label's maximum length, in bytes. */
const DNS1035_LABEL_MAX_LENGTH = 63;
/** The maximum length of a label value and of the name part of a qualified name. */
const LABEL_VALUE_MAX_LENGTH = 63;
const QUALIFIED_NAME_MAX_LENGTH = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const qualifiedNameCharFmt = '[A-Za-z0-9]';
const qualifiedNameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qualifiedNameCharFmt}${qualifiedNameExtCharFmt}*)?${qualifiedNameCharFmt}`;
const labelValueFmt = `(${qualifiedNameFmt})?`;

const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Go's len(): kube measures names in UTF-8 bytes, not characters. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `must be no more than 63 characters` (kube says characters but counts bytes). */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `<msg> (e.g. 'a' or 'b', regex used for validation is '<fmt>')`, as validation.RegexError. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Go appends "', " after each example and " or " before the next: hence kube's double space.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const emptyError = (): string => 'must be non-empty';

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(value))
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/**
 * A "qualified name" (label keys, annotation keys, finalizers): an optional DNS-1123 subdomain
 * prefix and `/`, then a name of at most 63 characters.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRegexp.test(name))
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(value))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * Whether a name can be one segment of a URL path or a storage key (content.IsPathSegmentName).
 * For historical reasons kube checks neither emptiness nor length here.
 */
export function isPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return isPathSegmentPrefix(name);
}

/** The same for a prefix that something will be appended to (so `.` and `..` are fine). */
export function isPathSegmentPrefix(name: string): string[] {
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/**
 * kube's ValidateNameFunc: `prefix` is true when the value is a generateName that random
 * characters will be appended to, so a trailing dash is allowed.
 */
export type NameValidator = (name: string, prefix?: boolean) => string[];

/**
 * kube's maskTrailingDash: `name[:len(name)-2] + "a"`. It drops two characters, not one; kept as
 * kube has it so lengths are judged the same. (kube panics on a lone "-"; that is left unmasked here
 * and fails the regex instead.)
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** NameIsDNSSubdomain: most kinds, and every custom resource. */
export const validateDNS1123Subdomain: NameValidator = (name, prefix = false) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel: namespaces (ValidateNamespaceName), services... */
export const validateDNS1123Label: NameValidator = (name, prefix = false) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** NameIsDNS1035Label. */
export const validateDNS1035Label: NameValidator = (name, prefix = false) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** The generic registry's validatePathSegment (rest.BeforeCreate, BeforeUpdate). */
export const validatePathSegmentName: NameValidator = (name, prefix = false) =>
  prefix ? isPathSegmentPrefix(name) : isPathSegmentName(name);

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRegexp = new RegExp(`^${configMapKeyFmt}$`);

/**
 * validation.IsConfigMapKey: the keys of a ConfigMap's or Secret's data, which become file names
 * in a volume, so `.`, `..` and a `..` prefix are refused as well.
 */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRegexp.test(value))
    errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  // hasChDirPrefix
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}
