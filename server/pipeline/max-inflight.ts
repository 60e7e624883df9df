// kube-apiserver's max-in-flight filter (server/filters/maxinflight.go): two counters, one for
// read-only and one for mutating requests, each refusing with a 429 once full instead of queueing,
// so overload costs the server one short answer per excess request, never unbounded memory.
// Long-running requests (watches) are not counted, as in kube; neither is system:masters, which
// kube always serves ("a super-admin ... should always get an answer").
import type { UserInfo } from '../../apimachinery/user.js';

/** kube's request_kind label: the two in-flight limits it enforces separately. */
export type RequestKind = 'readOnly' | 'mutating';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/** As kube classifies by RequestInfo.Verb: get, list and watch read; every other verb mutates. */
export const requestKind = (verb: string): RequestKind => (READ_ONLY_VERBS.has(verb) ? 'readOnly' : 'mutating');

export interface InflightLimits {
  /** --max-requests-inflight; 0 for no limit. */
  readOnly: number;
  /** --max-mutating-requests-inflight; 0 for no limit. */
  mutating: number;
}

/** kube's defaults for the two flags. */
export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200 };

const PRIVILEGED_GROUP = 'system:masters';

export class MaxInflight {
  private readonly current: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  /** Requests refused, per kind: kube's apiserver_dropped_requests_total. */
  readonly dropped: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };

  /** `saturated`: whether the server is too busy for any more work, whatever the counts (LoopSaturation). */
  constructor(
    private readonly limits: InflightLimits,
    private readonly saturated: () => boolean = () => false,
  ) {}

  /**
   * A slot for one request, released by the returned function; undefined when the kind is full,
   * or the server saturated, and the request must be refused.
   */
  acquire(kind: RequestKind, user: UserInfo | undefined): (() => void) | undefined {
    const limit = this.limits[kind];
    if ((limit > 0 && this.current[kind] >= limit) || this.saturated()) {
      // Served beside the limit, taking no slot, as kube does.
      if (user?.groups.includes(PRIVILEGED_GROUP)) return () => {};
      this.dropped[kind]++;
      return undefined;
    }
    this.current[kind]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.current[kind]--;
    };
  }
}
