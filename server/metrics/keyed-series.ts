// The counters and histograms every request and every storage call bumps. prom-client finds a
// series by checking and hashing a labels object on each call (and the caller builds that object
// each time); these find it by a key of its label values and bump it in place, and build its labels
// once. prom-client's registry renders them as it renders its own (the same lines, series in the
// order they first appeared), and they need no prom-client until it does.
import type { Metric } from 'prom-client';

type Labels = Record<string, string>;

/** One line of the exposition, as prom-client's registry reads a metric's values. */
interface Value {
  metricName?: string;
  labels: Labels;
  value: number;
}

abstract class KeyedMetric<S extends { labels: Labels }> {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  private readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** This, as prom-client's registry takes it (registerMetric): it reads the name, help and get(). */
  get metric(): Metric {
    return this as unknown as Metric;
  }

  /** The series `key` names (its label values, always in one order), made from `labels()` the first time. */
  protected find(key: string, labels: () => Labels): S {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.make(labels())));
    return s;
  }

  protected abstract make(labels: Labels): S;
  protected abstract lines(s: S): Value[];

  /** What prom-client's registry renders. */
  async get(): Promise<{ name: string; help: string; type: string; values: Value[]; aggregator: string }> {
    const values = [...this.series.values()].flatMap((s) => this.lines(s));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

export class KeyedCounter extends KeyedMetric<{ labels: Labels; value: number }> {
  readonly type = 'counter';

  inc(key: string, labels: () => Labels): void {
    this.find(key, labels).value++;
  }

  protected make(labels: Labels): { labels: Labels; value: number } {
    return { labels, value: 0 };
  }

  protected lines(s: { labels: Labels; value: number }): Value[] {
    return [{ labels: s.labels, value: s.value }];
  }
}

interface HistogramSeries {
  labels: Labels;
  /** Observations per bucket (not cumulative), by the index of its upper bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class KeyedHistogram extends KeyedMetric<HistogramSeries> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    private readonly buckets: readonly number[],
  ) {
    super(name, help);
  }

  observe(key: string, labels: () => Labels, value: number): void {
    const s = this.find(key, labels);
    // In prom-client's order, so that the sum is the same float.
    s.sum += value;
    s.count++;
    const i = this.buckets.findIndex((bound) => value <= bound);
    if (i >= 0) s.counts[i]!++;
  }

  protected make(labels: Labels): HistogramSeries {
    return { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }

  /** prom-client's: each bucket cumulative with its `le` first, then +Inf, the sum and the count. */
  protected lines(s: HistogramSeries): Value[] {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    const lines: Value[] = this.buckets.map((le, i) => ({
      metricName: bucket,
      labels: { le: String(le), ...s.labels },
      value: (cumulative += s.counts[i]!),
    }));
    lines.push(
      { metricName: bucket, labels: { le: '+Inf', ...s.labels }, value: s.count },
      { metricName: `${this.name}_sum`, labels: s.labels, value: s.sum },
      { metricName: `${this.name}_count`, labels: s.labels, value: s.count },
    );
    return lines;
  }
}
