/*
 * The console capture, a content script in the page's own world at
 * document_start: wraps the console methods and listens for uncaught
 * errors and unhandled rejections, and hands each as a JSON string to
 * page/console-relay.js (isolated world) through an event on the relay's
 * private channel element (see there). The page sees its console behave
 * as before; what it cannot do is forge an entry: synthetic error events
 * are ignored, and a call's source and line are left out when the page
 * has taken over how stacks are written (Error.prepareStackTrace).
 */
(() => {
	const EVENT = '__browserBridgeConsole';
	const HANDSHAKE = '__browserBridgeConsoleChannel';
	const READY = '__browserBridgeConsoleReady';
	if (window[EVENT])
		return;
	Object.defineProperty(window, EVENT, { value: true });
	const TEXT_MAX = 5000;
	const OriginalError = Error;
	const OriginalCustomEvent = CustomEvent;
	const stringify = JSON.stringify;
	const dispatchOn = Function.prototype.call.bind(EventTarget.prototype.dispatchEvent);

	/* The relay's channel element, taken in the handshake. */
	let channel = null;
	function takeChannel(event) {
		if (channel !== null)
			return;
		channel = event.target;
		event.preventDefault();
		event.stopImmediatePropagation();
		document.removeEventListener(HANDSHAKE, takeChannel, true);
	}
	document.addEventListener(HANDSHAKE, takeChannel, true);
	document.dispatchEvent(new CustomEvent(READY));

	/* One argument as text, as the console would show it. */
	function show(value) {
		if (typeof value === 'string')
			return value;
		if (value instanceof Error)
			return value.stack || `${value.name}: ${value.message}`;
		if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
			return String(value);
		try {
			const json = JSON.stringify(value);
			return json === undefined ? String(value) : json;
		} catch {
			return String(value);
		}
	}

	/* Hands one entry to the relay. */
	function send(entry) {
		if (channel === null)
			return;
		entry.time = Date.now();
		if (entry.text.length > TEXT_MAX)
			entry.text = `${entry.text.slice(0, TEXT_MAX)}… (${entry.text.length} characters)`;
		try {
			dispatchOn(channel, new OriginalCustomEvent(EVENT, { detail: stringify(entry) }));
		} catch {
			/* a page that broke CustomEvent or JSON loses its logs, not its console */
		}
	}

	/*
	 * Where the console was called from: the first frame of a fresh stack
	 * outside this file; nothing when the page writes its own stacks.
	 */
	function caller() {
		if (OriginalError.prepareStackTrace !== undefined)
			return {};
		return callerOf(new OriginalError().stack);
	}

	/* The caller's location from a stack: the first frame outside this file. */
	function callerOf(stack) {
		const lines = String(stack || '').split('\n').slice(1);
		for (const line of lines) {
			const m = /\(?((?:https?|file|chrome-extension):[^\s()]*?):(\d+):(\d+)\)?\s*$/.exec(line);
			if (m && !/console-capture\.js/.test(m[1]))
				return { url: m[1], line: Number(m[2]), column: Number(m[3]) };
		}
		return {};
	}

	const LEVELS = { debug: 'debug', log: 'log', info: 'info', warn: 'warn', error: 'error', trace: 'debug', assert: 'error' };
	for (const [method, level] of Object.entries(LEVELS)) {
		const original = console[method];
		if (typeof original !== 'function')
			continue;
		console[method] = function (...args) {
			try {
				let shown = args;
				if (method === 'assert') {
					if (args[0])
						return original.apply(this, args);
					shown = ['Assertion failed:', ...args.slice(1)];
				}
				send({ level, text: shown.map(show).join(' '), ...caller() });
			} catch {
				/* never break the page's console */
			}
			return original.apply(this, args);
		};
	}
	window.addEventListener('error', event => {
		if (!event.isTrusted)
			return;	/* dispatched by a page script, not raised by the browser */
		if (event.error === undefined && event.message === undefined)
			return;	/* a resource failed to load, not a script error */
		const error = event.error;
		send({
			level: 'error', uncaught: true,
			text: `Uncaught ${error instanceof Error ? `${error.name}: ${error.message}` : event.message}`,
			stack: error instanceof Error ? error.stack : undefined,
			url: event.filename || undefined, line: event.lineno || undefined, column: event.colno || undefined,
		});
	});
	window.addEventListener('unhandledrejection', event => {
		if (!event.isTrusted)
			return;
		const reason = event.reason;
		send({
			level: 'error', uncaught: true,
			text: `Uncaught (in promise) ${reason instanceof Error ? `${reason.name}: ${reason.message}` : show(reason)}`,
			stack: reason instanceof Error ? reason.stack : undefined,
			...(reason instanceof Error && OriginalError.prepareStackTrace === undefined ?
			    callerOf(`x\n${String(reason.stack).split('\n').slice(1).join('\n')}`) : {}),
		});
	});
})();
