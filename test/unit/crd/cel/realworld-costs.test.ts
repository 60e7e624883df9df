// kube's static cost estimates over the real-world corpus (../shared/realworld/crds): every rule's
// cost (× how often it may run) and every CRD version's total, under kube's limits, as kube
// accepts them all; and, where kube's figure is known, that figure exactly.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../../../../cel/kube/limits.js';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import {
  crdDocuments,
  crdNameOf,
  crdsOf,
  expressionsOf,
  REALWORLD_CRDS_DIR,
  REALWORLD_MISSING,
  realworldRuleFiles,
} from '../../../helpers/realworld.js';

const V0 = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
const INFRA = `${V0}.properties[infrastructure].properties`;
const MATCH_LABELS = 'properties[selector].properties[matchLabels].x-kubernetes-validations[0].rule';

/**
 * Figures kube computes, worked out by hand from cel-go's and kube's code (the working is in
 * test/unit/cel/cost.test.ts REAL_WORLD, which checks the estimator against each), for the rules
 * of issue 24. Each sits under objects only: its cardinality is 1, its cost the rule's.
 */
const KNOWN: readonly { project: string; crd: string; path: string; cost: bigint }[] = [
  {
    project: 'gateway-api-standard',
    crd: 'gateways.gateway.networking.k8s.io',
    path: `${INFRA}[annotations].x-kubernetes-validations[0].rule`,
    cost: 530n,
  },
  {
    project: 'gateway-api-standard',
    crd: 'gateways.gateway.networking.k8s.io',
    path: `${INFRA}[annotations].x-kubernetes-validations[1].rule`,
    cost: 114n,
  },
  {
    project: 'gateway-api-standard',
    crd: 'gateways.gateway.networking.k8s.io',
    path: `${INFRA}[labels].x-kubernetes-validations[0].rule`,
    cost: 266n,
  },
  {
    project: 'gateway-api-standard',
    crd: 'gateways.gateway.networking.k8s.io',
    path: `${INFRA}[labels].x-kubernetes-validations[1].rule`,
    cost: 58n,
  },
  { project: 'istio', crd: 'authorizationpolicies.security.istio.io', path: `${V0}.${MATCH_LABELS}`, cost: 20482n },
  {
    project: 'istio',
    crd: 'serviceentries.networking.istio.io',
    path: `${V0}.x-kubernetes-validations[1].rule`,
    cost: 1309n,
  },
];

describe('the corpus, as kube estimates it', () => {
  if (REALWORLD_MISSING) it('did not run', (ctx) => ctx.skip(`did not run: ${REALWORLD_MISSING}`));

  it.each(realworldRuleFiles().map((f) => [relative(REALWORLD_CRDS_DIR, f.file), f] as const))(
    '%s: every rule and every version within kube’s limits, the known figures exactly',
    (_name, { project, file }) => {
      for (const crd of crdsOf(file)) {
        crd.spec.versions.forEach((v, i) => {
          const schema = v.schema?.openAPIV3Schema;
          if (schema === undefined) return;
          const r = compileSchemaRules(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
          const where = `${crd.metadata.name} ${v.name}`;
          expect(r.errors.map(formatFieldError), where).toEqual([]);
          expect(r.costs, where).toHaveLength(expressionsOf(schema).length);
          expect(r.total, where).toBeLessThanOrEqual(STATIC_ESTIMATED_CRD_COST_LIMIT);
          for (const c of r.costs)
            expect(c.cost, `${where} ${c.path}`).toBeLessThanOrEqual(STATIC_ESTIMATED_COST_LIMIT);
          const known = KNOWN.filter(
            (k) => k.project === project && k.crd === crd.metadata.name && k.path.startsWith(`spec.versions[${i}].`),
          );
          const costs = new Map(r.costs.map((c) => [c.path, c.cost]));
          expect(known.map((k) => [k.path, costs.get(k.path)])).toEqual(known.map((k) => [k.path, k.cost]));
        });
      }
    },
  );

  it('every known figure is of a CRD in the corpus', (ctx) => {
    if (REALWORLD_MISSING) return ctx.skip(`did not run: ${REALWORLD_MISSING}`);
    const names = new Set(
      realworldRuleFiles().flatMap((f) =>
        crdDocuments(readFileSync(f.file, 'utf8')).map((d) => `${f.project} ${crdNameOf(d)}`),
      ),
    );
    expect(KNOWN.filter((k) => !names.has(`${k.project} ${k.crd}`))).toEqual([]);
  });
});
