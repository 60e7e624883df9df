// The keyed counters and histograms against prom-client's own: the same observations render the
// same exposition text, line for line.
import { Counter, Histogram, Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { KeyedCounter, KeyedHistogram } from '../../../server/metrics/keyed-series.js';
import { REQUEST_DURATION_BUCKETS } from '../../../server/metrics.js';

const OBSERVATIONS: Array<[{ verb: string; resource: string; code: string }, number]> = [
  [{ verb: 'GET', resource: 'pods', code: '200' }, 0.003],
  [{ verb: 'LIST', resource: 'pods', code: '200' }, 0.2],
  [{ verb: 'GET', resource: 'pods', code: '404' }, 0.1],
  [{ verb: 'GET', resource: 'pods', code: '200' }, 61],
  [{ verb: 'GET', resource: 'a"b\\c\nd', code: '200' }, 0.025],
  [{ verb: 'LIST', resource: 'pods', code: '200' }, 0.0001 + 0.0002],
];

it('renders what prom-client renders for the same observations', async () => {
  const theirs = new Registry();
  const counter = new Counter({
    name: 'c_total',
    help: 'a "counter"\\',
    labelNames: ['code', 'resource', 'verb'],
    registers: [theirs],
  });
  const histogram = new Histogram({
    name: 'h_seconds',
    help: 'a histogram',
    labelNames: ['resource', 'verb'],
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [theirs],
  });
  const ours = new Registry();
  const keyedCounter = new KeyedCounter('c_total', 'a "counter"\\');
  const keyedHistogram = new KeyedHistogram('h_seconds', 'a histogram', REQUEST_DURATION_BUCKETS);
  ours.registerMetric(keyedCounter.metric);
  ours.registerMetric(keyedHistogram.metric);
  for (const [{ verb, resource, code }, seconds] of OBSERVATIONS) {
    counter.inc({ code, resource, verb });
    histogram.observe({ resource, verb }, seconds);
    keyedCounter.inc(`${code}\0${resource}\0${verb}`, () => ({ code, resource, verb }));
    keyedHistogram.observe(`${resource}\0${verb}`, () => ({ resource, verb }), seconds);
  }
  expect(await ours.metrics()).toBe(await theirs.metrics());
  expect(await ours.metrics()).toContain('h_seconds_bucket{le="+Inf",resource="pods",verb="GET"} 3\n');
});
