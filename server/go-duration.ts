// Durations as the command line takes them, written as Go's time.ParseDuration reads them.

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration (`5m0s`, `1h30m`, `250ms`, `0`) in milliseconds, or undefined when it is not one. */
export function parseGoDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * DURATION_UNITS_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === value.length && matched > 0 ? total : undefined;
}
