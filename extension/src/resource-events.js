/**
 * Tells the host when a browser:// resource changed, so it can send
 * notifications/resources/updated to subscribers: browser://tabs when tabs
 * open, close, switch or change URL or title; browser://current/state and
 * browser://dom/state when the active tab navigates or another tab becomes
 * active. Bursts (a navigation commits, then completes) become one event
 * per resource, DEBOUNCE_MS after the last change. Pure: the Chrome
 * listeners are in browser/resource-watch.js.
 * @module resource-events
 */

/** Wait this long after the last change of a resource before telling the host. */
export const DEBOUNCE_MS = 100;

export const TABS_URI = 'browser://tabs';
export const STATE_URIS = Object.freeze(['browser://current/state', 'browser://dom/state']);

/** Debounced resource_updated events. */
export class ResourceNotifier {
	/**
	 * @param {object} options
	 * @param {(message: object) => void} options.send posts an event to the host
	 * @param {number} [options.delay]
	 * @param {(fn: () => void, ms: number) => any} [options.setTimer]
	 * @param {(timer: any) => void} [options.clearTimer]
	 */
	constructor({ send, delay = DEBOUNCE_MS, setTimer = (fn, ms) => setTimeout(fn, ms), clearTimer = timer => clearTimeout(timer) }) {
		this.send = send;
		this.delay = delay;
		this.setTimer = setTimer;
		this.clearTimer = clearTimer;
		/** @type {Map<string, any>} pending timer per uri */
		this.pending = new Map();
	}

	/**
	 * A resource changed: tell the host after the burst.
	 * @param {string} uri
	 */
	changed(uri) {
		const timer = this.pending.get(uri);
		if (timer !== undefined)
			this.clearTimer(timer);
		this.pending.set(uri, this.setTimer(() => {
			this.pending.delete(uri);
			this.send({ type: 'event', event: 'resource_updated', uri });
		}, this.delay));
	}

	/** The tab list changed (a tab opened, closed, switched, or changed URL or title). */
	tabsChanged() {
		this.changed(TABS_URI);
	}

	/** The page of the active tab changed (it navigated, or another tab became active). */
	pageChanged() {
		for (const uri of STATE_URIS)
			this.changed(uri);
	}

	/** Drops pending events (the host went away). */
	clear() {
		for (const timer of this.pending.values())
			this.clearTimer(timer);
		this.pending.clear();
	}
}
