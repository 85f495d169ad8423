/**
 * Content actions: take_screenshot and evaluate_script, through the
 * debugger (CDP) the dispatcher's services attach on demand.
 * @module actions/content
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { runOnElement } from '../browser/page-channel.js';
import { fitScale } from '../content-math.js';

/** The chrome.storage.local key of the options page's evaluate_script switch. */
export const EVALUATE_OPTION_KEY = 'evaluate_script';

/** What evaluate_script says when it is off. */
export const EVALUATE_OFF_MESSAGE = 'evaluate_script is off because it gives the agent full access to the page. ' +
    'To enable it, either add "evaluate_script": true to config.json in ~/.config/browser-bridge/ and restart the browser, ' +
    'or tick "Allow evaluate_script" on the Browser Bridge extension\'s options page (chrome://extensions, Browser Bridge, Extension options).';

/**
 * Sends a CDP command, turning an unavailable debugger into a clear error.
 * @param {import('../dispatcher.js').Services} services
 * @param {number} tabId
 * @param {string} method
 * @param {object} [params]
 * @param {string} what what needs the debugger, for the message
 */
async function cdp(services, tabId, method, params, what) {
	try {
		return await services.debuggers.send(tabId, method, params);
	} catch (error) {
		if (error instanceof DebuggerUnavailable)
			throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
			    `Cannot ${what} in tab ${tabId}: ${error.message}. Close DevTools or the other debugger on that tab, then retry.`);
		throw error;
	}
}

/**
 * The element's box in CSS pixels of the page (document coordinates),
 * after scrolling it into view; runs in the page.
 * @param {number} localId
 * @returns {{x: number, y: number, width: number, height: number}|{stale: true}}
 */
function elementPageBox(localId) {
	const element = globalThis.__browserBridgePage?.element?.(localId) ?? null;
	if (element === null)
		return { stale: true };
	element.scrollIntoView({ block: 'nearest', inline: 'nearest' });
	const r = element.getBoundingClientRect();
	return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
}

/**
 * The element's box, or STALE_REF.
 * @param {import('../dispatcher.js').ActionContext} context
 */
async function elementBox(context) {
	const { element } = context;
	if (element.frameId !== 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `Element ${element.ref} is inside a frame; take_screenshot with ref captures elements of the top page only. ` +
		    'Take a viewport screenshot instead.');
	const box = await runOnElement(context, elementPageBox);
	if (box.width < 1 || box.height < 1)
		throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
		    `Element ${element.ref} has no size (it is hidden or empty), so there is nothing to capture. Make it visible first.`);
	return box;
}

/**
 * The dimensions of a PNG, JPEG or WebP image, from its bytes.
 * @param {string} base64
 * @returns {{width: number, height: number}|null}
 */
export function imageSize(base64) {
	const bytes = Uint8Array.from(atob(base64.slice(0, 4096)), c => c.charCodeAt(0));
	const view = new DataView(bytes.buffer);
	if (bytes[0] === 0x89 && bytes[1] === 0x50)
		return { width: view.getUint32(16), height: view.getUint32(20) };
	if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) {
		const chunk = String.fromCharCode(...bytes.slice(12, 16));
		if (chunk === 'VP8 ')
			return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
		if (chunk === 'VP8L') {
			const b = view.getUint32(21, true);
			return { width: (b & 0x3fff) + 1, height: ((b >> 14) & 0x3fff) + 1 };
		}
		if (chunk === 'VP8X')
			return { width: 1 + (bytes[24] | bytes[25] << 8 | bytes[26] << 16), height: 1 + (bytes[27] | bytes[28] << 8 | bytes[29] << 16) };
		return null;
	}
	if (bytes[0] === 0xff && bytes[1] === 0xd8) {
		for (let i = 2; i + 9 < bytes.length;) {
			if (bytes[i] !== 0xff)
				return null;
			const marker = bytes[i + 1];
			if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
				return { width: view.getUint16(i + 7), height: view.getUint16(i + 5) };
			i += 2 + view.getUint16(i + 2);
		}
	}
	return null;
}

/**
 * Whether evaluate_script is on: the host's welcome or the options page.
 * @param {import('../dispatcher.js').Services} services
 * @returns {Promise<boolean>}
 */
export async function evaluateEnabled(services) {
	if (services.welcome?.evaluate_script === true)
		return true;
	try {
		const stored = await services.storage.get(EVALUATE_OPTION_KEY);
		return stored?.[EVALUATE_OPTION_KEY] === true;
	} catch {
		return false;
	}
}

/**
 * The message and stack of a CDP exception.
 * @param {object} details Runtime.ExceptionDetails
 * @returns {{message: string, stack: string}}
 */
function exceptionOf(details) {
	const description = details.exception?.description ?? '';
	const value = details.exception?.value;
	let message = details.text ?? 'Uncaught';
	let stack = '';
	if (description !== '') {
		const lines = description.split('\n');
		message = lines[0];
		stack = description;
	} else if (value !== undefined) {
		message = `Uncaught ${JSON.stringify(value)}`;
	}
	if (stack === '' && details.stackTrace?.callFrames?.length)
		stack = details.stackTrace.callFrames.map(f => `    at ${f.functionName || '<anonymous>'} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`).join('\n');
	return { message, stack };
}

