/*
 * In-page script: typing. Gets a field ready (focus, select all or caret at the end),
 * sets the value of date, color and range inputs and selects, types with
 * DOM events when the debugger cannot be used, and reads the value back. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.typing !== undefined)
		return;

	const { fail } = parts.text;
	const { elementById } = parts.refs;
	const { deepActiveElement } = parts.tree;
	const { TEXT_INPUT_TYPES, info, secretField, masked } = parts.labels;
	const { isInert, isShown, whyHidden, hitTest, bringIntoView } = parts.visibility;

	/** Roles whose keys press or toggle, never type. */
	const PRESSED_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'menuitem', 'menuitemcheckbox',
		'menuitemradio', 'tab', 'option', 'treeitem']);
	/** Input types whose value is set whole, not typed. */
	const VALUE_INPUT_TYPES = new Set([
		'date', 'time', 'datetime-local', 'month', 'week', 'color', 'range',
	]);

	/** The editable kind of an element for type_value, or an error. */
	function editKind(element) {
		if (element.tagName === 'INPUT') {
			const type = element.type;
			if (TEXT_INPUT_TYPES.has(type))
				return { kind: 'text' };
			if (VALUE_INPUT_TYPES.has(type))
				return { kind: 'value' };
			if (type === 'checkbox' || type === 'radio')
				return fail('NOT_EDITABLE', `it is a ${type}: use click_element to change it`);
			if (type === 'file')
				return fail('NOT_EDITABLE', 'it is a file input, which takes files, not text');
			return fail('NOT_EDITABLE', `it is an input of type ${type}, which takes no text: use click_element`);
		}
		if (element.tagName === 'TEXTAREA')
			return { kind: 'text' };
		if (element.tagName === 'SELECT')
			return { kind: 'select' };
		if (element.isContentEditable)
			return { kind: 'editable' };
		const role = element.getAttribute('role');
		if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'spinbutton')
			return { kind: 'keys' };
		/* Typing into a button presses it (Space, Enter): that is a click, not text. */
		if (element.tagName === 'BUTTON' || element.tagName === 'SUMMARY' ||
		    (element.tagName === 'A' && element.hasAttribute('href')) || PRESSED_ROLES.has(role))
			return fail('NOT_EDITABLE', `it is a ${role ?? element.tagName.toLowerCase()}, which takes no text: use click_element`);
		if (element.tabIndex >= 0)
			return { kind: 'keys' };
		return fail('NOT_EDITABLE', 'it does not take text (not an input, textarea, select or editable element)');
	}

	/** Moves the caret to the end of an editable element or text field. */
	function caretToEnd(element) {
		if (element.isContentEditable) {
			const selection = element.ownerDocument.getSelection();
			const range = element.ownerDocument.createRange();
			range.selectNodeContents(element);
			range.collapse(false);
			selection.removeAllRanges();
			selection.addRange(range);
			return;
		}
		try {
			const n = element.value.length;
			element.setSelectionRange(n, n);
		} catch {
			/* Email and number inputs have no selection API: select all, then collapse it to its end. */
			element.select();
			element.ownerDocument.getSelection().collapseToEnd();
		}
	}

	/** Selects all the contents of an editable element or text field. */
	function selectAll(element) {
		if (element.isContentEditable) {
			const selection = element.ownerDocument.getSelection();
			const range = element.ownerDocument.createRange();
			range.selectNodeContents(element);
			selection.removeAllRanges();
			selection.addRange(range);
			return;
		}
		if (typeof element.select === 'function')
			element.select();
	}

	/** The current text of a field, for results; a secret field's as a mask of its length. */
	function currentValue(element) {
		if (element.tagName === 'INPUT' || element.tagName === 'TEXTAREA')
			return secretField(element) ? masked(element.value) : element.value;
		if (element.tagName === 'SELECT')
			return [...element.selectedOptions].map(o => o.label || o.text).join(', ');
		return element.innerText ?? element.textContent ?? '';
	}

	/**
	 * Gets an element ready for typing: checks, focuses, scrolls into view,
	 * and selects all, so that typing replaces it, or with append puts the
	 * caret at the end.
	 */
	function prepareType(id, options) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		const about = info(element);
		const kind = editKind(element);
		if (kind.error)
			return { ...kind, info: about };
		if (!isShown(element))
			return { ...fail('NOT_INTERACTABLE', `it is hidden: ${whyHidden(element)}`), info: about };
		if (element.matches(':disabled') || element.getAttribute('aria-disabled') === 'true')
			return { ...fail('NOT_INTERACTABLE', 'it is disabled'), info: about };
		if (element.readOnly)
			return { ...fail('NOT_INTERACTABLE', 'it is read-only'), info: about };
		if (isInert(element))
			return { ...fail('NOT_INTERACTABLE', 'it is inert (inside an [inert] element or behind a modal dialog)'), info: about };
		bringIntoView(element);
		if (kind.kind === 'value' || kind.kind === 'select')
			return { kind: kind.kind, info: about, focused: true, value: currentValue(element) };
		element.focus({ preventScroll: true });
		const focused = deepActiveElement() === element && document.hasFocus();
		if (options.append)
			caretToEnd(element);
		else
			selectAll(element);
		const rect = element.getBoundingClientRect();
		const hit = hitTest(element, rect);
		return {
			kind: kind.kind, info: about, focused,
			visible: document.visibilityState === 'visible',
			hasFocus: document.hasFocus(), active: deepActiveElement() === element,
			empty: currentValue(element) === '',
			x: hit.x, y: hit.y,
			value: currentValue(element),
		};
	}

	/** Sets the value of date, color, range and similar inputs, or selects an option. */
	function setValue(id, text) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		if (element.tagName === 'SELECT') {
			const wanted = text.trim().toLowerCase();
			const option = [...element.options].find(o => o.value.toLowerCase() === wanted) ??
			    [...element.options].find(o => (o.label || o.text).trim().toLowerCase() === wanted);
			if (option === undefined)
				return fail('INVALID_ARGUMENT', `the select has no option "${text}"; its options are: ` +
				    [...element.options].slice(0, 30).map(o => JSON.stringify(o.label || o.text)).join(', '));
			option.selected = true;
		} else {
			const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
			setter.call(element, text);
			if (element.value === '' && text !== '')
				return fail('INVALID_ARGUMENT', `"${text}" is not a valid value for this ${element.type} input; ` +
				    (element.type === 'date' ? 'write it as YYYY-MM-DD' :
				    element.type === 'time' ? 'write it as HH:MM' :
				    element.type === 'datetime-local' ? 'write it as YYYY-MM-DDTHH:MM' :
				    element.type === 'month' ? 'write it as YYYY-MM' :
				    element.type === 'week' ? 'write it as YYYY-Www' :
				    element.type === 'color' ? 'write it as #rrggbb' : 'give a number'));
		}
		element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
		element.dispatchEvent(new Event('change', { bubbles: true }));
		return { ok: true, value: currentValue(element) };
	}

	/** Synthetic typing, for when the debugger cannot be used. */
	function syntheticType(id, tokens) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		element.focus();
		for (const token of tokens) {
			if (token.type === 'text') {
				if (!document.execCommand('insertText', false, token.text))
					return fail('NOT_INTERACTABLE', 'the page refused synthetic text input');
				continue;
			}
			const init = {
				key: token.key, code: token.code, bubbles: true, cancelable: true, composed: true,
				ctrlKey: token.modifiers.includes('Control'), shiftKey: token.modifiers.includes('Shift'),
				altKey: token.modifiers.includes('Alt'), metaKey: token.modifiers.includes('Meta'),
			};
			const target = deepActiveElement() ?? element;
			const go = target.dispatchEvent(new KeyboardEvent('keydown', init));
			if (go) {
				if (token.key === 'Enter' && token.modifiers.length === 0) {
					if (target.tagName === 'TEXTAREA' || target.isContentEditable)
						document.execCommand('insertParagraph');
					else if (target.form)
						target.form.requestSubmit();
				} else if (token.key === 'Backspace') {
					document.execCommand('delete');
				} else if (token.key === 'Delete') {
					document.execCommand('forwardDelete');
				} else if (token.key.toLowerCase() === 'a' && (init.ctrlKey || init.metaKey)) {
					document.execCommand('selectAll');
				}
			}
			target.dispatchEvent(new KeyboardEvent('keyup', init));
		}
		return { ok: true, value: currentValue(element) };
	}

	/** Reads an element's value after typing. */
	function readValue(id) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		return { value: currentValue(element), active: deepActiveElement() === element };
	}

	parts.typing = { editKind, currentValue, prepareType, setValue, syntheticType, readValue };
})(globalThis.__browserBridgePageParts ??= {});
