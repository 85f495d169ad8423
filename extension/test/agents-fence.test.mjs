// Where the agents may go (src/agents/domains.js) and the browser's fence
// that holds them there (src/agents/fence.js): the domain check, the
// person's list as a ceiling, the declarativeNetRequest rules, and how
// tabs become a task's.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { domainAllowed, domainRefusal, taskDomains } from '../src/agents/domains.js';
import { BLOCKED_ERROR, Fence, commonDomains, fenceRules } from '../src/agents/fence.js';
import { ErrorCode } from '../src/errors.js';

const OPTIONS = 'chrome-extension://x/options/options.html';

test('a domain allows itself and its subdomains, not a name that merely ends like it', () => {
	assert.equal(domainAllowed('https://example.com/a', ['example.com']), true);
	assert.equal(domainAllowed('https://shop.example.com./a', ['example.com']), true);
	assert.equal(domainAllowed('https://notexample.com/', ['example.com']), false);
	assert.equal(domainAllowed('https://example.com.evil.test/', ['example.com']), false);
	assert.equal(domainAllowed('about:blank', ['example.com']), true);
	assert.equal(domainAllowed('https://notexample.com/', []), true, 'an empty list allows anywhere');
});

test('an unparseable URL is outside every list', () => {
	assert.equal(domainAllowed('http://[not-an-ip/', ['example.com']), false);
	assert.equal(domainAllowed('example.com/no-scheme', ['example.com']), false);
});

test('the refusal names the URL and its domain', () => {
	assert.match(domainRefusal('http://localhost:8080/x', ['127.0.0.1']),
	    /^http:\/\/localhost:8080\/x \(domain localhost\) is outside the domains this task may visit \(127\.0\.0\.1\)/);
});

test('a client list narrows the person\'s list and never widens it; empty means the person\'s', () => {
	assert.deepEqual(taskDomains(['example.com'], [], OPTIONS), ['example.com']);
	assert.deepEqual(taskDomains(['example.com'], ['shop.example.com'], OPTIONS), ['shop.example.com']);
	assert.deepEqual(taskDomains([], ['shop.test'], OPTIONS), ['shop.test'], 'no ceiling: the client\'s list');
	assert.deepEqual(taskDomains([], [], OPTIONS), []);
	for (const wider of [['example.com', 'evil.test'], ['notexample.com'], ['com']]) {
		assert.throws(() => taskDomains(['example.com'], wider, OPTIONS), error => {
			assert.equal(error.code, ErrorCode.INVALID_ARGUMENT);
			assert.ok(error.message.includes(wider.at(-1)), error.message);
			assert.ok(error.message.includes(OPTIONS), 'says where the person widens it');
			return true;
		}, JSON.stringify(wider));
	}
});

test('the domains several fenced tasks share', () => {
	assert.deepEqual(commonDomains([['example.com', 'a.test'], ['shop.example.com']]), ['shop.example.com']);
	assert.deepEqual(commonDomains([['a.test'], ['b.test']]), []);
});

test('the rules block a fenced task\'s tabs outside its domains, and tabs nobody knows yet', () => {
	assert.deepEqual(fenceRules([{ domains: [], tabs: new Set([3]) }], new Set([1])), [], 'no fenced task: no rule');
	const rules = fenceRules([
		{ domains: ['bücher.example', '127.0.0.1'], tabs: new Set([5, 6]) },
		{ domains: [], tabs: new Set([8]) },
	], new Set([1, 2]));
	const frames = ['main_frame', 'sub_frame'];
	assert.deepEqual(rules, [
		{ id: 1, priority: 1, action: { type: 'block' }, condition: { resourceTypes: frames, tabIds: [5, 6] } },
		{ id: 2, priority: 2, action: { type: 'allow' }, condition: { resourceTypes: frames, tabIds: [5, 6], requestDomains: ['xn--bcher-kva.example', '127.0.0.1'] } },
		{ id: 3, priority: 1, action: { type: 'block' }, condition: { resourceTypes: frames, excludedTabIds: [-1, 1, 2, 5, 6, 8] } },
		{ id: 4, priority: 2, action: { type: 'allow' }, condition: { resourceTypes: frames, excludedTabIds: [-1, 1, 2, 5, 6, 8], requestDomains: ['xn--bcher-kva.example', '127.0.0.1'] } },
	]);
});

