/**
 * Input actions: click_element, type_value and scroll_page. Clicks and keys
 * are trusted input through chrome.debugger (CDP) when it is available;
 * when another debugger holds the tab they fall back to DOM events and say
 * so in the result.
 * @module actions/input
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { callInDocument, callInPage, callOnElement } from '../browser/page-channel.js';
import { OutcomeObserver, describeOutcome } from '../browser/outcome.js';
import { tabFrames } from '../browser/navigation.js';
import { quote } from '../page-state/format.js';
import {
	KeySequenceError, MODIFIER_BITS, characterEvents, keyPressEvents,
	parseKeyName, parseKeySequence, summarizeTokens,
} from '../keys.js';

/** Text runs longer than this are inserted at once even with per_key. */
const KEY_BY_KEY_MAX = 200;

/**
 * "e5 (button "Pay")" for messages.
 * @param {string} ref
 * @param {{role?: string, name?: string}|undefined} info
 * @returns {string}
 */
export function elementLabel(ref, info) {
	if (info === undefined || info === null || info.role === undefined)
		return ref;
	return info.name ? `${ref} (${info.role} ${quote(info.name)})` : `${ref} (${info.role})`;
}

/**
 * Throws the agent's error for an element, naming it.
 * @param {string} verb what was attempted ("click", "type into")
 * @param {string} ref
 * @param {{error?: {code: string, message: string}, info?: object}} result
 */
export function throwIfFailed(verb, ref, result) {
	if (result.error === undefined)
		return;
	const { code, message } = result.error;
	let advice = '';
	if (code === ErrorCode.NOT_INTERACTABLE) {
		if (/covered/.test(message))
			advice = ' Close or dismiss what covers it (a dialog, banner or menu), or scroll, then retry.';
		else if (/disabled/.test(message))
			advice = ' Fill in what the form needs first, or wait until the page enables it.';
		else if (/hidden|no size|not rendered/.test(message))
			advice = ' Make it visible first (open its menu or section), then call get_browser_state.';
		else if (/inert/.test(message))
			advice = ' Close the dialog or panel in front of it first.';
	}
	throw new BridgeError(code, `Cannot ${verb} ${elementLabel(ref, result.info)}: ${message}.${advice}`);
}

/**
 * The frames from the top down to frameId (top first, frameId last).
 * @param {number} tabId
 * @param {number} frameId
 * @returns {Promise<number[]>}
 */
async function frameChain(tabId, frameId) {
	if (frameId === 0)
		return [0];
	const frames = await tabFrames(tabId);
	const parents = new Map(frames.map(f => [f.frameId, f.parentFrameId]));
	const chain = [frameId];
	for (let f = frameId; f !== 0;) {
		const parent = parents.get(f);
		if (parent === undefined || parent < 0)
			break;
		chain.unshift(parent);
		f = parent;
	}
	return chain;
}

/**
 * Where a frame's viewport sits in the top frame's viewport; with scroll,
 * first scrolls each iframe on the way into view.
 * @param {chrome.tabs.Tab} tab
 * @param {number} frameId
 * @param {boolean} scroll
 * @returns {Promise<{x: number, y: number}>}
 */
export async function frameOffset(tab, frameId, scroll) {
	const chain = await frameChain(tab.id, frameId);
	let x = 0, y = 0;
	for (let i = 0; i + 1 < chain.length; i++) {
		const [child] = await callInPage(tab, { frameIds: [chain[i + 1]] }, 'frameIndex');
		const index = child?.result;
		const [r] = typeof index === 'number' && index >= 0 ?
		    await callInPage(tab, { frameIds: [chain[i]] }, 'frameRect', [index, scroll]) : [];
		if (r === undefined || r.result === null || r.result === undefined)
			throw new BridgeError(ErrorCode.STALE_REF,
			    'The frame that holds the element is gone. Call get_browser_state to get fresh refs.');
		x += r.result.x;
		y += r.result.y;
	}
	return { x, y };
}

/**
 * Readies an element for a pointer event and says where it is in the top
 * frame's viewport: attaches the debugger (whose bar may resize the page),
 * scrolls the element and its frames into view, and hit-tests it.
 * @param {import('../dispatcher.js').ActionContext} context
 * @param {string} verb what is attempted, for the error ("click", "hover over")
 * @returns {Promise<{x: number, y: number, prepared: object}>}
 * @throws {DebuggerUnavailable} when the page is hidden and gets no mouse input
 */
