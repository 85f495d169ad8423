/**
 * Pure helpers of the content tools (screenshots, page content, console
 * logs), kept apart from chrome.* so node --test can check them.
 * @module content-math
 */

/**
 * The scale that makes an image of widthPx device pixels fit maxWidth.
 * @param {number} widthPx the image's width without scaling
 * @param {number|undefined} maxWidth
 * @returns {number} 1 when it fits or no maximum is given, else below 1
 */
export function fitScale(widthPx, maxWidth) {
	if (maxWidth === undefined || maxWidth === null || !(widthPx > 0) || widthPx <= maxWidth)
		return 1;
	return maxWidth / widthPx;
}

/**
 * Cuts text to maxChars, saying honestly how much was left out.
 * @param {string} text
 * @param {number|undefined} maxChars
 * @returns {{text: string, truncated: boolean, total: number}}
 */
export function truncateText(text, maxChars) {
	const total = text.length;
	if (maxChars === undefined || maxChars === null || total <= maxChars)
		return { text, truncated: false, total };
	let cut = text.slice(0, maxChars);
	/* Do not split a surrogate pair. */
	if (/[\uD800-\uDBFF]$/.test(cut))
		cut = cut.slice(0, -1);
	return { text: cut, truncated: true, total };
}

/**
 * The note added after a cut text.
 * @param {number} shown
 * @param {number} total
 * @returns {string}
 */
export function truncationNote(shown, total) {
	return `[Content cut: showing the first ${shown} of ${total} characters. ` +
	    'Raise max_chars, or read one part with selector or ref.]';
}

/**
 * get_page_content's text: the content cut to maxChars, after the note
 * the read gave (if any) and with the truncation note when cut.
 * @param {string} content
 * @param {string} note
 * @param {number} [maxChars]
 * @returns {{text: string, truncated: boolean, total: number}}
 */
export function contentText(content, note, maxChars) {
	const cut = truncateText(content, maxChars);
	let text = note ? `${note}\n\n${cut.text}` : cut.text;
	if (cut.truncated)
		text += `\n\n${truncationNote(cut.text.length, cut.total)}`;
	return { text, truncated: cut.truncated, total: cut.total };
}

/** The console levels, lowest first. */
export const LOG_LEVELS = ['debug', 'log', 'info', 'warn', 'error'];

/**
 * A bounded buffer of console entries for one tab.
 */
export class LogBuffer {
	/** @param {number} capacity */
	constructor(capacity = 1000) {
		this.capacity = capacity;
		/** @type {Array<{seq: number, level: string, text: string, time: number, url?: string, line?: number, column?: number, stack?: string}>} */
		this.entries = [];
		this.nextSeq = 1;
		this.readUpTo = 0;
		this.dropped = 0;
	}

	/** Adds an entry, dropping the oldest past the capacity. */
	push(entry) {
		this.entries.push({ ...entry, seq: this.nextSeq++ });
		if (this.entries.length > this.capacity) {
			this.entries.shift();
			this.dropped++;
		}
	}

	/**
	 * The entries a call asks for, oldest first.
	 * @param {{level?: string[], max?: number, since_last_call?: boolean}} options
	 * @returns {{entries: object[], matched: number, dropped: number}}
	 */
	read({ level, max = 100, since_last_call: sinceLast = false } = {}) {
		let list = this.entries;
		if (sinceLast)
			list = list.filter(e => e.seq > this.readUpTo);
		if (Array.isArray(level) && level.length > 0)
			list = list.filter(e => level.includes(e.level));
		const matched = list.length;
		if (list.length > max)
			list = list.slice(list.length - max);
		if (this.entries.length > 0)
			this.readUpTo = this.entries[this.entries.length - 1].seq;
		return { entries: list, matched, dropped: this.dropped };
	}
}

/**
 * One log entry as a line of text.
 * @param {{level: string, text: string, time: number, url?: string, line?: number, column?: number}} e
 * @returns {string}
 */
export function formatLogEntry(e) {
	const time = new Date(e.time).toISOString().slice(11, 23);
	const where = e.url ? ` (${e.url}${e.line !== undefined ? `:${e.line}` : ''}${e.column !== undefined ? `:${e.column}` : ''})` : '';
	return `${time} [${e.level}] ${e.text}${where}`;
}
