// The network log (src/browser/network-log.js) and its tools
// (src/actions/network.js): credentials withheld with their length, bodies
// of credentialed requests withheld, ids random and bound to the tabs their
// reader acted in, recording only once someone acts, a tool-opened tab's
// first load kept, and filters that are substrings or globs, never regexes.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

import {
	FILTER_MAX, NetworkLog, carriesCredentials, secretHeader, shownHeaders, urlMatcher, withheld,
} from '../src/browser/network-log.js';
import { AGENTS_NETWORK_OPTION_KEY, agentsNetworkEnabled, networkActions } from '../src/actions/network.js';
import { TaskManager } from '../src/agents/task-manager.js';
import { navigationActions } from '../src/actions/navigation.js';
import { Dispatcher } from '../src/dispatcher.js';
import { ErrorCode } from '../src/errors.js';
import { registeredDispatcher } from './host-catalogue.mjs';

// A chrome.* event whose listeners the test fires.
function fakeEvent() {
	const listeners = [];
	return { listeners, addListener: l => listeners.push(l), removeListener: () => {}, fire: d => listeners.forEach(l => l(d)) };
}

let web;
beforeEach(() => {
	web = {
		onBeforeRequest: fakeEvent(), onSendHeaders: fakeEvent(), onHeadersReceived: fakeEvent(),
		onCompleted: fakeEvent(), onErrorOccurred: fakeEvent(),
	};
	globalThis.chrome = {
		webRequest: web,
		tabs: {
			onRemoved: fakeEvent(),
			get: async id => ({ id, url: `https://bank.test/${id}`, title: `Tab ${id}`, active: id === 1 }),
			query: async () => [{ id: 1 }],
			TAB_ID_NONE: -1,
		},
	};
});

const noDebugger = { onAnyEvent: () => {}, send: async () => { throw new Error('not attached'); } };
let nextRequest = 1;
// One whole request of a tab, with its headers both ways.
function request(tabId, url, { requestHeaders = [], responseHeaders = [], type = 'xmlhttprequest' } = {}) {
	const requestId = String(nextRequest++);
	web.onBeforeRequest.fire({ tabId, requestId, method: 'GET', url, type, timeStamp: 1000 });
	web.onSendHeaders.fire({ tabId, requestId, requestHeaders });
	web.onHeadersReceived.fire({ tabId, requestId, statusCode: 200, responseHeaders });
	web.onCompleted.fire({ tabId, requestId, statusCode: 200, timeStamp: 1010, type, url });
}

const bearer = { name: 'Authorization', value: 'Bearer tok-ÄÖ-123' };

test('credential headers are named by the issue\'s list and by parts of their names', () => {
	for (const name of ['Cookie', 'Set-Cookie', 'Authorization', 'Proxy-Authorization', 'X-API-Key', 'x-goog-api-key',
		'apikey', 'X-CSRF-Token', 'X-XSRF-TOKEN', 'X-Session-Id', 'X-Amz-Security-Token', 'X-Client-Secret',
		'X-Auth-Token', 'X-Access-Key', 'X-Password'])
		assert.ok(secretHeader(name), name);
	for (const name of ['Accept', 'Content-Type', 'Content-Length', 'Cache-Control', 'User-Agent', 'Referer'])
		assert.ok(!secretHeader(name), name);
});

test('a credential is shown as its length in bytes unless revealed', () => {
	const log = new NetworkLog(noDebugger);
	log.act(1, 'alice');
	request(1, 'https://bank.test/api/balance', {
		requestHeaders: [bearer, { name: 'Accept', value: 'application/json' }],
		responseHeaders: [{ name: 'Set-Cookie', value: 'sid=s3cr3t; HttpOnly' }],
	});
	const [record] = log.list(1, 'alice');
	assert.deepEqual(shownHeaders(record.request_headers, false), [
		{ name: 'Authorization', value: withheld(Buffer.byteLength(bearer.value)) },
		{ name: 'Accept', value: 'application/json' },
	]);
	assert.equal(withheld(20), '[withheld: 20 bytes]');
	assert.deepEqual(shownHeaders(record.response_headers, false), [{ name: 'Set-Cookie', value: '[withheld: 20 bytes]' }]);
	assert.deepEqual(shownHeaders(record.response_headers, true), [{ name: 'Set-Cookie', value: 'sid=s3cr3t; HttpOnly' }]);
});

test('a request that carried or received credentials, or whose headers were not seen, has its body withheld', () => {
	const plain = { request_headers: [{ name: 'Accept', value: '*/*' }], response_headers: [] };
	assert.equal(carriesCredentials(plain), false);
	assert.equal(carriesCredentials({ ...plain, request_headers: [{ name: 'Cookie', value: 'a', secret: 1 }] }), true);
	assert.equal(carriesCredentials({ ...plain, response_headers: [{ name: 'Set-Cookie', value: 'a', secret: 1 }] }), true);
	assert.equal(carriesCredentials({ response_headers: [] }), true);
});

