// The state capture (src/page-state/capture.js) against a fake chrome: the
// frames' walk is asked for before the tab list and the frame tree, which
// only the building needs, so that the browser sends the walk to the page
// first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

const { captureState } = await import('../src/page-state/capture.js');
const { RefTable } = await import('../src/page-state/refs.js');

test('a state read asks the page for its walk before it asks for the tab list and the frame tree', async () => {
	const asked = [];
	const report = {
		url: 'http://shop.test/', title: 'Shop', frameIndex: -1, viewport: { width: 800, height: 600 },
		scroll: { x: 0, y: 0, width: 800, height: 600 }, items: [{ id: 1, role: 'button', name: 'Pay', rect: [0, 0, 80, 20] }], hidden: 0,
	};
	globalThis.chrome = {
		scripting: {
			executeScript: async ({ args }) => {
				asked.push('walk');
				if (args[2][0]?.text === true)
					return [{ frameId: 0, documentId: 'doc-1', result: { json: JSON.stringify({ ...report, text: 'Pay' }) } }];
				return [{ frameId: 0, documentId: 'doc-1', result: { json: JSON.stringify(report) } }];
			},
		},
		webNavigation: { getAllFrames: async () => { asked.push('frame tree'); return [{ frameId: 0, parentFrameId: -1, documentId: 'doc-1' }]; } },
		tabs: { query: async () => { asked.push('tab list'); return []; }, TAB_ID_NONE: -1 },
	};
	try {
		const state = await captureState({ id: 7, url: 'http://shop.test/', title: 'Shop' }, new RefTable());
		assert.equal(asked[0], 'walk', `asked in the order ${asked.join(', ')}`);
		assert.deepEqual(asked.slice(1).sort(), ['frame tree', 'tab list']);
		assert.equal(state.all.length, 1, 'the page\'s button is in the state');
		assert.equal(state.pageText, undefined, 'no text unless asked');
		const withText = await captureState({ id: 7, url: 'http://shop.test/', title: 'Shop' }, new RefTable(), { text: true });
		assert.equal(withText.pageText, 'Pay', 'the text comes from the same walk');
		assert.equal(asked.filter(what => what === 'walk').length, 2, 'one call to the page per read');
	} finally {
		delete globalThis.chrome;
	}
});
