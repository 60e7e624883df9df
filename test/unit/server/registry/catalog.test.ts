// The catalog of served resources: setResource replaces all the versions of one group-resource at
// once, leaves the group's other resources alone, and keeps the group's versions in kube's order.
import { describe, expect, it } from 'vitest';
import { CUSTOM_RESOURCE_PROFILE, Catalog, type ResourceDescriptor } from '../../../../server/registry/catalog.js';

const descriptor = (group: string, version: string, plural: string): ResourceDescriptor => ({
  group,
  version,
  names: { plural, singular: plural, kind: 'Thing', listKind: 'ThingList', shortNames: [], categories: [] },
  namespaced: true,
  verbs: ['get'],
  subresources: [],
  serving: CUSTOM_RESOURCE_PROFILE,
  storageVersionHash: 'x',
});

const served = (c: Catalog): string[] => c.all().map((d) => `${d.group}/${d.version}/${d.names.plural}`);

describe('Catalog.setResource', () => {
  it("replaces one resource's versions, leaving the group's others and other groups alone", () => {
    const c = new Catalog();
    c.setResource('a.example.com', 'things', [
      descriptor('a.example.com', 'v1', 'things'),
      descriptor('a.example.com', 'v1beta1', 'things'),
    ]);
    c.setResource('a.example.com', 'others', [descriptor('a.example.com', 'v1alpha1', 'others')]);
    c.setResource('b.example.com', 'things', [descriptor('b.example.com', 'v2', 'things')]);
    expect(c.groups()).toEqual([
      { group: 'a.example.com', versions: ['v1', 'v1beta1', 'v1alpha1'] },
      { group: 'b.example.com', versions: ['v2'] },
    ]);

    c.setResource('a.example.com', 'things', [descriptor('a.example.com', 'v2', 'things')]);
    expect(served(c)).toEqual(['a.example.com/v2/things', 'a.example.com/v1alpha1/others', 'b.example.com/v2/things']);
    expect(c.groups()[0]).toEqual({ group: 'a.example.com', versions: ['v2', 'v1alpha1'] });
    expect(c.lookup('a.example.com', 'v1', 'things')).toBeUndefined();
  });

  it('drops a group with its last resource, and tells listeners of every change', () => {
    const c = new Catalog();
    let changes = 0;
    c.onChange(() => changes++);
    c.setResource('a.example.com', 'things', [descriptor('a.example.com', 'v1', 'things')]);
    c.setResource('a.example.com', 'things', []);
    expect(c.groups()).toEqual([]);
    expect(served(c)).toEqual([]);
    expect(changes).toBe(2);
    expect(c.generation).toBe(2);
  });
});
