// The approval page (approve/approve.js) in a jsdom window whose
// chrome.runtime is a fake service worker: the test decides when the
// worker's new list of waiting requests reaches the page and when its
// answer to the page's decision does, so the order the real worker can
// produce either way is checked exactly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// tests/extension-unit.sh installs jsdom into the build tree (see in-page.test.mjs).
const packages = process.env.BRIDGE_TEST_PACKAGES;
const { JSDOM } = createRequire(packages ? `${packages}/` : import.meta.url)('jsdom');

const HTML = readFileSync(new URL('../approve/approve.html', import.meta.url), 'utf8');
const SOURCE = readFileSync(new URL('../approve/approve.js', import.meta.url), 'utf8');

const REQUEST = {
	request_id: 'r1', client_name: 'Editor', redirect_host: '127.0.0.1:5000', expires_at_ms: 0,
	scopes: [{ name: 'pages:read', label: 'Read pages', ticked: true }, { name: 'tasks', label: 'Run tasks', ticked: true }],
};

// The page with the request waiting. Returns the window, every text the
// outcome line showed, the worker's broadcast of a new list, and the
// decisions the page sent, each with answer(reply) to send the worker's
// answer to it.
async function approvalPage(request = REQUEST) {
	const { window } = new JSDOM(HTML.replace(/<script[^>]*><\/script>/, ''), { runScripts: 'outside-only' });
	const page = { window, shown: [], decisions: [], listeners: [] };
	window.chrome = {
		runtime: {
			onMessage: { addListener: listener => page.listeners.push(listener) },
			sendMessage: message => {
				if (message.type === 'getApprovals')
					return Promise.resolve({ result: [request] });
				return new Promise(answer => page.decisions.push({ message, answer }));
			},
		},
	};
	const outcome = window.document.getElementById('outcome');
	new window.MutationObserver(() => page.shown.push(outcome.textContent))
	    .observe(outcome, { childList: true, characterData: true, subtree: true });
	page.broadcast = pending => page.listeners.forEach(listener => listener({ type: 'approvals', pending }));
	page.click = id => window.document.getElementById(id).click();
	page.settled = () => new Promise(resolve => window.setTimeout(resolve, 0));
	await window.eval(`(async () => {\n${SOURCE}\n})()`);
	return page;
}

test('the page shows the waiting request', async () => {
	const page = await approvalPage();
	const document = page.window.document;
	assert.equal(document.getElementById('request').hidden, false);
	assert.equal(document.getElementById('name').textContent, 'Editor');
	assert.deepEqual([...document.querySelectorAll('input[name=scope]')].map(box => [box.value, box.checked]),
	    [['pages:read', true], ['tasks', true]]);
});

test('a name an approved client already uses is said, with that client\'s dates; none, nothing is said', async () => {
	assert.equal((await approvalPage()).window.document.getElementById('namesake').hidden, true);
	const page = await approvalPage({ ...REQUEST, client_name: 'claude code',
		name_taken_by: { client_name: 'Claude Code', registered_at_ms: Date.UTC(2026, 0, 2), approved_at_ms: Date.UTC(2026, 0, 3) } });
	const warning = page.window.document.getElementById('namesake');
	assert.equal(warning.hidden, false);
	assert.equal(warning.textContent, `Another client already uses this name: "Claude Code", registered ${new Date(Date.UTC(2026, 0, 2)).toLocaleString()}` +
	    ` and approved ${new Date(Date.UTC(2026, 0, 3)).toLocaleString()}. Deny this one unless you have just set up a second copy of that client yourself.`);
});

test('Allow: the list without the request, arriving before the answer, is not taken for the request going away', async () => {
	const page = await approvalPage();
	page.click('allow');
	assert.equal(page.decisions.length, 1);
	assert.deepEqual(JSON.parse(JSON.stringify(page.decisions[0].message)), { type: 'decideClient', request_id: 'r1', approved: true, scopes: ['pages:read', 'tasks'] });
	page.broadcast([]);
	await page.settled();
	page.decisions[0].answer({ result: { approved: true, scopes: ['pages:read', 'tasks'] } });
	await page.settled();
	assert.deepEqual(page.shown, ['Allowed: Editor may now do this: Read pages, Run tasks. You can close this tab.']);
	assert.equal(page.window.document.getElementById('request').hidden, true);
});

test('a second press while the decision is on its way sends nothing', async () => {
	const page = await approvalPage();
	page.click('allow');
	page.click('deny');
	page.click('allow');
	assert.equal(page.decisions.length, 1);
	page.decisions[0].answer({ result: { approved: true, scopes: ['pages:read', 'tasks'] } });
	await page.settled();
	assert.deepEqual(page.shown, ['Allowed: Editor may now do this: Read pages, Run tasks. You can close this tab.']);
});

test('the request answered elsewhere or expired, with no decision from this page, is said', async () => {
	const page = await approvalPage();
	page.broadcast([]);
	await page.settled();
	assert.equal(page.window.document.getElementById('request').hidden, true);
	assert.match(page.shown.at(-1) ?? '', /^This request is no longer waiting/);
});

test('a refused decision is said, and the page again follows the list', async () => {
	const page = await approvalPage();
	page.click('deny');
	page.decisions[0].answer({ error: 'This request is no longer waiting: it expired.' });
	await page.settled();
	assert.deepEqual(page.shown, ['This request is no longer waiting: it expired.']);
	assert.equal(page.window.document.getElementById('outcome').className, 'error');
	page.broadcast([]);
	assert.equal(page.window.document.getElementById('request').hidden, true);
});
