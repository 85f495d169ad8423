/**
 * The person's consent to an MCP client (issue #25): the host's
 * approve_client requests wait here until the person allows or denies them
 * on the approval page (approve/approve.html), and only then are they
 * answered. A request the host gives up on (its cancel, after 5 minutes)
 * is dropped. The waiting requests are mirrored in chrome.storage.session,
 * which content scripts cannot read, for the popup and the approval page;
 * the answer itself only leaves through decide(), which the service worker
 * takes from the extension's own pages.
 * @module client-approvals
 */

import { BridgeError, ErrorCode } from './errors.js';

/**
 * The scopes a client may be given, in the order the approval page lists
 * them, with its label and whether its box starts ticked
 * (docs/protocol.md, "Client approval").
 */
export const SCOPES = Object.freeze([
	{ name: 'pages:read', label: 'Read pages', ticked: true },
	{ name: 'pages:act', label: 'Act on pages', ticked: true },
	{ name: 'tasks', label: 'Run tasks with the agents', ticked: true },
	{ name: 'network', label: 'Network details', ticked: false },
	{ name: 'scripts', label: 'Run page scripts', ticked: false },
]);
/** Where the waiting requests are mirrored (chrome.storage.session). */
export const PENDING_KEY = 'pendingClients';
/** The longest client name shown, in characters (the host cuts it too). */
const NAME_MAX = 100;
/**
 * The characters never shown as themselves in a client's name: controls and
 * format characters (Unicode Cc, Cf: bidirectional overrides among them) and
 * the line and paragraph separators, as the host replaces them too.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** The longest redirect host shown. */
const HOST_MAX = 270;

/**
 * A request as the popup and the approval page show it.
 * @typedef {object} PendingClient
 * @property {string} request_id
 * @property {string} client_id the client's registration: its requests share it
 * @property {string} client_name what the client declared: self-declared, never proof
 * @property {?{client_name: string, registered_at_ms: ?number, approved_at_ms: ?number}} name_taken_by
 *     the approved client whose name this one's resembles (the host compares them), or null
 * @property {string} redirect_host where the client gets its code (host:port)
 * @property {{name: string, label: string, ticked: boolean}[]} scopes the scopes it asked for
 * @property {number} requested_at_ms
 * @property {number} expires_at_ms
 */

/**
 * A client's self-declared name as it may be shown: every control or format
 * character replaced by U+FFFD, so none reorders or hides what follows, and
 * at most NAME_MAX characters.
 * @param {string} name
 * @returns {string}
 */
export function shownName(name) {
	return [...String(name).replace(HIDDEN, '\uFFFD')].slice(0, NAME_MAX).join('');
}

/**
 * What approve_client's name_taken_by says, as shown, or null.
 * @param {unknown} taken
 * @returns {?{client_name: string, registered_at_ms: ?number, approved_at_ms: ?number}}
 */
function namesake(taken) {
	if (taken === null || typeof taken !== 'object' || typeof taken.client_name !== 'string')
		return null;
	const when = ms => (Number.isFinite(ms) ? ms : null);
	return { client_name: shownName(taken.client_name).trim() || '(no name given)',
		registered_at_ms: when(taken.registered_at_ms), approved_at_ms: when(taken.approved_at_ms) };
}

/**
 * A host's approve_client params as a PendingClient.
 * @param {object} params
 * @returns {PendingClient}
 * @throws {BridgeError} INVALID_ARGUMENT for a request the page could not show truthfully
 */
export function pendingClient(params) {
	const bad = what => new BridgeError(ErrorCode.INVALID_ARGUMENT,
	    `approve_client ${what}. This is a host bug: update the host and the extension to the same release.`);
	if (typeof params.request_id !== 'string' || !/^[0-9a-f]{32}$/.test(params.request_id))
		throw bad('needs request_id, 32 hex digits');
	if (typeof params.client_id !== 'string' || params.client_id === '' || typeof params.client_name !== 'string' ||
	    typeof params.redirect_host !== 'string' || params.redirect_host === '')
		throw bad('needs client_id, client_name and redirect_host');
	if (!Array.isArray(params.scopes) || params.scopes.length === 0)
		throw bad('needs the scopes asked for');
	const unknown = params.scopes.filter(name => !SCOPES.some(scope => scope.name === name));
	if (unknown.length > 0)
		throw bad(`asks for scopes this extension does not know (${unknown.join(', ').slice(0, 200)})`);
	const name = shownName(params.client_name).trim();
	return {
		request_id: params.request_id,
		client_id: params.client_id.slice(0, 64),
		client_name: name === '' ? '(no name given)' : name,
		name_taken_by: namesake(params.name_taken_by),
		redirect_host: params.redirect_host.slice(0, HOST_MAX),
		scopes: SCOPES.filter(scope => params.scopes.includes(scope.name)).map(scope => ({ ...scope })),
		requested_at_ms: Number.isFinite(params.requested_at_ms) ? params.requested_at_ms : Date.now(),
		expires_at_ms: Number.isFinite(params.expires_at_ms) ? params.expires_at_ms : Date.now() + 300000,
	};
}

