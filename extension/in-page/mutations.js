/*
 * In-page script: counting DOM mutations during an action (did it change
 * the page?), in the document and in every shadow root in it, and waiting
 * for the page to settle: for the responses it is due, its short timers
 * (asked of page/timers.js, in the page's own world) and then a still DOM.
 * See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.mutations !== undefined)
		return;

	const { shadowRootOf } = parts.tree;

	/** The last token watchStart gave out. */
	let watchers = 0;
	/**
	 * token -> {observer, state: {count, last}, timersSince} (last:
	 * performance.now() of the latest change; timersSince: the page's short
	 * timers set from then on are waited for)
	 */
	const observers = new Map();

	/**
	 * Starts counting DOM mutations; returns a token for watchStop. loaded:
	 * the document has just loaded, so the short timers it set since it
	 * began count for watchQuiet, not only those set from now on.
	 */
	function watchStart(loaded = false) {
		const token = ++watchers;
		const state = { count: 0, last: performance.now() };
		const observer = new MutationObserver(records => {
			state.count += records.length;
			state.last = performance.now();
		});
		const options = { subtree: true, childList: true, attributes: true, characterData: true };
		observer.observe(document, options);
		const walk = root => {
			for (const element of root.querySelectorAll('*')) {
				const shadow = shadowRootOf(element);
				if (shadow !== null) {
					observer.observe(shadow, options);
					walk(shadow);
				}
			}
		};
		walk(document);
		observers.set(token, { observer, state, timersSince: loaded ? 0 : state.last });
		return token;
	}

	/** Stops a watch; returns the mutations seen, or -1 for an unknown token. */
	function watchStop(token) {
		const entry = observers.get(token);
		if (entry === undefined)
			return -1;
		entry.state.count += entry.observer.takeRecords().length;
		entry.observer.disconnect();
		observers.delete(token);
		return entry.state.count;
	}

	/** A Resource Timing buffer this full may have dropped entries: it cannot say what the page lacks. */
	const RESOURCE_BUFFER_FULL = 250;
	/** How often to look for responses the page does not have yet, and for timers that are late. */
	const DUE_LOOK_MS = 5;
	/**
	 * Longest wait for them: a response the page never lists (a worker's
	 * fetch, which the worker's own timeline holds) must not hold the
	 * window until the cap.
	 */
	const RECEIVE_WAIT_MS = 100;

	/**
	 * How many of these URLs the page's Resource Timing does not list yet:
	 * responses the browser saw end that have not reached the page.
	 * @param {string[]} urls
	 * @returns {number}
	 */
	function notReceived(urls) {
		if (urls.length === 0)
			return 0;
		const entries = performance.getEntriesByType?.('resource') ?? [];
		if (entries.length >= RESOURCE_BUFFER_FULL)
			return 0;
		const names = new Set(entries.map(e => e.name));
		return urls.filter(url => !names.has(url)).length;
	}

	/* The question the short-timer tracker (page/timers.js) answers, and its answer. */
	const TIMERS_QUERY = '__browser_bridge_timers__';
	const TIMERS_DUE = '__browser_bridge_timers_due__';

	/**
	 * The latest due time (performance.now()) of the page's short timers
	 * set between since and before that have neither run nor been cleared,
	 * as the short-timer tracker in the page's world tells; null when there
	 * is none, or no tracker runs in this document.
	 * @param {number} since
	 * @param {number} before
	 * @returns {number|null}
	 */
	function shortTimersDue(since, before) {
		let latest = null;
		const hear = event => {
			if (typeof event.detail === 'number' && (latest === null || event.detail > latest))
				latest = event.detail;
		};
		window.addEventListener(TIMERS_DUE, hear, true);
		try {
			window.dispatchEvent(new CustomEvent(TIMERS_QUERY, { detail: { since, before } }));
		} finally {
			window.removeEventListener(TIMERS_DUE, hear, true);
		}
		return latest;
	}

	/**
	 * Resolves once the page has the responses named in received (URLs the
	 * browser saw answered; at most RECEIVE_WAIT_MS), its short timers set
	 * since the watch's timersSince and before this call have run or been
	 * cleared (shortTimersDue: a view rendered from a timer set in a load
	 * handler), and the watched document has then not changed for quietMs
	 * ({quiet: true}), or after capMs ({quiet: false}); then ends the watch
	 * and gives the changes it saw (count) and how long it waited (elapsed,
	 * ms). Timers set after this call are not waited for: a page that
	 * polls with a chain of timers holds the window one link at most.
	 */
	function watchQuiet(token, quietMs, capMs, received = []) {
		const entry = observers.get(token);
		if (entry === undefined)
			return Promise.resolve({ quiet: true });
		const begun = performance.now();
		/* When this look was due, and since when the page is known to have been able to run. */
		let due = begun;
		let seenSince = -Infinity;
		/* What the page still lacks, and when it last got one: the window starts after the last response. */
		let lacking = notReceived(received);
		let receivedAt = -Infinity;
		/* When the page's timers are due (null: none left), and when the last of them ran: the window starts after it. */
		let timersDue = shortTimersDue(entry.timersSince, begun);
		let timersDoneAt = -Infinity;
		return new Promise(resolve => {
			const check = () => {
				const now = performance.now();
				if (lacking > 0) {
					lacking = now - begun >= RECEIVE_WAIT_MS ? 0 : notReceived(received);
					if (lacking === 0)
						receivedAt = now;
				}
				if (timersDue !== null) {
					timersDue = shortTimersDue(entry.timersSince, begun);
					if (timersDue === null)
						timersDoneAt = now;
				}
				/*
				 * A look that comes a whole window late means the page's
				 * thread did not run either (a busy machine): what the page
				 * would have changed meanwhile is not seen, so the window
				 * starts again from now.
				 */
				if (now - due >= quietMs)
					seenSince = now;
				const pending = entry.observer.takeRecords().length;
				if (pending > 0) {
					entry.state.count += pending;
					entry.state.last = now;
				}
				const still = now - Math.max(entry.state.last, seenSince, receivedAt, timersDoneAt);
				const quiet = lacking === 0 && timersDue === null && still >= quietMs;
				if (quiet || now - begun >= capMs) {
					resolve({ quiet, count: watchStop(token), elapsed: now - begun });
					return;
				}
				/*
				 * Look again when the window would end, unless a change
				 * moves it; soon while a response is due; just after the
				 * page's timers are due, then soon while they are late.
				 */
				let next = quietMs - still;
				if (lacking > 0)
					next = DUE_LOOK_MS;
				else if (timersDue !== null)
					next = timersDue > now ? Math.ceil(timersDue - now) + 1 : DUE_LOOK_MS;
				const wait = Math.max(1, Math.min(next, capMs - (now - begun)));
				due = now + wait;
				setTimeout(check, wait);
			};
			/*
			 * The first look waits its turn behind the page's overdue timers:
			 * on a busy machine a page's 10 ms ticker can be late by more
			 * than the window, and looking at once would call it still.
			 */
			setTimeout(check, 0);
		});
	}

	parts.mutations = { watchStart, watchStop, watchQuiet };
})(globalThis.__browserBridgePageParts ??= {});
