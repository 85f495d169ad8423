/**
 * Watches a tab's top-frame navigations (chrome.webNavigation) so actions
 * can wait for a load and report what happened. Create the watcher before
 * starting the navigation, so no event is missed.
 * @module browser/navigation
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { prepareFrames, runInPage } from './page-channel.js';
import { sleep } from '../sleep.js';

/**
 * The frames of a tab (chrome.webNavigation), each with its parent's id.
 * @param {number} tabId
 * @returns {Promise<{frameId: number, parentFrameId: number}[]>}
 */
export async function tabFrames(tabId) {
	return await chrome.webNavigation.getAllFrames({ tabId }) ?? [];
}

/** The load stages, in order. */
const STAGES = { commit: 1, domcontentloaded: 2, load: 3 };

/**
 * Words for a Chrome network error.
 * @param {string} error such as net::ERR_CONNECTION_REFUSED
 * @returns {string}
 */
export function navigationErrorAdvice(error) {
	if (/NAME_NOT_RESOLVED/.test(error))
		return 'the host name does not resolve; check the URL for typos';
	if (/CONNECTION_REFUSED/.test(error))
		return 'nothing is listening at that address; check the URL and that the server is running';
	if (/INTERNET_DISCONNECTED|NETWORK_CHANGED|ADDRESS_UNREACHABLE/.test(error))
		return 'the network is unreachable; check the connection';
	if (/CERT|SSL/.test(error))
		return 'the site\'s certificate is not trusted';
	if (/TIMED_OUT/.test(error))
		return 'the server did not answer in time';
	if (/FILE_NOT_FOUND/.test(error))
		return 'there is no such file or directory on this computer; check the path';
	if (/ACCESS_DENIED/.test(error))
		return 'the file exists but cannot be read (its permissions); check who owns it';
	if (/BLOCKED/.test(error))
		return 'the browser or a policy blocked the page';
	if (/ABORTED/.test(error))
		return 'the navigation was cancelled (another navigation or a download replaced it)';
	return 'the page could not be loaded';
}

/** Records top-frame navigation events for one tab (or a tab not yet known). */
export class NavigationWatcher {
	/** @param {number|null} tabId null to bind later with bind() */
	constructor(tabId) {
		this.tabId = tabId;
		/** @type {Array<{tabId: number, kind: string, documentId?: string, url?: string, error?: string, time: number}>} */
		this.events = [];
		this.waiters = new Set();
		/** Counts events, so a wait notices one that came while it was busy. */
		this.generation = 0;
		const record = kind => details => {
			if (details.frameId !== 0)
				return;
			this.generation++;
			this.events.push({
				tabId: details.tabId, kind, documentId: details.documentId,
				url: details.url, error: details.error, time: Date.now(),
			});
			this.wake();
		};
		this.listeners = [
			[chrome.webNavigation.onBeforeNavigate, record('start')],
			[chrome.webNavigation.onCommitted, record('commit')],
			[chrome.webNavigation.onDOMContentLoaded, record('domcontentloaded')],
			[chrome.webNavigation.onCompleted, record('load')],
			[chrome.webNavigation.onErrorOccurred, record('error')],
			[chrome.webNavigation.onHistoryStateUpdated, record('same')],
			[chrome.webNavigation.onReferenceFragmentUpdated, record('same')],
			[chrome.tabs.onRemoved, tabId => {
				this.generation++;
				this.events.push({ tabId, kind: 'removed', time: Date.now() });
				this.wake();
			}],
		];
		for (const [event, listener] of this.listeners)
			event.addListener(listener);
	}

	/** @param {number} tabId the tab to watch, once known */
	bind(tabId) {
		this.tabId = tabId;
		this.wake();
	}

	/** Wakes every waiter to re-check. */
	wake() {
		for (const waiter of this.waiters)
			waiter();
	}

	/** @returns {Array<object>} this tab's events */
	mine() {
		return this.events.filter(e => e.tabId === this.tabId);
	}

	/** Whether a top-frame navigation started (or happened within the document). */
	get started() {
		return this.mine().some(e => e.kind === 'start' || e.kind === 'commit' || e.kind === 'same');
	}

	/**
	 * Where the latest navigation stands.
	 * @returns {{stage: number, documentId?: string, url?: string, same: boolean, error?: string, removed: boolean, pending: boolean}}
	 */
	status() {
		const events = this.mine();
		const status = { stage: 0, same: false, removed: false, pending: false };
		let lastCommit = null;
		for (const e of events) {
			switch (e.kind) {
			case 'removed':
				status.removed = true;
				break;
			case 'start':
				status.pending = true;
				status.error = undefined;
				status.url = e.url;
				break;
			case 'commit':
				lastCommit = e;
				status.pending = false;
				status.same = false;
				status.stage = STAGES.commit;
				status.documentId = e.documentId;
				status.url = e.url;
				break;
			case 'domcontentloaded':
			case 'load':
				if (lastCommit !== null && e.documentId === lastCommit.documentId)
					status.stage = Math.max(status.stage, STAGES[e.kind]);
				break;
			case 'same':
				if (!status.pending) {
					status.same = true;
					status.stage = STAGES.load;
					status.url = e.url;
				}
				break;
			case 'error':
				/*
				 * Starting a navigation aborts the load of the page before
				 * it (net::ERR_ABORTED for the old URL): not our failure.
				 */
				if (status.pending && /ERR_ABORTED/.test(e.error ?? '') && e.url !== status.url)
					break;
				status.pending = false;
				status.error = e.error;
				status.url = e.url ?? status.url;
				break;
			default:
				break;
			}
		}
		return status;
	}