test('get_network_request withholds headers and body by default and shows them when the config reveals them', async () => {
	const body = '{"iban": "DE89 3704 0044 0532 0130 00", "balance": 1234}';
	const debuggers = { onAnyEvent: () => {}, send: async () => ({ body, base64Encoded: false }) };
	const log = new NetworkLog(debuggers);
	log.act(1, 'alice');
	request(1, 'https://bank.test/api/balance', { requestHeaders: [bearer] });
	const [record] = log.list(1, 'alice');
	record.cdp_id = 'cdp1';
	const services = { networkLog: log, debuggers, welcome: {} };
	const hidden = await networkActions.get_network_request.run({ id: record.id }, { actor: 'alice', services });
	const text = hidden.content[0].text;
	assert.ok(!text.includes('DE89') && !text.includes('tok-'), text);
	assert.match(text, /Authorization: \[withheld: 19 bytes\]/);
	assert.match(text, new RegExp(`Body: \\[withheld: ${Buffer.byteLength(body)} bytes\\].*reveal_network_secrets`));
	assert.equal(hidden.structuredContent.body, undefined);
	assert.ok(!JSON.stringify(hidden.structuredContent).includes('DE89'));

	services.welcome = { reveal_network_secrets: true };
	const shown = await networkActions.get_network_request.run({ id: record.id }, { actor: 'alice', services });
	assert.match(shown.content[0].text, /Authorization: Bearer tok-ÄÖ-123/);
	assert.equal(shown.structuredContent.body, body);
});

test('nothing is recorded until someone acts in the tab, and only those who acted may read it', () => {
	const log = new NetworkLog(noDebugger);
	request(1, 'https://bank.test/before');
	assert.throws(() => log.list(1, 'alice'), error => error.code === ErrorCode.INVALID_ARGUMENT && /acted in the tab/.test(error.message));
	log.act(1, 'alice');
	request(1, 'https://bank.test/after');
	assert.deepEqual(log.list(1, 'alice').map(r => r.url), ['https://bank.test/after']);
	assert.throws(() => log.list(1, 'mallory'), /acted in the tab/);
	assert.throws(() => log.list(1, undefined), /acted in the tab/, 'a caller the host did not name reads nothing');
	const [record] = log.list(1, 'alice');
	assert.equal(log.get(record.id, 'mallory'), undefined);
	assert.equal(log.get(record.id, 'alice', 2), undefined, 'an id is valid only for its own tab');
	assert.equal(log.get(record.id, 'alice', 1), record);
	log.act(1, undefined);
	assert.throws(() => log.list(1, undefined), /acted in the tab/);
});

// Issue #35, finding 1: acting once in another caller's tab must not open
// that caller's past.
test('a caller sees only the requests begun after it first acted in the tab; the owner key sees them all', () => {
	const log = new NetworkLog(noDebugger);
	log.act(1, 'alice');
	request(1, 'https://bank.test/api/balance?k=alice-1');
	request(1, 'https://bank.test/api/balance?k=alice-2');
	const alicePast = log.list(1, 'alice');
	log.act(1, 'bob');
	assert.deepEqual(log.list(1, 'bob'), [], 'bob acted once: none of alice\'s earlier requests');
	for (const record of alicePast) {
		assert.equal(log.get(record.id, 'bob'), undefined, 'nor by id');
		assert.equal(log.get(record.id, 'bob', 1), undefined);
		assert.throws(() => log.list(1, 'bob', { since: record.id }), /has no request/);
	}
	request(1, 'https://bank.test/api/balance?k=later');
	log.act(1, 'bob');
	request(1, 'https://bank.test/api/balance?k=after-bob-again');
	assert.deepEqual(log.list(1, 'bob').map(r => r.url),
	    ['https://bank.test/api/balance?k=later', 'https://bank.test/api/balance?k=after-bob-again'],
	    'what began after bob first acted, whoever caused it; acting again opens nothing older');
	assert.equal(log.list(1, 'alice').length, 4);
	assert.equal(log.list(1, 'owner-session', { ownerKey: true }).length, 4);
	assert.equal(log.get(alicePast[0].id, 'owner-session', 1, true), alicePast[0]);
});

test('a caller that opens a tab another caller recorded gets none of its past', () => {
	const log = new NetworkLog(noDebugger);
	log.act(7, 'alice');
	request(7, 'https://bank.test/alice-only');
	const opening = log.opening('bob');
	request(7, 'https://bank.test/meanwhile');
	opening.opened(7);
	opening.done();
	assert.deepEqual(log.list(7, 'bob'), []);
	assert.equal(log.list(7, 'alice').length, 2);
});

