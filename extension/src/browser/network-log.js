/**
 * The requests of the tabs the callers acted in, for list_network_requests
 * and get_network_request: method, URL, type, status, size, timing and
 * headers from chrome.webRequest (no debugger needed), and the response
 * body from the debugger's Network domain, which keeps bodies while
 * Browser Bridge is attached to the tab. Bounded: REQUESTS_PER_TAB
 * requests a tab, HEADER_MAX headers a side, oldest dropped first.
 *
 * A tab is recorded only once a caller acts in it (navigates, clicks,
 * types, opens it: act()), and only the callers that acted in it may read
 * it, and of it only the requests that began after they first acted there
 * (acting once opens no caller's past). A caller is an MCP client as the
 * host names it (its session, or an OAuth client across its sessions) or a
 * task of the agents; the owner key reads every request of every recorded
 * tab. Request ids are random and bound to their tab.
 * Credentials (secretHeader) are kept but shown only as their length
 * unless the person's config reveals them (shownHeaders).
 * @module browser/network-log
 */

import { BridgeError, ErrorCode } from '../errors.js';

/** Requests kept per tab, and headers kept per request and side. */
export const REQUESTS_PER_TAB = 500;
export const HEADER_MAX = 60;
/** Longest header value kept. */
const HEADER_VALUE_MAX = 2048;
/** Longest filter accepted (the catalogue's maxLength says the same). */
export const FILTER_MAX = 256;

/**
 * Parts of a header name that say its value is a credential: Cookie,
 * Set-Cookie, Authorization, Proxy-Authorization, X-Api-Key,
 * X-CSRF-Token, X-Session-Id, X-Amz-Security-Token...
 */
const SECRET_NAME_PARTS = ['cookie', 'auth', 'token', 'secret', 'session', 'csrf', 'xsrf', 'api-key', 'api_key', 'apikey',
	'access-key', 'passw', 'credential', 'signature'];

/**
 * @typedef {object} KeptHeader
 * @property {string} name
 * @property {string} value bounded to HEADER_VALUE_MAX characters
 * @property {number} [secret] the value is a credential of this many bytes (shown only when revealed)
 */

/**
 * @typedef {object} NetworkRecord
 * @property {string} id random, e.g. "nq3L0f9aZx2Kd"
 * @property {number} tab_id
 * @property {string} request_id webRequest's
 * @property {string} method
 * @property {string} url
 * @property {string} type webRequest's resource type (xmlhttprequest, main_frame, script...)
 * @property {number} started Date.now() value
 * @property {number} seq the log's count of requests when it began (1, 2, ...): who may read it (TabLog.actors)
 * @property {number} [status]
 * @property {number} [duration_ms]
 * @property {number} [size] bytes, from Content-Length
 * @property {boolean} [from_cache]
 * @property {string} [error]
 * @property {KeptHeader[]} [request_headers]
 * @property {KeptHeader[]} [response_headers]
 * @property {string} [cdp_id] the debugger's id, for the body
 */

/**
 * Who reads and acts: an MCP client's identity from the host (a string)
 * or a task's owner object (dispatcher.js).
 * @typedef {string|object} Actor
 */

/**
 * Whether a header's value is a credential: cookies, authorization, and
 * names that say they hold a key, token, session or password.
 * @param {string} name
 * @returns {boolean}
 */
export function secretHeader(name) {
	const lower = String(name).toLowerCase();
	return SECRET_NAME_PARTS.some(part => lower.includes(part));
}

/**
 * What stands in for a withheld value.
 * @param {number} bytes the value's length
 * @returns {string}
 */
export function withheld(bytes) {
	return `[withheld: ${bytes} bytes]`;
}

/** Bounded copies of headers, credentials marked with their length. */
function keepHeaders(headers) {
	const encoder = new TextEncoder();
	return (headers ?? []).slice(0, HEADER_MAX).map(h => {
		const value = String(h.value ?? '');
		const kept = { name: String(h.name), value: value.slice(0, HEADER_VALUE_MAX) };
		if (secretHeader(kept.name))
			kept.secret = encoder.encode(value).length;
		return kept;
	});
}

