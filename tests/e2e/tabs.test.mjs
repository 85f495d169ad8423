// End-to-end: manage_tabs, per-tab queues, cancellation, resources, the
// popup, and reconnecting after the host exits.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { EXTENSION_ID, runningHost, startBridge, until } from './harness.mjs';
import { scaled } from '../timing.mjs';

describe('tabs and connection', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('manage_tabs lists, opens, switches and closes tabs by integer id', async () => {
		const { tabId } = await b.open('form.html');
		const list = await b.ok('manage_tabs', { action: 'list' });
		assert.ok(list.data.tabs.every(t => Number.isInteger(t.id)));
		assert.match(list.text, new RegExp(`\\n${tabId}\\* "Form fixture" `));
		const url = b.page('checkout.html');
		const opened = await b.ok('manage_tabs', { action: 'open', url });
		const newId = opened.data.tab_id;
		assert.match(opened.text, new RegExp(`^Opened tab ${newId} `));
		assert.equal(opened.data.tabs.find(t => t.active).id, newId);
		assert.equal(await b.evaluate(url, 'document.readyState'), 'complete');
		const switched = await b.ok('manage_tabs', { action: 'switch', tab_id: tabId });
		assert.equal(switched.data.tabs.find(t => t.active).id, tabId);
		const state = await b.state();
		assert.equal(state.data.tab.id, tabId, 'actions without tab_id follow the active tab');
		const closed = await b.ok('manage_tabs', { action: 'close', tab_id: newId });
		assert.ok(!closed.data.tabs.some(t => t.id === newId));
		assert.equal(await b.cdp.findTarget(url), undefined, 'the closed tab is gone from the browser');
	});

	test('a read right after the active tab or window changed behind the tools\' back is of the new one', async () => {
		/* The person switching tabs or opening a window, seen by no tool: the next read must follow at once. */
		const first = await b.open('form.html');
		const second = b.page('checkout.html');
		const { targetId } = await b.cdp.send('Target.createTarget', { url: second });
		await until(() => b.evaluate(second, 'document.readyState === "complete"'), { what: 'the second tab to load' });
		const firstTarget = (await b.cdp.findTarget(first.url)).targetId;
		const windowTab = b.page('todos.html');
		let windowTarget;
		try {
			for (let i = 0; i < 6; i++) {
				await b.cdp.send('Target.activateTarget', { targetId });
				assert.equal((await b.state()).data.tab.url, second, `round ${i}: the read after activating the second tab`);
				await b.cdp.send('Target.activateTarget', { targetId: firstTarget });
				assert.equal((await b.state()).data.tab.url, first.url, `round ${i}: the read after activating the first tab`);
			}
			({ targetId: windowTarget } = await b.cdp.send('Target.createTarget', { url: windowTab, newWindow: true }));
			await until(() => b.evaluate(windowTab, 'document.readyState === "complete"'), { what: 'the new window to load' });
			await b.cdp.send('Target.activateTarget', { targetId: windowTarget });
			assert.equal((await b.state()).data.tab.url, windowTab, 'the read after a new window took the focus');
			await b.cdp.send('Target.closeTarget', { targetId: windowTarget });
			windowTarget = undefined;
			await b.cdp.send('Target.activateTarget', { targetId });
			assert.equal((await b.state()).data.tab.url, second, 'the read after that window closed and a tab was activated');
		} finally {
			if (windowTarget !== undefined)
				await b.cdp.send('Target.closeTarget', { targetId: windowTarget });
			await b.cdp.send('Target.closeTarget', { targetId });
		}
	});

	test('the state after manage_tabs open holds a view the app renders after the load event', async () => {
		for (const via of ['fetch', 'chunk']) {
			const opened = await b.ok('manage_tabs', { action: 'open', url: b.page(`late-view.html?via=${via}`) });
			const s = await b.state();
			assert.ok(s.find('button', 'Add todo'), `the view that waits for a ${via} is missing:\n${s.text}`);
			await b.ok('manage_tabs', { action: 'close', tab_id: opened.data.tab_id });
		}
	});

	test('unknown tab ids are TAB_NOT_FOUND and switch needs a tab_id', async () => {
		for (const action of ['close', 'switch']) {
			const error = await b.fails('manage_tabs', { action, tab_id: 424242 });
			assert.equal(error.code, 'TAB_NOT_FOUND');
			assert.match(error.message, /Tab 424242 does not exist.*manage_tabs/);
		}
		const error = await b.fails('manage_tabs', { action: 'switch' });
		assert.equal(error.code, 'INVALID_ARGUMENT');
		assert.match(error.message, /needs tab_id/);
	});

	test('refs of a closed tab are STALE_REF, and refs name their own tab', async () => {
		const { tabId: other } = await b.open('checkout.html');
		const opened = await b.ok('manage_tabs', { action: 'open', url: b.page('form.html') });
		const s = await b.state({ tab_id: opened.data.tab_id });
		const ref = s.ref('button', 'Count 0');
		const wrongTab = await b.fails('click_element', { ref, tab_id: other });
		assert.equal(wrongTab.code, 'ELEMENT_NOT_FOUND');
		assert.match(wrongTab.message, new RegExp(`is an element of tab ${opened.data.tab_id}, not of tab ${other}`));
		await b.ok('manage_tabs', { action: 'close', tab_id: opened.data.tab_id });
		const error = await b.fails('click_element', { ref });
		assert.equal(error.code, 'STALE_REF');
		assert.match(error.message, /was closed/);
	});

	test('actions on different tabs run in parallel, on one tab in order', async () => {
		const one = await b.ok('manage_tabs', { action: 'open', url: b.page('form.html') });
		const two = await b.ok('manage_tabs', { action: 'open', url: b.page('form.html') });
		/* The held page answers only when released, so tab one's navigation is still under way
		 * when the other tab's read answers, however loaded the machine. */
		const held = b.page('held?key=parallel');
		let navigated = false;
		const navigation = b.ok('navigate_to', { url: held, tab_id: one.data.tab_id });
		navigation.then(() => { navigated = 'answered'; }, error => { navigated = error.message; });
		await b.site.arrived('parallel');
		await b.ok('get_browser_state', { tab_id: two.data.tab_id });
		assert.equal(navigated, false, 'the read of the other tab waited for the navigation');
		b.site.release('parallel');
		assert.equal((await navigation).data.url, held);

		/* On one tab, a read asked while a navigation is under way (both wait on the extension) runs after it. */
		const queued = b.page('held?key=queued');
		const sameTab = b.ok('navigate_to', { url: queued, tab_id: two.data.tab_id });
		await b.site.arrived('queued');
		const state = b.ok('get_browser_state', { tab_id: two.data.tab_id });
		await until(async () => (await b.ok('host_status')).data.pending_calls === 2, { what: 'the read to wait beside the navigation' });
		b.site.release('queued');
		await sameTab;
		assert.equal((await state).data.tab.title, 'Held page', 'the state waited for the navigation queued before it');
		for (const t of [one, two])
			await b.ok('manage_tabs', { action: 'close', tab_id: t.data.tab_id });
	});

	test('a cancelled call stops and frees its tab', async () => {
		const { tabId } = await b.open('form.html');
		const controller = new AbortController();
		const hanging = b.call('navigate_to', { url: b.page('hang'), tab_id: tabId }, { signal: controller.signal });
		await new Promise(resolve => setTimeout(resolve, 300));
		controller.abort();
		await assert.rejects(hanging);
		await until(async () => (await b.ok('host_status')).data.pending_calls === 0, { what: 'the cancel to reach the extension' });
		const start = Date.now();
		await b.ok('navigate_to', { url: b.page('checkout.html'), tab_id: tabId });
		assert.ok(Date.now() - start < scaled(5000), `the tab was free only after ${Date.now() - start} ms`);
	});

	test('the browser:// resources come from the extension', async () => {
		await b.open('checkout.html');
		const tabs = await b.client.readResource({ uri: 'browser://tabs' });
		const list = JSON.parse(tabs.contents[0].text);
		assert.ok(list.some(t => t.active && /checkout\.html/.test(t.url)));
		const state = await b.client.readResource({ uri: 'browser://current/state' });
		assert.match(state.contents[0].text, /textbox "First name"/);
		const dom = await b.client.readResource({ uri: 'browser://dom/state' });
		assert.equal(JSON.parse(dom.contents[0].text).elements.length, 9);
	});

	test('the popup shows the connection and the MCP URL', async () => {
		const popup = `chrome-extension://${EXTENSION_ID}/popup/popup.html`;
		const opened = await b.openDirectly(popup);
		const text = await until(async () => {
			const t = await b.evaluate(popup, 'document.getElementById("state").textContent');
			return /Connected/.test(t) && t;
		}, { what: 'the popup to show the status' });
		assert.match(text, /^Connected to the host \(version \d+\.\d+\.\d+\)\.$/);
		assert.equal(await b.evaluate(popup, 'document.getElementById("url").textContent'), b.url);
		// The welcome carries the token, so no "run browser-bridge token" hint.
		assert.equal(await b.evaluate(popup, 'document.getElementById("token-hint").hidden'), true);
		await until(async () => /MCP session/.test(await b.evaluate(popup, 'document.getElementById("sessions").textContent')),
		    { what: 'the popup to show the host status' });
		const clients = await b.evaluate(popup, '[...document.querySelectorAll("#clients li")].map(li => li.textContent)');
		assert.ok(clients.some(c => /^e2e 1\.0\.0 \(Streamable HTTP, \d+ calls?\)$/.test(c)), `the test's own client by name: ${clients}`);
		/* Copy puts the URL on the clipboard (permission granted as a click on the popup would). */
		await b.cdp.send('Browser.grantPermissions', { origin: `chrome-extension://${EXTENSION_ID}`,
		    permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'] });
		await b.evaluate(popup, 'document.getElementById("copy-url").click()');
		await until(() => b.evaluate(popup, '!document.getElementById("copied").hidden'), { what: 'the popup to say it copied' });
		assert.equal(await b.evaluate(popup, 'navigator.clipboard.readText()'), b.url);
		await opened.close();
	});

	test('when the host exits, the extension starts a new one and reconnects', async () => {
		const oldPid = b.hostPid;
		process.kill(oldPid, 'SIGTERM');
		const host = await until(() => runningHost(b.runtime, oldPid), { ms: 15000, what: 'a new host to start' });
		b.hostPid = host.pid;
		b.url = host.url ?? `http://127.0.0.1:${host.port}/mcp`;
		b.client = await b.connect();
		await until(async () => (await b.ok('host_status')).data.extension_connected,
		    { what: 'the extension to say hello to the new host' });
		const { url } = await b.open('form.html');
		const s = await b.state();
		await b.ok('click_element', { ref: s.ref('checkbox', 'I agree') });
		assert.equal(await b.evaluate(url, 'document.getElementById("agree").checked'), true);
	});
});

describe('without a host', () => {
	let b;
	before(async () => {
		b = await startBridge({ installHost: false });
	});
	after(async () => {
		await b?.close();
	});

	test('the popup says the host is not installed and how to install it', async () => {
		const popup = `chrome-extension://${EXTENSION_ID}/popup/popup.html`;
		await b.cdp.send('Target.createTarget', { url: popup });
		const summary = await until(async () => {
			const t = await b.evaluate(popup, 'document.getElementById("error-summary").textContent');
			return t !== '' && t;
		}, { what: 'the popup to show the error' });
		assert.equal(summary, 'The Browser Bridge host is not installed for this browser.');
		assert.match(await b.evaluate(popup, 'document.getElementById("error-detail").textContent'),
		    /run `browser-bridge install`.*org\.browserbridge\.host\.json/);
		assert.match(await b.evaluate(popup, 'document.getElementById("state").textContent'),
		    /^(Not connected to the host\.|Connecting to the host…)$/);
		await until(async () => /^Retrying by itself in \d+ s\.$/.test(await b.evaluate(popup, 'document.getElementById("retry").textContent')),
		    { what: 'the popup to say when it retries' });
	});
});
