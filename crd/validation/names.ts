// A CRD's names (spec.names, status.acceptedNames): DNS labels, kinds in mixed case, and a
// listKind other than the kind.
import { type FieldError, child, index, invalid } from '../../apimachinery/field-errors.js';
import { isDNS1035Label } from '../../apimachinery/validation/names.js';
import type { Names } from './internal-version.js';

export function validateNames(n: Names, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string): void => {
    const dns = isDNS1035Label(value);
    if (dns.length) errs.push(invalid(field, value, dns.join(',')));
  };
  const mixedCase = (field: string, value: string): void => {
    const dns = isDNS1035Label(value.toLowerCase());
    if (dns.length)
      errs.push(invalid(field, value, `may have mixed case, but should otherwise match: ${dns.join(',')}`));
  };
  if (n.plural) label(child(path, 'plural'), n.plural);
  if (n.singular) label(child(path, 'singular'), n.singular);
  if (n.kind) mixedCase(child(path, 'kind'), n.kind);
  if (n.listKind) mixedCase(child(path, 'listKind'), n.listKind);
  n.shortNames.forEach((s, i) => label(index(child(path, 'shortNames'), i), s));
  // Equal kind and listKind would make list parsing ambiguous.
  if (n.kind && n.kind === n.listKind)
    errs.push(invalid(child(path, 'listKind'), n.listKind, 'kind and listKind may not be the same'));
  n.categories.forEach((c, i) => label(index(child(path, 'categories'), i), c));
  return errs;
}
