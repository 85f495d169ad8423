/**
 * Element refs: short names ("e12") handed out with the page state. A ref
 * names one element of one document for as long as that element lives; the
 * same element keeps its ref across states. Numbers are never reused, so an
 * old ref can never name a different element: it resolves or it is stale.
 * @module page-state/refs
 */

/** How many stale refs are remembered to tell STALE_REF from unknown. */
export const STALE_MEMORY = 20000;

/**
 * Where a ref points.
 * @typedef {object} RefEntry
 * @property {string} ref
 * @property {number} tabId
 * @property {number} frameId
 * @property {string} documentId
 * @property {number} localId the element's number inside its document
 */

/**
 * Normalises what an agent passed as a ref ("e12", "[e12]", "ref=e12", "E12").
 * @param {string} text
 * @returns {string|null} "e<number>", or null if it is not a ref
 */
export function normalizeRef(text) {
	if (typeof text !== 'string')
		return null;
	const match = /^\s*\[?\s*(?:ref\s*=\s*)?e(\d{1,12})\s*\]?\s*$/i.exec(text);
	return match === null ? null : `e${Number(match[1])}`;
}

/** The table of refs handed out, across tabs. */
export class RefTable {
	/**
	 * @param {number} [firstNumber] the number of the first ref
	 * @param {(next: number) => void} [onNewRef] called after a new ref is handed out, with the next number (to persist it)
	 */
	constructor(firstNumber = 1, onNewRef = () => {}) {
		this.next = firstNumber;
		this.onNewRef = onNewRef;
		/** @type {Map<string, RefEntry>} */
		this.entries = new Map();
		/** @type {Map<string, string>} documentId#localId -> ref */
		this.byElement = new Map();
		/** @type {Map<string, string>} ref -> why it went stale */
		this.stale = new Map();
	}

	/**
	 * The ref of an element, handing out a new one the first time.
	 * @param {number} tabId
	 * @param {number} frameId
	 * @param {string} documentId
	 * @param {number} localId
	 * @returns {string}
	 */
	assign(tabId, frameId, documentId, localId) {
		const key = `${documentId}#${localId}`;
		const known = this.byElement.get(key);
		if (known !== undefined) {
			const entry = this.entries.get(known);
			entry.tabId = tabId;
			entry.frameId = frameId;
			return known;
		}
		const ref = `e${this.next++}`;
		this.entries.set(ref, { ref, tabId, frameId, documentId, localId });
		this.byElement.set(key, ref);
		this.onNewRef(this.next);
		return ref;
	}

	/**
	 * Looks a ref up.
	 * @param {string} text the ref as the agent wrote it
	 * @returns {{status: 'ok', entry: RefEntry}|{status: 'stale', ref: string, reason: string}|{status: 'unknown', ref: string|null}}
	 */
	resolve(text) {
		const ref = normalizeRef(text);
		if (ref === null)
			return { status: 'unknown', ref: null };
		const entry = this.entries.get(ref);
		if (entry !== undefined)
			return { status: 'ok', entry };
		const reason = this.stale.get(ref);
		if (reason !== undefined)
			return { status: 'stale', ref, reason };
		if (Number(ref.slice(1)) < this.next)
			return { status: 'stale', ref, reason: 'the page changed since that state was read' };
		return { status: 'unknown', ref };
	}

	/**
	 * Marks one ref stale (its element is gone).
	 * @param {string} ref
	 * @param {string} reason
	 */
	expire(ref, reason) {
		const entry = this.entries.get(ref);
		if (entry === undefined)
			return;
		this.entries.delete(ref);
		this.byElement.delete(`${entry.documentId}#${entry.localId}`);
		this.stale.set(ref, reason);
		while (this.stale.size > STALE_MEMORY)
			this.stale.delete(this.stale.keys().next().value);
	}

	/**
	 * Marks stale every ref of a tab whose document is not in `liveDocuments`.
	 * @param {number} tabId
	 * @param {Set<string>} liveDocuments
	 * @param {string} reason
	 * @returns {number} how many refs went stale
	 */
	expireDocumentsExcept(tabId, liveDocuments, reason) {
		let count = 0;
		for (const entry of [...this.entries.values()]) {
			if (entry.tabId === tabId && !liveDocuments.has(entry.documentId)) {
				this.expire(entry.ref, reason);
				count++;
			}
		}
		return count;
	}

	/**
	 * Marks stale every ref of one document.
	 * @param {string} documentId
	 * @param {string} reason
	 */
	expireDocument(documentId, reason) {
		for (const entry of [...this.entries.values()])
			if (entry.documentId === documentId)
				this.expire(entry.ref, reason);
	}

	/**
	 * Marks stale every ref of a tab (it closed).
	 * @param {number} tabId
	 * @param {string} reason
	 */
	expireTab(tabId, reason) {
		for (const entry of [...this.entries.values()])
			if (entry.tabId === tabId)
				this.expire(entry.ref, reason);
	}

	/**
	 * Never hands out numbers below n (after a restart, refs given out
	 * before it stay stale instead of naming new elements).
	 * @param {number} n
	 */
	skipTo(n) {
		if (Number.isInteger(n) && n > this.next)
			this.next = n;
	}

	/** @returns {number} live refs */
	get size() {
		return this.entries.size;
	}
}