	/**
	 * Waits until the latest navigation reaches a stage.
	 * @param {'commit'|'domcontentloaded'|'load'} until
	 * @param {object} options
	 * @param {AbortSignal} [options.signal]
	 * @param {number} options.deadline Date.now() value
	 * @param {(documentId: string) => Promise<string|null>} [options.readyState] reads the document's readyState (for pages restored from the back-forward cache, which fire no load events)
	 * @param {string} [options.what] what is being waited for, for the timeout message
	 * @param {() => Promise<void>} [options.prepare] readies the new document once it has
	 *   committed, while it loads; waited for before the wait ends
	 * @returns {Promise<ReturnType<NavigationWatcher['status']>>}
	 * @throws {BridgeError} NAVIGATION_FAILED, TIMEOUT or TAB_NOT_FOUND
	 */
	async waitFor(until, { signal, deadline, readyState, prepare, what = 'the page' }) {
		const goal = STAGES[until];
		let lastPoll = 0;
		let prepared = null;
		let preparing = Promise.resolve();
		/* Readies the document once (see prepare); the wait ends when it is ready. */
		const ready = async s => {
			if (prepare !== undefined && !s.same && s.documentId !== undefined && s.documentId !== prepared) {
				prepared = s.documentId;
				preparing = prepare();
			}
			await preparing;
			return s;
		};
		for (;;) {
			signal?.throwIfAborted();
			const seen = this.generation;
			const s = this.status();
			if (s.removed)
				throw new BridgeError(ErrorCode.TAB_NOT_FOUND, `Tab ${this.tabId} was closed while ${what} was loading.`);
			if (s.error !== undefined && !s.pending)
				throw new BridgeError(ErrorCode.NAVIGATION_FAILED,
				    `${s.url ?? 'The page'} did not load: ${s.error} (${navigationErrorAdvice(s.error)}).`);
			if (!s.pending && s.stage >= STAGES.commit)
				void ready(s);	/* committed: ready it while it loads */
			if (!s.pending && s.stage >= goal)
				return ready(s);
			const now = Date.now();
			if (now >= deadline) {
				const where = s.pending ? 'the request had not been answered' :
				    s.stage === 0 ? 'the navigation had not started' :
				    s.stage === STAGES.commit ? 'the page had started but DOMContentLoaded had not fired' :
				    'DOMContentLoaded had fired but the load event had not';
				throw new BridgeError(ErrorCode.TIMEOUT,
				    `${what} did not reach "${until}" in time: ${where}. ` +
				    'Call get_browser_state to see what loaded, or retry with a larger timeout_ms or wait_until "domcontentloaded".');
			}
			/* Pages restored from the back-forward cache fire no load events: ask the page. */
			if (readyState !== undefined && !s.pending && s.stage >= STAGES.commit &&
			    s.documentId !== undefined && now - lastPoll >= 250) {
				lastPoll = now;
				const state = await readyState(s.documentId).catch(() => null);
				if (state === 'complete' || (state === 'interactive' && goal <= STAGES.domcontentloaded))
					return ready(s);
			}
			/* An event that came while we asked the page woke nobody: look again now. */
			if (this.generation !== seen)
				continue;
			await new Promise(resolve => {
				const done = () => {
					clearTimeout(timer);
					this.waiters.delete(done);
					signal?.removeEventListener('abort', done);
					resolve();
				};
				const timer = setTimeout(done, Math.min(100, Math.max(deadline - Date.now(), 1)));
				this.waiters.add(done);
				signal?.addEventListener('abort', done, { once: true });
			});
		}
	}

	/** Removes the listeners. */
	dispose() {
		for (const [event, listener] of this.listeners)
			event.removeListener(listener);
		this.waiters.clear();
	}
}

/** How long a page has to tell its readyState before the tab's status answers. */
const READY_STATE_ANSWER_MS = 1000;

/**
 * Reads a document's readyState (for NavigationWatcher.waitFor). Pages no
 * script may run in (extension pages, the browser's own) and pages too busy
 * to answer are judged by the tab's loading status instead; a document
 * that is gone has none (null).
 * @param {number} tabId
 * @returns {(documentId: string) => Promise<string|null>}
 */
export function readyStateReader(tabId) {
	return async documentId => {
		try {
			const [answer] = await runInPage({ id: tabId }, { documentIds: [documentId] }, () => document.readyState, [],
			    { needs: [], timeoutMs: READY_STATE_ANSWER_MS });
			return answer?.result ?? null;
		} catch {
			const tab = await chrome.tabs.get(tabId);
			return tab.status === 'complete' ? 'complete' : null;
		}
	};
}

/** How long injecting the in-page script into a committed page may hold a navigation's answer. */
const PREPARE_ANSWER_MS = 1000;

/**
 * Readies a tab's new page for the calls that follow a navigation (for
 * NavigationWatcher.waitFor): injects the in-page script into its frames.
 * @param {number} tabId
 * @returns {() => Promise<void>}
 */
export function pagePreparer(tabId) {
	return () => prepareFrames({ id: tabId }, PREPARE_ANSWER_MS);
}

export { sleep };
