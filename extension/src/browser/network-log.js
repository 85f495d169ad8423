/**
 * The requests of the tabs the tools have used, for list_network_requests
 * and get_network_request: method, URL, type, status, size, timing and
 * headers from chrome.webRequest (no debugger needed), and the response
 * body from the debugger's Network domain, which keeps bodies while
 * Browser Bridge is attached to the tab. Bounded: REQUESTS_PER_TAB
 * requests a tab, HEADER_MAX headers a side, oldest dropped first.
 * @module browser/network-log
 */

/** Requests kept per tab, and headers kept per request and side. */
export const REQUESTS_PER_TAB = 500;
export const HEADER_MAX = 60;
/** Longest header value kept. */
const HEADER_VALUE_MAX = 2048;

/**
 * @typedef {object} NetworkRecord
 * @property {string} id e.g. "n12"
 * @property {number} tab_id
 * @property {string} request_id webRequest's
 * @property {string} method
 * @property {string} url
 * @property {string} type webRequest's resource type (xmlhttprequest, main_frame, script...)
 * @property {number} started Date.now() value
 * @property {number} [status]
 * @property {number} [duration_ms]
 * @property {number} [size] bytes, from Content-Length
 * @property {boolean} [from_cache]
 * @property {string} [error]
 * @property {Array<{name: string, value: string}>} [request_headers]
 * @property {Array<{name: string, value: string}>} [response_headers]
 * @property {string} [cdp_id] the debugger's id, for the body
 */

/** Bounded copies of headers. */
function keepHeaders(headers) {
	return (headers ?? []).slice(0, HEADER_MAX).map(h => ({
		name: h.name, value: String(h.value ?? '').slice(0, HEADER_VALUE_MAX),
	}));
}

/** Records the requests of the tabs it watches. */
export class NetworkLog {
	/** @param {import('./debugger.js').DebuggerPool} debuggers */
	constructor(debuggers) {
		this.debuggers = debuggers;
		/** @type {Map<number, NetworkRecord[]>} */
		this.tabs = new Map();
		/** @type {Map<string, NetworkRecord>} webRequest id -> record */
		this.byRequest = new Map();
		this.counter = 0;
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
		chrome.tabs.onRemoved.addListener(tabId => {
			for (const r of this.tabs.get(tabId) ?? [])
				this.byRequest.delete(r.request_id);
			this.tabs.delete(tabId);
		});
		debuggers.onAnyEvent((tabId, method, params) => {
			if (method === 'Network.responseReceived')
				this.matchDebugger(tabId, params);
		});
	}

	/** Starts recording a tab's requests (the first time a tool uses it). */
	watch(tabId) {
		if (!this.tabs.has(tabId))
			this.tabs.set(tabId, []);
	}

	/** @param {{tabId: number, requestId: string, method: string, url: string, type: string, timeStamp: number}} d */
	started(d) {
		const list = this.tabs.get(d.tabId);
		if (list === undefined)
			return;
		/** @type {NetworkRecord} */
		const record = { id: `n${++this.counter}`, tab_id: d.tabId, request_id: d.requestId, method: d.method,
		    url: d.url, type: d.type, started: Math.round(d.timeStamp ?? Date.now()) };
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
		const list = this.tabs.get(tabId) ?? [];
		for (let i = list.length - 1; i >= 0; i--) {
			if (list[i].cdp_id === undefined && list[i].url === params.response?.url) {
				list[i].cdp_id = params.requestId;
				return;
			}
		}
	}

	/**
	 * A tab's requests, oldest first, filtered.
	 * @param {number} tabId
	 * @param {{filter?: string, since?: string, type?: string}} options
	 *   filter: a URL substring or /regex/; since: only requests after this id
	 * @returns {NetworkRecord[]}
	 */
	list(tabId, { filter, since, type } = {}) {
		let records = this.tabs.get(tabId) ?? [];
		if (since !== undefined) {
			const at = records.findIndex(r => r.id === since);
			records = at >= 0 ? records.slice(at + 1) : records.filter(r => Number(r.id.slice(1)) > Number(since.slice(1)));
		}
		if (type !== undefined)
			records = records.filter(r => r.type === type);
		if (filter !== undefined) {
			const regex = /^\/(.+)\/([a-z]*)$/.exec(filter);
			const test = regex !== null ? (() => {
				const re = new RegExp(regex[1], regex[2]);
				return url => re.test(url);
			})() : url => url.includes(filter);
			records = records.filter(r => test(r.url));
		}
		return records;
	}

	/** A request by id, or undefined. */
	get(id) {
		for (const list of this.tabs.values()) {
			const found = list.find(r => r.id === id);
			if (found !== undefined)
				return found;
		}
		return undefined;
	}
}
