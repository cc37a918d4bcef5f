import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Projects, so the loop a developer runs all day stays fast: `unit` (no server, no build),
 * `integration` (the sandbox started in-process on port 0; real media; `integration-isolated` for
 * the files that mock a module), `e2e` (the built CLI in child processes: only these build first).
 * `npm test` runs them all.
 */
const INTEGRATION = [
  'test/run/**/*.test.ts',
  'test/sandbox/**/*.test.ts',
  'test/api/sandbox-integration.test.ts',
  'test/report/report-browser.test.ts',
  // Files on disk, shell scripts: seconds each, out of the unit tests a developer runs all day.
  'test/merge/**/*.test.ts',
  'test/examples/github-action.test.ts',
];
/** Files that replace a module with vi.mock: they need a module cache of their own. */
const MOCKING = ['test/run/disk-full.test.ts'];
const E2E = ['test/e2e/**/*.test.ts', 'test/state/request-ledger.test.ts'];

export default defineConfig({
  test: {
    // Removes the temp folders each test file made.
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    // A worker per core, and at least two: most test files spend their time waiting on child
    // processes, sandboxes and the disk, so on a 2-core machine vitest's default of one worker
    // (cores - 1) left the second core idle and ran the files one after another.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        // Unit test files share their worker's module cache (no fresh import of the validator and
        // zod for each file): they keep no state at module level that another file could see.
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...INTEGRATION, ...E2E], isolate: false },
      },
      // Integration files share their worker's module cache too (each starts its own sandbox),
      // but those that mock a module, which run on their own.
      { extends: true, test: { name: 'integration', include: INTEGRATION, exclude: MOCKING, isolate: false } },
      { extends: true, test: { name: 'integration-isolated', include: MOCKING } },
      // End-to-end tests spawn the built CLI; they build it once in globalSetup.
      { extends: true, test: { name: 'e2e', include: E2E, globalSetup: ['test/global-setup.ts'] } },
    ],
  },
});
