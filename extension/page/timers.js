/*
 * The short-timer tracker: a content script that runs in the page's own
 * (MAIN) world at document_start in every frame (manifest.json
 * "content_scripts"), before any page script. It lets the settle
 * (in-page/mutations.js, in the extension's isolated world, which has
 * timers of its own and cannot see the page's) wait for a view the page
 * renders from a short timer, such as one set in its load handler.
 *
 * - setTimeout is wrapped to remember each pending timer whose delay is at
 *   most SHORT_TIMER_MS and whose handler is a function: when it was set
 *   and when it is due (performance.now() values). It is forgotten when
 *   its callback starts, or when clearTimeout or clearInterval (the two
 *   share one list of ids) clears it. Longer timers, string handlers,
 *   delays that are objects (converting them could run page code twice)
 *   and setInterval are left alone: a page's polling must not hold every
 *   settle to its cap.
 * - The settle asks by dispatching a CustomEvent named TIMERS_QUERY on the
 *   window with detail {since, before}; before that dispatchEvent
 *   returns, the tracker dispatches TIMERS_DUE on the window with detail
 *   the latest due time of the pending timers set in [since, before], or
 *   null when there is none. CustomEvent details are copied between
 *   worlds, so both sides read plain numbers.
 *
 * Nothing is written to the DOM. The wrappers are transparent: the
 * original runs with the same this, arguments (the callback in a wrapper
 * that calls it with the this and arguments the browser gives) and
 * return value, its exceptions propagate unchanged, and the bookkeeping's
 * own errors are swallowed. The wrappers keep the originals' names,
 * lengths and property attributes and are not constructors.
 */
((global) => {
	'use strict';

	const TIMERS_QUERY = '__browser_bridge_timers__';
	const TIMERS_DUE = '__browser_bridge_timers_due__';
	/** Timers with longer delays are not waited for (a poll, a slideshow, a session timeout). */
	const SHORT_TIMER_MS = 500;

	const apply = Reflect.apply;
	const slice = Array.prototype.slice;
	const originalSetTimeout = global.setTimeout;
	const originalClearTimeout = global.clearTimeout;
	const originalClearInterval = global.clearInterval;
	const originalAdd = global.EventTarget?.prototype.addEventListener;
	const originalDispatch = global.EventTarget?.prototype.dispatchEvent;
	const CustomEventClass = global.CustomEvent;
	const performanceNow = global.Performance?.prototype.now;
	const timeline = global.performance;
	if (typeof originalSetTimeout !== 'function' || typeof originalClearTimeout !== 'function' ||
	    typeof originalAdd !== 'function' || typeof originalDispatch !== 'function' ||
	    typeof CustomEventClass !== 'function' || typeof performanceNow !== 'function')
		return;

	/** timer id -> {setAt, due} of the pending short timers. */
	const pending = new Map();

	/** The page's clock, as the isolated world reads it. */
	const now = () => apply(performanceNow, timeline, []);

	/**
	 * The delay a timer will wait, as the browser reads it, or null when
	 * reading it could run page code (an object's valueOf) or it is longer
	 * than SHORT_TIMER_MS.
	 */
	function shortDelay(timeout) {
		if (timeout !== undefined && typeof timeout !== 'number' && typeof timeout !== 'string')
			return null;
		const ms = Number(timeout ?? 0);
		const delay = Number.isFinite(ms) && ms > 0 ? Math.trunc(ms) : 0;
		return delay <= SHORT_TIMER_MS ? delay : null;
	}

	/** Answers the settle's question: dispatches TIMERS_DUE with the latest due time of the timers it asks about. */
	function answer(event) {
		try {
			if (event.target !== global)
				return;
			const since = Number(event.detail?.since ?? 0);
			const before = Number(event.detail?.before ?? Infinity);
			let latest = null;
			for (const timer of pending.values()) {
				if (timer.setAt >= since && timer.setAt <= before && (latest === null || timer.due > latest))
					latest = timer.due;
			}
			apply(originalDispatch, global, [new CustomEventClass(TIMERS_DUE, { detail: latest })]);
		} catch {
			/* never disturb the page: the settle then waits for no timer */
		}
	}

	/**
	 * Forgets a timer that has run or that the page cleared (by its id as
	 * the page gave it: a number, or a string of one).
	 */
	function forget(id) {
		try {
			if (typeof id === 'string')
				id = Math.trunc(Number(id));
			pending.delete(id);
		} catch {
			/* never disturb the page */
		}
	}

	/* Method shorthand: not constructors, and `length` 1 and 0 like the originals. */
	const wrappers = {
		setTimeout(handler) {
			let delay = null;
			let setAt;
			try {
				delay = typeof handler === 'function' ? shortDelay(arguments[1]) : null;
				if (delay !== null)
					setAt = now();
			} catch {
				delay = null;
			}
			if (delay === null)
				return apply(originalSetTimeout, this, arguments);
			let id;
			const args = apply(slice, arguments, []);
			args[0] = function () {
				forget(id);
				return apply(handler, this, arguments);
			};
			id = apply(originalSetTimeout, this, args);
			try {
				pending.set(id, { setAt, due: setAt + delay });
			} catch {
				/* never disturb the page */
			}
			return id;
		},
		clearTimeout() {
			const result = apply(originalClearTimeout, this, arguments);
			forget(arguments[0]);
			return result;
		},
		clearInterval() {
			const result = apply(originalClearInterval, this, arguments);
			forget(arguments[0]);
			return result;
		},
	};

	/** Puts a wrapper where the original was, with the original's property attributes. */
	function install(name) {
		const descriptor = Object.getOwnPropertyDescriptor(global, name);
		Object.defineProperty(global, name, {
			value: wrappers[name],
			writable: descriptor.writable, enumerable: descriptor.enumerable,
			configurable: descriptor.configurable,
		});
	}

	/*
	 * The clears first, so a timer is never remembered without a way to
	 * forget it; a global that will not take them leaves the page as it
	 * was, and the settle waits for no timer there.
	 */
	try {
		if (typeof originalClearInterval === 'function')
			install('clearInterval');
		install('clearTimeout');
		install('setTimeout');
		apply(originalAdd, global, [TIMERS_QUERY, answer, true]);
	} catch {
		/* no tracking in this document */
	}
})(globalThis);
