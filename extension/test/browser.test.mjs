// The browser-facing helpers whose logic is subtle, against a fake chrome
// object: navigation waits, network idle, the debugger pool.

import { test, beforeEach, mock } from 'node:test';
import assert from 'node:assert/strict';

// A chrome.* event: addListener, removeListener, and emit for the test.
function event() {
	const listeners = new Set();
	return {
		addListener: fn => listeners.add(fn),
		removeListener: fn => listeners.delete(fn),
		emit: (...args) => { for (const fn of [...listeners]) fn(...args); },
		get size() { return listeners.size; },
	};
}

let debuggerAttach;
let debuggerSend;
beforeEach(() => {
	globalThis.chrome = {
		webNavigation: {
			onBeforeNavigate: event(), onCommitted: event(), onDOMContentLoaded: event(),
			onCompleted: event(), onErrorOccurred: event(), onHistoryStateUpdated: event(),
			onReferenceFragmentUpdated: event(),
		},
		webRequest: { onBeforeRequest: event(), onCompleted: event(), onErrorOccurred: event() },
		tabs: { onRemoved: event(), onCreated: event() },
		debugger: {
			onDetach: event(),
			onEvent: event(),
			attach: (...args) => debuggerAttach(...args),
			detach: async () => {},
			sendCommand: (...args) => debuggerSend(...args),
		},
	};
});

const { NavigationWatcher } = await import('../src/browser/navigation.js');
const { NetworkTracker, NETWORK_IDLE_MS } = await import('../src/browser/network.js');
const { DebuggerPool, DebuggerUnavailable, DialogOpened } = await import('../src/browser/debugger.js');

const nav = () => chrome.webNavigation;
const later = ms => new Promise(resolve => setTimeout(resolve, ms));

test('waitFor load resolves on the load event of the document that committed', async () => {
	const w = new NavigationWatcher(5);
	const done = w.waitFor('load', { deadline: Date.now() + 2000 });
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://a/' });
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://a/', documentId: 'D1' });
	nav().onCompleted.emit({ tabId: 5, frameId: 0, documentId: 'OLD' });	/* another document: ignored */
	nav().onCompleted.emit({ tabId: 6, frameId: 0, documentId: 'D1' });	/* another tab: ignored */
	nav().onCompleted.emit({ tabId: 5, frameId: 3, documentId: 'D1' });	/* a subframe: ignored */
	await later(20);
	assert.equal(w.status().stage, 1);
	nav().onDOMContentLoaded.emit({ tabId: 5, frameId: 0, documentId: 'D1' });
	nav().onCompleted.emit({ tabId: 5, frameId: 0, documentId: 'D1' });
	const status = await done;
	assert.equal(status.documentId, 'D1');
	assert.equal(status.url, 'http://a/');
	w.dispose();
	assert.equal(nav().onCommitted.size, 0, 'dispose removes the listeners');
});

test('a load event that fires while the page\'s readyState is asked for is not missed', async () => {
	// No timer may run: if the wait slept on one, it would hang here.
	mock.timers.enable({ apis: ['setTimeout'] });
	try {
		const w = new NavigationWatcher(5);
		nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://a/' });
		nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://a/', documentId: 'D1' });
		let asked = 0;
		const readyState = async () => {
			asked++;
			nav().onCompleted.emit({ tabId: 5, frameId: 0, documentId: 'D1' });	/* the race */
			return 'loading';
		};
		let resolved = null;
		w.waitFor('load', { deadline: Date.now() + 60000, readyState }).then(status => { resolved = status; });
		for (let i = 0; i < 20 && resolved === null; i++)
			await Promise.resolve();
		assert.equal(asked, 1);
		assert.notEqual(resolved, null, 'the wait saw the load event without sleeping on a timer');
		assert.equal(resolved.documentId, 'D1');
		w.dispose();
	} finally {
		mock.timers.reset();
	}
});

test('a navigation wait readies the new document once, when it commits, and ends only when it is ready', async () => {
	const w = new NavigationWatcher(5);
	const prepared = [];
	let finishPreparing;
	const prepare = () => {
		prepared.push(w.status().documentId);
		return new Promise(resolve => { finishPreparing = resolve; });
	};
	let resolved = null;
	w.waitFor('load', { deadline: Date.now() + 2000, prepare }).then(status => { resolved = status; });
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://a/' });
	await later(10);
	assert.deepEqual(prepared, [], 'not before the new document exists');
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://a/', documentId: 'D1' });
	await later(10);
	assert.deepEqual(prepared, ['D1'], 'at the commit, while the page loads');
	nav().onDOMContentLoaded.emit({ tabId: 5, frameId: 0, documentId: 'D1' });
	nav().onCompleted.emit({ tabId: 5, frameId: 0, documentId: 'D1' });
	await later(10);
	assert.equal(resolved, null, 'the wait does not end before the document is ready');
	finishPreparing();
	await later(10);
	assert.equal(resolved?.documentId, 'D1');
	assert.deepEqual(prepared, ['D1'], 'once per document');
	w.dispose();
});

