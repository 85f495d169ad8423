// The network tools keep what the person owns (issue #22): on a "bank"
// page that sets an HttpOnly session cookie and calls its API with a
// bearer token, the client that used the tab reads its requests with every
// credential and the account's body withheld (their length shown), unless
// config.json says reveal_network_secrets; a second MCP client (a key of
// its own, #25) that never acted in the tab is refused and does not start
// its recording, while the owner key reads every recorded tab; guessed ids
// are refused; a tab manage_tabs opens has its first load; a regex filter
// is refused at once while another client's reads go on.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';
import { BANK_ACCOUNT, BANK_BEARER, BANK_SESSION } from './fixture-server.mjs';
import { authorizeClient } from './oauth-harness.mjs';

const bytes = text => Buffer.byteLength(text);

// Calls a tool as another client; resolves to { isError, text, data }.
async function callAs(client, name, args = {}) {
	const result = await client.callTool({ name, arguments: args, _meta: { 'browser-bridge/structured': true } },
	    undefined, { timeout: 60000 });
	return { isError: result.isError === true, text: result.content.map(c => c.text ?? '').join('\n'), data: result.structuredContent };
}

// Opens the bank page in the active tab and has it call its API; resolves to
// the tab and the newest API request as list_network_requests shows it.
async function bankVisit(b) {
	const { tabId, url } = await b.open('bank.html');
	await b.ok('click_element', { ref: (await b.state()).ref('button', 'Show balance') });
	await until(() => b.evaluate(url, 'document.getElementById("balance").textContent.startsWith("Balance 1234")'),
	    { what: 'the balance to show' });
	const listed = await b.ok('list_network_requests', { filter: 'api/balance' });
	assert.ok(listed.data.total >= 1, listed.text);
	return { tabId, url, api: listed.data.requests.at(-1) };
}

