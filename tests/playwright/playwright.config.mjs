// Playwright's configuration for the tests Browser Bridge exports from
// recipes (tests/e2e/recipes-export.test.mjs writes them beside this file
// and runs `playwright test`): the Chromium named by CHROMIUM (the system's,
// as the browser tests use; Playwright's own browsers are never
// downloaded), headless, two workers, time limits from
// RECIPE_TEST_TIMEOUT_MS (a test) and RECIPE_TEST_ACTION_TIMEOUT_MS (an
// action or expectation; the e2e test scales both by the machine's load),
// results as JSON in RECIPE_TEST_RESULTS. Tests under a directory
// drift-moved/ run on the fixture site's drifted pages: their project
// stores localStorage "drift" for RECIPE_TEST_ORIGIN, which the pages
// read (tests/e2e/site: the shop's order page, the todo list, the library
// card application).

import { defineConfig } from '@playwright/test';

const actionTimeout = Number(process.env.RECIPE_TEST_ACTION_TIMEOUT_MS || 10000);

/**
 * The project of the tests that run on the pages drifted one way.
 * @param {string} drift the value of localStorage "drift"
 */
function drifted(drift) {
	return {
		name: `drift ${drift}`,
		testMatch: `**/drift-${drift}/*.spec.ts`,
		use: { storageState: { cookies: [], origins: [{ origin: process.env.RECIPE_TEST_ORIGIN ?? 'http://127.0.0.1', localStorage: [{ name: 'drift', value: drift }] }] } },
	};
}

export default defineConfig({
	testMatch: '**/*.spec.ts',
	workers: 2,
	retries: 0,
	timeout: Number(process.env.RECIPE_TEST_TIMEOUT_MS || 30000),
	expect: { timeout: actionTimeout },
	reporter: [['list'], ['json', { outputFile: process.env.RECIPE_TEST_RESULTS || 'results.json' }]],
	use: {
		headless: true,
		actionTimeout,
		launchOptions: { executablePath: process.env.CHROMIUM || undefined },
	},
	projects: [
		{ name: 'as recorded', testIgnore: '**/drift-*/**' },
		drifted('moved'),
	],
});
