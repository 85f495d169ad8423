// make bench-e2e: Browser Bridge beside @playwright/mcp and
// chrome-devtools-mcp (pinned in tests/bench/package.json), in one run, on
// the same fixture pages, with the same headless Chromium build
// (/usr/bin/chromium, 1280x800). Each round navigates to the form page,
// reads its state, types into a text field and clicks a checkbox; the
// checkout page's state is measured for size. Prints a Markdown table:
// medians and p90 per action, state bytes (text, structured content, both),
// tools/list bytes and the server's resident memory, and Browser Bridge's
// ratio to the faster peer; then the state read of a big page (catalog.html)
// repeated on one document.
//
// Not part of make check. Run: make bench-e2e [BENCH_ROUNDS=N]

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { startBridge } from './harness.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const PEERS = process.env.BENCH_PEERS;	// the folder with the peers' node_modules
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** A page of about 4,800 elements, for the state read of a big page. */
const BIG_PAGE = 'catalog.html';
/** The pages whose state size is compared (the last is the one of the main table). */
const STATE_PAGES = ['form.html', 'frames.html', 'shadow.html', 'long.html', 'article.html', 'checkout.html'];

/** Resident memory of a process, in MiB (VmRSS). */
function rssMiB(pid) {
	try {
		const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
		return kb / 1024;
	} catch {
		return NaN;
	}
}

/** Bytes of a JSON value, or of a string. */
const bytes = value => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value ?? ''), 'utf8');

