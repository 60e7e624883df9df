// The status and scale subresources: the scale's replicas and selector paths, simple JSON paths
// under .spec or .status.
import { type FieldError, invalid, required } from '../../apimachinery/field-errors.js';
import { type Rec, rec, str } from './internal-version.js';

export function validateSubresources(sub: Rec | undefined, path: string): FieldError[] {
  const scale = rec(sub?.['scale']);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const underRoot = (field: string, value: string, roots: string[], detail: string): void => {
    const fieldPath = `${path}.scale.${field}`;
    const jsonPathErrs = simpleJSONPathErrors(value, fieldPath);
    if (jsonPathErrs.length) errs.push(...jsonPathErrs);
    else if (!roots.some((r) => value.startsWith(r))) errs.push(invalid(fieldPath, value, detail));
  };
  const specPath = str(scale['specReplicasPath']);
  if (!specPath) errs.push(required(`${path}.scale.specReplicasPath`));
  else underRoot('specReplicasPath', specPath, ['.spec.'], 'should be a json path under .spec');
  const statusPath = str(scale['statusReplicasPath']);
  if (!statusPath) errs.push(required(`${path}.scale.statusReplicasPath`));
  else underRoot('statusReplicasPath', statusPath, ['.status.'], 'should be a json path under .status');
  const selectorPath = str(scale['labelSelectorPath']);
  if (selectorPath)
    underRoot(
      'labelSelectorPath',
      selectorPath,
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
    );
  return errs;
}

export function simpleJSONPathErrors(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}