test('a page whose readyState answers before the load event reaches us is readied before the wait ends', async () => {
	const w = new NavigationWatcher(5);
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://a/' });
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://a/', documentId: 'D1' });
	let prepared = 0;
	let finishPreparing;
	const prepare = () => {
		prepared++;
		return new Promise(resolve => { finishPreparing = resolve; });
	};
	let resolved = null;
	w.waitFor('load', { deadline: Date.now() + 2000, readyState: async () => 'complete', prepare })
	    .then(status => { resolved = status; });
	await later(20);
	assert.equal(prepared, 1);
	assert.equal(resolved, null, 'the page said complete, but its script is not there yet');
	finishPreparing();
	await later(10);
	assert.equal(resolved?.documentId, 'D1');
	assert.equal(prepared, 1, 'once per document');
	w.dispose();
});

test('the old page\'s aborted load does not fail the new navigation', async () => {
	const w = new NavigationWatcher(5);
	const done = w.waitFor('domcontentloaded', { deadline: Date.now() + 2000 });
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://new/' });
	nav().onErrorOccurred.emit({ tabId: 5, frameId: 0, url: 'http://old/', error: 'net::ERR_ABORTED' });
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://new/', documentId: 'N' });
	nav().onDOMContentLoaded.emit({ tabId: 5, frameId: 0, documentId: 'N' });
	assert.equal((await done).url, 'http://new/');
	w.dispose();
});

test('a network error fails the wait with NAVIGATION_FAILED and advice', async () => {
	const w = new NavigationWatcher(5);
	const done = w.waitFor('load', { deadline: Date.now() + 2000 });
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://x/' });
	nav().onErrorOccurred.emit({ tabId: 5, frameId: 0, url: 'http://x/', error: 'net::ERR_NAME_NOT_RESOLVED' });
	await assert.rejects(done, error => error.code === 'NAVIGATION_FAILED' &&
	    /http:\/\/x\/ did not load: net::ERR_NAME_NOT_RESOLVED \(.*typos\)/.test(error.message));
	w.dispose();
});

test('same-document navigations count as loaded', async () => {
	const w = new NavigationWatcher(5);
	const done = w.waitFor('load', { deadline: Date.now() + 2000 });
	nav().onHistoryStateUpdated.emit({ tabId: 5, frameId: 0, url: 'http://a/spa/about' });
	const status = await done;
	assert.equal(status.same, true);
	assert.equal(w.started, true);
	w.dispose();
});

test('a wait that runs out says how far the page got; a closed tab is TAB_NOT_FOUND', async () => {
	const w = new NavigationWatcher(5);
	nav().onBeforeNavigate.emit({ tabId: 5, frameId: 0, url: 'http://slow/' });
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://slow/', documentId: 'S' });
	await assert.rejects(w.waitFor('load', { deadline: Date.now() + 150, what: 'http://slow/' }),
	    error => error.code === 'TIMEOUT' && /DOMContentLoaded had not fired/.test(error.message));
	const closed = w.waitFor('load', { deadline: Date.now() + 2000 });
	chrome.tabs.onRemoved.emit(5);
	await assert.rejects(closed, error => error.code === 'TAB_NOT_FOUND');
	w.dispose();
});

test('pages restored from the back-forward cache are caught by polling readyState', async () => {
	const w = new NavigationWatcher(5);
	const asked = [];
	const done = w.waitFor('load', {
		deadline: Date.now() + 2000,
		readyState: async documentId => { asked.push(documentId); return 'complete'; },
	});
	nav().onCommitted.emit({ tabId: 5, frameId: 0, url: 'http://cached/', documentId: 'C' });
	await done;
	assert.deepEqual(asked, ['C']);
	w.dispose();
});

test('a watcher made before its tab exists binds to it later', async () => {
	const w = new NavigationWatcher(null);
	nav().onCommitted.emit({ tabId: 9, frameId: 0, url: 'http://n/', documentId: 'N' });
	nav().onCompleted.emit({ tabId: 9, frameId: 0, documentId: 'N' });
	w.bind(9);
	assert.equal((await w.waitFor('load', { deadline: Date.now() + 500 })).documentId, 'N');
	w.dispose();
});

