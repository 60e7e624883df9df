// The output contract every benchmark follows: a table on stdout and bench/results/<name>.json as
// {"metrics":[{name, ours, baseline, unit, ratio}]}, ratio = ours / baseline (null both for a
// figure with no baseline), with each side's p50/p99 and the target where a bench gives them.
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
  /** Each side's p50 and p99 in milliseconds, for a rate measured request by request. */
  latency?: { ours: Percentiles; baseline: Percentiles };
  /** What the figure should reach and whether this run did, as printed: `≥ 0.9: missed`. */
  target?: string;
}

export interface Percentiles {
  p50: number;
  p99: number;
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

/** A target's cell: what the figure should reach, and whether this run did. */
export const verdict = (target: string, met: boolean): string => `${target}: ${met ? 'met' : 'missed'}`;

const round = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** A side's cell: the figure, then its latencies when measured; a figure without a baseline is NaN. */
function cell(value: number, unit: string, latency: Percentiles | undefined): string {
  if (Number.isNaN(value)) return '-';
  return `${round(value)} ${unit}${latency ? `, p50 ${round(latency.p50)} ms, p99 ${round(latency.p99)} ms` : ''}`;
}

export function report(bench: string, baselineLabel: string, metrics: Metric[]): void {
  const withTargets = metrics.some((m) => m.target !== undefined);
  const rows = metrics.map((m) => [
    m.name,
    cell(m.ours, m.unit, m.latency?.ours),
    cell(m.baseline, m.unit, m.latency?.baseline),
    Number.isNaN(m.ratio)
      ? '-'
      : `${m.ratio >= 0.01 ? m.ratio.toFixed(2) : m.ratio.toPrecision(2)} (${m.better} is better)`,
    ...(withTargets ? [m.target ?? ''] : []),
  ]);
  const header = ['metric', 'ours', baselineLabel, 'ratio ours/baseline', ...(withTargets ? ['target'] : [])];
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

/**
 * `runs` samples of each side, taken in turns with the order rotated every round (ab, ba; abc, bca,
 * cab): a side that warms up or slows down the one after it favours none.
 */
export async function inTurns<T>(runs: number, sides: readonly (() => Promise<T>)[]): Promise<T[][]> {
  const samples = sides.map((): T[] => []);
  for (let turn = 0; turn < runs; turn++)
    for (let k = 0; k < sides.length; k++) {
      const i = (turn + k) % sides.length;
      samples[i]!.push(await sides[i]!());
    }
  return samples;
}

export function median(values: readonly number[]): number {
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
