// /healthz, /livez and /readyz in kube's shape (healthz.handleRootHealth): "ok", or with ?verbose
// a "[+]name ok" line per check; on any failure a 500 that always lists the checks, the reasons
// withheld because these paths are public. /<endpoint>/<check> (authenticated) gives the reason.
import type { Storage } from '../storage/interface.js';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects with the reason otherwise. */
  check(): Promise<void>;
}

export interface HealthResponse {
  code: number;
  body: string;
}

export type CheckResult =
  | { name: string; status: 'ok' | 'excluded' }
  | { name: string; status: 'failed'; reason: string };

/** The same bound kube puts on its etcd health check (--etcd-healthcheck-timeout). */
const CHECK_TIMEOUT_MS = 2000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms}ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function runCheck(check: HealthCheck): Promise<CheckResult> {
  try {
    await withTimeout(check.check(), CHECK_TIMEOUT_MS, `${check.name} check`);
    return { name: check.name, status: 'ok' };
  } catch (err) {
    return { name: check.name, status: 'failed', reason: reasonOf(err) };
  }
}

/** kube's response text for one endpoint (`readyz`), given every check's result. */
export function renderHealth(
  endpoint: string,
  results: readonly CheckResult[],
  unknownExcludes: readonly string[],
  verbose: boolean,
): HealthResponse {
  let out = '';
  for (const r of results) {
    if (r.status === 'excluded') out += `[+]${r.name} excluded: ok\n`;
    else if (r.status === 'ok') out += `[+]${r.name} ok\n`;
    else out += `[-]${r.name} failed: reason withheld\n`;
  }
  if (unknownExcludes.length > 0) {
    out += `warn: some health checks cannot be excluded: no matches for ${unknownExcludes.map((n) => JSON.stringify(n)).join(',')}\n`;
  }
  // Always verbose on failure; Go's http.Error adds the final newline.
  if (results.some((r) => r.status === 'failed')) return { code: 500, body: `${out}${endpoint} check failed\n` };
  return { code: 200, body: verbose ? `${out}${endpoint} check passed\n` : 'ok' };
}

/** Runs an endpoint's checks, honouring ?exclude=name (repeatable) and ?verbose. */
export async function runHealth(
  endpoint: string,
  checks: readonly HealthCheck[],
  query: URLSearchParams,
): Promise<HealthResponse & { results: CheckResult[] }> {
  const excluded = new Set(query.getAll('exclude'));
  const results = await Promise.all(
    checks.map((c): Promise<CheckResult> | CheckResult => {
      if (!excluded.delete(c.name)) return runCheck(c);
      return { name: c.name, status: 'excluded' };
    }),
  );
  return { ...renderHealth(endpoint, results, [...excluded].sort(), query.has('verbose')), results };
}

/** /<endpoint>/<check>: "ok", or a 500 naming the reason (these paths need authentication). */
export async function runSingleCheck(check: HealthCheck): Promise<HealthResponse> {
  const r = await runCheck(check);
  return r.status === 'failed'
    ? { code: 500, body: `internal server error: ${r.reason}\n` }
    : { code: 200, body: 'ok' };
}

export const pingCheck: HealthCheck = { name: 'ping', check: async () => {} };

/** Named after the backend, so an etcd-backed server reports `[-]etcd failed` as kube does. */
export function storageCheck(storage: Pick<Storage, 'backend' | 'ping'>): HealthCheck {
  return {
    name: storage.backend,
    check: async () => {
      if (!(await storage.ping())) throw new Error(`${storage.backend} is not answering`);
    },
  };
}

/** Fails once shutdown begins, so load balancers stop sending new work while requests drain. */
export function shutdownCheck(isShuttingDown: () => boolean): HealthCheck {
  return {
    name: 'shutdown',
    check: async () => {
      if (isShuttingDown()) throw new Error('the server is shutting down');
    },
  };
}
