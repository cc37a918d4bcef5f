import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI; they build it once in globalSetup.
    globalSetup: ['test/global-setup.ts'],
    // Removes the temp folders each test file made.
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
  },
});