test('an aborted signal stops the wait at once', async () => {
	const w = new NavigationWatcher(5);
	const controller = new AbortController();
	const done = w.waitFor('load', { deadline: Date.now() + 5000, signal: controller.signal });
	controller.abort(new Error('cancelled'));
	await assert.rejects(done, /cancelled/);
	w.dispose();
});

test('network idle waits until no request has been in flight for the idle time', async () => {
	const t = new NetworkTracker();
	const req = chrome.webRequest;
	req.onBeforeRequest.emit({ tabId: 2, requestId: 'r1', type: 'script' });
	const start = Date.now();
	const idle = t.waitIdle(2, { deadline: Date.now() + 3000 });
	setTimeout(() => req.onCompleted.emit({ tabId: 2, requestId: 'r1', type: 'script', url: 'u' }), 200);
	await idle;
	assert.ok(Date.now() - start >= 200 + NETWORK_IDLE_MS - 20, `idle after ${Date.now() - start} ms`);
	req.onBeforeRequest.emit({ tabId: 2, requestId: 'r2', type: 'xhr' });
	await assert.rejects(t.waitIdle(2, { deadline: Date.now() + 200 }),
	    error => error.code === 'TIMEOUT' && /1 request\(s\) still open/.test(error.message));
	/* A new page drops what the old one was still loading. */
	req.onBeforeRequest.emit({ tabId: 2, requestId: 'main', type: 'main_frame' });
	req.onCompleted.emit({ tabId: 2, requestId: 'main', type: 'main_frame', url: 'http://p/', statusCode: 404 });
	assert.equal(t.statusFor(2, 'http://p/'), 404);
	assert.equal(t.statusFor(2, 'http://other/'), undefined);
	await t.waitIdle(2, { deadline: Date.now() + 2000 });
});

test('the debugger pool attaches once, and reports a tab held by another debugger', async () => {
	let attaches = 0;
	debuggerAttach = async () => { attaches++; };
	debuggerSend = async (target, method) => ({ method, tabId: target.tabId });
	const pool = new DebuggerPool();
	assert.deepEqual(await pool.send(3, 'Input.dispatchMouseEvent'), { method: 'Input.dispatchMouseEvent', tabId: 3 });
	await pool.send(3, 'Input.dispatchKeyEvent');
	assert.equal(attaches, 1);
	await pool.detach(3);
	debuggerAttach = async () => { throw new Error('Another debugger is already attached to the tab with id: 4.'); };
	await assert.rejects(pool.send(4, 'X'), error => error instanceof DebuggerUnavailable && /DevTools/.test(error.message));
});

test('after the user closes the debugging bar the pool leaves the tab alone', async () => {
	debuggerAttach = async () => {};
	debuggerSend = async () => { throw new Error('Debugger is not attached to the tab with id: 7.'); };
	const pool = new DebuggerPool();
	await pool.attach(7);
	chrome.debugger.onDetach.emit({ tabId: 7 }, 'canceled_by_user');
	await assert.rejects(pool.send(7, 'X'), error => error instanceof DebuggerUnavailable && /debugging bar/.test(error.message));
	chrome.tabs.onRemoved.emit(7);
	await pool.attach(7);
	for (const entry of pool.tabs.values())
		clearTimeout(entry.timer);
});

test('a dialog cuts short the commands the blocked page leaves hanging, and later ones until it closes', async () => {
	debuggerAttach = async () => {};
	const sent = [];
	debuggerSend = (target, method, params) => {
		sent.push(method);
		/* The page is blocked: input never answers; answering the dialog does. */
		return method === 'Input.dispatchMouseEvent' ? new Promise(() => {}) : Promise.resolve({});
	};
	const pool = new DebuggerPool();
	const seen = [];
	const stop = pool.onDialog(9, dialog => seen.push(dialog));
	pool.onDialog(10, () => assert.fail('a dialog of another tab was reported'));
	await pool.watchDialogs(9);
	await pool.watchDialogs(9);
	assert.deepEqual(sent, ['Network.enable', 'Page.enable'], 'attaching keeps response bodies; dialogs need Page events, once');
	const click = pool.send(9, 'Input.dispatchMouseEvent', { type: 'mouseReleased' });
	await later(10);
	chrome.debugger.onEvent.emit({ tabId: 9 }, 'Page.javascriptDialogOpening',
	    { type: 'prompt', message: 'Name?', defaultPrompt: 'Ada', url: 'http://a/' });
	await assert.rejects(click, error => error instanceof DialogOpened && error.dialog.type === 'prompt');
	assert.deepEqual(seen, [{ type: 'prompt', message: 'Name?', default_prompt: 'Ada', url: 'http://a/' }]);
	await assert.rejects(pool.send(9, 'Runtime.evaluate'), DialogOpened);
	await pool.send(9, 'Page.handleJavaScriptDialog', { accept: true });
	chrome.debugger.onEvent.emit({ tabId: 9 }, 'Page.javascriptDialogClosed', { result: true });
	assert.equal(pool.dialogs.has(9), false);
	assert.deepEqual(await pool.send(9, 'Runtime.evaluate'), {});
	stop();
	assert.equal(pool.dialogWaiters.size, 1);
	for (const entry of pool.tabs.values())
		clearTimeout(entry.timer);
});

