import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Three projects, because the suite is three kinds of work:
// - unit: pure logic, one module graph per worker (no isolation: no test mocks modules or touches
//   globals), so ~120 files cost two imports of the sources instead of ~120; forks, not threads,
//   because a worker thread's larger stack changes what the deep-document tests exercise;
// - processes: integration and e2e files that spend most of their time waiting on the etcd,
//   server and kubectl processes they start, so several run at once on the two cores;
// - fuzz: hostile input whose contract includes /readyz answering within 1 s during each probe,
//   so it runs last and alone, its timing not shared with other files' servers.
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
    // One pool serves every project (vitest sizes it for the whole run, not per project): four
    // forks, where vitest's default on two cores is one.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/architecture/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'examples/testing/**/*.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/fuzz/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
