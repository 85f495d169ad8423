/**
 * One HTTP request to a model API, as every provider makes it: a timeout,
 * retries with backoff for 429 and 5xx (honouring Retry-After), at once a
 * clear error for 400/401/403, and no key in any message.
 * @module agents/providers/request
 */

import { redact } from '../redact.js';

/** Retries after the first attempt, for 429 and 5xx. */
export const MAX_RETRIES = 3;
/** The first backoff; each retry doubles it. */
const BACKOFF_MS = 1000;
/** The longest wait a Retry-After may ask for. */
const MAX_RETRY_AFTER_MS = 60000;
/** A request's default time limit. */
export const REQUEST_TIMEOUT_MS = 60000;
/** How much of an API's error body a message quotes. */
const QUOTE_CHARS = 300;

/** A model API failure; kind says which (see docs/agents.md). */
export class ProviderError extends Error {
	/**
	 * @param {'auth'|'bad_request'|'rate_limit'|'server'|'timeout'|'network'|'malformed'|'cancelled'} kind
	 * @param {string} message already redacted
	 * @param {number} [status] the HTTP status
	 */
	constructor(kind, message, status) {
		super(message);
		this.name = 'ProviderError';
		this.kind = kind;
		this.status = status;
	}
}

/**
 * How long a Retry-After header asks to wait.
 * @param {string|null} value seconds or an HTTP date
 * @param {number} now
 * @returns {number|null} milliseconds, or null without a usable header
 */
export function retryAfterMs(value, now) {
	if (value === null || value === undefined || value.trim() === '')
		return null;
	const seconds = Number(value);
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
	if (!Number.isFinite(ms))
		return null;
	return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/**
 * The error text an API put in its body, shortened.
 * @param {string} body
 * @returns {string}
 */
function apiMessage(body) {
	let text = body;
	try {
		const parsed = JSON.parse(body);
		const error = parsed.error ?? parsed;
		text = typeof error === 'string' ? error : error.message ?? JSON.stringify(error);
	} catch {
		/* not JSON: quote the text */
	}
	text = String(text).replace(/\s+/g, ' ').trim();
	return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS - 1)}…` : text;
}

/**
 * Posts JSON and answers the parsed reply.
 * @param {object} request
 * @param {string} request.name the provider as the user knows it, for messages
 * @param {string} request.url
 * @param {Record<string, string>} request.headers
 * @param {object} request.body
 * @param {string[]} request.secrets to redact from every message
 * @param {AbortSignal} [request.signal]
 * @param {number} [request.timeoutMs]
 * @param {{fetch: typeof fetch, sleep: (ms: number, signal?: AbortSignal) => Promise<void>, now?: () => number}} deps
 * @returns {Promise<object>}
 * @throws {ProviderError}
 */
export async function postJson(request, deps) {
	const { name, url, secrets } = request;
	const timeoutMs = request.timeoutMs ?? REQUEST_TIMEOUT_MS;
	const now = deps.now ?? Date.now;
	for (let attempt = 0; ; attempt++) {
		const controller = new AbortController();
		const outer = request.signal;
		const forward = () => controller.abort(outer.reason);
		outer?.addEventListener('abort', forward, { once: true });
		const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
		let response, body;
		try {
			if (outer?.aborted)
				throw outer.reason;
			response = await deps.fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...request.headers },
				body: JSON.stringify(request.body),
				signal: controller.signal,
			});
			body = await response.text();
		} catch (error) {
			if (outer?.aborted)
				throw new ProviderError('cancelled', `The request to ${name} was cancelled.`);
			if (controller.signal.aborted)
				throw new ProviderError('timeout', `${name} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
			throw new ProviderError('network', redact(`${name} could not be reached at ${url}: ${error?.message ?? error}. ` +
			    'Check the base URL on the Browser Bridge options page and that the server is running.', secrets));
		} finally {
			clearTimeout(timer);
			outer?.removeEventListener('abort', forward);
		}
		const status = response.status;
		if (status >= 200 && status < 300) {
			try {
				return JSON.parse(body);
			} catch {
				throw new ProviderError('malformed', redact(`${name} answered HTTP ${status} with a body that is not JSON: ${apiMessage(body)}`, secrets), status);
			}
		}
		const said = redact(apiMessage(body), secrets);
		if (status === 401 || status === 403)
			throw new ProviderError('auth', `${name} refused the request (HTTP ${status}: ${said}). ` +
			    'Check the API key (and that it may use this model) on the Browser Bridge options page.', status);
		const retryable = status === 429 || status >= 500;
		if (!retryable)
			throw new ProviderError('bad_request', `${name} rejected the request (HTTP ${status}: ${said}). ` +
			    'Check the model name and base URL on the Browser Bridge options page.', status);
		if (attempt >= MAX_RETRIES)
			throw new ProviderError(status === 429 ? 'rate_limit' : 'server',
			    `${name} ${status === 429 ? 'kept limiting the request rate' : 'kept failing'} (HTTP ${status}: ${said}) ` +
			    `after ${MAX_RETRIES} retries. Try again later, or choose another model on the options page.`, status);
		const wait = retryAfterMs(response.headers.get('retry-after'), now()) ?? BACKOFF_MS * 2 ** attempt;
		try {
			await deps.sleep(wait, request.signal);
		} catch {
			throw new ProviderError('cancelled', `The request to ${name} was cancelled.`);
		}
	}
}
