// The Clock named `cluster` sets the server's clock (apimachinery/clock.ts): real, frozen at its
// time, or real plus its offset; without it the clock is real. Every replica follows it from its
// informer, so servers sharing etcd tell the same time; its status says which generation is in
// force, which clients wait for before relying on it.
import { CLOCK_NAME, type ClockSpec } from '../../apimachinery/apis/testing.js';
import type { AdjustableClock, ClockSetting } from '../../apimachinery/clock.js';
import { ApiError } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import { type KubeObject, isJsonObject } from '../../apimachinery/object.js';
import { Informer } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { clockSpec, goDurationMs, rfc3339Micros } from '../registry/builtin/testing.js';

/** What a (valid) Clock spec sets; the real clock for anything it cannot read. */
export function clockSetting(spec: ClockSpec | undefined): ClockSetting {
  if (spec?.mode === 'Frozen' && spec.time !== undefined) {
    const atMicros = rfc3339Micros(spec.time);
    if (atMicros !== undefined) return { mode: 'Frozen', atMicros };
  }
  if (spec?.mode === 'Offset' && spec.offset !== undefined) {
    const ms = goDurationMs(spec.offset);
    if (typeof ms === 'number') return { mode: 'Offset', offsetMicros: Math.round(ms * 1000) };
  }
  return { mode: 'Real' };
}

const observedGeneration = (obj: KubeObject): number => {
  const status = obj['status'];
  return isJsonObject(status) && typeof status['observedGeneration'] === 'number' ? status['observedGeneration'] : 0;
};

export class ClockController {
  private readonly informer: Informer;

  constructor(
    private readonly store: Store,
    private readonly clock: AdjustableClock,
    private readonly logger: Logger,
  ) {
    this.informer = new Informer(
      store,
      {
        upsert: (obj) => this.upsert(obj),
        remove: (obj) => {
          if (obj.metadata.name === CLOCK_NAME) this.clock.set({ mode: 'Real' });
        },
      },
      logger.with({ controller: 'testing-clock' }),
    );
  }

  /** The stored Clock is in force once this resolves. */
  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.informer.close();
  }

  private async upsert(obj: KubeObject): Promise<void> {
    if (obj.metadata.name !== CLOCK_NAME) return;
    this.clock.set(clockSetting(clockSpec(obj)));
    const generation = obj.metadata.generation ?? 1;
    if (observedGeneration(obj) >= generation) return;
    await this.store
      .update(
        undefined,
        CLOCK_NAME,
        (current) => {
          current['status'] = { observedGeneration: Math.max(generation, observedGeneration(current)) };
          return current;
        },
        { dryRun: false, subresource: 'status' },
      )
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 404) return;
        this.logger.warn('could not write the Clock status', { err: String(err) });
      });
  }
}