/**
 * Whether a runtime message comes from one of the extension's own pages
 * (the popup, the approval page), the only senders a decision or a
 * revocation is taken from: a content script's messages carry the web
 * page's URL, and another extension's page its own origin.
 * @param {{url?: string}} sender chrome.runtime.MessageSender
 * @param {string} base this extension's origin and a slash (chrome.runtime.getURL(''))
 * @returns {boolean}
 */
export function fromExtensionPage(sender, base) {
	return typeof sender.url === 'string' && sender.url.startsWith(base);
}

/** The approve_client requests waiting for the person. */
export class ClientApprovals {
	/**
	 * @param {object} options
	 * @param {{get: Function, set: Function}} options.session chrome.storage.session
	 * @param {(pending: PendingClient[]) => void} [options.onChange] the badge and an open popup or page
	 */
	constructor({ session, onChange = () => {} }) {
		this.session = session;
		this.onChange = onChange;
		/** @type {Map<string, {client: PendingClient, resolve: (answer: object) => void}>} oldest first */
		this.waiting = new Map();
		/* What a previous service worker kept waiting cannot be answered: its port, and so the host's request, is gone. */
		this.saved = session.set({ [PENDING_KEY]: [] }).catch(() => {});
	}

	/**
	 * The host's approve_client: waits for the person's decision; the
	 * request is dropped when signal aborts (the host's cancel or deadline).
	 * @param {object} params
	 * @param {AbortSignal} signal
	 * @returns {Promise<{approved: boolean, scopes?: string[]}>} the response's result
	 */
	ask(params, signal) {
		const client = pendingClient(params);
		if (this.waiting.has(client.request_id))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `approve_client ${client.request_id} is already waiting.`);
		return new Promise((resolve, reject) => {
			const drop = () => {
				this.waiting.delete(client.request_id);
				this.changed();
				reject(signal.reason);
			};
			signal.addEventListener('abort', drop, { once: true });
			this.waiting.set(client.request_id, {
				client,
				resolve: answer => {
					signal.removeEventListener('abort', drop);
					resolve(answer);
				},
			});
			this.changed();
		});
	}

	/**
	 * The person's decision on the approval page.
	 * @param {string} requestId
	 * @param {{approved: boolean, scopes?: string[]}} decision scopes: the boxes left ticked
	 * @returns {{approved: boolean, scopes?: string[]}} what the host is told
	 * @throws {Error} when the request no longer waits, or scopes names one it did not ask for
	 */
	decide(requestId, { approved, scopes = [] }) {
		const entry = this.waiting.get(requestId);
		if (entry === undefined)
			throw new Error('This request is no longer waiting: it expired (after 5 minutes), was answered, or the host went away. ' +
			    'The client asks again when it next connects.');
		let answer = { approved: false };
		if (approved === true) {
			if (!Array.isArray(scopes) || scopes.some(name => !entry.client.scopes.some(scope => scope.name === name)))
				throw new Error('Only the scopes the client asked for can be given.');
			const given = entry.client.scopes.map(scope => scope.name).filter(name => scopes.includes(name));
			if (given.length > 0)
				answer = { approved: true, scopes: given };
		}
		this.waiting.delete(requestId);
		entry.resolve(answer);
		this.changed();
		return answer;
	}

	/**
	 * The person's "Deny all" in the popup: every waiting request of one
	 * client, or of every client when clientId is null, is denied at once.
	 * @param {?string} clientId
	 * @returns {{denied: number}} how many requests were denied
	 */
	denyAll(clientId) {
		let denied = 0;
		for (const [requestId, entry] of this.waiting) {
			if (clientId !== null && entry.client.client_id !== clientId)
				continue;
			this.waiting.delete(requestId);
			entry.resolve({ approved: false });
			denied++;
		}
		if (denied > 0)
			this.changed();
		return { denied };
	}

	/** @returns {PendingClient[]} the waiting requests, oldest first */
	pending() {
		return [...this.waiting.values()].map(entry => structuredClone(entry.client));
	}

	/** Mirrors the waiting requests and tells the badge and the pages. */
	changed() {
		const pending = this.pending();
		this.saved = this.saved.then(() => this.session.set({ [PENDING_KEY]: pending })).catch(() => {});
		this.onChange(pending);
	}
}
