// kube's ValidatingAdmissionPolicy status controller: when a policy's generation is newer than its
// status.observedGeneration, its expressions are type-checked (admission/policy/typechecking.ts)
// and the status written: observedGeneration and typeChecking.expressionWarnings. Only the elected
// replica writes; the others see the status arrive through their informers.
import type { Logger } from '../../apimachinery/log.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { ApiError } from '../../apimachinery/errors.js';
import { type TypeCheckResolver, typeCheckPolicy } from '../../admission/policy/typechecking.js';
import type { ValidatingAdmissionPolicy } from '../../admission/policy/types.js';
import type { Store } from '../registry/store.js';

const observedGeneration = (p: KubeObject): number => {
  const status = p['status'] as { observedGeneration?: number } | undefined;
  return status?.observedGeneration ?? 0;
};

export class TypeCheckingController {
  isLeader: () => boolean = () => false;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly policies: Store,
    private readonly resolver: TypeCheckResolver,
    private readonly logger: Logger,
  ) {}

  /** A policy was added or changed: checked (in order, one at a time) if its generation is new. */
  enqueue(policy: KubeObject): void {
    if (this.closed || !this.isLeader() || (policy.metadata.generation ?? 0) <= observedGeneration(policy)) return;
    const name = policy.metadata.name ?? '';
    this.queue = this.queue
      .then(() => this.reconcile(name))
      .catch((err: unknown) => {
        // A policy deleted meanwhile has nothing to report.
        if (!(err instanceof ApiError && err.code === 404))
          this.logger.warn('could not write policy status', { policy: name, err: String(err) });
      });
  }

  /** Resolves when the checks queued so far are written. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Stops; resolves once a status write under way is done (before storage closes). */
  close(): Promise<void> {
    this.closed = true;
    return this.queue;
  }

  private async reconcile(name: string): Promise<void> {
    await this.policies.update(
      undefined,
      name,
      (current) => {
        const generation = current.metadata.generation ?? 0;
        if (generation <= observedGeneration(current)) return current;
        const warnings = typeCheckPolicy(current as unknown as ValidatingAdmissionPolicy, this.resolver);
        const typeChecking = warnings.length > 0 ? { expressionWarnings: warnings } : {};
        return {
          ...current,
          status: { ...(current['status'] as object | undefined), observedGeneration: generation, typeChecking },
        };
      },
      { subresource: 'status', dryRun: false },
    );
  }
}
