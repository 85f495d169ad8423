/**
 * More input actions: select_option, hover_element and press_keys. Like
 * click_element and type_value they use trusted CDP input when the
 * debugger is available and report what the action did.
 * @module actions/interact
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { callInDocument, callInPage, callOnElement, runInPage, runOnElement } from '../browser/page-channel.js';
import { OutcomeObserver } from '../browser/outcome.js';
import { quote } from '../page-state/format.js';
import { KeySequenceError, parseKeySequence, summarizeTokens } from '../keys.js';
import { describeOptions, matchOptions } from '../select-options.js';
import { mask } from '../agents/redact.js';
import {
	actionResult, cdpClick, cdpType, elementLabel, frameOffset, pointerTarget, requireVisiblePage, syntheticNote, throwIfFailed,
} from './input.js';

/**
 * Page function: a select's options and whether it can be used.
 * @param {number} id
 * @returns {object}
 */
function readSelect(id) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	const tag = el.tagName.toLowerCase();
	if (tag !== 'select') {
		const what = tag === 'input' ? `an input of type ${el.type}` : `a <${tag}>`;
		const advice = el.getAttribute('role') === 'combobox' || el.getAttribute('role') === 'listbox' ?
		    'it is a custom list: click it with click_element, then click the option' :
		    'only <select> elements have options; use click_element or type_value for it';
		return { error: { code: 'NOT_INTERACTABLE', message: `it is ${what}, not a <select>: ${advice}` } };
	}
	if (el.matches(':disabled'))
		return { error: { code: 'NOT_INTERACTABLE', message: 'it is disabled' } };
	const options = [...el.options].map(o => ({
		value: o.value, label: (o.label || o.text).trim(), disabled: o.disabled || (o.parentElement?.tagName === 'OPTGROUP' && o.parentElement.disabled),
	}));
	return { multiple: el.multiple, options, selected: [...el.options].map((o, i) => (o.selected ? i : -1)).filter(i => i >= 0) };
}

/**
 * Page function: selects exactly these option indexes and fires input and
 * change as a user's choice does.
 * @param {number} id
 * @param {number[]} indexes
 * @returns {object}
 */
function applySelect(id, indexes) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	const before = [...el.options].map(o => o.selected);
	[...el.options].forEach((o, i) => {
		o.selected = indexes.includes(i);
	});
	const changed = [...el.options].some((o, i) => o.selected !== before[i]);
	if (changed) {
		el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
		el.dispatchEvent(new Event('change', { bubbles: true }));
	}
	const chosen = [...el.selectedOptions];
	return { changed, values: chosen.map(o => o.value), labels: chosen.map(o => (o.label || o.text).trim()) };
}

/**
 * Page function: focuses an element for press_keys; secret: it holds a
 * secret (the in-page secretField), so the keys are not echoed.
 * @param {number} id
 * @returns {object}
 */
function focusElement(id) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	if (el.matches(':disabled'))
		return { error: { code: 'NOT_INTERACTABLE', message: 'it is disabled' } };
	el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
	if (typeof el.focus === 'function')
		el.focus({ preventScroll: true });
	let active = document.activeElement;
	while (active && active.shadowRoot && active.shadowRoot.activeElement)
		active = active.shadowRoot.activeElement;
	return { focused: active === el, hasFocus: document.hasFocus(), visible: document.visibilityState === 'visible',
		secret: globalThis.__browserBridgePage?.info?.(id)?.secret === true };
}

/**
 * Page function (top frame): what has focus, for press_keys results.
 * @returns {{tag: string, id?: string, name?: string, frame?: boolean}|null}
 */
function focusedElement() {
	let active = document.activeElement;
	while (active && active.shadowRoot && active.shadowRoot.activeElement)
		active = active.shadowRoot.activeElement;
	if (active === null || active === document.body || active === document.documentElement)
		return null;
	const out = { tag: active.tagName.toLowerCase() };
	if (active.id)
		out.id = active.id;
	const name = (active.getAttribute('aria-label') || active.labels?.[0]?.innerText ||
	    active.getAttribute('name') || active.innerText || active.getAttribute('placeholder') || '').trim().slice(0, 60);
	if (name)
		out.name = name;
	if (active.tagName === 'IFRAME' || active.tagName === 'FRAME')
		out.frame = true;
	return out;
}

/**
 * Page function: synthetic hover, for when the debugger cannot be used.
 * @param {number} id
 * @returns {object}
 */