describe('network tools, by default', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('the client that used the tab reads its requests with cookies, bearer and the account body withheld', async () => {
		const { tabId, api } = await bankVisit(b);
		const got = await b.ok('get_network_request', { id: api.id });
		for (const secret of [BANK_SESSION, 'bank-token', BANK_ACCOUNT.iban, 'DE89'])
			assert.ok(!got.text.includes(secret) && !JSON.stringify(got.data).includes(secret), `${secret} leaked:\n${got.text}`);
		assert.match(got.text, new RegExp(`^ {2}Authorization: \\[withheld: ${bytes(BANK_BEARER)} bytes\\]$`, 'm'));
		assert.match(got.text, new RegExp(`^ {2}Cookie: \\[withheld: ${bytes(`bank_session=${BANK_SESSION}`)} bytes\\]$`, 'm'));
		assert.match(got.text, /^ {2}Set-Cookie: \[withheld: \d+ bytes\]$/im);
		assert.match(got.text, new RegExp(`^Body: \\[withheld: ${bytes(JSON.stringify(BANK_ACCOUNT))} bytes\\], because the request carried or received credentials.*"reveal_network_secrets": true`, 'm'));
		assert.equal(got.data.body, undefined);
		assert.match(api.id, /^n[A-Za-z0-9_-]{12}$/, 'ids are random, not a counter');
		assert.equal((await b.ok('get_network_request', { id: api.id, tab_id: tabId })).data.id, api.id);

		const page = await b.ok('list_network_requests', { type: 'main_frame' });
		const load = page.data.requests.find(r => /bank\.html/.test(r.url));
		const pageLoad = await b.ok('get_network_request', { id: load.id });
		assert.ok(!pageLoad.text.includes(BANK_SESSION), pageLoad.text);
		assert.match(pageLoad.text, /^ {2}Set-Cookie: \[withheld: \d+ bytes\]$/im, 'the HttpOnly cookie the page set');
	});

	test('guessed ids, and ids named with another tab, are refused', async () => {
		const { api } = await bankVisit(b);
		for (const id of ['n1', 'n2', 'n3', 'n10', `${api.id.slice(0, -1)}${api.id.endsWith('A') ? 'B' : 'A'}`]) {
			const refused = await b.fails('get_network_request', { id });
			assert.equal(refused.code, 'INVALID_ARGUMENT');
			assert.match(refused.message, /among the tabs you acted in/);
		}
		const { data } = await b.ok('manage_tabs', { action: 'list' });
		const otherTab = data.tabs.find(t => t.id !== api.tab_id);
		const elsewhere = otherTab?.id ?? api.tab_id + 1;
		assert.equal((await b.fails('get_network_request', { id: api.id, tab_id: elsewhere })).code, 'INVALID_ARGUMENT');
	});

	test('a client that did not act in the tab is refused, and asking does not start the recording', async () => {
		const { tabId, api } = await bankVisit(b);
		const stranger = (await authorizeClient(b, 'Stranger', { scope: 'pages:read pages:act network', decision: { tick: ['network'] } })).mcp;
		const owner = await callAs(await b.connect(), 'list_network_requests', { tab_id: tabId });
		assert.ok(owner.data.requests.some(r => r.id === api.id), `another session of the owner key reads it: ${owner.text}`);
		const listed = await callAs(stranger, 'list_network_requests', { tab_id: tabId });
		assert.ok(listed.isError, listed.text);
		assert.match(listed.text, /^INVALID_ARGUMENT: .*acted in the tab.*Act in the tab first/);
		const got = await callAs(stranger, 'get_network_request', { id: api.id });
		assert.ok(got.isError && !got.text.includes(BANK_SESSION), got.text);
		assert.match(got.text, /^INVALID_ARGUMENT: There is no request/);

		/* A tab the person opened: the stranger asks, the person reloads, then a client acts there. */
		const url = b.page('bank.html');
		const person = await b.openDirectly(url);
		try {
			const tabs = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
			const personTab = tabs.find(t => t.url === url).id;
			const asked = await callAs(stranger, 'list_network_requests', { tab_id: personTab });
			assert.match(asked.text, /^INVALID_ARGUMENT: .*acted in the tab/);
			await b.evaluate(url, 'location.reload(), true');
			await until(() => b.evaluate(url, 'document.readyState === "complete" && performance.getEntriesByType("navigation")[0].type === "reload"'),
			    { what: 'the person\'s reload' });
			await callAs(stranger, 'click_element', {
				ref: (await callAs(stranger, 'get_browser_state', { tab_id: personTab })).data.elements.find(e => e.name === 'Show balance').ref,
			});
			const after = await callAs(stranger, 'list_network_requests', { tab_id: personTab, type: 'main_frame' });
			assert.equal(after.isError, false, after.text);
			assert.equal(after.data.total, 0, `the person's reload was recorded before anyone acted:\n${after.text}`);
		} finally {
			await person.close();
		}
	});

	// Issue #35, finding 1: a client that scrolls another's tab by a few
	// pixels used to read all of that tab's earlier requests.
	test('a client that acts in another client\'s tab lists none of its earlier requests, only those begun after it acted', async () => {
		const { tabId } = await bankVisit(b);
		const earlier = (await b.ok('list_network_requests', { tab_id: tabId })).data.requests;
		assert.ok(earlier.some(r => /api\/balance/.test(r.url)), 'the first client has requests there');
		const scroller = (await authorizeClient(b, 'Scroller', { scope: 'pages:read pages:act network', decision: { tick: ['network'] } })).mcp;
		const scrolled = await callAs(scroller, 'scroll_page', { tab_id: tabId, direction: 'down', pixels: 10 });
		assert.equal(scrolled.isError, false, scrolled.text);
		const listed = await callAs(scroller, 'list_network_requests', { tab_id: tabId });
		assert.equal(listed.isError, false, listed.text);
		assert.deepEqual(listed.data.requests.filter(r => earlier.some(e => e.id === r.id)), [], listed.text);
		assert.ok(!listed.text.includes('api/balance'), `the first client's earlier API call is shown:\n${listed.text}`);
		for (const record of earlier) {
			const got = await callAs(scroller, 'get_network_request', { id: record.id });
			assert.match(got.text, /^INVALID_ARGUMENT: There is no request/, `${record.url} by id`);
		}

		/* The first client calls the API again: begun after the scroller acted, so the scroller sees it. */
		await b.ok('click_element', { ref: (await b.state({ tab_id: tabId })).ref('button', 'Show balance') });
		let later;
		await until(async () => {
			later = await callAs(scroller, 'list_network_requests', { tab_id: tabId, filter: 'api/balance' });
			return later.data?.total === 1;
		}, { what: 'the later API call in the scroller\'s list' });
		const owner = await b.ok('list_network_requests', { tab_id: tabId, filter: 'api/balance' });
		assert.equal(later.data.requests[0].id, owner.data.requests.at(-1).id, 'the newest call, not an earlier one');
		assert.ok(owner.data.total >= 2, `the owner key still sees them all:\n${owner.text}`);
	});

	test('a tab manage_tabs opens is recorded from its first load', async () => {
		const url = b.page('bank.html');
		const opened = await b.ok('manage_tabs', { action: 'open', url });
		const listed = await b.ok('list_network_requests', { tab_id: opened.data.tab_id, type: 'main_frame' });
		assert.deepEqual(listed.data.requests.map(r => r.url), [url], listed.text);
		const newTab = await b.ok('navigate_to', { url: b.page('bank.html'), new_tab: true });
		const first = await b.ok('list_network_requests', { tab_id: newTab.data.tab_id, type: 'main_frame' });
		assert.equal(first.data.total, 1, first.text);
	});

	test('a regex filter and a long one are refused at once while another client reads a page', async () => {
		const a = 'a'.repeat(40);
		await b.open(`bank.html?${a}`);
		await b.ok('click_element', { ref: (await b.state()).ref('button', 'Show balance') });
		const reader = await b.connect();
		const [regex, state] = await Promise.all([
			b.fails('list_network_requests', { filter: '/(a+)+$/' }),
			callAs(reader, 'get_browser_state'),
		]);
		assert.equal(regex.code, 'INVALID_ARGUMENT');
		assert.match(regex.message, /regular expression.*Pass a part of the URL, with \* for any run of characters/);
		assert.equal(state.isError, false, state.text);
		const long = await b.fails('list_network_requests', { filter: 'a'.repeat(5000) });
		assert.equal(long.code, 'INVALID_ARGUMENT');
		assert.match(long.message, /filter.*256/);
		const glob = await b.ok('list_network_requests', { filter: `bank.html?*${a}` });
		assert.ok(glob.data.total >= 1, glob.text);
	});
});

describe('network tools, with reveal_network_secrets in config.json', () => {
	let b;
	before(async () => {
		b = await startBridge({ settings: { reveal_network_secrets: true } });
	});
	after(async () => {
		await b?.close();
	});

	test('credentials and the body are shown to the client that used the tab', async () => {
		const { api } = await bankVisit(b);
		const got = await b.ok('get_network_request', { id: api.id });
		assert.match(got.text, new RegExp(`^ {2}Authorization: ${BANK_BEARER}$`, 'm'));
		assert.match(got.text, new RegExp(`^ {2}Cookie: bank_session=${BANK_SESSION}$`, 'm'));
		assert.deepEqual(JSON.parse(got.data.body), BANK_ACCOUNT);
	});
});