export async function pointerTarget(context, verb) {
	const { tab, element, services } = context;
	await services.debuggers.attach(tab.id).catch(() => {});
	if (element.frameId !== 0)
		await frameOffset(tab, element.frameId, true);
	const prepared = await callOnElement(context, 'prepareClick', [{}]);
	throwIfFailed(verb, element.ref, prepared);
	const offset = element.frameId === 0 ? { x: 0, y: 0 } : await frameOffset(tab, element.frameId, false);
	return { x: offset.x + prepared.x, y: offset.y + prepared.y, prepared };
}

/**
 * Throws when a prepared element's page gets no mouse input.
 * @param {chrome.tabs.Tab} tab
 * @param {{visible?: boolean}} prepared
 */
export function requireVisiblePage(tab, prepared) {
	if (prepared.visible === false)
		throw new DebuggerUnavailable(`tab ${tab.id} is not visible (it is in the background or its window is minimized)`);
}

/**
 * Modifier names to CDP bits.
 * @param {string[]} modifiers
 * @returns {number}
 */
export function modifierBits(modifiers = []) {
	return modifiers.reduce((bits, m) => bits | (MODIFIER_BITS[m] ?? 0), 0);
}

/**
 * A trusted click at a point of the top frame's viewport.
 * @param {import('../browser/debugger.js').DebuggerPool} debuggers
 * @param {number} tabId
 * @param {number} x
 * @param {number} y
 * @param {{button?: string, clickCount?: number, modifiers?: string[]}} options
 */
export async function cdpClick(debuggers, tabId, x, y, { button = 'left', clickCount = 1, modifiers = [] }) {
	const bits = modifierBits(modifiers);
	const mask = button === 'right' ? 2 : button === 'middle' ? 4 : 1;
	await debuggers.send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers: bits });
	for (let i = 1; i <= clickCount; i++) {
		await debuggers.send(tabId, 'Input.dispatchMouseEvent',
		    { type: 'mousePressed', x, y, button, buttons: mask, clickCount: i, modifiers: bits });
		await debuggers.send(tabId, 'Input.dispatchMouseEvent',
		    { type: 'mouseReleased', x, y, button, buttons: 0, clickCount: i, modifiers: bits });
	}
}

/**
 * Types parsed tokens with trusted input: each run of text inserted at once
 * (one beforeinput and input event, as a paste or an input method gives
 * them, which React, Vue and Angular bindings all see), or with perKey one
 * key event per character, for fields that react to single keys; keys in
 * braces are always key events.
 * @param {import('../browser/debugger.js').DebuggerPool} debuggers
 * @param {number} tabId
 * @param {ReturnType<typeof parseKeySequence>} tokens
 * @param {AbortSignal} signal
 * @param {{perKey?: boolean}} [options]
 */
export async function cdpType(debuggers, tabId, tokens, signal, { perKey = false } = {}) {
	const send = params => debuggers.send(tabId, 'Input.dispatchKeyEvent', params);
	for (const token of tokens) {
		signal.throwIfAborted();
		if (token.type === 'key') {
			for (const event of keyPressEvents(token))
				await send(event);
			continue;
		}
		const chars = [...token.text];
		if (!perKey || chars.length > KEY_BY_KEY_MAX) {
			await debuggers.send(tabId, 'Input.insertText', { text: token.text });
			continue;
		}
		let pending = '';
		for (const ch of chars) {
			const events = characterEvents(ch);
			if (events === null) {
				pending += ch;
				continue;
			}
			if (pending !== '') {
				await debuggers.send(tabId, 'Input.insertText', { text: pending });
				pending = '';
			}
			for (const event of events)
				await send(event);
		}
		if (pending !== '')
			await debuggers.send(tabId, 'Input.insertText', { text: pending });
	}
}

/**
 * The keys that make typed tokens replace what prepareType selected, as a
 * user's select-all and typing would: Control+A first where the page could
 * not select it (a key-driven widget, or DOM events), then a Backspace
 * unless text comes first (typed text replaces a selection by itself).
 * @param {{kind: string, empty: boolean}} prepared
 * @param {ReturnType<typeof parseKeySequence>} typed
 * @param {boolean} synthetic
 * @returns {ReturnType<typeof parseKeySequence>}
 */