function syntheticHover(id) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	const r = el.getBoundingClientRect();
	const init = { bubbles: true, cancelable: true, composed: true, view: window,
	    clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
	el.dispatchEvent(new PointerEvent('pointerover', init));
	el.dispatchEvent(new PointerEvent('pointerenter', { ...init, bubbles: false }));
	el.dispatchEvent(new MouseEvent('mouseover', init));
	el.dispatchEvent(new MouseEvent('mouseenter', { ...init, bubbles: false }));
	el.dispatchEvent(new PointerEvent('pointermove', init));
	el.dispatchEvent(new MouseEvent('mousemove', init));
	return { ok: true };
}

/**
 * Whether a field that holds a secret has focus in some frame of a tab,
 * where press_keys without a ref sends its keys (the in-page
 * secretField rule); false when no frame can say.
 * @param {chrome.tabs.Tab} tab
 * @returns {Promise<boolean>}
 */
async function focusInSecretField(tab) {
	const answers = await callInPage(tab, { allFrames: true }, 'focusSecret').catch(() => []);
	return answers.some(answer => answer?.result === true);
}

/**
 * Parses press_keys' keys, or says why nothing was pressed.
 * @param {string} keys
 * @returns {ReturnType<typeof parseKeySequence>}
 */
export function parsePressKeys(keys) {
	let tokens;
	try {
		tokens = parseKeySequence(keys);
	} catch (error) {
		if (error instanceof KeySequenceError)
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `No key was pressed: ${error.message}`);
		throw error;
	}
	if (tokens.length === 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    'No key was pressed: keys is empty. Pass keys in braces, e.g. "{Enter}" or "{Control+A}{Backspace}".');
	return tokens;
}

/**
 * Words for what press_keys pressed: {Control+A} {Backspace} "text".
 * @param {ReturnType<typeof parseKeySequence>} tokens
 * @returns {string}
 */
export function describePressed(tokens) {
	const parts = [];
	for (const token of tokens) {
		if (token.type === 'key')
			parts.push(`{${token.name}}`);
		else
			parts.push(quote(token.text));
	}
	return parts.join(' ');
}

/**
 * Keys pressed into a secret field as a result says them: the characters
 * counted, never shown, and the named keys ("6 characters and {Enter}").
 * @param {ReturnType<typeof parseKeySequence>} tokens
 * @returns {string}
 */
