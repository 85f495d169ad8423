// Playwright's configuration for the tests Browser Bridge exports from
// recipes (tests/e2e/recipes-export.test.mjs writes them beside this file
// and runs `playwright test`): the Chromium named by CHROMIUM (the system's,
// as the browser tests use; Playwright's own browsers are never
// downloaded), headless, one worker, each test's time limit from
// RECIPE_TEST_TIMEOUT_MS (the e2e test scales it by the machine's load),
// results as JSON in RECIPE_TEST_RESULTS.

import { defineConfig } from '@playwright/test';

export default defineConfig({
	testMatch: '**/*.spec.ts',
	workers: 1,
	retries: 0,
	timeout: Number(process.env.RECIPE_TEST_TIMEOUT_MS || 30000),
	reporter: [['list'], ['json', { outputFile: process.env.RECIPE_TEST_RESULTS || 'results.json' }]],
	use: {
		headless: true,
		launchOptions: { executablePath: process.env.CHROMIUM || undefined },
	},
});