/**
 * Headers as the tools show them: credentials replaced by their length
 * unless revealed.
 * @param {KeptHeader[]|undefined} headers
 * @param {boolean} reveal the person's config says to show credentials
 * @returns {Array<{name: string, value: string}>}
 */
export function shownHeaders(headers, reveal) {
	return (headers ?? []).map(h => ({ name: h.name, value: h.secret !== undefined && !reveal ? withheld(h.secret) : h.value }));
}

/**
 * Whether a request carried or received credentials, so its response body
 * is withheld like them; a request whose headers were not seen counts.
 * @param {NetworkRecord} record
 * @returns {boolean}
 */
export function carriesCredentials(record) {
	if (record.request_headers === undefined)
		return true;
	return [...record.request_headers, ...record.response_headers ?? []].some(h => h.secret !== undefined);
}

/**
 * A URL test for a filter: a substring of the URL, where * stands for any
 * run of characters. Each literal piece is looked for once, left to
 * right, so the time is linear in the URL (no backtracking).
 * @param {string} filter
 * @returns {(url: string) => boolean}
 * @throws {BridgeError} INVALID_ARGUMENT for a regular expression or a filter over FILTER_MAX characters
 */
export function urlMatcher(filter) {
	if (filter.length > FILTER_MAX)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `The filter is ${filter.length} characters long; at most ${FILTER_MAX} are accepted. ` +
		    'Pass a shorter part of the URL, with * for any run of characters.');
	if (/^\/.+\/[dgimsuvy]*$/.test(filter) && /[()[\]{}|\\^$+]/.test(filter))
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `The filter ${JSON.stringify(filter)} looks like a regular expression, which is not accepted (some take ` +
		    'exponential time). Pass a part of the URL, with * for any run of characters, e.g. "/api/*/orders".');
	const pieces = filter.split('*').filter(piece => piece !== '');
	return url => {
		let at = 0;
		for (const piece of pieces) {
			const found = url.indexOf(piece, at);
			if (found < 0)
				return false;
			at = found + piece.length;
		}
		return true;
	};
}

/** A new request id: 72 random bits. */
function newRequestId() {
	const bytes = crypto.getRandomValues(new Uint8Array(9));
	return `n${btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_')}`;
}

/**
 * One recorded tab.
 * @typedef {object} TabLog
 * @property {NetworkRecord[]} records oldest first
 * @property {Map<Actor, number>} actors who acted in it, each with the seq its reading starts after
 *   (the requests that began after it first acted there)
 */

/** Records the requests of the tabs the callers acted in. */
export class NetworkLog {
	/** @param {import('./debugger.js').DebuggerPool} debuggers */
	constructor(debuggers) {
		this.debuggers = debuggers;
		/** @type {Map<number, TabLog>} */
		this.tabs = new Map();
		/** Requests begun so far, in every tab: the last record's seq. */
		this.sequence = 0;
		/** @type {Map<string, NetworkRecord>} webRequest id -> record */
		this.byRequest = new Map();
		/** Tabs being opened by a tool (opening()): requests of tabs not yet known are kept meanwhile. */
		this.openings = 0;
		/** @type {Map<number, NetworkRecord[]>} requests of unknown tabs while a tool opens one */
		this.unclaimed = new Map();
		const filter = { urls: ['<all_urls>'] };
		chrome.webRequest.onBeforeRequest.addListener(d => this.started(d), filter);
		chrome.webRequest.onSendHeaders.addListener(d => this.update(d, r => { r.request_headers = keepHeaders(d.requestHeaders); }),
		    filter, ['requestHeaders', 'extraHeaders']);
		chrome.webRequest.onHeadersReceived.addListener(d => this.update(d, r => {
			r.status = d.statusCode;
			r.response_headers = keepHeaders(d.responseHeaders);
			const length = r.response_headers.find(h => h.name.toLowerCase() === 'content-length');
			if (length !== undefined && /^\d+$/.test(length.value))
				r.size = Number(length.value);
		}), filter, ['responseHeaders', 'extraHeaders']);
		chrome.webRequest.onCompleted.addListener(d => this.ended(d, r => {
			r.status = d.statusCode;
			r.from_cache = d.fromCache === true;
		}), filter);
		chrome.webRequest.onErrorOccurred.addListener(d => this.ended(d, r => { r.error = d.error; }), filter);
		chrome.tabs.onRemoved.addListener(tabId => this.forget(tabId));
		debuggers.onAnyEvent((tabId, method, params) => {
			if (method === 'Network.responseReceived')
				this.matchDebugger(tabId, params);
		});
	}

