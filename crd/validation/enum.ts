// A field that must name one of a few values, as kube checks scope and conversion strategy.
import { type FieldError, notSupported, required } from '../../apimachinery/field-errors.js';

export function validateEnum(path: string, value: string, accepted: string[]): FieldError[] {
  if (value === '') return [required(path)];
  return accepted.includes(value) ? [] : [notSupported(path, value, accepted)];
}
