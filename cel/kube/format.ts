// Kube's format library (k8s.io/apiserver/pkg/cel/library/format.go): `format.named(name)`, the
// zero-argument `format.<name>()` functions, and `<format>.validate(s)`, which is optional.none()
// for a valid string and otherwise the list of kube's validation messages.
import { parseGoRequestURI } from '../../apimachinery/go-url.js';
import {
  isQualifiedName,
  isValidLabelValue,
  validateDNS1035Label,
  validateDNS1123Label,
  validateDNS1123Subdomain,
} from '../../apimachinery/validation/names.js';
import { formatCheck } from '../../apimachinery/validation/strfmt.js';
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { listType, objectType, optionalType, StringType } from '../types.js';
import { ObjectValue, OptionalValue, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

const FORMAT_TYPE = objectType('kubernetes.NamedFormat');

export class FormatValue extends ObjectValue {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** The length of regex kube's runtime cost assumes the validation runs. */
    readonly maxRegexSize: number,
  ) {
    super();
  }
  equals(other: ObjectValue): boolean {
    return other instanceof FormatValue && other.name === this.name;
  }
}

/** A strfmt check with kube's single message. */
const strfmt = (name: string, message: string): ((s: string) => string[]) => {
  const check = formatCheck(name)!;
  return (s) => (check(s) ? [] : [message]);
};

// The regex lengths kube prices validate() by: govalidator's URL and base64 patterns (estimated
// by kube), and kube-openapi strfmt's UUID and date-time patterns.
const URL_LENGTH = 1103;
const BASE64_LENGTH = 84;
const UUID_PATTERN = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$';
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';

/** kube's ConstantFormats, by the name rules use. */
const NAMED_FORMATS: ReadonlyMap<string, FormatValue> = new Map(
  [
    new FormatValue('dns1123Label', (s) => validateDNS1123Label(s, false), 30),
    new FormatValue('dns1123Subdomain', (s) => validateDNS1123Subdomain(s, false), 60),
    new FormatValue('dns1035Label', (s) => validateDNS1035Label(s, false), 30),
    new FormatValue('qualifiedName', isQualifiedName, 60),
    new FormatValue('dns1123LabelPrefix', (s) => validateDNS1123Label(s, true), 30),
    new FormatValue('dns1123SubdomainPrefix', (s) => validateDNS1123Subdomain(s, true), 60),
    new FormatValue('dns1035LabelPrefix', (s) => validateDNS1035Label(s, true), 30),
    new FormatValue('labelValue', isValidLabelValue, 40),
    new FormatValue(
      'uri',
      (s) => {
        const r = parseGoRequestURI(s);
        return r.ok ? [] : [r.error];
      },
      URL_LENGTH,
    ),
    new FormatValue('uuid', strfmt('uuid', 'does not match the UUID format'), UUID_PATTERN.length),
    new FormatValue('byte', strfmt('byte', 'invalid base64'), BASE64_LENGTH),
    new FormatValue('date', strfmt('date', 'invalid date'), DATE_TIME_PATTERN.length),
    new FormatValue('datetime', strfmt('datetime', 'invalid datetime'), DATE_TIME_PATTERN.length),
  ].map((f) => [f.name, f]),
);

function validate(f: FormatValue, s: string): OptionalValue {
  const errs = f.validate(s);
  return errs.length === 0 ? OptionalValue.NONE : OptionalValue.of(errs);
}

function named(name: string): OptionalValue {
  const f = NAMED_FORMATS.get(name);
  return f === undefined ? OptionalValue.NONE : OptionalValue.of(f);
}

const IMPLS: [string, Impl][] = [
  ['format-validate', ([f, s]) => validate(f as FormatValue, s as string)],
  ['format-named', ([name]) => named(name as string)],
];
for (const [name, f] of NAMED_FORMATS) IMPLS.push([`format.${name}`, (): Value => f]);

export const FORMAT_LIBRARY: KubeLibrary = {
  functions: [
    func('validate', memberOverload('format-validate', [FORMAT_TYPE, StringType], optionalType(listType(StringType)))),
    func('format.named', overload('format-named', [StringType], optionalType(FORMAT_TYPE))),
    ...[...NAMED_FORMATS.keys()].map((name) => func(`format.${name}`, overload(`format.${name}`, [], FORMAT_TYPE))),
  ],
  impls: new Map(IMPLS),
};
