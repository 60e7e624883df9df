// Defaults every strategy starts from, so a kind states only what makes it different.
import type { KubeObject } from '../../apimachinery/object.js';
import type { KindInfo, Strategy } from './strategy.js';
import { validateDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { supportedFieldLabels } from '../../apimachinery/selectors/fields.js';

export function defineStrategy(kind: KindInfo, overrides: Partial<Strategy> = {}): Strategy {
  const selectableFields = overrides.selectableFields ?? metadataFields(kind.namespaced);
  return {
    kind,
    statusSubresource: false,
    tracksGeneration: true,
    deletionBumpsGeneration: true,
    allowUnconditionalUpdate: true,
    exactIntegers: false,
    prepareForCreate: () => {},
    prepareForUpdate: () => {},
    canonicalize: () => {},
    validate: () => [],
    validateUpdate: () => [],
    validateName: validateDNS1123Subdomain,
    selectableFields,
    fieldLabels: supportedFieldLabels(Object.keys(selectableFields({ metadata: {} }))),
    hasPendingFinalizers: (obj) => Boolean(obj.metadata.finalizers?.length),
    ...overrides,
  };
}

/** The field selector set every kind supports: metadata.name, and metadata.namespace when namespaced. */
export function metadataFields(namespaced: boolean): (obj: KubeObject) => Record<string, string> {
  return (obj) => {
    const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
    return fields;
  };
}