/**
 * A thrown error as an isError result.
 * @param {object} details Runtime.ExceptionDetails
 */
function thrownResult(details) {
	const { message, stack } = exceptionOf(details);
	return {
		content: [{ type: 'text', text: `The script threw: ${message}${stack && stack !== message ? `\n${stack}` : ''}` }],
		structuredContent: { error: { message, stack } },
		isError: true,
	};
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const contentActions = {
	take_screenshot: {
		async run(params, context) {
			const { tab, services } = context;
			const format = params.format ?? 'png';
			const what = 'take a screenshot';
			const metrics = await cdp(services, tab.id, 'Page.getLayoutMetrics', {}, what);
			const css = metrics.cssContentSize ?? metrics.contentSize;
			const dpr = metrics.contentSize && metrics.cssContentSize && metrics.cssContentSize.width > 0 ?
			    metrics.contentSize.width / metrics.cssContentSize.width : 1;
			const viewport = metrics.cssLayoutViewport ?? metrics.layoutViewport;
			let clip;
			let kind;
			if (context.element !== undefined) {
				const box = await elementBox(context);
				clip = { x: box.x, y: box.y, width: box.width, height: box.height };
				kind = `element ${context.element.ref}`;
			} else if (params.full_page === true) {
				clip = { x: 0, y: 0, width: Math.ceil(css.width), height: Math.ceil(css.height) };
				kind = 'full page';
			} else {
				const now = await cdp(services, tab.id, 'Page.getLayoutMetrics', {}, what);
				const v = now.cssLayoutViewport ?? viewport;
				clip = { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight };
				kind = 'viewport';
			}
			const scale = fitScale(clip.width * dpr, params.max_width);
			const request = {
				format,
				clip: { ...clip, scale },
				captureBeyondViewport: params.full_page === true || context.element !== undefined,
			};
			if (format !== 'png' && params.quality !== undefined)
				request.quality = params.quality;
			const shot = await cdp(services, tab.id, 'Page.captureScreenshot', request, what);
			const mimeType = `image/${format}`;
			const size = imageSize(shot.data) ?? { width: Math.round(clip.width * dpr * scale), height: Math.round(clip.height * dpr * scale) };
			const scaled = scale < 1 ? `, scaled to ${Math.round(scale * 100)}% to fit max_width ${params.max_width}` : '';
			return {
				content: [
					{ type: 'image', data: shot.data, mimeType },
					{ type: 'text', text: `Screenshot of the ${kind} of tab ${tab.id} (${tab.url}): ${size.width}x${size.height} ${format}${scaled}.` },
				],
				structuredContent: { tab_id: tab.id, width: size.width, height: size.height, format, scale, kind: kind.split(' ')[0] },
			};
		},
	},

	evaluate_script: {
		async run(params, { tab, services }) {
			if (!await evaluateEnabled(services))
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, EVALUATE_OFF_MESSAGE);
			const what = 'run the script';
			const args = params.args ?? [];
			const evaluate = expression => cdp(services, tab.id, 'Runtime.evaluate', {
				expression, awaitPromise: true, returnByValue: false, userGesture: true,
			}, what);
			/* Parenthesised first, so "function (a) {...}" is a function; statements fall back to the plain text. */
			let first = await evaluate(`(${params.expression}\n)`);
			if (first.exceptionDetails?.exception?.className === 'SyntaxError')
				first = await evaluate(params.expression);
			if (first.exceptionDetails)
				return thrownResult(first.exceptionDetails);
			let value = first.result;
			if (value.type === 'function') {
				const called = await cdp(services, tab.id, 'Runtime.callFunctionOn', {
					objectId: value.objectId,
					functionDeclaration: 'function (...args) { return this(...args); }',
					arguments: args.map(v => ({ value: v })),
					awaitPromise: true, returnByValue: true, userGesture: true,
				}, what);
				if (called.exceptionDetails)
					return thrownResult(called.exceptionDetails);
				value = called.result;
			} else if (value.objectId !== undefined) {
				const byValue = await cdp(services, tab.id, 'Runtime.callFunctionOn', {
					objectId: value.objectId, functionDeclaration: 'function () { return this; }',
					returnByValue: true,
				}, what);
				if (byValue.exceptionDetails)
					return thrownResult(byValue.exceptionDetails);
				value = byValue.result;
			}
			if (value.objectId !== undefined)
				services.debuggers.send(tab.id, 'Runtime.releaseObject', { objectId: value.objectId }).catch(() => {});
			let result = value.value;
			let note = '';
			if (value.type === 'undefined')
				result = null, note = ' (undefined)';
			else if (value.unserializableValue !== undefined)
				result = value.unserializableValue, note = ' (not JSON: given as text)';
			const json = JSON.stringify(result) ?? 'null';
			return {
				content: [{ type: 'text', text: `Result${note}: ${json}` }],
				structuredContent: { result },
			};
		},
	},
};