export function replacementKeys(prepared, typed, synthetic) {
	if (prepared.empty)
		return [];
	const keys = synthetic || prepared.kind === 'keys' ? [parseKeyName('Control+A')] : [];
	if (typed[0]?.type !== 'text' || typed[0].text === '')
		keys.push(parseKeyName('Backspace'));
	return keys;
}

/**
 * Types tokens into the text field prepareType readied, replacing its
 * content unless append: trusted input, after clicking the field when focus
 * did not move there (another frame or window has it), else DOM events.
 * @param {import('../dispatcher.js').ActionContext} context
 * @param {object} prepared what prepareType answered
 * @param {ReturnType<typeof parseKeySequence>} typed
 * @param {{append?: boolean, perKey?: boolean}} options
 * @returns {Promise<string|undefined>} the note when DOM events replaced trusted input
 */
export async function typeIntoField(context, prepared, typed, { append = false, perKey = false }) {
	const { tab, element, signal, services } = context;
	try {
		if (prepared.visible !== false && (!prepared.active || !prepared.hasFocus)) {
			const offset = element.frameId === 0 ? { x: 0, y: 0 } : await frameOffset(tab, element.frameId, false);
			if (prepared.x !== undefined)
				await cdpClick(services.debuggers, tab.id, offset.x + prepared.x, offset.y + prepared.y, {});
			prepared = await callOnElement(context, 'prepareType', [{ append }]);
			throwIfFailed('type into', element.ref, prepared);
		}
		const first = append ? [] : replacementKeys(prepared, typed, false);
		await cdpType(services.debuggers, tab.id, [...first, ...typed], signal, { perKey });
		return undefined;
	} catch (error) {
		if (!(error instanceof DebuggerUnavailable))
			throw error;
		const first = append ? [] : replacementKeys(prepared, typed, true);
		const r = await callOnElement(context, 'syntheticType', [[...first, ...typed]]);
		throwIfFailed('type into', element.ref, { ...r, info: prepared.info });
		return syntheticNote(error);
	}
}

/**
 * An action's result: the sentence, then what happened.
 * @param {string} sentence
 * @param {import('../browser/outcome.js').Outcome} outcome
 * @param {object} structured
 * @param {string} [note] e.g. why synthetic events were used
 * @param {boolean} [quiet] the sentence already says what changed
 */
export function actionResult(sentence, outcome, structured, note, quiet = false) {
	let text = `${sentence} ${describeOutcome(outcome, { quiet })}`.trimEnd();
	if (note)
		text += ` ${note}`;
	return {
		content: [{ type: 'text', text }],
		structuredContent: { ...structured, ...outcome, ...(note ? { note } : {}) },
	};
}

/**
 * Words for how a click changed an element: "e5 is now checked."
 * @param {string} label the element, as elementLabel gives it
 * @param {object} before its state before (agent's stateOf)
 * @param {object} after its state after
 * @returns {string}
 */
export function describeStateChange(label, before, after) {
	const parts = [];
	if (after.checked !== before.checked && after.checked !== undefined)
		parts.push(after.checked === 'mixed' ? 'partly checked' : after.checked ? 'checked' : 'unchecked');
	if (after.selected !== before.selected && after.selected !== undefined)
		parts.push(after.selected ? 'selected' : 'not selected');
	if (after.pressed !== before.pressed && after.pressed !== undefined)
		parts.push(after.pressed ? 'pressed' : 'not pressed');
	if (after.expanded !== before.expanded && after.expanded !== undefined)
		parts.push(after.expanded ? 'expanded' : 'collapsed');
	if (after.value !== before.value && after.value !== undefined)
		parts.push(`set to ${quote(after.value)}`);
	return parts.length === 0 ? '' : `${label} is now ${parts.join(', ')}.`;
}

/**
 * The note added when DOM events replaced trusted input.
 * @param {DebuggerUnavailable} error
 * @returns {string}
 */
export function syntheticNote(error) {
	const fix = /not visible/.test(error.message) ? 'Switch to the tab with manage_tabs for real input.' :
	    /debugging bar/.test(error.message) ? 'Leave the extension\'s debugging bar open for real input.' :
	    'Close DevTools or the other debugger for real input.';
	return `(Used DOM events instead of real input because ${error.message}; some pages ignore those. ${fix})`;
}

