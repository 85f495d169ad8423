/**
 * wait_for's arguments: which one condition was asked for, URL matching
 * (substring, or /regex/flags), and words for what is awaited. Pure.
 * @module wait-conditions
 */

import { BridgeError, ErrorCode } from './errors.js';

/** wait_for's timeout when timeout_ms is not given (the host's schema default). */
export const DEFAULT_WAIT_MS = 30000;

const CONDITIONS = ['text', 'text_gone', 'selector', 'ref', 'url', 'network_idle', 'delay_ms'];

/**
 * A URL test from wait_for's url: "/regex/flags" is a regular expression,
 * anything else a substring.
 * @param {string} spec
 * @returns {(url: string) => boolean}
 * @throws {BridgeError} INVALID_ARGUMENT for a bad regular expression
 */
export function urlMatcher(spec) {
	const m = /^\/(.+)\/([dgimsuy]*)$/s.exec(spec);
	if (m === null)
		return url => url.includes(spec);
	let re;
	try {
		re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
	} catch (error) {
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `url ${JSON.stringify(spec)} is not a valid regular expression: ${error.message}. ` +
		    'Write a substring, or /pattern/ with a valid pattern.');
	}
	return url => re.test(url);
}

/**
 * The one condition wait_for's params ask for.
 * @param {object} params
 * @returns {{kind: string, value: any, state?: string}}
 * @throws {BridgeError} INVALID_ARGUMENT when none or several are given
 */
export function waitCondition(params) {
	const given = CONDITIONS.filter(k => params[k] !== undefined && params[k] !== null &&
	    !(k === 'network_idle' && params[k] === false));
	if (given.length === 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    'wait_for needs one condition: text, text_gone, selector or ref (with state), url, network_idle: true, or delay_ms.');
	if (given.length > 1)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `wait_for waits for one condition at a time, not ${given.join(' and ')}: call it once for each.`);
	const kind = given[0];
	if (params.state !== undefined && kind !== 'selector' && kind !== 'ref')
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'state goes with selector or ref, not with ' + kind + '.');
	if ((kind === 'text' || kind === 'text_gone' || kind === 'selector' || kind === 'url') && params[kind] === '')
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `${kind} is empty: give something to wait for.`);
	const condition = { kind, value: params[kind] };
	if (kind === 'selector' || kind === 'ref')
		condition.state = params.state ?? 'visible';
	return condition;
}

/**
 * Words for a condition: 'the text "Done" to appear'.
 * @param {{kind: string, value: any, state?: string}} c
 * @returns {string}
 */
export function describeCondition(c) {
	switch (c.kind) {
	case 'text': return `the text ${JSON.stringify(c.value)} to appear`;
	case 'text_gone': return `the text ${JSON.stringify(c.value)} to disappear`;
	case 'selector': return `${JSON.stringify(c.value)} to be ${c.state}`;
	case 'ref': return `${c.value} to be ${c.state}`;
	case 'url': return `the URL to match ${JSON.stringify(c.value)}`;
	case 'network_idle': return 'the network to be idle';
	default: return `${c.value} ms`;
	}
}