	/**
	 * An actor acts in a tab: the tab is recorded from now on (if it was
	 * not already), and the actor may read the requests that begin from
	 * its first act there on. Without an actor (a caller the host did not
	 * name) nothing starts.
	 * @param {number} tabId
	 * @param {Actor|undefined} actor
	 * @param {number} [after] the seq after which its reading starts, on its first act (default: now)
	 */
	act(tabId, actor, after = this.sequence) {
		if (actor === undefined || actor === null)
			return;
		let tab = this.tabs.get(tabId);
		if (tab === undefined) {
			tab = { records: [], actors: new Map() };
			this.tabs.set(tabId, tab);
		}
		if (!tab.actors.has(actor))
			tab.actors.set(actor, after);
	}

	/**
	 * A tool is about to open a tab for an actor: keeps the requests of
	 * tabs not yet recorded until the tool knows the new tab's id, so its
	 * first load is recorded too.
	 * @param {Actor|undefined} actor
	 * @returns {{opened: (tabId: number) => void, done: () => void}} opened: the tab is the
	 *   actor's, with what it loaded so far; done: the opening ended (always call it)
	 */
	opening(actor) {
		this.openings++;
		let ended = false;
		return {
			opened: tabId => {
				const early = this.unclaimed.get(tabId) ?? [];
				this.unclaimed.delete(tabId);
				const fresh = !this.tabs.has(tabId);
				/* The opener reads its new tab's first load: it made those requests. */
				this.act(tabId, actor, fresh && early.length > 0 ? early[0].seq - 1 : this.sequence);
				const tab = this.tabs.get(tabId);
				if (tab !== undefined && tab.records.length === 0)
					tab.records.push(...early);
				else
					this.dropRecords(early);
			},
			done: () => {
				if (ended)
					return;
				ended = true;
				if (--this.openings === 0) {
					for (const records of this.unclaimed.values())
						this.dropRecords(records);
					this.unclaimed.clear();
				}
			},
		};
	}

	/** Forgets records and their webRequest ids. */
	dropRecords(records) {
		for (const r of records)
			this.byRequest.delete(r.request_id);
	}

	/** Forgets a closed tab. */
	forget(tabId) {
		this.dropRecords(this.tabs.get(tabId)?.records ?? []);
		this.dropRecords(this.unclaimed.get(tabId) ?? []);
		this.tabs.delete(tabId);
		this.unclaimed.delete(tabId);
	}

	/** @param {{tabId: number, requestId: string, method: string, url: string, type: string, timeStamp: number}} d */
	started(d) {
		let list = this.tabs.get(d.tabId)?.records;
		if (list === undefined && this.openings > 0 && d.tabId >= 0) {
			list = this.unclaimed.get(d.tabId) ?? [];
			this.unclaimed.set(d.tabId, list);
		}
		if (list === undefined)
			return;
		/** @type {NetworkRecord} */
		const record = { id: newRequestId(), tab_id: d.tabId, request_id: d.requestId, method: d.method,
		    url: d.url, type: d.type, started: Math.round(d.timeStamp ?? Date.now()), seq: ++this.sequence };
		list.push(record);
		this.byRequest.set(d.requestId, record);
		if (list.length > REQUESTS_PER_TAB)
			this.byRequest.delete(list.shift().request_id);
	}

	/** Applies what a webRequest event says to its record. */
	update(d, apply) {
		const record = this.byRequest.get(d.requestId);
		if (record !== undefined)
			apply(record);
	}

