/**
 * The extension's side of the host protocol once the handshake is done
 * (docs/protocol.md, sections 3 and 4): answers each host request exactly
 * once, honours its timeout and cancel, sends progress, and makes its own
 * requests to the host.
 * @module rpc
 */

import { BridgeError, ErrorCode, toProtocolError } from './errors.js';

/** Answer this long before the host gives up, so the answer arrives in time. */
export const DEADLINE_MARGIN_MS = 250;
/** The host's default inbound frame limit (setting max-frame). */
export const MAX_OUTBOUND_BYTES = 64 * 1024 * 1024;

/**
 * What a method handler receives besides its params.
 * @typedef {object} CallContext
 * @property {number|string} id the host's request id
 * @property {string} method
 * @property {AbortSignal} signal aborts on cancel or when the deadline passes
 * @property {number} deadline Date.now() value by which to answer
 * @property {(progress: number, total?: number, message?: string, input?: object) => void} progress
 *   input: a question for the caller's user ({task_id, question_id, question}), which a host may pass on
 * @property {string} [client] the MCP client that asked, "name version", when it gave its name
 * @property {string} [caller] who asked as the host identifies it (the MCP session, or the credential
 *   for stateless requests; one OAuth client across its sessions): what only that caller may read is keyed by it
 * @property {boolean} [ownerKey] the request came with the owner key (the host's `owner: true`): it may read
 *   and act on what every caller made
 * @property {string[]} [scopes] the scopes of the OAuth client's key it came with (absent: the owner key, all
 *   of them): what a task it starts may do
 */

/**
 * @callback Dispatch
 * @param {string} method
 * @param {object} params
 * @param {CallContext} context
 * @returns {Promise<object>} the result to send
 */

/** Runs host requests and correlates the extension's own requests. */
export class RequestRunner {
	/**
	 * @param {object} options
	 * @param {(message: object) => void} options.send posts a message to the host
	 * @param {Dispatch} options.dispatch runs a method
	 * @param {(text: string) => void} [options.log]
	 * @param {() => number} [options.now]
	 * @param {number} [options.maxBytes] the largest message the host accepts
	 */
	constructor({ send, dispatch, log = () => {}, now = Date.now, maxBytes = MAX_OUTBOUND_BYTES }) {
		this.send = send;
		this.maxBytes = maxBytes;
		this.dispatch = dispatch;
		this.log = log;
		this.now = now;
		/** @type {Map<unknown, {controller: AbortController, timer: any, progress: number, done: boolean}>} */
		this.running = new Map();
		/** @type {Map<string, {resolve: Function, reject: Function, timer: any}>} */
		this.outgoing = new Map();
		this.nextId = 1;
	}

	/**
	 * Handles one message from the host other than welcome and chunk.
	 * @param {object} message
	 */
	handle(message) {
		switch (message.type) {
		case 'request':
			this.onRequest(message);
			break;
		case 'cancel':
			this.onCancel(message);
			break;
		case 'response':
			this.onResponse(message);
			break;
		default:
			this.log(`ignoring a host message of type ${JSON.stringify(message.type)}`);
		}
	}

	/** @param {object} message a host request */
	onRequest(message) {
		const { id, method } = message;
		if (id === undefined || id === null) {
			this.log(`host request without an id: ${JSON.stringify(message).slice(0, 200)}`);
			return;
		}
		if (this.running.has(id)) {
			this.log(`host request ${id} is already running; duplicate ignored`);
			return;
		}
		if (typeof method !== 'string') {
			this.send({ type: 'response', id, error: toProtocolError(new BridgeError(ErrorCode.INVALID_ARGUMENT,
			    'The request has no method name. This is a host bug: update the host and the extension to the same release.')) });
			return;
		}
		const params = message.params && typeof message.params === 'object' &&
		    !Array.isArray(message.params) ? message.params : {};
		const timeoutMs = Number.isFinite(message.timeout_ms) && message.timeout_ms > 0 ?
		    message.timeout_ms : 30000;
		const controller = new AbortController();
		const deadline = this.now() + Math.max(timeoutMs - DEADLINE_MARGIN_MS, 0);
		const entry = { controller, timer: null, progress: -Infinity, done: false };
		this.running.set(id, entry);
		entry.timer = setTimeout(() => {
			const error = new BridgeError(ErrorCode.TIMEOUT,
			    `${method} did not finish within ${timeoutMs} ms. The page may be busy or slow; ` +
			    'call get_browser_state to see where it stands, then retry (or raise timeout_ms where the tool has one).');
			controller.abort(error);
			this.reply(id, null, error);
		}, Math.max(timeoutMs - DEADLINE_MARGIN_MS, 0));
		/** @type {CallContext} */
		const context = {
			id,
			method,
			signal: controller.signal,
			deadline,
			progress: (progress, total, text, input) => this.progress(id, progress, total, text, input),
		};
		if (typeof message.client === 'string' && message.client !== '')
			context.client = message.client.slice(0, 80);
		if (typeof message.caller === 'string' && message.caller !== '')
			context.caller = message.caller.slice(0, 80);
		if (message.owner === true)
			context.ownerKey = true;
		if (Array.isArray(message.scopes))
			context.scopes = message.scopes.filter(scope => typeof scope === 'string');
		let promise;
		try {
			promise = Promise.resolve(this.dispatch(method, params, context));
		} catch (error) {
			promise = Promise.reject(error);
		}
		promise.then(result => this.reply(id, result, null),
		    error => this.reply(id, null, error));
	}

