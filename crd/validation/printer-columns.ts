// additionalPrinterColumns: a name, one of the column types and formats kube knows, a JSON path.
import { type FieldError, child, invalid, required } from '../../apimachinery/field-errors.js';
import { rec, str } from './internal-version.js';
import { simpleJSONPathErrors } from './subresources.js';

// Kube's sets.List() order: sorted.
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

export function validateColumn(raw: unknown, path: string): FieldError[] {
  const col = rec(raw) ?? {};
  const errs: FieldError[] = [];
  const name = str(col['name']);
  const type = str(col['type']);
  const format = str(col['format']);
  const jsonPath = str(col['jsonPath']);
  if (!name) errs.push(required(child(path, 'name')));
  const typeDetail = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(required(child(path, 'type'), typeDetail));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalid(child(path, 'type'), type, typeDetail));
  if (format && !COLUMN_FORMATS.includes(format))
    errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  // The internal field is JSONPath, and kube reports it under that name.
  if (!jsonPath) errs.push(required(child(path, 'JSONPath')));
  else errs.push(...simpleJSONPathErrors(jsonPath, child(path, 'JSONPath')));
  return errs;
}