	/** The request ended (answered or failed). */
	ended(d, apply) {
		this.update(d, record => {
			apply(record);
			record.duration_ms = Math.max(0, Math.round((d.timeStamp ?? Date.now()) - record.started));
		});
	}

	/** Ties the debugger's id of a response to the newest record of its URL without one. */
	matchDebugger(tabId, params) {
		const list = this.tabs.get(tabId)?.records ?? [];
		for (let i = list.length - 1; i >= 0; i--) {
			if (list[i].cdp_id === undefined && list[i].url === params.response?.url) {
				list[i].cdp_id = params.requestId;
				return;
			}
		}
	}

	/**
	 * Whether an actor may read a tab's requests: it acted in the tab, or
	 * it holds the owner key and someone did.
	 * @param {number} tabId
	 * @param {Actor|undefined} actor
	 * @param {boolean} [ownerKey]
	 * @returns {boolean}
	 */
	readable(tabId, actor, ownerKey = false) {
		if (ownerKey)
			return this.tabs.has(tabId);
		return actor !== undefined && actor !== null && this.tabs.get(tabId)?.actors.has(actor) === true;
	}

	/**
	 * The requests of a readable tab that an actor may see, oldest first:
	 * those that began after it first acted there, or all with the owner key.
	 * @param {number} tabId
	 * @param {Actor|undefined} actor
	 * @param {boolean} ownerKey
	 * @returns {NetworkRecord[]}
	 */
	visible(tabId, actor, ownerKey) {
		const tab = this.tabs.get(tabId);
		if (ownerKey)
			return tab.records;
		const after = tab.actors.get(actor);
		return tab.records.filter(r => r.seq > after);
	}

	/**
	 * A tab's requests, oldest first, filtered.
	 * @param {number} tabId
	 * @param {Actor|undefined} actor who asks
	 * @param {{filter?: string, since?: string, type?: string, ownerKey?: boolean}} options
	 *   filter: a URL substring, * for any run of characters (urlMatcher); since: only requests after this id;
	 *   ownerKey: the actor holds the owner key (readable)
	 * @returns {NetworkRecord[]}
	 * @throws {BridgeError} INVALID_ARGUMENT when the actor may not read the tab, or for a bad filter or since
	 */
	list(tabId, actor, { filter, since, type, ownerKey = false } = {}) {
		const test = filter !== undefined ? urlMatcher(filter) : null;
		if (!this.readable(tabId, actor, ownerKey))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
			    `Tab ${tabId}'s requests are shown only to a caller that acted in the tab (navigated, clicked, typed ` +
			    'or opened it), and are recorded from then on. Act in the tab first (navigate_to, click_element, ' +
			    'manage_tabs open), then list its requests.');
		let records = this.visible(tabId, actor, ownerKey);
		if (since !== undefined) {
			const at = records.findIndex(r => r.id === since);
			if (at < 0)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `Tab ${tabId} has no request ${since} (ids come from list_network_requests of the same tab; it keeps ` +
				    `its last ${REQUESTS_PER_TAB}). List without since to start again.`);
			records = records.slice(at + 1);
		}
		if (type !== undefined)
			records = records.filter(r => r.type === type);
		if (test !== null)
			records = records.filter(r => test(r.url));
		return records;
	}

	/**
	 * A request by id, if the actor may see it (visible) and it is of
	 * tabId, when given; else undefined, whether or not it exists.
	 * @param {string} id
	 * @param {Actor|undefined} actor
	 * @param {number} [tabId]
	 * @param {boolean} [ownerKey] the actor holds the owner key (readable)
	 * @returns {NetworkRecord|undefined}
	 */
	get(id, actor, tabId, ownerKey = false) {
		for (const recorded of this.tabs.keys()) {
			if ((tabId !== undefined && recorded !== tabId) || !this.readable(recorded, actor, ownerKey))
				continue;
			const found = this.visible(recorded, actor, ownerKey).find(r => r.id === id);
			if (found !== undefined)
				return found;
		}
		return undefined;
	}
}
