/*
 * In-page script: what an agent sees of an element: its role (or none,
 * when it is not interactive), an approximation of its accessible name, and
 * the details of its kind (value, checked, options, href, disabled...). See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.labels !== undefined)
		return;

	const { NAME_MAX, VALUE_MAX, clean } = parts.text;
	const { hasClickListener, internalsOf } = parts.clickTracker;
	const { contentName, labelledByText, labelsText, nativeAlternative } = parts.names;

	/** Roles that make an element interactive wherever it is. */
	const INTERACTIVE_ROLES = new Set([
		'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
		'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'listbox', 'textbox',
		'searchbox', 'slider', 'spinbutton', 'treeitem',
	]);
	/**
	 * Roles whose content names them (ARIA's "name from content"), and the
	 * state's own roles for elements without one; the others (fields,
	 * comboboxes, sliders, editable regions) hold a value instead.
	 */
	const NAMED_BY_CONTENT = new Set([
		'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
		'option', 'treeitem', 'clickable', 'hoverable', 'draggable',
	]);
	/** Roles of an input that holds a typed value (type, placeholder, value). */
	const FIELD_ROLES = new Set(['textbox', 'input', 'slider', 'combobox', 'searchbox', 'spinbutton']);
	/** Longest name of what covers an element. */
	const COVER_NAME_MAX = 40;
	/** Input types that take typed text. */
	const TEXT_INPUT_TYPES = new Set([
		'text', 'email', 'password', 'search', 'tel', 'url', 'number', '',
	]);
	/** Most options of a select a state lists. */
	const OPTIONS_MAX = 10;
	/** Autocomplete tokens that say a field holds a secret (docs/security.md). */
	const SECRET_AUTOCOMPLETE = new Set(['current-password', 'new-password', 'one-time-code', 'cc-csc']);
	/**
	 * Words of a field's name, id, label, aria-label or placeholder that say
	 * it holds a secret; whole words, so "shipping" is not "pin".
	 */
	const SECRET_WORDS = new Set(['password', 'passwort', 'passwd', 'pwd', 'passcode', 'passphrase', 'pin', 'otp', 'totp',
		'secret', 'token', 'cvv', 'cvc', 'csc', 'cvv2', 'cvc2']);
	/** Word pairs that say the same ("one-time code", "security code", "api key"). */
	const SECRET_PAIRS = new Set(['one time', 'security code', 'verification code', 'api key', 'private key']);

	/** Elements whose text is not part of a label's: controls, scripts, styles. */
	const LABEL_SKIPPED = /^(SELECT|TEXTAREA|INPUT|BUTTON|SCRIPT|STYLE)$/;

	/**
	 * The text of an element (a label, a list item) without the text of
	 * the controls inside it, read until it is longer than max; between
	 * its text nodes goes between (a space keeps table cells apart).
	 */
	function labelText(label, max = Infinity, between = '') {
		let text = '';
		/* A walk of the children in document order: a TreeWalker with a filter calls back per node, several times slower. */
		const walk = node => {
			for (let child = node.firstChild; child !== null && text.length <= max; child = child.nextSibling) {
				if (child.nodeType === Node.TEXT_NODE)
					text += text === '' ? child.data : between + child.data;
				else if (child.nodeType === Node.ELEMENT_NODE && !LABEL_SKIPPED.test(child.tagName))
					walk(child);
			}
		};
		walk(label);
		return text;
	}

	/** The containers whose text tells unnamed controls apart. */
	const CONTEXT_CONTAINERS = 'li, tr, [role="listitem"], [role="row"], fieldset';
	/** Longest context in a state: a few words. */
	const CONTEXT_MAX = 32;

	/**
	 * Where an unnamed control is, in a few words, for the state line
	 * (`checkbox in "walk the dog"`): the text of its list item or table
	 * row without its controls' text, or its fieldset's legend; cut at a
	 * word. '' when it is in none of these or that has no text.
	 */
	function contextOf(element) {
		const container = element.parentElement?.closest(CONTEXT_CONTAINERS);
		if (container === null || container === undefined)
			return '';
		const text = container.tagName === 'FIELDSET' ?
		    container.querySelector(':scope > legend')?.textContent ?? '' : labelText(container, CONTEXT_MAX * 2, ' ');
		const words = text.replace(/\s+/g, ' ').trim();
		if (words.length <= CONTEXT_MAX)
			return words;
		const cut = words.slice(0, CONTEXT_MAX);
		const space = cut.lastIndexOf(' ');
		return `${space > CONTEXT_MAX / 2 ? cut.slice(0, space) : cut}…`;
	}

	/**
	 * The accessible name, in accname's order: aria-labelledby,
	 * aria-label (the attribute, else the one a custom element's
	 * ElementInternals set: semantics, internalsOf's answer), the host
	 * language's own (a button input's value, an image's alt, label
	 * elements, an svg's title), the content for roles named by it, the
	 * title. Fields and editable regions are not named by their content
	 * (that is their value).
	 */
	function nameOf(element, role, semantics = internalsOf(element)) {
		const labelledBy = element.getAttribute('aria-labelledby');
		if (labelledBy) {
			const t = clean(labelledByText(element, labelledBy, NAME_MAX), NAME_MAX);
			if (t)
				return t;
		}
		const label = element.getAttribute('aria-label') ?? semantics?.ariaLabel;
		if (label && label.trim())
			return clean(label, NAME_MAX);
		const t = clean(labelsText(element, NAME_MAX), NAME_MAX) || clean(nativeAlternative(element), NAME_MAX);
		if (t)
			return t;
		const tag = element.tagName;
		if (tag === 'INPUT') {
			const type = (element.type || '').toLowerCase();
			if (type === 'submit' || type === 'reset' || type === 'button')
				return clean(element.hasAttribute('value') ? element.value : type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '', NAME_MAX);
			if (type === 'image')
				return clean(element.value || element.title || 'Submit', NAME_MAX);
		}
		if (!NAMED_BY_CONTENT.has(role) || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT')
			return clean(element.title || element.getAttribute('aria-placeholder') || '', NAME_MAX);
		return clean(contentName(element, NAME_MAX), NAME_MAX) || clean(element.title, NAME_MAX);
	}

	/**
	 * The role an agent sees, or null if the element is not interactive.
	 * `cursorOf` answers its computed cursor (asked only when the role
	 * depends on it), `parentCursor` is the parent's cursor. semantics:
	 * what the element's ElementInternals set (internalsOf's answer), whose
	 * role counts when the element has no role attribute.
	 */
	function roleOf(element, cursorOf, parentCursor, insideInteractive, semantics = internalsOf(element)) {
		const explicit = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
		if (INTERACTIVE_ROLES.has(explicit))
			return explicit;
		if (explicit === '' && INTERACTIVE_ROLES.has(semantics?.role))
			return semantics.role;
		switch (element.tagName) {
		case 'A':
			if (element.hasAttribute('href'))
				return 'link';
			break;
		case 'BUTTON':
			return 'button';
		case 'INPUT': {
			const type = (element.getAttribute('type') || 'text').toLowerCase();
			if (type === 'hidden')
				return null;
			if (type === 'submit' || type === 'reset' || type === 'button' || type === 'image')
				return 'button';
			if (type === 'checkbox')
				return 'checkbox';
			if (type === 'radio')
				return 'radio';
			if (type === 'range')
				return 'slider';
			if (TEXT_INPUT_TYPES.has(element.type))
				return 'textbox';
			return 'input';
		}
		case 'TEXTAREA':
			return 'textarea';
		case 'SELECT':
			return 'select';
		case 'SUMMARY':
			return 'button';
		default:
			break;
		}
		if (element.isContentEditable &&
		    !(element.parentElement && element.parentElement.isContentEditable))
			return 'editable';
		if (insideInteractive)
			return null;
		/* drag_and_drop needs a ref for what can be dragged. */
		if (element.getAttribute('draggable') === 'true')
			return 'draggable';
		if (element.hasAttribute('onclick'))
			return 'clickable';
		if (parentCursor !== 'pointer' && cursorOf() === 'pointer')
			return 'clickable';
		return null;
	}

	/**
	 * An ARIA state of an element: its attribute, else the default its
	 * ElementInternals set (property of semantics), else null.
	 */
	function ariaState(element, semantics, attribute, property) {
		return element.getAttribute(attribute) ?? semantics?.[property] ?? null;
	}

	/**
	 * The lower-case words of a text, camelCase split ("cardPin" is "card
	 * pin"), for the secret-field rule.
	 */
	function wordsOf(text) {
		return String(text ?? '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
	}

	/**
	 * Whether a field holds a secret, so what is typed into it is shown
	 * only as a mask of its length: a password input, an autocomplete
	 * token of a password or one-time code, or a name, id, label,
	 * aria-label or placeholder with a word of SECRET_WORDS or a pair of
	 * SECRET_PAIRS (docs/security.md, "What the agents type into a secret
	 * field").
	 */
	function secretField(element) {
		if (element.tagName !== 'INPUT' && element.tagName !== 'TEXTAREA')
			return false;
		if (element.tagName === 'INPUT' && !TEXT_INPUT_TYPES.has(element.type))
			return false;
		if (element.type === 'password')
			return true;
		const autocomplete = wordsOf(element.getAttribute('autocomplete')).join('-');
		if ([...SECRET_AUTOCOMPLETE].some(token => autocomplete.includes(token)))
			return true;
		const words = wordsOf([element.getAttribute('name'), element.id, element.getAttribute('aria-label'),
			element.getAttribute('placeholder'), labelsText(element, NAME_MAX)].join(' '));
		return words.some((word, i) => SECRET_WORDS.has(word) || SECRET_PAIRS.has(`${word} ${words[i + 1]}`));
	}

	/** A secret's stand-in: a dot per character, at most max. */
	function masked(value, max = Infinity) {
		return '•'.repeat(Math.min(value.length, max));
	}

	/**
	 * The fields of an element an agent needs besides role and name.
	 * semantics: what its ElementInternals set (internalsOf's answer).
	 */
	function detailsOf(element, role, out, semantics = internalsOf(element)) {
		const tag = element.tagName;
		if (tag === 'INPUT') {
			const type = element.type;
			if (FIELD_ROLES.has(role)) {
				if (type !== 'text')
					out.type = type;
				if (element.placeholder)
					out.placeholder = clean(element.placeholder, NAME_MAX);
				if (secretField(element)) {
					out.secret = true;
					out.value = element.value ? masked(element.value, 8) : undefined;
				} else if (type === 'file')
					out.value = element.files && element.files.length ? [...element.files].map(f => f.name).join(', ') : undefined;
				else if (element.value)
					out.value = clean(element.value, VALUE_MAX);
			}
			if (role === 'checkbox' || role === 'radio')
				out.checked = element.indeterminate ? 'mixed' : element.checked;
			if (element.readOnly)
				out.readonly = true;
		} else if (tag === 'TEXTAREA') {
			if (element.placeholder)
				out.placeholder = clean(element.placeholder, NAME_MAX);
			if (secretField(element))
				out.secret = true;
			if (element.value)
				out.value = out.secret ? masked(element.value, 8) : clean(element.value, VALUE_MAX);
			if (element.readOnly)
				out.readonly = true;
		} else if (tag === 'SELECT') {
			const selected = [...element.selectedOptions].map(o => clean(o.label || o.text, 40));
			if (selected.length)
				out.value = selected.join(', ');
			const options = [...element.options];
			out.options = options.slice(0, OPTIONS_MAX).map(o => clean(o.label || o.text, 40));
			if (options.length > OPTIONS_MAX)
				out.more_options = options.length - OPTIONS_MAX;
			if (element.multiple)
				out.multiple = true;
		} else if (tag === 'A' && role === 'link') {
			out.href = element.href;
		} else if (role === 'editable' || role === 'combobox') {
			const t = clean(element.innerText, VALUE_MAX);
			if (t)
				out.value = t;
		}
		const ariaChecked = ariaState(element, semantics, 'aria-checked', 'ariaChecked');
		if (ariaChecked !== null && out.checked === undefined)
			out.checked = ariaChecked === 'mixed' ? 'mixed' : ariaChecked === 'true';
		const pressed = ariaState(element, semantics, 'aria-pressed', 'ariaPressed');
		if (pressed !== null)
			out.pressed = pressed === 'true';
		const selected = ariaState(element, semantics, 'aria-selected', 'ariaSelected');
		if (selected !== null && (role === 'tab' || role === 'option' || role === 'treeitem'))
			out.selected = selected === 'true';
		const expanded = ariaState(element, semantics, 'aria-expanded', 'ariaExpanded');
		if (expanded !== null)
			out.expanded = expanded === 'true';
		const valueNow = ariaState(element, semantics, 'aria-valuenow', 'ariaValueNow');
		if (valueNow !== null && out.value === undefined)
			out.value = clean(ariaState(element, semantics, 'aria-valuetext', 'ariaValueText') || valueNow, VALUE_MAX);
		if (element.matches(':disabled') || ariaState(element, semantics, 'aria-disabled', 'ariaDisabled') === 'true')
			out.disabled = true;
		if (role === 'clickable')
			out.tag = tag.toLowerCase();
		return out;
	}

	/**
	 * What covers an element, for states and errors: the nearest dialog or
	 * element with an accessible name (aria-label, aria-labelledby) at or
	 * around the topmost element at its point, but not around the element
	 * itself, by that name ("Cookie banner", dialog "Sign in"); else the
	 * topmost element by tag, id and text.
	 */
	function coverLabel(hit, element) {
		if (hit === null || hit === undefined)
			return 'another element';
		for (let n = hit; n !== null && !n.contains(element); n = n.parentElement) {
			const dialog = n.matches('dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]');
			const labelledBy = n.getAttribute('aria-labelledby');
			let name = clean(labelledBy ? labelledByText(n, labelledBy, COVER_NAME_MAX) : '', COVER_NAME_MAX) ||
			    clean(n.getAttribute('aria-label'), COVER_NAME_MAX);
			if (name === '' && dialog)
				name = clean(n.querySelector('h1, h2, h3, [role="heading"]')?.textContent ?? n.textContent, COVER_NAME_MAX);
			if (name !== '')
				return dialog ? `dialog ${JSON.stringify(name)}` : JSON.stringify(name);
			if (dialog)
				return 'dialog';
		}
		const text = clean(hit.textContent, COVER_NAME_MAX);
		const kind = `${hit.tagName.toLowerCase()}${hit.id ? `#${hit.id}` : ''}`;
		return text !== '' ? `${kind} ${JSON.stringify(text)}` : kind;
	}

	/** Role and name of an element, for messages, and whether it is a secret field (secretField). */
	function info(element) {
		const semantics = internalsOf(element);
		const role = roleOf(element, () => getComputedStyle(element).cursor, 'auto', false, semantics) ??
		    (hasClickListener(element) ? 'clickable' : element.tagName.toLowerCase());
		return { role, name: nameOf(element, role, semantics), ...(secretField(element) ? { secret: true } : {}) };
	}

	/** The parts of an element's state a click can change. */
	function stateOf(element) {
		const semantics = internalsOf(element);
		const role = roleOf(element, () => getComputedStyle(element).cursor, 'auto', false, semantics) ?? 'element';
		const details = detailsOf(element, role, {}, semantics);
		const out = {};
		for (const key of ['checked', 'selected', 'pressed', 'expanded', 'value'])
			if (details[key] !== undefined)
				out[key] = details[key];
		return out;
	}

	parts.labels = { TEXT_INPUT_TYPES, nameOf, contextOf, roleOf, detailsOf, info, stateOf, coverLabel, secretField, masked };
})(globalThis.__browserBridgePageParts ??= {});
