/**
 * Tracks each tab's requests in flight (chrome.webRequest), for "network
 * idle" waits, the requests that finished (for settles), and the HTTP
 * status of each tab's last main-frame response.
 * @module browser/network
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { sleep } from '../sleep.js';

/** The network counts as idle after this long without requests in flight. */
export const NETWORK_IDLE_MS = 500;

/** Request types whose response the page lists in its Resource Timing (what a settle waits for it to have). */
const RESOURCE_TIMED = new Set(['xmlhttprequest', 'script', 'stylesheet', 'image', 'font', 'media']);

/** Finished requests kept per tab, newest last. */
const FINISHED_KEPT = 64;

/**
 * A request the tracker saw start.
 * @typedef {object} TrackedRequest
 * @property {string} url as asked for
 * @property {string} type webRequest's resource type
 * @property {number} [frameId]
 * @property {string} [documentId] the document that made it
 * @property {number} started Date.now() when it started
 */

/** Requests in flight per tab. */
export class NetworkTracker {
	constructor() {
		/**
		 * Per tab: the requests in flight (id -> what it is and when it
		 * started), those that finished with a response, and when the last
		 * one started or ended.
		 * @type {Map<number, {inflight: Map<string, TrackedRequest>, finished: TrackedRequest[], last: number}>}
		 */
		this.tabs = new Map();
		/** @type {Map<number, {url: string, status: number}>} */
		this.mainFrame = new Map();
		const filter = { urls: ['<all_urls>'] };
		chrome.webRequest.onBeforeRequest.addListener(d => this.started(d), filter);
		chrome.webRequest.onCompleted.addListener(d => this.ended(d, true), filter);
		chrome.webRequest.onErrorOccurred.addListener(d => this.ended(d, false), filter);
		chrome.tabs.onRemoved.addListener(tabId => {
			this.tabs.delete(tabId);
			this.mainFrame.delete(tabId);
		});
	}

	/**
	 * @param {number} tabId
	 * @returns {{inflight: Map<string, TrackedRequest>, finished: TrackedRequest[], last: number}}
	 */
	entry(tabId) {
		let entry = this.tabs.get(tabId);
		if (entry === undefined) {
			entry = { inflight: new Map(), finished: [], last: 0 };
			this.tabs.set(tabId, entry);
		}
		return entry;
	}

	/** @param {{tabId: number, requestId: string, type: string, url: string, frameId?: number, documentId?: string}} details */
	started(details) {
		if (details.tabId < 0)
			return;
		const entry = this.entry(details.tabId);
		/* A new page: what the old one still loads does not count. */
		if (details.type === 'main_frame')
			entry.inflight.clear();
		/* The URL asked for, as the page's Resource Timing names it (a redirect keeps it). */
		entry.inflight.set(details.requestId, { url: details.url, type: details.type, frameId: details.frameId,
			documentId: details.documentId, started: Date.now() });
		entry.last = Date.now();
	}

	/**
	 * @param {{tabId: number, requestId: string, type: string, url: string, statusCode?: number}} details
	 * @param {boolean} answered it ended with a response (onCompleted), not an error
	 */
	ended(details, answered) {
		if (details.tabId < 0)
			return;
		const entry = this.entry(details.tabId);
		const request = entry.inflight.get(details.requestId);
		entry.inflight.delete(details.requestId);
		entry.last = Date.now();
		if (answered && request !== undefined) {
			entry.finished.push(request);
			if (entry.finished.length > FINISHED_KEPT)
				entry.finished.shift();
		}
		if (details.type === 'main_frame' && details.statusCode !== undefined)
			this.mainFrame.set(details.tabId, { url: details.url, status: details.statusCode });
	}

	/**
	 * The URLs of a document's requests that started at or after since and
	 * ended with a response, of the kinds the page lists in its Resource
	 * Timing: a settle waits until the page has them too (settlePage), as
	 * on a busy machine a response reaches the page a while after the
	 * browser saw it end.
	 * @param {number} tabId
	 * @param {number} since Date.now() value
	 * @param {string} documentId the document (requests that name none count for the top frame)
	 * @returns {string[]}
	 */
	finishedSince(tabId, since, documentId) {
		return this.entry(tabId).finished
		    .filter(r => r.started >= since && RESOURCE_TIMED.has(r.type) &&
			(r.documentId !== undefined ? r.documentId === documentId : r.frameId === 0))
		    .map(r => r.url);
	}

	/**
	 * The status of the tab's last main-frame response for this URL, if known.
	 * @param {number} tabId
	 * @param {string} url
	 * @returns {number|undefined}
	 */
	statusFor(tabId, url) {
		const m = this.mainFrame.get(tabId);
		return m !== undefined && m.url === url ? m.status : undefined;
	}

	/**
	 * How many of the tab's requests in flight started at or after since.
	 * @param {number} tabId
	 * @param {number} since Date.now() value
	 */
	openSince(tabId, since) {
		let open = 0;
		for (const request of this.entry(tabId).inflight.values()) {
			if (request.started >= since)
				open++;
		}
		return open;
	}

	/**
	 * Waits until the requests the tab started since a moment (an action's
	 * start) have finished, or until deadline.
	 * @param {number} tabId
	 * @param {number} since Date.now() value
	 * @param {{signal?: AbortSignal, deadline: number}} options
	 * @returns {Promise<number>} how many are still open (0: all done)
	 */
	async waitRequestsSince(tabId, since, { signal, deadline }) {
		for (;;) {
			signal?.throwIfAborted();
			const open = this.openSince(tabId, since);
			if (open === 0 || Date.now() >= deadline)
				return open;
			await sleep(Math.min(20, Math.max(deadline - Date.now(), 1)), signal);
		}
	}

	/**
	 * Waits until the tab has had no request in flight for NETWORK_IDLE_MS.
	 * @param {number} tabId
	 * @param {{signal?: AbortSignal, deadline: number}} options
	 * @returns {Promise<void>}
	 * @throws {BridgeError} TIMEOUT naming how many requests are still open
	 */
	async waitIdle(tabId, { signal, deadline }) {
		let quietSince = Date.now();
		for (;;) {
			signal?.throwIfAborted();
			const entry = this.entry(tabId);
			const now = Date.now();
			if (entry.inflight.size > 0)
				quietSince = now;
			else if (now - Math.max(quietSince, entry.last) >= NETWORK_IDLE_MS)
				return;
			if (now >= deadline)
				throw new BridgeError(ErrorCode.TIMEOUT,
				    `The network did not go idle in time: ${entry.inflight.size} request(s) still open. ` +
				    'The page may poll or stream; use wait_until "load" instead, or raise timeout_ms.');
			await sleep(Math.min(100, Math.max(deadline - now, 1)), signal);
		}
	}
}