// A fence over stand-ins for chrome.declarativeNetRequest, chrome.tabs and chrome.windows.
async function fakeFence({ stale = [], tabs = [{ id: 1 }], popups = [] } = {}) {
	const browser = { rules: stale, updated: [], writes: 0, refuse: false };
	const fence = new Fence({
		rules: {
			getSessionRules: async () => browser.rules,
			updateSessionRules: async ({ removeRuleIds, addRules }) => {
				browser.writes++;
				if (browser.refuse)
					throw new Error('the browser refused the rules');
				browser.rules = [...browser.rules.filter(rule => !removeRuleIds.includes(rule.id)), ...addRules];
			},
		},
		tabs: {
			query: async () => tabs,
			update: async (id, change) => browser.updated.push({ id, ...change }),
		},
		windows: { get: async id => ({ id, type: popups.includes(id) ? 'popup' : 'normal' }) },
	});
	await fence.ready;
	return { fence, browser };
}

// The tab ids the rules fence (a task's) and the ones they leave out (known).
const fencedTabs = rules => rules.filter(rule => rule.action.type === 'block' && rule.condition.tabIds).flatMap(rule => rule.condition.tabIds);
const knownTabs = rules => rules.find(rule => rule.condition.excludedTabIds)?.condition.excludedTabIds ?? [];

test('start-up clears rules a previous service worker left behind', async () => {
	const { browser } = await fakeFence({ stale: [{ id: 1, priority: 1, action: { type: 'block' }, condition: { tabIds: [4] } }] });
	assert.deepEqual(browser.rules, []);
});

test('the rules are written only when they change: an unfenced task\'s start and end write none', async () => {
	const { fence, browser } = await fakeFence();
	assert.equal(browser.writes, 1, 'start-up writes once');
	await fence.enclose('open', 1, []);
	await fence.end('open');
	assert.equal(browser.writes, 1, 'an unfenced task changes no rule');
	await fence.enclose('t1', 2, ['example.com']);
	assert.equal(browser.writes, 2);
	assert.deepEqual(fencedTabs(browser.rules), [2]);
	await fence.sync();
	assert.equal(browser.writes, 2, 'the same rules are not written again');
	browser.refuse = true;
	await assert.rejects(fence.enclose('t2', 3, ['example.org']), /refused/);
	browser.refuse = false;
	await fence.sync();
	assert.equal(browser.writes, 5, 'after a refused update the rules are written again, though they are the same as before it');
	assert.deepEqual(fencedTabs(browser.rules), [2]);
	await fence.end('t1');
	assert.deepEqual(browser.rules, []);
});

test('a tab opened from a task\'s tab is the task\'s; the end takes the rules down and lists it', async () => {
	const { fence, browser } = await fakeFence();
	await fence.enclose('t1', 1, ['example.com']);
	assert.deepEqual(fencedTabs(browser.rules), [1]);
	await fence.tabCreated({ id: 2, openerTabId: 1, windowId: 1, pendingUrl: '' });
	fence.navigationTarget({ sourceTabId: 1, tabId: 2, url: 'https://evil.test/' });
	await fence.syncing;
	assert.deepEqual(fencedTabs(browser.rules), [1, 2]);
	await fence.tabCreated({ id: 3, openerTabId: 2, windowId: 1, pendingUrl: 'https://example.com/b' });
	await fence.syncing;
	assert.deepEqual(fencedTabs(browser.rules), [1, 2, 3], 'a tab opened from an opened tab too');
	fence.tabRemoved(3);
	assert.deepEqual(await fence.end('t1'), [
		{ tab_id: 2, url: 'https://evil.test/', open: true },
		{ tab_id: 3, url: 'https://example.com/b', open: false },
	]);
	assert.deepEqual(browser.rules, []);
});

test('a newborn tab stays fenced until it is known to be the person\'s; a first page the fence blocked is loaded again', async () => {
	const { fence, browser } = await fakeFence({ popups: [9] });
	await fence.enclose('t1', 1, ['example.com']);
	assert.ok(!knownTabs(browser.rules).includes(4), 'a tab not born yet is fenced');
	await fence.tabCreated({ id: 4, windowId: 1, pendingUrl: 'https://news.test/' });
	await fence.syncing;
	assert.ok(knownTabs(browser.rules).includes(4), 'the person\'s tab is let out');
	await fence.navigationFailed({ tabId: 4, frameId: 0, url: 'https://news.test/', error: BLOCKED_ERROR });
	assert.deepEqual(browser.updated, [{ id: 4, url: 'https://news.test/' }]);
	await fence.navigationFailed({ tabId: 4, frameId: 0, url: 'https://news.test/', error: BLOCKED_ERROR });
	assert.equal(browser.updated.length, 1, 'only once');

	/* Blocked before anyone knew whose it was: loaded again once it is let out. */
	const settle = fence.expectOpen('t1');
	await fence.tabCreated({ id: 8, windowId: 1, pendingUrl: 'https://mail.test/' });
	await fence.navigationFailed({ tabId: 8, frameId: 0, url: 'https://mail.test/', error: BLOCKED_ERROR });
	assert.equal(browser.updated.length, 1, 'not while it is unplaced');
	settle(undefined, '');
	await fence.syncing;
	await new Promise(resolve => setImmediate(resolve));
	assert.deepEqual(browser.updated.at(-1), { id: 8, url: 'https://mail.test/' });

	await fence.tabCreated({ id: 5, windowId: 9, pendingUrl: '' });
	await fence.syncing;
	assert.ok(!knownTabs(browser.rules).includes(5), 'a popup waits for its opener');
	fence.navigationTarget({ sourceTabId: 1, tabId: 5, url: 'https://evil.test/' });
	await fence.syncing;
	assert.deepEqual(fencedTabs(browser.rules), [1, 5], 'a popup of the task\'s tab is the task\'s');
	assert.deepEqual(await fence.end('t1'), [{ tab_id: 5, url: 'https://evil.test/', open: true }]);
});