/**
 * The structured field that marks what was typed as a secret's (a password
 * or PIN field, docs/security.md), so the agents keep it only masked.
 * @param {{info?: {secret?: boolean}}} prepared what prepareType answered
 * @param {{ref: string}} element
 * @returns {{secret_refs?: string[]}}
 */
function secretRefs(prepared, element) {
	return prepared.info?.secret === true ? { secret_refs: [element.ref] } : {};
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const inputActions = {
	click_element: {
		stateable: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			const options = {
				button: params.button ?? 'left',
				clickCount: params.click_count ?? 1,
				modifiers: params.modifiers ?? [],
			};
			if (element === undefined && params.coordinates === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    'click_element needs ref (from get_browser_state), or coordinates {x, y} to click a point.');
			const observer = new OutcomeObserver(tab, services.network);
			try {
				await observer.start(element?.documentId);
				if (element === undefined) {
					const { x, y } = params.coordinates;
					if (!tab.active)
						throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
						    `Cannot click at (${x}, ${y}) in tab ${tab.id}: it is in the background, where points cannot be clicked. ` +
						    'Switch to it with manage_tabs, or click by ref.');
					try {
						await cdpClick(services.debuggers, tab.id, x, y, options);
					} catch (error) {
						if (error instanceof DebuggerUnavailable)
							throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
							    `Cannot click at (${x}, ${y}): clicking a point needs the debugger, and ${error.message}. ` +
							    'Click by ref instead, or close DevTools on that tab.');
						throw error;
					}
					const outcome = await observer.finish({ signal, deadline });
					return actionResult(`Clicked at (${x}, ${y}).`, outcome, { x, y });
				}
				const { x, y, prepared } = await pointerTarget(context, 'click');
				let note;
				try {
					requireVisiblePage(tab, prepared);
					await cdpClick(services.debuggers, tab.id, x, y, options);
				} catch (error) {
					if (!(error instanceof DebuggerUnavailable))
						throw error;
					note = syntheticNote(error);
					if (prepared.visible === false) {
						/* Give the page a user gesture, so what the click opens is not blocked as a popup. */
						await services.debuggers.send(tab.id, 'Runtime.evaluate',
						    { expression: 'void 0', userGesture: true }).catch(() => {});
					}
					await callOnElement(context, 'syntheticClick', [options]);
				}
				const outcome = await observer.finish({ signal, deadline });
				let change = '';
				if (!outcome.navigated && prepared.state !== undefined) {
					const after = await callInDocument(tab, element.documentId, 'state', [element.localId]).catch(() => ({ gone: true }));
					if (!after.gone && !after.stale) {
						change = describeStateChange(element.ref, prepared.state, after);
						if (change !== '')
							outcome.dom_changed = true;
					}
				}
				const what = options.clickCount === 2 ? 'Double-clicked' : options.clickCount === 3 ? 'Triple-clicked' :
				    options.button === 'right' ? 'Right-clicked' : options.button === 'middle' ? 'Middle-clicked' : 'Clicked';
				return actionResult(`${what} ${elementLabel(element.ref, prepared.info)}.${change ? ` ${change}` : ''}`, outcome,
				    { ref: element.ref, x: Math.round(x), y: Math.round(y) }, note);
			} finally {
				observer.dispose();
			}
		},
	},

	type_value: {
		stateable: true,
		refRequired: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			let tokens;
			try {
				tokens = parseKeySequence(params.text);
			} catch (error) {
				if (error instanceof KeySequenceError)
					throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `Nothing was typed: ${error.message}`);
				throw error;
			}
			const typed = [...tokens];
			if (params.submit === true)
				typed.push(parseKeyName('Enter'));
			const append = params.append === true;
			const observer = new OutcomeObserver(tab, services.network);
			try {
				await Promise.all([observer.start(element.documentId), services.debuggers.attach(tab.id).catch(() => {})]);
				if (element.frameId !== 0)
					await frameOffset(tab, element.frameId, true);
				const prepared = await callOnElement(context, 'prepareType', [{ append }]);
				throwIfFailed('type into', element.ref, prepared);
				const label = elementLabel(element.ref, prepared.info);
				if (prepared.kind === 'value' || prepared.kind === 'select') {
					if (tokens.some(t => t.type === 'key'))
						throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
						    `${label} takes a value, not keys: pass the value alone (for a date, 2024-05-31).`);
					const set = await callOnElement(context, 'setValue', [params.text]);
					throwIfFailed('set', element.ref, { ...set, info: prepared.info });
					if (params.submit === true)
						await cdpType(services.debuggers, tab.id, [parseKeyName('Enter')], signal).catch(() => {});
					const outcome = await observer.finish({ signal, deadline });
					return actionResult(`Set ${label} to ${quote(set.value)}.`, outcome,
					    { ref: element.ref, value: set.value, ...secretRefs(prepared, element) }, undefined, true);
				}
				/* A key-driven widget (no native text field) hears only keys. */
				const perKey = params.per_key === true || prepared.kind === 'keys';
				const note = await typeIntoField(context, prepared, typed, { append, perKey });
				let value;
				try {
					const r = await callInDocument(tab, element.documentId, 'readValue', [element.localId]);
					value = r.gone || r.stale ? undefined : r.value;
				} catch {
					value = undefined;
				}
				const { characters, keys } = summarizeTokens(typed);
				/* Only a key (Enter in a form, say) can start a navigation; inserted text cannot. */
				const mayNavigate = keys.length > 0 || (perKey && /[\r\n]/.test(params.text));
				const outcome = await observer.finish({ signal, deadline, mayNavigate });
				let sentence = `Typed ${characters} character${characters === 1 ? '' : 's'}`;
				if (keys.length > 0)
					sentence += ` and ${keys.map(k => `{${k}}`).join(' ')}`;
				sentence += ` into ${label}${append ? ' after its text' : ''}.`;
				if (value !== undefined)
					sentence += ` Its value is now ${quote(value.length > 200 ? `${value.slice(0, 199)}…` : value)}.`;
				const structured = { ref: element.ref, ...secretRefs(prepared, element) };
				if (value !== undefined)
					structured.value = value;
				return actionResult(sentence, outcome, structured, note, value !== undefined);
			} finally {
				observer.dispose();
			}
		},
	},

	scroll_page: {
		stateable: true,
		async run(params, context) {
			const { tab, element } = context;
			const direction = params.direction;
			if (direction === 'to_element' && element === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    'scroll_page with direction "to_element" needs ref: the element to bring into view.');
			let result;
			if (element !== undefined) {
				if (element.frameId !== 0)
					await frameOffset(tab, element.frameId, true);
				result = await callOnElement(context, 'scroll', [direction, params.pixels ?? null]);
			} else {
				const [r] = await callInPage(tab, { frameIds: [0] }, 'scroll', [null, direction, params.pixels ?? null]);
				result = r?.result;
			}
			if (result === undefined || result === null)
				throw new BridgeError(ErrorCode.INTERNAL, `Could not scroll tab ${tab.id}: the page did not answer. Retry.`);
			if (result.error !== undefined)
				throw new BridgeError(result.error.code, result.error.message);
			if (direction === 'to_element') {
				const label = elementLabel(element.ref, result.info);
				const text = `Scrolled ${label} into view; the page is ${result.window.y}px from the top.`;
				return {
					content: [{ type: 'text', text }],
					structuredContent: { ref: element.ref, window: result.window, rect: result.rect, in_view: result.inView },
				};
			}
			const what = result.container === 'page' ? 'the page' : result.container;
			const moved = result.after.y - result.before.y;
			let text;
			if (moved === 0) {
				const edge = direction === 'up' || direction === 'to_top' ? 'top' : 'bottom';
				text = `${what[0].toUpperCase()}${what.slice(1)} was already at the ${edge}; nothing scrolled.`;
			} else {
				text = `Scrolled ${what} ${moved > 0 ? 'down' : 'up'} ${Math.abs(moved)}px: ` +
				    `now ${result.above}px from the top, ${result.below}px more below.`;
			}
			return {
				content: [{ type: 'text', text }],
				structuredContent: {
					container: result.container, before: result.before, after: result.after,
					scrolled: moved, above: result.above, below: result.below,
				},
			};
		},
	},
};
