// A controller of Caches (../cache-crd.yaml), as a team would write one with client-node, for the
// tests beside it to put through what envtest cannot produce. For each Cache it makes a ConfigMap
// `<name>-cache` holding the size, then sets status.readyReplicas to spec.size. It is written to
// survive a misbehaving server: every failed step is retried with backoff, a create answered with
// AlreadyExists counts as done (the earlier try committed after all), and its informer resumes or
// relists as the server asks.
import * as k8s from '@kubernetes/client-node';

export interface Cache extends k8s.KubernetesObject {
  spec: { size: number; image?: string };
  status?: { readyReplicas?: number };
}

const GROUP = 'cache.example.com';
const VERSION = 'v1';
const PLURAL = 'caches';

/** The Status reason of a failed call. */
function reasonOf(err: k8s.ApiException<unknown>): string | undefined {
  try {
    return (JSON.parse(String(err.body)) as { reason?: string }).reason;
  } catch {
    return undefined;
  }
}

export class CacheController {
  private readonly informer: k8s.Informer<Cache> & k8s.ObjectCache<Cache>;
  private readonly caches: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Reconciles that failed and were tried again, for tests to see the retries happen. */
  retries = 0;

  constructor(
    kc: k8s.KubeConfig,
    private readonly namespace: string,
  ) {
    this.caches = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.informer = k8s.makeInformer<Cache>(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`,
      () =>
        this.caches.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: PLURAL,
        }) as Promise<k8s.KubernetesListObject<Cache>>,
    );
    const enqueue = (c: Cache): void => this.reconcile(c.metadata?.name ?? '', 0);
    this.informer.on('add', enqueue);
    this.informer.on('update', enqueue);
    // A watch that fails for a reason the informer does not handle itself: start it again.
    this.informer.on('error', () => this.later(() => void this.informer.start(), 100));
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await this.informer.stop();
  }

  /** The Caches as the controller's cache holds them. */
  cached(): readonly Cache[] {
    return this.informer.list(this.namespace);
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  private reconcile(name: string, attempt: number): void {
    this.reconcileOnce(name).catch(() => {
      this.retries++;
      this.later(() => this.reconcile(name, attempt + 1), Math.min(1000, 10 * 2 ** attempt));
    });
  }

  private async reconcileOnce(name: string): Promise<void> {
    const cache = this.informer.get(name, this.namespace);
    if (!cache || this.stopped) return;
    await this.ensureConfigMap(cache);
    if (cache.status?.readyReplicas === cache.spec.size) return;
    await this.caches.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural: PLURAL,
        name,
        body: { status: { readyReplicas: cache.spec.size } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }

  private async ensureConfigMap(cache: Cache): Promise<void> {
    try {
      await this.core.createNamespacedConfigMap({
        namespace: this.namespace,
        body: {
          metadata: {
            name: `${cache.metadata?.name}-cache`,
            ownerReferences: [
              {
                apiVersion: `${GROUP}/${VERSION}`,
                kind: 'Cache',
                name: cache.metadata?.name ?? '',
                uid: cache.metadata?.uid ?? '',
                controller: true,
              },
            ],
          },
          data: { size: String(cache.spec.size) },
        },
      });
    } catch (err) {
      // Already there: made by an earlier try whose answer was lost, or by an earlier reconcile.
      if (err instanceof k8s.ApiException && reasonOf(err) === 'AlreadyExists') return;
      throw err;
    }
  }
}
