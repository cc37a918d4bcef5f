import { defineConfig } from 'vitest/config';

/**
 * Three projects, so the loop a developer runs all day stays fast: `unit` (no server, no build),
 * `integration` (the sandbox started in-process on port 0; real media), `e2e` (the built CLI in
 * child processes: only these build first). `npm test` runs all three.
 */
const INTEGRATION = [
  'test/run/**/*.test.ts',
  'test/sandbox/**/*.test.ts',
  'test/api/sandbox-integration.test.ts',
  'test/report/report-browser.test.ts',
];
const E2E = ['test/e2e/**/*.test.ts', 'test/state/request-ledger.test.ts'];

export default defineConfig({
  test: {
    // Removes the temp folders each test file made.
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...INTEGRATION, ...E2E] } },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      // End-to-end tests spawn the built CLI; they build it once in globalSetup.
      { extends: true, test: { name: 'e2e', include: E2E, globalSetup: ['test/global-setup.ts'] } },
    ],
  },
});
