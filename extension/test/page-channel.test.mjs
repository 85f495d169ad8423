// The page channel (src/browser/page-channel.js) against a fake
// chrome.scripting that keeps, per frame, the document it shows and the
// globals the injected files defined there: injection once per document,
// the scripts a call needs, gone documents and swapped frames, timeouts,
// the errors the agent sees, and the settle after a load asking for a warm-up.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

const {
	IN_PAGE_SCRIPT, READABILITY, callInDocument, callInPage, callOnElement, prepareFrames, runInPage, runOnElement,
} = await import('../src/browser/page-channel.js');
const { OutcomeObserver, settleLoadedPage } = await import('../src/browser/outcome.js');

const TAB = { id: 7, url: 'http://shop.test/' };

// The global each file defines when it runs; the in-page script's API
// answers `echo` with its arguments and the document it runs in.
function definitionsOf(file, documentId) {
	if (file === IN_PAGE_SCRIPT.files.at(-1))
		return { [IN_PAGE_SCRIPT.global]: {
			echo: (...args) => ({ documentId, args }), element: id => (id === 1 ? { id } : null),
			watchStart: warm => { watchesStarted.push(warm); return watchesStarted.length; },
			watchQuiet: () => ({ quiet: true, count: 0, elapsed: 0 }),
		} };
	if (file === READABILITY.files[0])
		return { [READABILITY.global]: function Readability() {} };
	return {};
}

let frames;	// frameId -> {documentId, globals}
let calls;	// what executeScript was asked, in order
let failNext;	// a function that may throw instead of the next call, once
let watchesStarted;	// the argument of each watchStart the pages were asked

// Runs a page function as if in the frame: its globals are on globalThis meanwhile.
function runIn(frame, func, args) {
	const names = Object.keys(frame.globals);
	Object.assign(globalThis, frame.globals);
	try {
		return func(...args);
	} finally {
		for (const name of names)
			delete globalThis[name];
	}
}

// The frames a chrome.scripting target names; unknown documents throw as Chrome does.
function targeted(target) {
	if (target.allFrames)
		return [...frames.entries()];
	if (target.frameIds)
		return target.frameIds.map(id => [id, frames.get(id)]);
	return target.documentIds.map(documentId => {
		const found = [...frames.entries()].find(([, f]) => f.documentId === documentId);
		if (found === undefined)
			throw new Error(`No document with id ${documentId} in tab ${target.tabId}.`);
		return found;
	});
}

beforeEach(() => {
	frames = new Map([[0, { documentId: 'TOP', globals: {} }], [3, { documentId: 'CHILD', globals: {} }]]);
	calls = [];
	failNext = null;
	watchesStarted = [];
	globalThis.chrome = {
		scripting: {
			async executeScript({ target, func, args = [], files }) {
				calls.push(files !== undefined ? { files, target } : { func: func.name, target });
				if (failNext !== null) {
					const fail = failNext;
					failNext = null;
					fail();
				}
				return targeted(target).map(([frameId, frame]) => {
					if (files === undefined)
						return { frameId, documentId: frame.documentId, result: runIn(frame, func, args) };
					for (const file of files)
						Object.assign(frame.globals, definitionsOf(file, frame.documentId));
					return { frameId, documentId: frame.documentId, result: true };
				});
			},
		},
	};
});

const injections = () => calls.filter(c => c.files !== undefined);

