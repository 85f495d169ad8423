/**
 * get_console_logs: console messages and uncaught errors, captured by the
 * content scripts page/console-capture.js (page world) and
 * page/console-relay.js (isolated world) and kept here, per tab, in a
 * bounded buffer that outlives navigations.
 * @module actions/console
 */

import { LogBuffer, formatLogEntry } from '../content-math.js';

/** Entries kept per tab. */
export const CONSOLE_BUFFER_SIZE = 1000;
/** Entries a tab may add in one second; the rest are counted and said in one entry. */
export const CONSOLE_RATE_PER_SECOND = 100;
/** Longest text and stack kept (the capture cuts text there too). */
export const CONSOLE_TEXT_MAX = 5000;
/** Longest source URL kept. */
const CONSOLE_URL_MAX = 2048;
/** The levels an entry may have. */
const CONSOLE_LEVELS = new Set(['debug', 'log', 'info', 'warn', 'error']);

/** Cuts a page-given string to max characters, saying how long it was. */
function bounded(text, max) {
	return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/**
 * The buffers of all tabs. What a content script reports is the page's
 * word: entries of an unknown level or without text are ignored, strings
 * are cut, the time is the arrival time, and a tab that logs faster than
 * CONSOLE_RATE_PER_SECOND gets the rest counted in one entry that says so.
 */
export class ConsoleStore {
	/**
	 * @param {number} [capacity] entries kept per tab
	 * @param {() => number} [now] the clock, in ms
	 */
	constructor(capacity = CONSOLE_BUFFER_SIZE, now = Date.now) {
		this.capacity = capacity;
		this.now = now;
		/** @type {Map<number, LogBuffer>} */
		this.tabs = new Map();
		/** @type {Map<number, {start: number, count: number, dropped: number}>} tab -> this second's tally */
		this.rates = new Map();
	}

	/** The buffer of a tab, made on first use, with any drops said. */
	buffer(tabId) {
		let buffer = this.tabs.get(tabId);
		if (buffer === undefined) {
			buffer = new LogBuffer(this.capacity);
			this.tabs.set(tabId, buffer);
		}
		this.sayDropped(tabId, buffer);
		return buffer;
	}

	/** Adds the entry saying how many of a tab's messages the rate limit dropped, if any. */
	sayDropped(tabId, buffer) {
		const rate = this.rates.get(tabId);
		if (rate === undefined || rate.dropped === 0)
			return;
		buffer.push({
			level: 'warn', time: this.now(),
			text: `${rate.dropped} console message${rate.dropped === 1 ? ' was' : 's were'} dropped: ` +
			    `the page logged more than ${CONSOLE_RATE_PER_SECOND} a second.`,
		});
		rate.dropped = 0;
	}

	/** Whether the tab may add one more entry this second (counting it if not). */
	admit(tabId) {
		const now = this.now();
		let rate = this.rates.get(tabId);
		if (rate === undefined) {
			rate = { start: now, count: 0, dropped: 0 };
			this.rates.set(tabId, rate);
		}
		if (now - rate.start >= 1000) {
			this.buffer(tabId);
			rate.start = now;
			rate.count = 0;
		}
		if (rate.count >= CONSOLE_RATE_PER_SECOND) {
			rate.dropped++;
			return false;
		}
		rate.count++;
		return true;
	}

	/**
	 * Adds what a content script reported.
	 * @param {number} tabId
	 * @param {number} frameId
	 * @param {object} entry
	 */
	add(tabId, frameId, entry) {
		if (typeof entry?.text !== 'string' || !CONSOLE_LEVELS.has(entry.level))
			return;
		if (!this.admit(tabId))
			return;
		const clean = { level: entry.level, text: bounded(entry.text, CONSOLE_TEXT_MAX), time: this.now() };
		if (typeof entry.url === 'string')
			clean.url = bounded(entry.url, CONSOLE_URL_MAX);
		if (typeof entry.stack === 'string')
			clean.stack = bounded(entry.stack, CONSOLE_TEXT_MAX);
		for (const key of ['line', 'column'])
			if (Number.isInteger(entry[key]) && entry[key] >= 0)
				clean[key] = entry[key];
		if (entry.uncaught === true)
			clean.uncaught = true;
		if (frameId !== 0)
			clean.frame_id = frameId;
		this.buffer(tabId).push(clean);
	}

	/** Forgets a closed tab. */
	forget(tabId) {
		this.tabs.delete(tabId);
		this.rates.delete(tabId);
	}
}

/**
 * The get_console_logs result.
 * @param {number} tabId
 * @param {ReturnType<LogBuffer['read']>} read
 * @param {object} params
 */
export function consoleResult(tabId, read, params) {
	const { entries, matched, dropped } = read;
	const what = params.since_last_call ? 'new since the last call' : 'kept';
	const filter = Array.isArray(params.level) && params.level.length > 0 ? ` at level ${params.level.join(', ')}` : '';
	let head = entries.length === 0 ? `No console messages${filter} ${what} for tab ${tabId}.` :
	    `${entries.length} console message${entries.length === 1 ? '' : 's'}${filter} ${what} for tab ${tabId}, oldest first` +
	    (matched > entries.length ? ` (the newest ${entries.length} of ${matched}; raise max for more)` : '') + ':';
	if (dropped > 0)
		head += ` (${dropped} older messages were dropped: the buffer keeps ${CONSOLE_BUFFER_SIZE} per tab.)`;
	const lines = entries.map(e => formatLogEntry(e) + (e.stack && e.uncaught ? `\n${e.stack.split('\n').slice(1, 6).join('\n')}` : ''));
	return {
		content: [{ type: 'text', text: [head, ...lines].join('\n') }],
		structuredContent: {
			tab_id: tabId,
			messages: entries.map(({ seq, ...e }) => ({ ...e, time: new Date(e.time).toISOString() })),
			matched, dropped,
		},
	};
}

/**
 * The action, reading from store.
 * @param {ConsoleStore} store
 * @returns {Record<string, import('../dispatcher.js').ActionDefinition>}
 */
export function consoleActions(store) {
	return {
		get_console_logs: {
			async run(params, { tab }) {
				const read = store.buffer(tab.id).read({
					level: params.level, max: params.max ?? 100, since_last_call: params.since_last_call === true,
				});
				return consoleResult(tab.id, read, params);
			},
		},
	};
}
