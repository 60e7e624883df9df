// The strategy of a custom resource, derived from its CRD. Schema validation, pruning,
// defaulting and CEL plug in here (canonicalize / validate); everything else is the generic store.
import { defineStrategy } from '../server/registry/base-strategy.js';
import type { Strategy } from '../server/registry/strategy.js';
import type { CustomResourceDefinition } from './types.js';

export function customResourceStrategy(crd: CustomResourceDefinition): Strategy {
  const { group, names, scope } = crd.spec;
  const namespaced = scope === 'Namespaced';
  const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  return defineStrategy(
    {
      group,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced,
    },
    {
      statusSubresource: Boolean(storage?.subresources?.status),
      allowUnconditionalUpdate: false,
    },
  );
}
