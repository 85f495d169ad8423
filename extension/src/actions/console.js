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

/** The buffers of all tabs. */
export class ConsoleStore {
	constructor(capacity = CONSOLE_BUFFER_SIZE) {
		this.capacity = capacity;
		/** @type {Map<number, LogBuffer>} */
		this.tabs = new Map();
	}

	/** The buffer of a tab, made on first use. */
	buffer(tabId) {
		let buffer = this.tabs.get(tabId);
		if (buffer === undefined) {
			buffer = new LogBuffer(this.capacity);
			this.tabs.set(tabId, buffer);
		}
		return buffer;
	}

	/**
	 * Adds what a content script reported.
	 * @param {number} tabId
	 * @param {number} frameId
	 * @param {object} entry
	 */
	add(tabId, frameId, entry) {
		if (typeof entry?.text !== 'string' || typeof entry.level !== 'string')
			return;
		const clean = { level: entry.level, text: entry.text, time: Number(entry.time) || Date.now() };
		for (const key of ['url', 'stack'])
			if (typeof entry[key] === 'string')
				clean[key] = entry[key];
		for (const key of ['line', 'column'])
			if (Number.isInteger(entry[key]))
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
 * @returns {Record<string, import('../navigator.js').ActionDefinition>}
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
