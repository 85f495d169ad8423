/**
 * list_network_requests and get_network_request: what the tabs the caller
 * acted in have loaded (browser/network-log.js). Credentials, and the
 * bodies of requests that carried or received them, are withheld unless
 * the person's config.json reveals them (reveal_network_secrets).
 * @module actions/network
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { carriesCredentials, shownHeaders, withheld } from '../browser/network-log.js';

/** The chrome.storage.local key of the options page's switch that gives the agents these tools. */
export const AGENTS_NETWORK_OPTION_KEY = 'agents_network_tools';

/**
 * Whether the person let the agents read network requests (options page; off by default).
 * @param {{get: (key: string) => Promise<object>}} storage chrome.storage.local or a stand-in
 * @returns {Promise<boolean>}
 */
export async function agentsNetworkEnabled(storage) {
	try {
		const stored = await storage.get(AGENTS_NETWORK_OPTION_KEY);
		return stored?.[AGENTS_NETWORK_OPTION_KEY] === true;
	} catch {
		return false;
	}
}

/** Most requests one list shows (the newest). */
const LIST_MAX = 100;
/** Longest body text returned (characters). */
export const BODY_MAX = 64 * 1024;

/** Why a body is withheld, and how to see it. */
export const BODY_WITHHELD = 'because the request carried or received credentials (cookies, authorization or a token), ' +
    'so the body is the person\'s own data; "reveal_network_secrets": true in the host\'s config.json shows it';

/** Bytes as the lists show them. */
function size(bytes) {
	if (bytes === undefined)
		return '?';
	return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** One line of a list. */
function line(r) {
	const status = r.error !== undefined ? `failed (${r.error})` : r.status ?? 'pending';
	const time = r.duration_ms !== undefined ? `${r.duration_ms} ms` : '…';
	return `${r.id} ${r.method} ${status} ${r.type} ${size(r.size)} ${time} ${r.url}`;
}

/**
 * Whether the person's config reveals credentials (the host's welcome).
 * @param {import('../dispatcher.js').Services} services
 * @returns {boolean}
 */
export function revealSecrets(services) {
	return services.welcome?.reveal_network_secrets === true;
}

/** The structured form of a record, without internal ids and order. */
function summary(r) {
	const { request_id: _request, cdp_id: _cdp, seq: _seq, request_headers: _rq, response_headers: _rs, ...rest } = r;
	return rest;
}

/**
 * The length in bytes of a body the debugger gave.
 * @param {{body: string, base64Encoded?: boolean}} r
 * @returns {number}
 */
function bodyBytes(r) {
	if (r.base64Encoded === true)
		return Math.floor(r.body.replace(/=+$/, '').length * 3 / 4);
	return new TextEncoder().encode(r.body).length;
}

/**
 * A response body while the debugger holds it, bounded; or why not. The
 * body of a request that carried or received credentials is withheld
 * unless revealed.
 * @returns {Promise<{body?: string, base64?: boolean, truncated?: boolean, withheld?: number, none?: string}>}
 */
async function bodyOf(debuggers, record, reveal) {
	if (record.cdp_id === undefined)
		return { none: 'the browser kept no body for it: bodies are kept only while Browser Bridge is attached to the tab (during and up to 15 s after a tool acts there)' };
	try {
		const r = await debuggers.send(record.tab_id, 'Network.getResponseBody', { requestId: record.cdp_id });
		if (!reveal && carriesCredentials(record))
			return { withheld: bodyBytes(r) };
		const truncated = r.body.length > BODY_MAX;
		return { body: truncated ? r.body.slice(0, BODY_MAX) : r.body, base64: r.base64Encoded === true, truncated };
	} catch (error) {
		const why = error instanceof DebuggerUnavailable ? error.message : String(error?.message ?? error);
		return { none: `the browser holds no body for it (${why}): it keeps only bodies the page read, while Browser Bridge is attached to the tab` };
	}
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const networkActions = {
	list_network_requests: {
		async run(params, { tab, actor, ownerKey, services }) {
			let records = services.networkLog.list(tab.id, actor, { filter: params.filter, since: params.since, type: params.type, ownerKey });
			const total = records.length;
			records = records.slice(-LIST_MAX);
			const head = `${total} request${total === 1 ? '' : 's'} of tab ${tab.id}` +
			    (total > records.length ? ` (the newest ${records.length} shown; narrow with filter or since)` : '') +
			    (total === 0 ? ' (recorded from when you first acted in the tab).' : ':');
			return {
				content: [{ type: 'text', text: [head, ...records.map(line)].join('\n') }],
				structuredContent: { tab_id: tab.id, total, requests: records.map(summary) },
			};
		},
	},
	get_network_request: {
		scope: 'browser',
		async run(params, { actor, ownerKey, services }) {
			const record = services.networkLog.get(params.id, actor, params.tab_id, ownerKey);
			if (record === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `There is no request ${params.id}${params.tab_id !== undefined ? ` in tab ${params.tab_id}` : ''} among ` +
				    'the tabs you acted in: ids come from list_network_requests (each tab keeps its last 500).');
			const reveal = revealSecrets(services);
			const body = await bodyOf(services.debuggers, record, reveal);
			const requestHeaders = shownHeaders(record.request_headers, reveal);
			const responseHeaders = shownHeaders(record.response_headers, reveal);
			const headers = list => list.map(h => `  ${h.name}: ${h.value}`);
			const lines = [line(record), 'Request headers:', ...headers(requestHeaders), 'Response headers:',
			    ...headers(responseHeaders)];
			if (body.withheld !== undefined)
				lines.push(`Body: ${withheld(body.withheld)}, ${BODY_WITHHELD}.`);
			else if (body.none !== undefined)
				lines.push(`Body: none, ${body.none}.`);
			else if (body.base64)
				lines.push(`Body: ${body.body.length} characters of base64 (binary)${body.truncated ? `, the first ${BODY_MAX}` : ''}.`);
			else
				lines.push(`Body${body.truncated ? ` (the first ${BODY_MAX} characters)` : ''}:`, body.body);
			return {
				content: [{ type: 'text', text: lines.join('\n') }],
				structuredContent: { ...summary(record), request_headers: requestHeaders, response_headers: responseHeaders,
				    ...(body.body !== undefined ? { body: body.body, body_base64: body.base64, body_truncated: body.truncated } : {}),
				    ...(body.withheld !== undefined ? { body_withheld_bytes: body.withheld } : {}) },
			};
		},
	},
};
