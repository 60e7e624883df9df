// The admission tests' requests: kube's Attributes of a CREATE of a namespaced object, not a dry
// run, by nobody in particular, with what a test says overriding it (kind, resource and name at least).
import type { Attributes } from '../../../../admission/interface.js';

export function attributes<A extends Attributes>(over: Partial<A> & Pick<Attributes, 'kind' | 'resource' | 'name'>): A {
  const base: Attributes = {
    operation: 'CREATE',
    kind: over.kind,
    resource: over.resource,
    subresource: '',
    namespace: 'default',
    name: over.name,
    object: undefined,
    oldObject: undefined,
    dryRun: false,
    userInfo: undefined,
  };
  return { ...base, ...over } as A;
}
