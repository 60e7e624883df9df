// The naming decision of kube's NamingConditionController, with the EstablishingController's verdict
// folded in (this server installs the API before it writes status, so there is no separate
// "Installing" step). A CRD claims its requested names unless another CRD of the same group has
// already accepted them; names it accepted once stay its own, and Established, once True, stays.
import { aggregateErrors } from '../apimachinery/errors.js';
import type { ResourceNames } from '../apimachinery/apis/apiextensions.js';
import type { CRDCondition, CRDNames, CustomResourceDefinition } from '../apimachinery/apis/apiextensions.js';
import { readNames } from './validation/internal-version.js';
import { caBundleError } from '../webhook/ca-bundle.js';

export interface NamesDecision {
  /** The names to record in status.acceptedNames. */
  acceptedNames: CRDNames;
  /** NamesAccepted then Established, without lastTransitionTime (setting them keeps the old time). */
  conditions: CRDCondition[];
}

type Names = ResourceNames;

/** As the JSON kube writes: plural and kind always, the others only when set. */
function toWire(n: Names): CRDNames {
  return {
    plural: n.plural,
    ...(n.singular ? { singular: n.singular } : {}),
    ...(n.shortNames.length ? { shortNames: n.shortNames } : {}),
    kind: n.kind,
    ...(n.listKind ? { listKind: n.listKind } : {}),
    ...(n.categories.length ? { categories: n.categories } : {}),
  };
}

const sameList = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const sameNames = (a: Names, b: Names): boolean =>
  a.plural === b.plural &&
  a.singular === b.singular &&
  a.kind === b.kind &&
  a.listKind === b.listKind &&
  sameList(a.shortNames, b.shortNames) &&
  sameList(a.categories, b.categories);

function findCondition(crd: CustomResourceDefinition, type: CRDCondition['type']): CRDCondition | undefined {
  const c = crd.status?.conditions?.find((cond) => cond.type === type);
  if (!c) return undefined;
  return {
    type: c.type,
    status: c.status,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    ...(c.message !== undefined ? { message: c.message } : {}),
  };
}

/**
 * Names and conditions for `crd`, given the other CRDs of the cluster (any group; `crd` itself may
 * be among them). Like kube, only accepted names count as taken, the CRD's own included.
 */
export function decideNames(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[]): NamesDecision {
  const requested = readNames(crd.spec.names);
  const accepted = readNames(crd.status?.acceptedNames);
  const existing = findCondition(crd, 'NamesAccepted');

  let acceptedNames = accepted;
  let namesAccepted: CRDCondition;
  if (existing && sameNames(requested, accepted)) {
    // Kube's controller does nothing when spec and status names agree, even on a stale condition.
    namesAccepted = existing;
  } else {
    ({ acceptedNames, namesAccepted } = resolveNames(crd, others, requested, accepted));
  }
  return { acceptedNames: toWire(acceptedNames), conditions: [namesAccepted, decideEstablished(crd, namesAccepted)] };
}

function resolveNames(
  crd: CustomResourceDefinition,
  others: readonly CustomResourceDefinition[],
  requested: Names,
  accepted: Names,
): { acceptedNames: Names; namesAccepted: CRDCondition } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const c of [crd, ...others]) {
    if (c.spec.group !== crd.spec.group) continue;
    const n = readNames(c.status?.acceptedNames);
    for (const r of [n.plural, n.singular, ...n.shortNames]) resources.add(r);
    kinds.add(n.kind);
    kinds.add(n.listKind);
  }
  const conflict = (want: string, have: string, used: Set<string>): string | undefined =>
    want !== have && used.has(want) ? `"${want}" is already in use` : undefined;

  const next: Names = { ...accepted };
  // Each failing check overwrites reason and message, so the last conflict is the one reported.
  let failure: { reason: string; message: string } | undefined;
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, reason: string): void => {
    const message = conflict(requested[field], accepted[field], used);
    if (message) failure = { reason, message };
    else next[field] = requested[field];
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(accepted.shortNames);
    const messages = requested.shortNames
      // A short name equal to our own accepted plural or singular is not a conflict with ourselves.
      .filter((s) => !mine.has(s) && s !== accepted.plural && s !== accepted.singular)
      .map((s) => conflict(s, '', resources))
      .filter((m): m is string => m !== undefined);
    if (messages.length) failure = { reason: 'ShortNamesConflict', message: aggregateErrors(messages) };
    else next.shortNames = requested.shortNames;
  }
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  next.categories = requested.categories;

  const namesAccepted: CRDCondition = failure
    ? { type: 'NamesAccepted', status: 'False', ...failure }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  return { acceptedNames: next, namesAccepted };
}

/**
 * Established becomes True once names are accepted and then never goes back: a CRD that later
 * fails to claim a new name keeps serving under the names it has.
 */
function decideEstablished(crd: CustomResourceDefinition, namesAccepted: CRDCondition): CRDCondition {
  const existing = findCondition(crd, 'Established');
  if (existing?.status === 'True' || namesAccepted.status !== 'True') {
    return (
      existing ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }
    );
  }
  const caBundle = crd.spec.conversion?.webhook?.clientConfig?.caBundle;
  if (caBundle && caBundleError(caBundle)) {
    return {
      type: 'Established',
      status: 'False',
      reason: 'InvalidCABundle',
      message: 'The conversion webhook CABundle is invalid',
    };
  }
  return {
    type: 'Established',
    status: 'True',
    reason: 'InitialNamesAccepted',
    message: 'the initial names have been accepted',
  };
}
