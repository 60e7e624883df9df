// The Faults in force, kept from their store by an informer, and the decision for each client
// request: the first Fault (by name) that matches it, reaches it, has hits left and wins its
// chance takes one hit. The decision is synchronous, so the next N requests are exactly the N a
// `count: N` Fault acts on, however many arrive together. Hits are counted here, in
// /metrics, and written to each Fault's status (as a difference, so servers sharing etcd add up).
//
// Open watches are tracked (only with the testing API on), so that a Fault made to end watches
// also ends those already open when it comes into force.
import type { Counter } from 'prom-client';
import type { FaultSpec } from '../../apimachinery/apis/testing.js';
import { ApiError } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import { type KubeObject, isJsonObject } from '../../apimachinery/object.js';
import { Informer } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { actionOf, faultSpec } from '../registry/builtin/testing.js';
import { type RequestFacts, actionReaches, faultMatches } from './match.js';

/** A Fault as the engine holds it. */
export interface ActiveFault {
  readonly name: string;
  uid: string;
  generation: number;
  spec: FaultSpec;
  /** status.hits as last read or written. */
  stored: number;
  /** Hits taken here and not yet written. */
  unwritten: number;
  /** The generation the status says is in force. */
  observed: number;
  /** A status write waiting to start (later hits join it), and the last one started. */
  queued: Promise<void> | undefined;
  last: Promise<void>;
}

/** A watch being served, which a Fault may end after some events. */
interface OpenWatch {
  readonly facts: RequestFacts;
  /** Ends it after `events` more events (0: now). */
  endAfter(events: number): void;
}

interface FaultEngineDeps {
  store: Store;
  logger: Logger;
  /** mini_apiserver_testing_fault_hits_total{fault, action}. */
  hits: Counter<'fault' | 'action'>;
}

const statusOf = (obj: KubeObject): { hits?: number; observedGeneration?: number } =>
  isJsonObject(obj['status']) ? (obj['status'] as { hits?: number; observedGeneration?: number }) : {};

export class FaultEngine {
  private readonly byName = new Map<string, ActiveFault>();
  /** The Faults in name order: the order a request is matched in. */
  private ordered: ActiveFault[] = [];
  private readonly watches = new Set<OpenWatch>();
  private readonly informer: Informer;

  constructor(private readonly deps: FaultEngineDeps) {
    this.informer = new Informer(
      deps.store,
      { upsert: (obj) => this.upsert(obj), remove: (obj) => this.remove(obj) },
      deps.logger.with({ controller: 'testing-faults' }),
    );
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.informer.close();
  }

  /** The Fault that acts on this request, its hit taken, or undefined. */
  take(r: RequestFacts): ActiveFault | undefined {
    for (const f of this.ordered) {
      if (this.tryHit(f, r)) return f;
    }
    return undefined;
  }

  /** Writes the Fault's status (its hits and the generation in force); resolves once written. */
  record(f: ActiveFault): Promise<void> {
    if (f.queued) return f.queued;
    const write = f.last.then(() => {
      f.queued = undefined;
      return this.writeStatus(f);
    });
    f.queued = write;
    f.last = write.catch(() => {});
    return write;
  }

  /** A watch is being served until the returned function is called. */
  watchOpened(w: OpenWatch): () => void {
    this.watches.add(w);
    return () => this.watches.delete(w);
  }

  private tryHit(f: ActiveFault, r: RequestFacts): boolean {
    const { count, percent, action, match } = f.spec;
    if (count !== undefined && f.stored + f.unwritten >= count) return false;
    if (!actionReaches(action, r) || !faultMatches(match, r)) return false;
    if (percent !== undefined && Math.random() * 100 >= percent) return false;
    f.unwritten++;
    this.deps.hits.inc({ fault: f.name, action: actionOf(action) ?? 'delay' });
    return true;
  }

  private upsert(obj: KubeObject): void {
    const name = obj.metadata.name ?? '';
    const uid = obj.metadata.uid ?? '';
    const generation = obj.metadata.generation ?? 1;
    const status = statusOf(obj);
    let f = this.byName.get(name);
    if (!f || f.uid !== uid) {
      f = {
        name,
        uid,
        generation,
        spec: faultSpec(obj),
        stored: status.hits ?? 0,
        unwritten: 0,
        observed: status.observedGeneration ?? 0,
        queued: undefined,
        last: Promise.resolve(),
      };
      this.byName.set(name, f);
      this.ordered = [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    } else {
      f.spec = faultSpec(obj);
      f.generation = generation;
      f.stored = Math.max(f.stored, status.hits ?? 0);
      f.observed = Math.max(f.observed, status.observedGeneration ?? 0);
    }
    if (f.observed >= generation) return;
    // Newly in force: watches already open that it would end, end; then the status says so.
    const endWatch = f.spec.action?.endWatch;
    if (endWatch) {
      for (const w of [...this.watches]) if (this.tryHit(f, w.facts)) w.endAfter(endWatch.afterEvents);
    }
    this.record(f).catch(() => {});
  }

  private remove(obj: KubeObject): void {
    const f = this.byName.get(obj.metadata.name ?? '');
    if (!f || f.uid !== obj.metadata.uid) return;
    this.byName.delete(f.name);
    this.ordered = this.ordered.filter((o) => o !== f);
  }

  private async writeStatus(f: ActiveFault): Promise<void> {
    const delta = f.unwritten;
    const generation = f.generation;
    try {
      const written = await this.deps.store.update(
        undefined,
        f.name,
        (current) => {
          if (current.metadata.uid !== f.uid) throw new Replaced();
          const status = statusOf(current);
          current['status'] = { observedGeneration: generation, hits: (status.hits ?? 0) + delta };
          return current;
        },
        { dryRun: false, subresource: 'status' },
      );
      f.unwritten -= delta;
      f.stored = Math.max(f.stored, statusOf(written).hits ?? 0);
      f.observed = Math.max(f.observed, generation);
    } catch (err) {
      // Deleted, or replaced by another of its name: its hits go with it.
      if (err instanceof Replaced || (err instanceof ApiError && err.code === 404)) return;
      this.deps.logger.warn('could not write a Fault status', { fault: f.name, err: String(err) });
      throw err;
    }
  }
}

/** The Fault was deleted and made again under its name while a status write was on its way. */
class Replaced extends Error {}