/** The text of a result. */
const textOf = result => (result.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');

/** Times one call; fails the run on a tool error. */
async function timed(client, name, args, samples) {
	const start = performance.now();
	const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
	samples.push(performance.now() - start);
	if (result.isError)
		throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(result)}`);
	return result;
}

/** A peer started as MCP clients start it: its command over stdio. */
async function stdioPeer(label, args) {
	const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
	const client = new Client({ name: 'bench', version: '1.0.0' });
	await client.connect(transport);
	return { label, client, pid: transport.pid, close: () => client.close() };
}

/* How each system is driven: its tool names and how its snapshot names elements. */
const SYSTEMS = {
	'Browser Bridge': {
		async start(b) {
			return { label: 'Browser Bridge', client: b.client, pid: b.hostPid, close: async () => {} };
		},
		navigate: url => ['navigate_to', { url }],
		snapshot: () => ['get_browser_state', {}],
		ref: (text, role, name) => new RegExp(`^\\s*(e\\d+) ${role} "${name}"`, 'm').exec(text)?.[1],
		type: (ref, text) => ['type_value', { ref, text }],
		click: ref => ['click_element', { ref }],
	},
	'@playwright/mcp': {
		start: () => stdioPeer('@playwright/mcp', [join(PEERS, 'node_modules/@playwright/mcp/cli.js'), '--headless', '--isolated',
			'--no-sandbox', '--executable-path', CHROMIUM, '--viewport-size', '1280,800']),
		navigate: url => ['browser_navigate', { url }],
		snapshot: () => ['browser_snapshot', {}],
		ref: (text, role, name) => new RegExp(`- ${role} "${name}"[^\\n]*\\[ref=([a-z0-9]+)\\]`).exec(text)?.[1],
		type: (ref, text, name) => ['browser_type', { element: name, target: ref, text }],
		click: (ref, name) => ['browser_click', { element: name, target: ref }],
	},
	'chrome-devtools-mcp': {
		start: () => stdioPeer('chrome-devtools-mcp', [join(PEERS, 'node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
			'--headless', '--isolated', '--executablePath', CHROMIUM, '--viewport', '1280x800', '--chromeArg=--no-sandbox']),
		/* Every call names the page: the one it opens at start. */
		navigate: url => ['navigate_page', { pageId: 1, type: 'url', url }],
		snapshot: () => ['take_snapshot', { pageId: 1 }],
		ref: (text, role, name) => new RegExp(`uid=(\\S+) ${role} "${name}"`).exec(text)?.[1],
		type: (ref, text) => ['fill', { pageId: 1, uid: ref, value: text }],
		click: ref => ['click', { pageId: 1, uid: ref }],
	},
};

/** Median and 90th percentile of samples. */
function stats(samples) {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = q => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
	return { median: at(0.5), p90: at(0.9) };
}

/** Runs the rounds for one system; returns its measurements. */
async function measure(driver, system, b) {
	const peer = await system.start(b);
	try {
		const { tools } = await peer.client.listTools();
		const samples = { navigate: [], snapshot: [], type: [], click: [] };
		const form = b.page('form.html', { unique: false });
		/* A first visit, not measured: the peers start their browser on their first call. */
		await timed(peer.client, ...system.navigate(form), []);
		await timed(peer.client, ...system.snapshot(), []);
		for (let round = 0; round < ROUNDS; round++) {
			await timed(peer.client, ...system.navigate(form), samples.navigate);
			const state = textOf(await timed(peer.client, ...system.snapshot(), samples.snapshot));
			const text = system.ref(state, 'textbox', 'Text');
			const box = system.ref(state, 'checkbox', 'I agree');
			if (text === undefined || box === undefined)
				throw new Error(`${driver}: no ref for the Text field or the checkbox in:\n${state.slice(0, 2000)}`);
			await timed(peer.client, ...system.type(text, `round ${round}`, 'Text'), samples.type);
			await timed(peer.client, ...system.click(box, 'I agree'), samples.click);
		}
		const states = {};
		for (const page of STATE_PAGES) {
			await timed(peer.client, ...system.navigate(b.page(page, { unique: false })), []);
			const state = await timed(peer.client, ...system.snapshot(), []);
			states[page] = bytes(textOf(state)) + (state.structuredContent === undefined ? 0 : bytes(state.structuredContent));
		}
		const checkout = await timed(peer.client, ...system.snapshot(), []);
		/* A big page: the state read again and again on one document. */
		await timed(peer.client, ...system.navigate(b.page(BIG_PAGE, { unique: false })), []);
		const big = [];
		let bigState;
		for (let round = 0; round < ROUNDS; round++)
			bigState = await timed(peer.client, ...system.snapshot(), big);
		return {
			big: stats(big),
			bigBytes: bytes(textOf(bigState)) + (bigState.structuredContent === undefined ? 0 : bytes(bigState.structuredContent)),
			label: driver,
			actions: Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, stats(list)])),
			states,
			text: bytes(textOf(checkout)),
			structured: checkout.structuredContent === undefined ? 0 : bytes(checkout.structuredContent),
			tools: bytes(tools),
			rss: rssMiB(peer.pid),
		};
	} finally {
		await peer.close();
	}
}

const b = await startBridge();
const results = [];
try {
	for (const [driver, system] of Object.entries(SYSTEMS))
		results.push(await measure(driver, system, b));
} finally {
	await b.close();
}

const ms = v => `${Math.round(v)}`;
const [ours, ...peers] = results;
console.log(`${ROUNDS} rounds, headless ${CHROMIUM}, 1280x800; times in ms (median / p90), bytes of the checkout page's state.\n`);
console.log('| system | navigate | snapshot | type | click | state text | structured | state total | tools/list | server RSS MiB |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of results) {
	const a = r.actions;
	console.log(`| ${r.label} | ${ms(a.navigate.median)} / ${ms(a.navigate.p90)} | ${ms(a.snapshot.median)} / ${ms(a.snapshot.p90)} | ` +
	    `${ms(a.type.median)} / ${ms(a.type.p90)} | ${ms(a.click.median)} / ${ms(a.click.p90)} | ${r.text} | ${r.structured} | ` +
	    `${r.text + r.structured} | ${r.tools} | ${r.rss.toFixed(1)} |`);
}
const ratio = (mine, theirs) => (mine / Math.min(...theirs)).toFixed(2);
const a = ours.actions;
console.log(`| ratio to the faster peer | ${['navigate', 'snapshot', 'type', 'click'].map(k => ratio(a[k].median, peers.map(p => p.actions[k].median))).join(' | ')} | ` +
    `${ratio(ours.text, peers.map(p => p.text))} | | ${ratio(ours.text + ours.structured, peers.map(p => p.text + p.structured))} | ` +
    `${ratio(ours.tools, peers.map(p => p.tools))} | ${ratio(ours.rss, peers.map(p => p.rss))} |`);

console.log('\nState bytes (text and structured content together) by page:\n');
console.log(`| page | ${results.map(r => r.label).join(' | ')} | ratio to the smaller peer |`);
console.log(`| --- | ${results.map(() => '---:').join(' | ')} | ---: |`);
for (const page of STATE_PAGES) {
	const sizes = results.map(r => r.states[page]);
	console.log(`| ${page} | ${sizes.join(' | ')} | ${ratio(sizes[0], sizes.slice(1))} |`);
}

console.log(`\nState of a big page (${BIG_PAGE}: 600 product cards, about 4,800 elements), read ${ROUNDS} times on one document:\n`);
console.log('| system | snapshot ms (median / p90) | state bytes | ratio to the faster peer |');
console.log('| --- | ---: | ---: | ---: |');
for (const r of results)
	console.log(`| ${r.label} | ${ms(r.big.median)} / ${ms(r.big.p90)} | ${r.bigBytes} | ` +
	    `${r === ours ? ratio(ours.big.median, peers.map(p => p.big.median)) : ''} |`);
