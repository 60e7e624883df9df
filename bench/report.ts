// The output contract every benchmark follows: a table on stdout and bench/results/<name>.json as
// {"metrics":[{name, ours, baseline, unit, ratio}]}, ratio = ours / baseline.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Metric {
  name: string;
  ours: number;
  baseline: number;
  unit: string;
  /** ours / baseline. */
  ratio: number;
  /** 'higher' for throughputs, 'lower' for latencies: which way the ratio is better. */
  better: 'higher' | 'lower';
}

/** `QUICK=1`: a run that fits in well under 30 s, for a quick look rather than a number to quote. */
export const quick = process.env.QUICK === '1';

/** The p-th percentile (nearest rank) of ascending values; NaN for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function metric(name: string, ours: number, baseline: number, unit: string, better: Metric['better']): Metric {
  return { name, ours, baseline, unit, ratio: ours / baseline, better };
}

const round = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export function report(bench: string, baselineLabel: string, metrics: Metric[]): void {
  const rows = metrics.map((m) => [
    m.name,
    `${round(m.ours)} ${m.unit}`,
    `${round(m.baseline)} ${m.unit}`,
    `${m.ratio >= 0.01 ? m.ratio.toFixed(2) : m.ratio.toPrecision(2)} (${m.better} is better)`,
  ]);
  const header = ['metric', 'ours', baselineLabel, 'ratio ours/baseline'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${bench}${quick ? ' (QUICK)' : ''}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));

  const file = join(dirname(fileURLToPath(import.meta.url)), 'results', `${bench}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ quick, metrics }, null, 2)}\n`);
  console.log(`wrote ${file}`);
}

/**
 * Medians of `runs` repetitions of ours and the baseline, taken in turns so that drift on a shared
 * 2-core machine (page cache, a compaction, another process) falls on both sides alike.
 */
export async function paired(
  runs: number,
  ours: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await ours());
    b.push(await baseline());
  }
  return [median(a), median(b)];
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Runs `fn(i)` for i in [0, total) with at most `inFlight` pending at once. */
export async function inFlight(total: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}

/** Operations per second of `fn`, which performs `ops` operations. */
export async function rate(ops: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return ops / ((performance.now() - start) / 1000);
}

/** Milliseconds `fn` takes. */
export async function elapsedMs(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
