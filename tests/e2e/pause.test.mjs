// End-to-end: the person stays in charge. "Pause all agent control" in the
// real popup refuses an MCP client's click_element with PAUSED_BY_USER
// while reads still work; turning it off lets the click through; the
// popup lists the last actions (refused ones too), the toolbar badge
// says paused, then on, and the tab the client acted in is marked (a tab
// group named after the client). Screenshots of the popup in each state go to
// E2E_ARTEFACTS (tests/e2e.sh: $builddir/tests/e2e-artefacts).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXTENSION_ID, runningHost, startBridge, until } from './harness.mjs';
import { inExtension } from './agents-harness.mjs';

const POPUP = `chrome-extension://${EXTENSION_ID}/popup/popup.html`;

describe('pause all agent control', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	// Saves a screenshot of the popup as a test artefact (not compared).
	async function saveScreenshot(popup, name) {
		const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId: popup.targetId, flatten: true });
		const { data } = await b.cdp.send('Page.captureScreenshot', { format: 'png' }, sessionId);
		writeFileSync(join(process.env.E2E_ARTEFACTS, `popup-${name}.png`), Buffer.from(data, 'base64'));
	}

	test('the popup switch refuses actions with PAUSED_BY_USER, keeps reads, and lists what happened', async () => {
		const { tabId, url } = await b.open('form.html');
		const s = await b.state({ tab_id: tabId });
		const agree = s.ref('checkbox', 'I agree');
		const popup = await b.openDirectly(POPUP);
		try {
			await until(() => b.evaluate(POPUP, '!document.getElementById("pause").disabled'), { what: 'the popup to show the switch' });
			assert.equal(await b.evaluate(POPUP, 'document.getElementById("pause").checked'), false);
			await b.evaluate(POPUP, 'document.getElementById("pause").click()');
			await until(() => b.evaluate(POPUP, '!document.getElementById("paused-note").hidden'), { what: 'the popup to say it is paused' });
			await saveScreenshot(popup, 'paused');

			const refused = await b.fails('click_element', { ref: agree });
			assert.equal(refused.code, 'PAUSED_BY_USER');
			assert.match(refused.message, /paused all agent control/);
			assert.equal(await b.evaluate(url, 'document.getElementById("agree").checked'), false, 'nothing was clicked');
			const read = await b.state({ tab_id: tabId });
			assert.ok(read.find('checkbox', 'I agree'), 'reading the page still works');
			assert.equal(await inExtension(b, 'chrome.action.getBadgeText({})'), 'II');

			const lines = await until(async () => {
				const items = await b.evaluate(POPUP, '[...document.querySelectorAll("#activity li")].map(li => li.textContent)');
				return items.some(t => /click_element/.test(t)) && items;
			}, { what: 'the popup to list the refused click' });
			/* The client by the name it gave (the harness's client is "e2e" 1.0.0). */
			assert.match(lines.find(t => /click_element/.test(t)), new RegExp(`e2e 1\\.0\\.0: click_element in tab ${tabId}: PAUSED_BY_USER`));
			assert.match(lines.find(t => /get_browser_state/.test(t)), new RegExp(`e2e 1\\.0\\.0: get_browser_state in tab ${tabId}: ok \\(\\d+ ms\\)`));

			await b.evaluate(POPUP, 'document.getElementById("pause").click()');
			await until(() => b.evaluate(POPUP, 'document.getElementById("paused-note").hidden'), { what: 'the popup to say it runs again' });
			await b.ok('click_element', { ref: agree });
			assert.equal(await b.evaluate(url, 'document.getElementById("agree").checked'), true);
			const group = await until(() => inExtension(b, `chrome.tabs.get(${tabId}).then(t => t.groupId === -1 ? null :
			    chrome.tabGroups.get(t.groupId).then(g => g.title))`), { what: 'the tab to be marked' });
			assert.equal(group, 'Agent: e2e 1.0.0', 'the tab the client acts in is marked with its name');
			await until(async () => await inExtension(b, 'chrome.action.getBadgeText({})') === 'on',
			    { what: 'the badge to say on again a second after the last call' });
			await until(async () => /click_element in tab \d+: ok/.test(await b.evaluate(POPUP, 'document.querySelector("#activity li").textContent')),
			    { what: 'the newest line to be the click that went through' });
			await saveScreenshot(popup, 'running');
		} finally {
			await popup.close();
		}
	});

	// Evaluates an expression in the world of the extension's content
	// scripts in the top frame of the page at url, as a page that took over
	// its renderer could.
	async function inContentScript(url, expression) {
		const target = await b.cdp.findTarget(url);
		const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
		const worlds = [];
		const stop = b.cdp.on(event => {
			if (event.sessionId === sessionId && event.method === 'Runtime.executionContextCreated')
				worlds.push(event.params.context);
		});
		try {
			await b.cdp.send('Runtime.enable', {}, sessionId);
			const world = await until(() => worlds.find(c => c.auxData?.type === 'isolated' &&
			    c.auxData.frameId === target.targetId && c.name === 'Browser Bridge'), { what: 'the content scripts\' world' });
			const { result, exceptionDetails } = await b.cdp.send('Runtime.evaluate',
			    { expression, contextId: world.id, returnByValue: true, awaitPromise: true }, sessionId);
			assert.equal(exceptionDetails, undefined, exceptionDetails?.exception?.description);
			return result.value;
		} finally {
			stop();
			await b.cdp.send('Target.detachFromTarget', { sessionId });
		}
	}

	test('a content script gets no answer: it can neither pause the agents, read the controls nor start a task', async () => {
		const { tabId, url } = await b.open('form.html');
		const asked = await inContentScript(url, `Promise.all([
		    chrome.runtime.sendMessage({ type: 'setPaused', paused: true }),
		    chrome.runtime.sendMessage({ type: 'getControl' }),
		    chrome.runtime.sendMessage({ type: 'startTask', task: 'read the page' }),
		].map(p => p.then(reply => reply ?? null, error => 'refused: ' + error.message)))`);
		assert.ok(asked.every(reply => reply === null || /^refused/.test(reply)), `no answer to a content script: ${JSON.stringify(asked)}`);
		assert.equal(await inExtension(b, `chrome.storage.local.get('paused').then(s => s.paused ?? false)`), false, 'not paused');
		const s = await b.state({ tab_id: tabId });
		await b.ok('click_element', { ref: s.ref('checkbox', 'I agree') });
	});

	test('the switch holds when the service worker stops and starts again', async () => {
		const { tabId } = await b.open('form.html');
		await inExtension(b, `chrome.storage.local.set({ paused: true })`);	/* as the popup's switch keeps it */
		const worker = (await b.cdp.targets()).find(t => t.type === 'service_worker' && t.url === `chrome-extension://${EXTENSION_ID}/background.js`);
		const oldPid = b.hostPid;
		await b.cdp.send('Target.closeTarget', { targetId: worker.targetId });
		b.workerSession = undefined;
		/* The popup wakes the worker, which starts a new host. */
		const popup = await b.openDirectly(POPUP);
		try {
			await until(() => b.evaluate(POPUP, 'document.getElementById("pause").checked'), { what: 'the popup to show the switch still on' });
			const host = await until(() => runningHost(b.runtime, oldPid), { ms: 15000, what: 'the new host' });
			b.hostPid = host.pid;
			b.url = host.url ?? `http://127.0.0.1:${host.port}/mcp`;
			b.client = await b.connect();
			await until(async () => (await b.ok('host_status')).data.extension_connected, { what: 'the extension to reconnect' });
			const s = await b.state({ tab_id: tabId });
			const refused = await b.fails('click_element', { ref: s.ref('checkbox', 'I agree') });
			assert.equal(refused.code, 'PAUSED_BY_USER', 'still paused after the restart');
			assert.equal(await inExtension(b, 'chrome.action.getBadgeText({})'), 'II');
			await b.evaluate(POPUP, 'document.getElementById("pause").click()');
			await until(async () => !(await inExtension(b, `chrome.storage.local.get('paused').then(s => s.paused)`)),
			    { what: 'the switch to be off' });
		} finally {
			await popup.close();
		}
	});
});
