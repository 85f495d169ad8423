// Measures the page state (get_browser_state) on the fixture pages: bytes
// of the text the model reads, bytes of structuredContent, element count.
// Not part of make check; run it from the e2e build directory:
//   cd $builddir/tests/e2e-node && BRIDGE_BIN=... E2E_EXTENSION=extension node e2e/bench-state.mjs
// (tests/e2e.sh prepares that directory.)

import { startBridge } from './harness.mjs';

const PAGES = [
	['checkout.html', {}],
	['form.html', {}],
	['frames.html', {}],
	['shadow.html', {}],
	['editor.html', {}],
	['todos.html', {}],
	['wiki-edit.html', {}],
	['long.html', {}],
	['long.html', { full_page: true }],
];

const b = await startBridge();
try {
	console.log('| page | elements | text bytes | bytes per element | structuredContent bytes |');
	console.log('| --- | ---: | ---: | ---: | ---: |');
	for (const [path, args] of PAGES) {
		await b.ok('navigate_to', { url: b.page(path, { unique: false }) });
		const { text, data } = await b.ok('get_browser_state', args);
		const bytes = Buffer.byteLength(text, 'utf8');
		const count = data.elements.length;
		const label = args.full_page ? `${path} (full_page)` : path;
		console.log(`| ${label} | ${count} | ${bytes} | ${count ? Math.round(bytes / count) : '-'} | ` +
		    `${Buffer.byteLength(JSON.stringify(data), 'utf8')} |`);
	}
} finally {
	await b.close();
}
