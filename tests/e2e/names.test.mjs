// End-to-end: names and roles against Chromium's own accessibility tree
// (#32). Every fixture page of the suite (tests/e2e/site, the corpus of
// real page shapes in site/names included) is opened through the tools,
// and each element of its state is compared with the accessibility node
// Chromium gives the same DOM node (ax-oracle.mjs). The other way round,
// each control of Chromium's tree (a node with a widget role) must have a
// state element that stands for it. Both agreements are printed; any
// difference not listed in ax-oracle.mjs's INTENDED, and any control
// missing from the state for a reason not in its OMITTED, fails.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { startBridge } from './harness.mjs';
import { agreement, compareWithChromium, controlsAgreement, disagreements, missedControls, oraclePages } from './ax-oracle.mjs';

describe('names and roles agree with Chromium', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('every fixture page', async () => {
		const compared = [];
		const controls = [];
		const problems = [];
		for (const page of oraclePages()) {
			const { url } = await b.open(page);
			const result = await compareWithChromium(b, url);
			compared.push(...result.compared);
			controls.push(...result.controls);
			problems.push(...result.problems);
		}
		const summary = `${agreement(compared)}\n${controlsAgreement(controls)}`;
		console.log(summary);
		// Every element and control compared, for a person to look through.
		writeFileSync(join(process.env.E2E_ARTEFACTS, 'names.json'), JSON.stringify({ compared, controls, problems }, null, 1));
		const wrong = [...problems, ...disagreements(compared), ...missedControls(controls)];
		assert.deepEqual(wrong, [], `${summary}\n${wrong.join('\n')}`);
	});
});