export function describeSecretPressed(tokens) {
	const { characters, keys } = summarizeTokens(tokens);
	return `${characters} character${characters === 1 ? '' : 's'}${keys.length > 0 ? ` and ${keys.map(k => `{${k}}`).join(' ')}` : ''}`;
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const interactActions = {
	select_option: {
		stateable: true,
		refRequired: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			const read = await runOnElement(context, readSelect);
			const label = elementLabel(element.ref, undefined);
			if (read.error !== undefined) {
				const info = await callOnElement(context, 'prepareClick', [{ scroll: false }]).then(r => r.info, () => undefined);
				throwIfFailed('select an option of', element.ref, { ...read, info });
			}
			const values = params.values;
			const match = matchOptions(read.options, values);
			if (match.missing.length > 0)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `${label} has no option ${match.missing.map(v => JSON.stringify(v)).join(', ')} (by value or label); ` +
				    `its options are: ${describeOptions(read.options)}.`);
			if (match.disabled.length > 0)
				throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
				    `Option ${match.disabled.map(v => JSON.stringify(v)).join(', ')} of ${label} is disabled and cannot be chosen.`);
			if (!read.multiple && match.indexes.length > 1)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `${label} takes one option, not ${match.indexes.length}: pass one value (it is not a multiple select).`);
			const observer = new OutcomeObserver(tab, services.network);
			try {
				await observer.start(element.documentId);
				const applied = await runOnElement(context, applySelect, [match.indexes]);
				const outcome = await observer.finish({ signal, deadline });
				const chosen = applied.labels.map(l => quote(l)).join(', ');
				const sentence = applied.changed ?
				    `Selected ${chosen} in ${label}.` :
				    `${label} already had ${chosen} selected; nothing changed.`;
				return actionResult(sentence, outcome,
				    { ref: element.ref, values: applied.values, labels: applied.labels, changed: applied.changed },
				    undefined, true);
			} finally {
				observer.dispose();
			}
		},
	},

	hover_element: {
		stateable: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			if (element === undefined && params.coordinates === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    'hover_element needs ref (from get_browser_state), or coordinates {x, y} to hover over a point.');
			const observer = new OutcomeObserver(tab, services.network);
			try {
				await observer.start(element?.documentId);
				if (element === undefined) {
					const { x, y } = params.coordinates;
					if (!tab.active)
						throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
						    `Cannot hover over (${x}, ${y}) in tab ${tab.id}: it is in the background. ` +
						    'Switch to it with manage_tabs, or hover by ref.');
					try {
						await services.debuggers.send(tab.id, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers: 0 });
					} catch (error) {
						if (error instanceof DebuggerUnavailable)
							throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
							    `Cannot hover over (${x}, ${y}): moving the mouse to a point needs the debugger, and ${error.message}. ` +
							    'Hover by ref instead, or close DevTools on that tab.');
						throw error;
					}
					const outcome = await observer.finish({ signal, deadline });
					return actionResult(`Hovered over (${x}, ${y}).`, outcome, { x, y });
				}
				const { x, y, prepared } = await pointerTarget(context, 'hover over');
				let note;
				try {
					requireVisiblePage(tab, prepared);
					await services.debuggers.send(tab.id, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers: 0 });
				} catch (error) {
					if (!(error instanceof DebuggerUnavailable))
						throw error;
					note = `${syntheticNote(error)} CSS :hover styles do not apply to DOM events.`;
					await runOnElement(context, syntheticHover);
				}
				const outcome = await observer.finish({ signal, deadline });
				return actionResult(`Hovered over ${elementLabel(element.ref, prepared.info)}.`, outcome,
				    { ref: element.ref, x: Math.round(x), y: Math.round(y) }, note);
			} finally {
				observer.dispose();
			}
		},
	},

	press_keys: {
		stateable: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			const tokens = parsePressKeys(params.keys);
			const observer = new OutcomeObserver(tab, services.network);
			let label;
			let secret = false;
			try {
				await observer.start(element?.documentId);
				await services.debuggers.attach(tab.id).catch(() => {});
				/* Keys without a ref go where focus is: counted, not echoed, when that field holds a secret. */
				if (element === undefined)
					secret = await focusInSecretField(tab);
				if (element !== undefined) {
					if (element.frameId !== 0)
						await frameOffset(tab, element.frameId, true);
					const focus = await runOnElement(context, focusElement);
					label = elementLabel(element.ref, undefined);
					throwIfFailed('press keys in', element.ref, focus);
					secret = focus.secret === true;
					if (!focus.hasFocus && focus.visible) {
						/* Another frame has focus: click the element to bring focus here. */
						const prepared = await callOnElement(context, 'prepareClick', [{}]);
						throwIfFailed('press keys in', element.ref, prepared);
						label = elementLabel(element.ref, prepared.info);
						const offset = element.frameId === 0 ? { x: 0, y: 0 } : await frameOffset(tab, element.frameId, false);
						await cdpClick(services.debuggers, tab.id, offset.x + prepared.x, offset.y + prepared.y, {})
						    .catch(() => {});
					}
				}
				let note;
				try {
					await cdpType(services.debuggers, tab.id, tokens, signal, { perKey: true });
				} catch (error) {
					if (!(error instanceof DebuggerUnavailable))
						throw error;
					if (element === undefined)
						throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
						    `Cannot press keys in tab ${tab.id}: without a ref this needs the debugger, and ${error.message}. ` +
						    'Pass the ref of the element to press them in, or close DevTools on that tab.');
					note = syntheticNote(error);
					const r = await callOnElement(context, 'syntheticType', [tokens]);
					throwIfFailed('press keys in', element.ref, r);
				}
				const outcome = await observer.finish({ signal, deadline });
				let focused = null;
				if (!outcome.navigated && !outcome.tab_closed) {
					const [r] = await runInPage(tab, { frameIds: [0] }, focusedElement, [], { needs: [] }).catch(() => []);
					focused = r?.result ?? null;
					/* A {Tab} among the keys may have moved them into a secret field. */
					if (element === undefined && !secret)
						secret = await focusInSecretField(tab);
				}
				let value;
				if (element !== undefined && !outcome.navigated) {
					const r = await callInDocument(tab, element.documentId, 'readValue', [element.localId]).catch(() => ({ gone: true }));
					value = r.gone || r.stale ? undefined : r.value;
				}
				/* Keys pressed into a secret field (a PIN pad's field) are counted, not echoed (docs/security.md). */
				const pressed = secret ? describeSecretPressed(tokens) : describePressed(tokens);
				let sentence = `Pressed ${pressed}${label ? ` in ${label}` : ''}.`;
				if (value !== undefined)
					sentence += ` Its value is now ${quote(value.length > 200 ? `${value.slice(0, 199)}…` : value)}.`;
				if (focused !== null)
					sentence += ` Focus is on <${focused.tag}>${focused.id ? `#${focused.id}` : ''}${focused.name ? ` ${quote(focused.name)}` : ''}.`;
				const structured = { keys: secret ? mask(params.keys) : params.keys, focused };
				if (element !== undefined)
					structured.ref = element.ref;
				if (secret)
					Object.assign(structured, { secret: true }, element !== undefined ? { secret_refs: [element.ref] } : {});
				if (value !== undefined)
					structured.value = value;
				return actionResult(sentence, outcome, structured, note, value !== undefined);
			} finally {
				observer.dispose();
			}
		},
	},
};