	/** @param {object} message a host cancel */
	onCancel(message) {
		const entry = this.running.get(message.id);
		if (entry === undefined)
			return;
		entry.done = true;
		clearTimeout(entry.timer);
		this.running.delete(message.id);
		entry.controller.abort(new BridgeError(ErrorCode.CANCELLED,
		    `The call was cancelled (${message.reason ?? 'no reason given'}).`));
	}

	/** @param {object} message the host's answer to one of our requests */
	onResponse(message) {
		const pending = this.outgoing.get(message.id);
		if (pending === undefined) {
			this.log(`response for unknown request ${JSON.stringify(message.id)} dropped`);
			return;
		}
		this.outgoing.delete(message.id);
		clearTimeout(pending.timer);
		if (message.error)
			pending.reject(new BridgeError(message.error.code ?? ErrorCode.INTERNAL,
			    message.error.message ?? 'The host answered with an error.'));
		else
			pending.resolve(message.result);
	}

	/**
	 * Sends the one answer to a request, unless it was answered or cancelled.
	 * @param {unknown} id
	 * @param {object|null} result
	 * @param {unknown} error
	 */
	reply(id, result, error) {
		const entry = this.running.get(id);
		if (entry === undefined || entry.done)
			return;	/* cancelled or already answered */
		entry.done = true;
		clearTimeout(entry.timer);
		this.running.delete(id);
		let message;
		if (error !== null && error !== undefined)
			message = { type: 'response', id, error: toProtocolError(error) };
		else
			message = { type: 'response', id, result: result ?? { content: [] } };
		let text;
		try {
			text = JSON.stringify(message);
		} catch (cause) {
			message = { type: 'response', id, error: toProtocolError(cause) };
			text = JSON.stringify(message);
		}
		if (text.length > this.maxBytes / 3 &&
		    new TextEncoder().encode(text).length > this.maxBytes) {
			message = {
				type: 'response', id, error: {
					code: ErrorCode.MESSAGE_TOO_LARGE,
					message: `The result is larger than the host accepts (${this.maxBytes} bytes). ` +
					    'Ask for less: a smaller page_size, max_chars or a single element.',
				},
			};
		}
		this.send(message);
	}

	/**
	 * Sends progress for a running request; progress must increase.
	 * @param {unknown} id
	 * @param {number} progress
	 * @param {number} [total]
	 * @param {string} [text]
	 * @param {object} [input] a question for the caller's user (see CallContext)
	 */
	progress(id, progress, total, text, input) {
		const entry = this.running.get(id);
		if (entry === undefined || entry.done || !(progress > entry.progress))
			return;
		entry.progress = progress;
		const message = { type: 'progress', id, progress };
		if (total !== undefined)
			message.total = total;
		if (text !== undefined)
			message.message = text;
		if (input !== undefined)
			message.input = input;
		this.send(message);
	}

	/**
	 * Calls a host method (for example `status`).
	 * @param {string} method
	 * @param {object} [params]
	 * @param {number} [timeoutMs]
	 * @returns {Promise<object>}
	 */
	call(method, params = {}, timeoutMs = 10000) {
		const id = `e${this.nextId++}`;
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.outgoing.delete(id);
				reject(new BridgeError(ErrorCode.TIMEOUT, `The host did not answer ${method} within ${timeoutMs} ms.`));
			}, timeoutMs);
			this.outgoing.set(id, { resolve, reject, timer });
			this.send({ type: 'request', id, method, params });
		});
	}

	/** Stops everything: the port is gone, so nothing can be answered. */
	close() {
		for (const [id, entry] of this.running) {
			clearTimeout(entry.timer);
			entry.done = true;
			entry.controller.abort(new BridgeError(ErrorCode.CANCELLED,
			    'The connection to the host closed.'));
			this.running.delete(id);
		}
		for (const [id, pending] of this.outgoing) {
			clearTimeout(pending.timer);
			pending.reject(new BridgeError(ErrorCode.CANCELLED, 'The connection to the host closed.'));
			this.outgoing.delete(id);
		}
	}
}