test('the in-page script is injected into each document once, then methods are called directly', async () => {
	const first = await callInPage(TAB, { allFrames: true }, 'echo', ['a']);
	assert.deepEqual(first.map(r => [r.frameId, r.result]), [
		[0, { documentId: 'TOP', args: ['a'] }], [3, { documentId: 'CHILD', args: ['a'] }],
	]);
	assert.deepEqual(injections(), [{ files: IN_PAGE_SCRIPT.files, target: { tabId: 7, frameIds: [0, 3] } }]);

	calls = [];
	const again = await callInPage(TAB, { allFrames: true }, 'echo', ['b']);
	assert.equal(again.length, 2);
	assert.deepEqual(calls.map(c => c.func), ['callMethod'], 'one call, no injection');

	/* A frame that navigated shows a new document, which gets the script (named by frame, as the caller did). */
	frames.set(3, { documentId: 'CHILD2', globals: {} });
	calls = [];
	const after = await callInPage(TAB, { allFrames: true }, 'echo', ['c']);
	assert.deepEqual(after.map(r => r.result.documentId), ['TOP', 'CHILD2']);
	assert.deepEqual(injections().map(c => c.target), [{ tabId: 7, frameIds: [3] }]);

	/* A caller that names a document gets it named by document. */
	frames.set(0, { documentId: 'TOP2', globals: {} });
	calls = [];
	assert.equal((await callInDocument(TAB, 'TOP2', 'echo')).documentId, 'TOP2');
	assert.deepEqual(injections().map(c => c.target), [{ tabId: 7, documentIds: ['TOP2'] }]);
});

test('prepareFrames injects into every frame without asking, so the next call needs no injection; it never fails', async () => {
	await prepareFrames(TAB, 1000);
	assert.deepEqual(calls, [{ files: IN_PAGE_SCRIPT.files, target: { tabId: 7, allFrames: true } }]);
	calls = [];
	assert.equal((await callInPage(TAB, { allFrames: true }, 'echo')).length, 2);
	assert.deepEqual(calls.map(c => c.func), ['callMethod'], 'one call, no injection');

	failNext = () => { throw new Error('Cannot access contents of the page. Extension manifest must request permission to access the respective host.'); };
	await prepareFrames(TAB, 1000);	/* resolves: the first call will say what is wrong */
});

test('runInPage injects only the scripts a document lacks, and nothing when it needs none', async () => {
	await callInPage(TAB, { frameIds: [0] }, 'echo');
	calls = [];
	const read = () => typeof globalThis.Readability;
	const [answer] = await runInPage(TAB, { frameIds: [0] }, read, [], { needs: [IN_PAGE_SCRIPT, READABILITY] });
	assert.equal(answer.result, 'function');
	assert.deepEqual(injections(), [{ files: READABILITY.files, target: { tabId: 7, frameIds: [0] } }]);

	calls = [];
	const title = () => 'plain';
	assert.equal((await runInPage(TAB, { frameIds: [3] }, title, [], { needs: [] }))[0].result, 'plain');
	assert.deepEqual(calls.map(c => c.func), ['title'], 'no probe and no injection');
});

test('a document that is gone answers nothing; one call on it answers {gone: true}', async () => {
	assert.deepEqual(await callInPage(TAB, { documentIds: ['OLD'] }, 'echo'), []);
	assert.deepEqual(await callInDocument(TAB, 'OLD', 'echo'), { gone: true });
	assert.deepEqual((await callInDocument(TAB, 'TOP', 'echo', [1])).args, [1]);
});

test('a frame whose document changed during the call is asked once more', async () => {
	failNext = () => {
		frames.set(0, { documentId: 'NEW', globals: {} });
		throw new Error('Frame with ID 0 was removed.');
	};
	const [answer] = await callInPage(TAB, { frameIds: [0] }, 'echo', ['x']);
	assert.equal(answer.result.documentId, 'NEW');
});

test('a ref whose document or element is gone is STALE_REF, and the ref expires with the reason', async () => {
	const expired = [];
	const context = element => ({
		tab: TAB, element, services: { refs: { expire: (ref, reason) => expired.push([ref, reason]) } },
	});
	const live = context({ ref: 'e1', documentId: 'TOP', localId: 1 });
	assert.deepEqual((await callOnElement(live, 'echo', ['y'])).args, [1, 'y'], 'the localId comes first');

	await assert.rejects(callOnElement(context({ ref: 'e2', documentId: 'GONE', localId: 1 }), 'echo'),
	    { code: 'STALE_REF', message: /e2 is no longer on the page: the page changed/ });
	const lookUp = id => (globalThis[IN_PAGE_SCRIPT.global].element(id) === null ? { stale: true } : { found: id });
	assert.deepEqual(await runOnElement(live, lookUp), { found: 1 });
	await assert.rejects(runOnElement(context({ ref: 'e3', documentId: 'TOP', localId: 9 }), lookUp),
	    { code: 'STALE_REF', message: /e3 is no longer on the page: it was removed from the page/ });
	assert.deepEqual(expired.map(([ref]) => ref), ['e2', 'e3']);
});

