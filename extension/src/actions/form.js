/**
 * fill_form: several fields of a form in one call (text, selects,
 * checkboxes, radios, dates), each the way its own tool would fill it,
 * with one settle at the end.
 * @module actions/form
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { callOnElement, runOnElement } from '../browser/page-channel.js';
import { OutcomeObserver } from '../browser/outcome.js';
import { quote } from '../page-state/format.js';
import { mask } from '../agents/redact.js';
import { actionResult, cdpClick, elementLabel, pointerTarget, throwIfFailed, typeIntoField } from './input.js';

/** Values that tick a checkbox, and those that untick it. */
const TICK = new Set(['true', 'on', 'yes', 'checked', '1']);
const UNTICK = new Set(['false', 'off', 'no', 'unchecked', '0']);

/**
 * Page function: whether an element is ticked like a checkbox or radio.
 * @param {number} id
 * @returns {{check: boolean, radio?: boolean, checked?: boolean, info: object}|{stale: true}}
 */
function readCheck(id) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	const role = el.getAttribute('role');
	const native = el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
	const info = {
		role: role ?? (native ? el.type : el.tagName === 'INPUT' ? 'textbox' : el.tagName.toLowerCase()),
		name: (el.getAttribute('aria-label') ?? el.labels?.[0]?.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60),
	};
	if (native)
		return { check: true, radio: el.type === 'radio', checked: el.checked, info };
	if (role === 'checkbox' || role === 'switch' || role === 'radio' || role === 'menuitemcheckbox')
		return { check: true, radio: role === 'radio', checked: el.getAttribute('aria-checked') === 'true', info };
	return { check: false, info };
}

/**
 * Ticks or unticks a checkbox-like field with a click, unless it is so already.
 * @returns {Promise<string>} what was done
 */
async function fillCheck(context, read, value, label) {
	const wanted = typeof value === 'boolean' ? value : TICK.has(String(value).toLowerCase()) ? true :
	    UNTICK.has(String(value).toLowerCase()) ? false : null;
	if (wanted === null)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `${label} takes true or false, not ${quote(String(value))}.`);
	if (read.radio && !wanted)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `${label} is a radio button: choose another option of its group instead of unticking it.`);
	if (read.checked !== wanted) {
		const { x, y } = await pointerTarget(context, 'click');
		try {
			await cdpClick(context.services.debuggers, context.tab.id, x, y, { button: 'left', clickCount: 1, modifiers: [] });
		} catch (error) {
			if (!(error instanceof DebuggerUnavailable))
				throw error;
			await callOnElement(context, 'syntheticClick', [{ button: 'left', clickCount: 1, modifiers: [] }]);
		}
	}
	return `${label} ${wanted ? 'checked' : 'unchecked'}`;
}

/**
 * Fills one text-like, select or value field as type_value would, replacing what it held.
 * @returns {Promise<{said: string, secret: boolean}>} what was done; secret: a secret field, whose value said shows
 *   only as a mask of its length (docs/security.md)
 */
async function fillValue(context, value, label) {
	const text = String(value);
	const prepared = await callOnElement(context, 'prepareType', [{}]);
	throwIfFailed('fill', context.element.ref, prepared);
	const secret = prepared.info?.secret === true;
	if (prepared.kind === 'value' || prepared.kind === 'select') {
		const set = await callOnElement(context, 'setValue', [text]);
		throwIfFailed('set', context.element.ref, { ...set, info: prepared.info });
		return { said: `${label} = ${quote(set.value)}`, secret };
	}
	await typeIntoField(context, prepared, text === '' ? [] : [{ type: 'text', text }], { perKey: prepared.kind === 'keys' });
	const shown = secret ? mask(text) : text;
	return { said: `${label} = ${quote(shown.length > 60 ? `${shown.slice(0, 59)}…` : shown)}`, secret };
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const formActions = {
	fill_form: {
		stateable: true,
		innerRef: params => params.fields?.[0]?.ref,
		async run(params, context) {
			const { tab, signal, deadline, services } = context;
			const observer = new OutcomeObserver(tab, services.network);
			const done = [];
			const secretRefs = [];
			try {
				await observer.start();
				for (const field of params.fields) {
					signal.throwIfAborted();
					const element = context.resolveRef(field.ref);
					const fieldContext = { ...context, element };
					const read = await runOnElement(fieldContext, readCheck);
					const label = elementLabel(element.ref, read.info);
					try {
						if (read.check)
							done.push(await fillCheck(fieldContext, read, field.value, label));
						else {
							const filled = await fillValue(fieldContext, field.value, label);
							done.push(filled.said);
							if (filled.secret)
								secretRefs.push(element.ref);
						}
					} catch (error) {
						if (!(error instanceof BridgeError) || done.length === 0)
							throw error;
						throw new BridgeError(error.code, `${error.message} The fields before it were filled: ${done.join('; ')}.`);
					}
				}
				const outcome = await observer.finish({ signal, deadline });
				return actionResult(`Filled ${done.length} field${done.length === 1 ? '' : 's'}: ${done.join('; ')}.`, outcome,
				    { filled: params.fields.map(f => f.ref), ...(secretRefs.length > 0 ? { secret_refs: secretRefs } : {}) });
			} finally {
				observer.dispose();
			}
		},
	},
};