test('request ids are random, not a counter', () => {
	const log = new NetworkLog(noDebugger);
	log.act(1, 'alice');
	for (let i = 0; i < 50; i++)
		request(1, `https://bank.test/${i}`);
	const ids = log.list(1, 'alice').map(r => r.id);
	assert.equal(new Set(ids).size, ids.length);
	for (const id of ids)
		assert.match(id, /^n[A-Za-z0-9_-]{12}$/);
	for (const guess of ['n1', 'n2', 'n50', 'n51'])
		assert.equal(log.get(guess, 'alice'), undefined);
	assert.deepEqual(log.list(1, 'alice', { since: ids[47] }).map(r => r.id), ids.slice(48));
	assert.throws(() => log.list(1, 'alice', { since: 'n3' }), /has no request n3/);
});

test('a tab a tool opens is recorded from its first load; other tabs meanwhile are not', () => {
	const log = new NetworkLog(noDebugger);
	const opening = log.opening('alice');
	request(7, 'https://bank.test/', { type: 'main_frame' });
	request(3, 'https://person.test/private', { type: 'main_frame' });
	opening.opened(7);
	opening.done();
	request(7, 'https://bank.test/app.js');
	assert.deepEqual(log.list(7, 'alice').map(r => r.url), ['https://bank.test/', 'https://bank.test/app.js']);
	assert.equal(log.tabs.has(3), false);
	assert.equal(log.unclaimed.size, 0);
	assert.equal(log.byRequest.size, 2, 'the other tab\'s request was forgotten');
	request(3, 'https://person.test/later');
	assert.equal(log.tabs.has(3), false);
});

test('a filter is a substring or a glob; a regex or a long filter is refused at once', () => {
	assert.ok(urlMatcher('/api/')('https://shop.test/api/orders'));
	assert.ok(!urlMatcher('/api/')('https://shop.test/apx/orders'));
	assert.ok(urlMatcher('/api/*/items')('https://shop.test/api/orders/4711/items?x=1'));
	assert.ok(!urlMatcher('/api/*/items')('https://shop.test/items/api/'));
	assert.ok(urlMatcher('*')('https://any.test/'));
	assert.ok(urlMatcher('a*a*a*a*a*a*a*a*a*a*a*a*b')(`https://x.test/${'a'.repeat(27)}b`));
	assert.ok(!urlMatcher('a*a*a*a*a*a*a*a*a*a*a*a*b')(`https://x.test/${'a'.repeat(10000)}`));
	assert.ok(urlMatcher('/static/js')('https://shop.test/static/js/app.js'), 'a path between slashes is a substring');
	for (const filter of ['/(a+)+$/', '/^https:.*api/i', '/a|b/']) {
		assert.throws(() => urlMatcher(filter), error => error.code === ErrorCode.INVALID_ARGUMENT &&
		    /regular expression.*Pass a part of the URL, with \* for any run of characters/.test(error.message));
	}
	assert.doesNotThrow(() => urlMatcher('x'.repeat(FILTER_MAX)));
	assert.throws(() => urlMatcher('x'.repeat(FILTER_MAX + 1)), error => error.code === ErrorCode.INVALID_ARGUMENT &&
	    new RegExp(`at most ${FILTER_MAX}.*shorter part of the URL`).test(error.message));
});

// The dispatcher with the network log and two tab actions, one read-only.
function dispatcherWithLog() {
	const log = new NetworkLog(noDebugger);
	const dispatcher = new Dispatcher({
		refs: { resolve: () => ({ status: 'unknown', ref: null }) },
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		networkLog: log,
		welcome: { catalogue: [
			{ name: 'peek', method: 'peek', annotations: { readOnlyHint: true } },
			{ name: 'poke', method: 'poke', annotations: { readOnlyHint: false } },
			{ name: 'list_network_requests', method: 'list_network_requests', annotations: { readOnlyHint: true } },
			{ name: 'get_network_request', method: 'get_network_request', annotations: { readOnlyHint: true } },
			{ name: 'navigate_to', method: 'navigate_to', annotations: { readOnlyHint: false } },
		] },
	});
	const done = async () => ({ content: [] });
	dispatcher.register({
		peek: { run: done }, poke: { run: done }, list_network_requests: networkActions.list_network_requests,
		get_network_request: networkActions.get_network_request,
		navigate_to: { ...navigationActions.navigate_to, run: done },
	});
	return { dispatcher, log };
}

const as = caller => ({ signal: new AbortController().signal, deadline: Date.now() + 60000, progress: () => {}, caller });