test('a tab the task opens itself waits, fenced, for the action\'s result', async () => {
	const { fence, browser } = await fakeFence();
	await fence.enclose('t1', 1, ['example.com']);
	const settle = fence.expectOpen('t1');
	await fence.tabCreated({ id: 6, windowId: 1, pendingUrl: 'https://example.com/r' });
	await fence.tabCreated({ id: 7, windowId: 1, pendingUrl: 'chrome://newtab/' });
	await fence.syncing;
	assert.ok(!knownTabs(browser.rules).includes(6) && !knownTabs(browser.rules).includes(7));
	settle(6, 'https://example.com/r');
	await fence.syncing;
	assert.deepEqual(fencedTabs(browser.rules), [1, 6]);
	assert.ok(knownTabs(browser.rules).includes(7), 'the other tab born meanwhile is let out');
});

test('navigations the fence blocked in a task\'s tabs are handed to the task once', async () => {
	const { fence } = await fakeFence();
	await fence.enclose('t1', 1, ['example.com']);
	await fence.navigationFailed({ tabId: 1, frameId: 3, url: 'https://evil.test/frame', error: BLOCKED_ERROR });
	await fence.navigationFailed({ tabId: 1, frameId: 0, url: 'https://example.com/x', error: 'net::ERR_ABORTED' });
	assert.deepEqual(fence.blocked('t1'), [{ url: 'https://evil.test/frame', tab_id: 1, frame_id: 3 }]);
	assert.deepEqual(fence.blocked('t1'), []);
});

test('rules the browser refuses leave no fence half up, and the task does not start', async () => {
	const fence = new Fence({
		rules: {
			getSessionRules: async () => [],
			updateSessionRules: async ({ addRules }) => {
				if (addRules.length > 0)
					throw new Error('Rule with id 2 specifies an incorrect value for the "requestDomains" key.');
			},
		},
		tabs: { query: async () => [] },
		windows: { get: async () => ({}) },
	});
	await assert.rejects(fence.enclose('t1', 1, ['example.com']), /requestDomains/);
	assert.equal(fence.ownerOf(1), undefined);
});

test('the domain check reads host names in lower case without a trailing dot, whatever the scheme', () => {
	assert.equal(domainAllowed('foo://Shop.EXAMPLE.com./x', ['example.com']), true, 'a non-special scheme keeps its host name\'s case');
	assert.equal(domainAllowed('data:text/html,hi', ['example.com']), true, 'a data: page carries no domain');
	assert.equal(domainAllowed('foo:opaque', ['example.com']), false, 'no host name is inside no domain');
	assert.equal(domainRefusal('foo://Shop.EXAMPLE.com./x', ['example.org', 'a.test']),
	    'foo://Shop.EXAMPLE.com./x (domain shop.example.com) is outside the domains this task may visit (example.org, a.test). ' +
	    'Stay on those sites, or say the task is impossible there.');
	assert.match(domainRefusal('about:blank', ['a.test']), /^about:blank is outside/, 'no host name: no domain named');
	assert.match(domainRefusal('not a url', ['a.test']), /^not a url is outside/);
});

test('a client list refused says which domains lie outside the person\'s list, in the right number', () => {
	const refusal = list => {
		try {
			taskDomains(['example.com', 'a.test'], list, OPTIONS);
		} catch (error) {
			return error.message;
		}
		return null;
	};
	assert.equal(refusal(['evil.test']), 'allowed_domains can only narrow the person\'s list of allowed domains (example.com, a.test), ' +
	    `and evil.test lies outside it. Name domains within that list, or leave allowed_domains out to use it; only the person can widen it, on the options page (${OPTIONS}).`);
	assert.match(refusal(['evil.test', 'a.test', 'b.example']), /and evil\.test, b\.example lie outside it\./);
});
