import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Four projects, for three kinds of work:
// - forks: unit files (pure logic) and the integration and e2e files that spend most of their time
//   waiting on the etcd, server and kubectl processes they start, so several run at once on the
//   two cores. One project, because vitest runs the projects of a pool one after another, each to
//   its last file: as two, the forks idled while the last long e2e files ran, then again at the end
//   of the unit files; as one, the short unit files fill the forks beside the long ones. Forks, not
//   threads, because a worker thread's larger stack changes what the deep-document tests exercise;
// - mocks: the files that replace a module with vi.mock, whose module graph must be their own: a
//   worker thread each, beside the forks;
// - fuzz-1, fuzz-2: hostile input whose contract includes /readyz answering within 1 s during each
//   probe, so they run last, their timing not shared with other files' servers: their own group
//   (vitest runs groups one after another). Two files at a time, a server each on the two cores:
//   the files alternately in two halves, one in a fork (singleFork: the pool's fileParallelism is
//   the root's, for every project) and one in a worker thread (projects of different pools run at
//   once; projects of one pool, one after another). The thread's stack does not matter there: the
//   server under test is a process of its own. One at a time, the group took 55 to 60 s; two, 35
//   to 41.
// The forks are not isolated: a fork runs file after file and evaluates the sources once, not once
// per file (per file, that evaluation was most of a small file's time). No file there stubs
// modules, globals or the environment, and every file closes the servers and processes it starts.
/** The files that vi.mock a module (see mocks above). */
const MOCKS = ['test/integration/api/watch-backpressure.test.ts'];

/** The fuzz files, alternately in two halves (see fuzz-1, fuzz-2 above). */
const FUZZ = readdirSync(fileURLToPath(new URL('test/fuzz', import.meta.url)))
  .filter((f) => f.endsWith('.test.ts'))
  .sort()
  .map((f) => `test/fuzz/${f}`);
const FUZZ_HALVES = [FUZZ.filter((_, i) => i % 2 === 0), FUZZ.filter((_, i) => i % 2 === 1)];

/** Files that start servers, etcd or kubectl: the long ones. */
const STARTS_PROCESSES = /\/(test\/e2e|test\/integration|examples)\//;

/**
 * Vitest's order (the longest first by the durations it cached, unknown files by size) with the
 * files that start processes before the unit files: without a cache (a fresh clone, CI) the order
 * by size started the corpus's e2e file, the longest, after four minutes of unit files.
 */
class ProcessesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((f) => STARTS_PROCESSES.test(f.moduleId));
    return [...first, ...sorted.filter((f) => !STARTS_PROCESSES.test(f.moduleId))];
  }
}

export default defineConfig({
  // Node 20 cannot parse `await using` (examples/testing and the library's tests use it): esbuild
  // lowers it, and only what Node 20 lacks.
  esbuild: { target: 'node20' },
  // The examples import the package by its name, as another project would; here, its sources.
  resolve: { alias: { 'mini-apiserver': fileURLToPath(new URL('./server/index.ts', import.meta.url)) } },
  test: {
    // Integration and e2e tests start real etcd and server processes; give them room on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The pools' options are the root's (vitest sizes and isolates each pool for the whole run; a
    // project's `isolate` only decides whether its files reset the modules a reused worker holds):
    // four forks, where vitest's default on two cores is one. All four kept: tinypool ends a fork
    // that falls idle beyond minForks at once, and without isolation that ending fails the run
    // with an unhandled "Terminating worker thread".
    pool: 'forks',
    sequence: { sequencer: ProcessesFirst },
    poolOptions: { forks: { maxForks: 4, minForks: 4, isolate: false }, threads: { maxThreads: 1, minThreads: 1 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'forks',
          include: [
            'test/unit/**/*.test.ts',
            'test/architecture/**/*.test.ts',
            'test/conformance/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'examples/testing/**/*.test.ts',
          ],
          exclude: [...MOCKS],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'mocks', include: [...MOCKS], pool: 'threads', sequence: { groupOrder: 0 } },
      },
      ...FUZZ_HALVES.map((files, i) => ({
        extends: true,
        test: {
          name: `fuzz-${i + 1}`,
          include: files,
          ...(i === 0 ? { poolOptions: { forks: { singleFork: true } } } : { pool: 'threads' as const }),
          sequence: { groupOrder: 1 },
        },
      })),
    ],
  },
});