test('reading a tab, or asking for its requests, never starts recording it; acting does, for the actor only', async () => {
	const { dispatcher, log } = dispatcherWithLog();
	await dispatcher.dispatch('peek', { tab_id: 1 }, as('alice'));
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('alice')), /acted in the tab/);
	assert.equal(log.tabs.has(1), false);
	await dispatcher.dispatch('poke', { tab_id: 1 }, as('alice'));
	request(1, 'https://bank.test/api/balance', { requestHeaders: [bearer] });
	const listed = await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('alice'));
	assert.equal(listed.structuredContent.total, 1);
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('mallory')), /acted in the tab/);
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as(undefined)), /acted in the tab/);
});

// Issue #25: the owner key (the host's `owner: true`) reads every tab some
// caller acted in; an OAuth client reads only the tabs it acted in itself.
test('the owner key reads the requests of every tab a caller acted in, list and get; other callers do not', async () => {
	const { dispatcher } = dispatcherWithLog();
	await dispatcher.dispatch('poke', { tab_id: 1 }, as('alice'));
	request(1, 'https://bank.test/api/balance', { requestHeaders: [bearer] });
	const [record] = (await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('alice'))).structuredContent.requests;
	const owner = { ...as('owner-session'), ownerKey: true };
	const listed = await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, owner);
	assert.deepEqual(listed.structuredContent.requests.map(r => r.id), [record.id]);
	const got = await dispatcher.dispatch('get_network_request', { id: record.id }, owner);
	assert.match(got.content[0].text, /bank\.test\/api\/balance/);
	await assert.rejects(dispatcher.dispatch('get_network_request', { id: record.id }, as('bob')), /There is no request/);
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 1 }, { ...as('bob'), ownerKey: false }), /acted in the tab/);
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 2 }, owner), /acted in the tab/,
	    'a tab nobody acted in is not recorded, for the owner key either');
});

test('a caller that scrolls another caller\'s tab lists none of its earlier requests, and its later ones', async () => {
	const { dispatcher } = dispatcherWithLog();
	await dispatcher.dispatch('poke', { tab_id: 1 }, as('alice'));
	request(1, 'https://bank.test/api/balance?k=secret');
	await dispatcher.dispatch('poke', { tab_id: 1 }, as('bob'));
	const none = await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('bob'));
	assert.equal(none.structuredContent.total, 0, none.content[0].text);
	const [past] = (await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('alice'))).structuredContent.requests;
	await assert.rejects(dispatcher.dispatch('get_network_request', { id: past.id }, as('bob')), /There is no request/);
	request(1, 'https://bank.test/api/balance?k=later');
	const later = await dispatcher.dispatch('list_network_requests', { tab_id: 1 }, as('bob'));
	assert.deepEqual(later.structuredContent.requests.map(r => r.url), ['https://bank.test/api/balance?k=later']);
	assert.equal(later.structuredContent.requests[0].seq, undefined, 'the order number stays inside');
});

test('navigate_to new_tab acts in the tab it opens, not in the tab in front', async () => {
	const { dispatcher, log } = dispatcherWithLog();
	await dispatcher.dispatch('navigate_to', { url: 'https://bank.test/', new_tab: true }, as('alice'));
	assert.equal(log.readable(1, 'alice'), false, 'the person\'s active tab is not recorded for the caller');
	await dispatcher.dispatch('navigate_to', { url: 'https://bank.test/' }, as('alice'));
	assert.equal(log.readable(1, 'alice'), true);
});

test('a task may read the tab it holds', async () => {
	const { dispatcher } = dispatcherWithLog();
	const owner = { kind: 'task', id: 't1', label: 'task t1' };
	const release = dispatcher.hold(2, owner);
	request(2, 'https://bank.test/task');
	const listed = await dispatcher.dispatch('list_network_requests', { tab_id: 2 }, { ...as(undefined), owner });
	assert.equal(listed.structuredContent.total, 1);
	release();
	await assert.rejects(dispatcher.dispatch('list_network_requests', { tab_id: 2 }, as('alice')), /acted in the tab/);
});

test('the agents get the network tools only when the person turned them on in the options page', async () => {
	const stored = new Map();
	const storage = { get: async key => (stored.has(key) ? { [key]: stored.get(key) } : {}) };
	const tasks = new TaskManager({
		dispatcher: registeredDispatcher(),
		evaluateEnabled: async () => false,
		networkEnabled: () => agentsNetworkEnabled(storage),
	});
	const names = async () => (await tasks.modelTools()).map(tool => tool.name);
	const off = await names();
	assert.ok(off.includes('get_browser_state'), off.join(' '));
	assert.ok(!off.includes('list_network_requests') && !off.includes('get_network_request'), off.join(' '));
	stored.set(AGENTS_NETWORK_OPTION_KEY, true);
	assert.deepEqual((await names()).filter(name => !off.includes(name)), ['list_network_requests', 'get_network_request']);
	stored.set(AGENTS_NETWORK_OPTION_KEY, 'yes');
	assert.deepEqual(await names(), off, 'only true turns them on');
});
