// The clusterrole-aggregation controller's result: selectors in order, matches by name, the role
// itself skipped, each rule once.
import { describe, expect, it } from 'vitest';
import { aggregatedRules, aggregationUpToDate } from '../../../../apimachinery/rbac/aggregation.js';
import type { ClusterRole, PolicyRule } from '../../../../apimachinery/rbac/types.js';

const r = (resource: string, verbs = ['get']): PolicyRule => ({ verbs, apiGroups: [''], resources: [resource] });
const cr = (
  name: string,
  labels: Record<string, string>,
  rules: PolicyRule[] | null,
  aggregationRule?: ClusterRole['aggregationRule'],
): ClusterRole => ({
  metadata: { name, labels },
  rules,
  ...(aggregationRule ? { aggregationRule } : {}),
});

describe('aggregatedRules', () => {
  const agg = cr('agg', { a: 'true' }, null, {
    clusterRoleSelectors: [{ matchLabels: { b: 'true' } }, { matchLabels: { a: 'true' } }],
  });
  const all = [
    agg,
    cr('zeta', { a: 'true' }, [r('secrets')]),
    cr('beta', { b: 'true' }, [r('pods'), r('configmaps')]),
    cr('alpha', { b: 'true', a: 'true' }, [r('configmaps'), r('events')]),
    cr('other', {}, [r('nodes')]),
  ];

  it.each<[string, ClusterRole, PolicyRule[] | undefined]>([
    [
      'first selector by name, then the second; duplicates once; itself skipped',
      agg,
      [r('configmaps'), r('events'), r('pods'), r('secrets')],
    ],
    ['no aggregationRule: nothing to do', cr('plain', {}, [r('pods')]), undefined],
    [
      'a selector matching nothing',
      cr('x', {}, null, { clusterRoleSelectors: [{ matchLabels: { none: 'true' } }] }),
      [],
    ],
  ])('%s', (_name, role, want) => {
    expect(aggregatedRules(role, all)).toEqual(want);
  });

  it('a rule that differs only by an empty list is the same rule', () => {
    const a = cr('a', { x: 'y' }, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
    const b = cr('b', { x: 'y' }, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const target = cr('t', {}, null, { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] });
    expect(aggregatedRules(target, [a, b, target])).toHaveLength(1);
  });

  it('aggregationUpToDate compares in order', () => {
    const done = { ...agg, rules: [r('configmaps'), r('events'), r('pods'), r('secrets')] };
    expect(aggregationUpToDate(done, all)).toBe(true);
    expect(aggregationUpToDate({ ...agg, rules: [r('pods'), r('configmaps'), r('events'), r('secrets')] }, all)).toBe(
      false,
    );
    expect(aggregationUpToDate(agg, all)).toBe(false);
  });
});