test('a page that does not answer in time is TIMEOUT', async () => {
	chrome.scripting.executeScript = () => new Promise(() => {});
	await assert.rejects(callInPage(TAB, { frameIds: [0] }, 'echo', [], { timeoutMs: 5 }),
	    { code: 'TIMEOUT', message: /tab 7 did not answer within 5 ms/ });
});

test('scripting failures become the codes the agent acts on', async () => {
	const failWith = text => {
		failNext = () => {
			throw new Error(text);
		};
	};
	failWith('No tab with id: 7.');
	await assert.rejects(callInPage(TAB, { frameIds: [0] }, 'echo'), { code: 'TAB_NOT_FOUND' });
	failWith('Cannot access contents of the page.');
	await assert.rejects(runInPage(TAB, { frameIds: [0] }, () => 1, [], { needs: [] }), { code: 'NOT_INTERACTABLE', message: /navigate_to/ });
	failWith('Frame with ID 0 is showing error page');
	await assert.rejects(callInPage(TAB, { frameIds: [0] }, 'echo'), { code: 'NAVIGATION_FAILED' });
	failWith('Something odd');
	await assert.rejects(callInPage(TAB, { frameIds: [0] }, 'echo'), { code: 'INTERNAL', message: /Something odd/ });
});

test('the settle after a load asks the page to warm its walk up; an action\'s watch does not', async () => {
	assert.deepEqual(await settleLoadedPage(TAB.id, { since: Date.now(), deadline: Date.now() + 1000 }), []);
	assert.deepEqual(watchesStarted, [true]);
	const event = () => ({ addListener() {}, removeListener() {} });
	chrome.tabs = { onCreated: event(), onRemoved: event() };
	chrome.webNavigation = Object.fromEntries(['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted',
	    'onErrorOccurred', 'onHistoryStateUpdated', 'onReferenceFragmentUpdated'].map(name => [name, event()]));
	await new OutcomeObserver(TAB).start();
	assert.deepEqual(watchesStarted, [true, false]);
});

test('a settle whose page answers late gives a request made at the window\'s end as long to reach the tracker, then waits for it', async () => {
	const later = ms => new Promise(resolve => setTimeout(resolve, ms));
	/*
	 * A tracker that hears of the page's request 10 ms after the page's
	 * late answer came; the request ends 40 ms after the settle starts to
	 * wait for it (not at a set time, which a busy machine could pass first).
	 */
	let open = 0;
	let quietAsked = 0;
	let waitedFor = 0;
	const network = {
		openSince: () => open,
		waitRequestsSince: async () => {
			if (open > 0) {
				waitedFor++;
				await later(40);
				open = 0;
			}
			return 0;
		},
		finishedSince: () => [],
	};
	const executeScript = chrome.scripting.executeScript;
	chrome.scripting.executeScript = async options => {
		const results = await executeScript(options);
		if (JSON.stringify(options.args ?? []).includes('watchQuiet')) {
			quietAsked++;
			if (quietAsked === 1) {
				/* Due before the settle's look after its 40 ms allowance, so it fires first however late both are. */
				setTimeout(() => { open = 1; }, 50);
				/* The answer takes 40 ms more than the page's wait to come back: a busy machine. */
				await later(40);
			}
		}
		return results;
	};
	const since = Date.now();
	assert.deepEqual(await settleLoadedPage(TAB.id, { network, since, deadline: Date.now() + 1000 }), []);
	assert.equal(quietAsked, 2, 'the request that showed late started another round');
	assert.equal(waitedFor, 1, 'which waited for it to end');
});
