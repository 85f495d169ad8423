/**
 * list_network_requests and get_network_request: what the tabs the tools
 * used have loaded (browser/network-log.js).
 * @module actions/network
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';

/** Most requests one list shows (the newest). */
const LIST_MAX = 100;
/** Longest body text returned (characters). */
export const BODY_MAX = 64 * 1024;

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

/** The structured form of a record, without internal ids. */
function summary(r) {
	const { request_id: _request, cdp_id: _cdp, request_headers: _rq, response_headers: _rs, ...rest } = r;
	return rest;
}

/**
 * A response body while the debugger holds it, bounded; or why not.
 * @returns {Promise<{body?: string, base64?: boolean, truncated?: boolean, none?: string}>}
 */
async function bodyOf(debuggers, record) {
	if (record.cdp_id === undefined)
		return { none: 'the browser kept no body for it: bodies are kept only while Browser Bridge is attached to the tab (during and up to 15 s after a tool acts there)' };
	try {
		const r = await debuggers.send(record.tab_id, 'Network.getResponseBody', { requestId: record.cdp_id });
		const truncated = r.body.length > BODY_MAX;
		return { body: truncated ? r.body.slice(0, BODY_MAX) : r.body, base64: r.base64Encoded === true, truncated };
	} catch (error) {
		const why = error instanceof DebuggerUnavailable ? error.message : String(error?.message ?? error);
		return { none: `the browser holds no body for it (${why}): it keeps only bodies the page read, while Browser Bridge is attached to the tab` };
	}
}

/** @type {Record<string, import('../navigator.js').ActionDefinition>} */
export const networkActions = {
	list_network_requests: {
		async run(params, { tab, services }) {
			let records = services.networkLog.list(tab.id, { filter: params.filter, since: params.since, type: params.type });
			const total = records.length;
			records = records.slice(-LIST_MAX);
			const head = `${total} request${total === 1 ? '' : 's'} of tab ${tab.id}` +
			    (total > records.length ? ` (the newest ${records.length} shown; narrow with filter or since)` : '') +
			    (total === 0 ? ' (recorded from when a tool first used the tab).' : ':');
			return {
				content: [{ type: 'text', text: [head, ...records.map(line)].join('\n') }],
				structuredContent: { tab_id: tab.id, total, requests: records.map(summary) },
			};
		},
	},
	get_network_request: {
		scope: 'browser',
		async run(params, { services }) {
			const record = services.networkLog.get(params.id);
			if (record === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `There is no request ${params.id}: ids come from list_network_requests (each tab keeps its last 500).`);
			const body = await bodyOf(services.debuggers, record);
			const headers = list => (list ?? []).map(h => `  ${h.name}: ${h.value}`);
			const lines = [line(record), 'Request headers:', ...headers(record.request_headers), 'Response headers:',
			    ...headers(record.response_headers)];
			if (body.none !== undefined)
				lines.push(`Body: none, ${body.none}.`);
			else if (body.base64)
				lines.push(`Body: ${body.body.length} characters of base64 (binary)${body.truncated ? `, the first ${BODY_MAX}` : ''}.`);
			else
				lines.push(`Body${body.truncated ? ` (the first ${BODY_MAX} characters)` : ''}:`, body.body);
			return {
				content: [{ type: 'text', text: lines.join('\n') }],
				structuredContent: { ...summary(record), request_headers: record.request_headers ?? [], response_headers: record.response_headers ?? [],
				    ...(body.none === undefined ? { body: body.body, body_base64: body.base64, body_truncated: body.truncated } : {}) },
			};
		},
	},
};