test('waitRequestsSince waits for the requests an action started, not older ones, up to its deadline', async () => {
	const net = new NetworkTracker();
	const req = (requestId, type = 'xmlhttprequest') => ({ tabId: 3, requestId, type, url: `http://a/${requestId}` });
	chrome.webRequest.onBeforeRequest.emit(req('old'));	/* a long poll from before the action */
	await later(5);
	const since = Date.now();
	chrome.webRequest.onBeforeRequest.emit(req('mine'));
	const waiting = net.waitRequestsSince(3, since, { deadline: Date.now() + 5000 });
	setTimeout(() => chrome.webRequest.onCompleted.emit(req('mine')), 30);
	assert.equal(await waiting, 0, 'done once the action\'s own request ended; the old one is not waited for');
	chrome.webRequest.onBeforeRequest.emit(req('slow'));
	assert.equal(await net.waitRequestsSince(3, since, { deadline: Date.now() + 50 }), 1, 'the deadline ends the wait, saying one is open');
});

test('finishedSince lists a document\'s answered requests since a moment, by the URL asked for, of the kinds Resource Timing lists', async () => {
	const net = new NetworkTracker();
	const req = (requestId, more = {}) => ({ tabId: 3, requestId, type: 'xmlhttprequest', url: `http://a/${requestId}`,
		frameId: 0, documentId: 'D1', ...more });
	chrome.webRequest.onBeforeRequest.emit(req('old'));
	chrome.webRequest.onCompleted.emit(req('old'));
	await later(5);
	const since = Date.now();
	for (const [id, more] of [['api'], ['chunk', { type: 'script' }], ['other-doc', { documentId: 'D2' }], ['failed'], ['open'],
		['frame', { type: 'sub_frame' }], ['moved']])
		chrome.webRequest.onBeforeRequest.emit(req(id, more));
	chrome.webRequest.onCompleted.emit(req('api'));
	chrome.webRequest.onCompleted.emit(req('chunk', { type: 'script' }));
	chrome.webRequest.onCompleted.emit(req('other-doc', { documentId: 'D2' }));
	chrome.webRequest.onErrorOccurred.emit(req('failed'));
	chrome.webRequest.onCompleted.emit(req('frame', { type: 'sub_frame' }));
	chrome.webRequest.onCompleted.emit(req('moved', { url: 'http://a/after-redirect' }));
	assert.deepEqual(net.finishedSince(3, since, 'D1'), ['http://a/api', 'http://a/chunk', 'http://a/moved']);
	assert.deepEqual(net.finishedSince(3, since, 'D2'), ['http://a/other-doc']);
	assert.equal(net.openSince(3, since), 1, 'the open one still counts as open');
});

test('navigate_to\'s load in an active tab that closed as the call came is ActiveTabGone; in a named tab, Chrome\'s error', async () => {
	const { startLoading } = await import('../src/actions/navigation.js');
	const { ActiveTabGone } = await import('../src/browser/tabs.js');
	const loaded = [];
	chrome.tabs.update = async (tabId, { url }) => {
		if (tabId === 5)
			throw new Error('No tab with id: 5.');
		if (tabId === 6)
			throw new Error('Cannot access contents of the page.');
		loaded.push([tabId, url]);
	};
	await startLoading({ id: 7 }, true, 'http://a/');
	assert.deepEqual(loaded, [[7, 'http://a/']]);
	await assert.rejects(startLoading({ id: 5 }, true, 'http://a/'), error => {
		assert.ok(error instanceof ActiveTabGone);
		assert.equal(error.code, 'TAB_NOT_FOUND');
		assert.match(error.message, /^The active tab \(5\) closed as the call came\. Call manage_tabs/);
		return true;
	});
	await assert.rejects(startLoading({ id: 5 }, false, 'http://a/'), error => !(error instanceof ActiveTabGone) &&
	    /No tab with id: 5/.test(error.message), 'a tab the caller named stays its choice');
	await assert.rejects(startLoading({ id: 6 }, true, 'http://a/'), /Cannot access/, 'only a vanished tab is ActiveTabGone');
});
