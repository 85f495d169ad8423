/*
 * In-page script: accessible names, computed the way the W3C's accname
 * (1.2) and Chromium compute them, as far as an agent needs: aria-labelledby
 * (with hidden targets), aria-label, the host language's labels and text
 * alternatives (label, alt, svg title, legend-free title), and the name
 * from content walked through the composed tree (shadow roots, slots),
 * leaving out what is hidden or aria-hidden and reading embedded controls'
 * values and CSS generated text. The walk stops once it has more text than
 * a name can hold. tests/e2e/names.test.mjs compares the result with
 * Chromium's accessibility tree on every fixture page. See text.js for how
 * the files fit together.
 */
(parts => {
	'use strict';

	if (parts.names !== undefined)
		return;

	const { shadowRootOf } = parts.tree;

	/** Elements that never add text to a name. */
	const NO_TEXT = /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|HEAD|TITLE|META|LINK)$/;
	/** Roles whose element gives its value, not its text, inside another's name (accname 2C). */
	const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'scrollbar']);
	/** Displays that set an element's text apart from its neighbours' (a space in the name). */
	const BLOCK_DISPLAY = /^(block|flex|grid|flow-root|list-item|table|table-\w+)\b/;
	/** Input types whose value is the text inside another's name. */
	const VALUE_INPUTS = /^(text|email|password|search|tel|url|number|)$/;

	/**
	 * Roles whose content Chromium leaves out of an ancestor's name: the
	 * containers of many things (landmarks, groups, lists of options,
	 * tables, live regions); their aria-label still counts.
	 */
	const CONTENT_LEFT_OUT = new Set([
		'alert', 'alertdialog', 'application', 'article', 'banner', 'complementary', 'contentinfo', 'dialog',
		'document', 'feed', 'figure', 'grid', 'group', 'img', 'listbox', 'log', 'main', 'marquee', 'menu', 'menubar',
		'navigation', 'note', 'progressbar', 'radiogroup', 'row', 'search', 'separator', 'status', 'table', 'tablist',
		'tabpanel', 'timer', 'toolbar', 'tree', 'treegrid',
	]);
	/** Elements whose own role is one of CONTENT_LEFT_OUT's. */
	const CONTENT_LEFT_OUT_TAGS = { NAV: 'navigation', ARTICLE: 'article', ASIDE: 'complementary', MAIN: 'main', FIELDSET: 'group', DIALOG: 'dialog', FIGURE: 'figure' };

	/** An element's role word: its role attribute's first, or its tag's when that is one of CONTENT_LEFT_OUT_TAGS. */
	function roleWord(element) {
		const explicit = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
		return explicit !== '' ? explicit : CONTENT_LEFT_OUT_TAGS[element.tagName] ?? '';
	}

	/** The element an id names in the element's own tree (its shadow root or document: ids do not cross). */
	function byId(element, id) {
		const root = element.getRootNode();
		return root.getElementById ? root.getElementById(id) : null;
	}

	/** The children of a node in the composed tree: a host's shadow tree, a slot's assigned nodes. */
	function flatChildren(node) {
		if (node.nodeType === Node.ELEMENT_NODE) {
			if (node.tagName === 'SLOT') {
				const assigned = node.assignedNodes({ flatten: true });
				return assigned.length > 0 ? assigned : node.childNodes;
			}
			const shadow = shadowRootOf(node);
			if (shadow !== null)
				return shadow.childNodes;
		}
		return node.childNodes;
	}

	/**
	 * Per style sheet, whether its rules give a ::before or ::after any
	 * content, with its number of top-level rules then: a sheet is read
	 * again when that number changes, not on every name.
	 * @type {WeakMap<CSSStyleSheet, {length: number, generates: boolean}>}
	 */
	const generatesOf = new WeakMap();

	/** Whether a rule list (and the @media, @supports, @layer rules in it) gives a ::before or ::after content. */
	function rulesGenerate(rules) {
		for (const rule of rules) {
			if (rule.selectorText === undefined && rule.cssRules !== undefined) {
				if (rulesGenerate(rule.cssRules))
					return true;
				continue;
			}
			const content = rule.style?.content ?? '';
			if (/:(before|after)\b/.test(rule.selectorText ?? '') && content !== '' && content !== 'none' && content !== 'normal')
				return true;
		}
		return false;
	}

	/**
	 * Whether the style sheets of a tree (a document or a shadow root)
	 * may give its elements' ::before or ::after text: a sheet whose rules
	 * cannot be read (cross-origin) may. Most pages give none, and then no
	 * element's pseudo-elements are asked (each ask computes their style).
	 */
	function treeGenerates(root) {
		const sheets = [...(root.styleSheets ?? []), ...(root.adoptedStyleSheets ?? [])];
		for (const sheet of sheets) {
			let rules;
			try {
				rules = sheet.cssRules;
			} catch {
				return true;
			}
			let known = generatesOf.get(sheet);
			if (known === undefined || known.length !== rules.length) {
				known = { length: rules.length, generates: rulesGenerate(rules) };
				generatesOf.set(sheet, known);
			}
			if (known.generates)
				return true;
		}
		return false;
	}

	/**
	 * The text CSS generates before or after an element: content's
	 * strings, or its alternative text after a slash (content: "→" /
	 * "Next"); '' for none, counters or images, and without asking when
	 * the element's tree has no rule that could give it (walk.trees
	 * remembers each tree's answer for one name).
	 */
	function generatedText(element, pseudo, walk) {
		const root = element.getRootNode();
		let generates = walk.trees.get(root);
		if (generates === undefined) {
			generates = treeGenerates(root);
			walk.trees.set(root, generates);
		}
		if (!generates)
			return '';
		const content = getComputedStyle(element, pseudo).content;
		if (!content.startsWith('"'))
			return '';
		const strings = content.match(/"(?:[^"\\]|\\.)*"|\//g) ?? [];
		const slash = strings.indexOf('/');
		return (slash === -1 ? strings : strings.slice(slash + 1)).filter(t => t !== '/')
		    .map(t => t.slice(1, -1).replace(/\\(.)/g, '$1')).join('');
	}

	/** Text as text-transform shows it (uppercase, lowercase, capitalize). */
	function transformed(text, transform) {
		if (transform === 'uppercase')
			return text.toUpperCase();
		if (transform === 'lowercase')
			return text.toLowerCase();
		if (transform === 'capitalize')
			return text.replace(/(^|[\s\p{P}])(\p{Ll})/gu, (_, before, letter) => before + letter.toUpperCase());
		return text;
	}

	/** The value an embedded control gives another element's name (accname 2C), or null if it is no such control. */
	function embeddedValue(element) {
		const tag = element.tagName;
		const role = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
		if (tag === 'INPUT' && VALUE_INPUTS.test(element.type) && (role === '' || VALUE_ROLES.has(role)))
			return element.value;
		if (tag === 'INPUT' && element.type === 'range')
			return element.getAttribute('aria-valuetext') ?? element.value;
		if (tag === 'TEXTAREA')
			return element.value;
		if (tag === 'SELECT')
			return [...element.selectedOptions].map(o => o.label || o.text).join(' ');
		if (!VALUE_ROLES.has(role))
			return null;
		if (role === 'textbox' || role === 'searchbox')
			return element.textContent;
		if (role === 'combobox' || role === 'listbox') {
			const chosen = element.querySelector('input, [role="option"][aria-selected="true"]');
			return chosen === null ? '' : chosen.tagName === 'INPUT' ? chosen.value : chosen.textContent;
		}
		return element.getAttribute('aria-valuetext') ?? element.getAttribute('aria-valuenow') ?? '';
	}

	/** The host language's own text alternative of an element (alt, an image's title when it has no alt, svg title), or null. */
	function nativeAlternative(element) {
		const tag = element.tagName;
		if (tag === 'IMG' || tag === 'AREA')
			return element.getAttribute('alt') ?? element.getAttribute('title');
		if (tag === 'INPUT' && element.type === 'image')
			return element.getAttribute('alt');
		if (element.localName === 'svg') {
			const title = element.querySelector(':scope > title');
			return title === null ? null : title.textContent;
		}
		return null;
	}

	/**
	 * Adds the text of node's children, in the composed tree, to the walk's
	 * out (a list of strings with a running length) as text-transform
	 * shows it, leaving out walk.skip (the element being named, inside its
	 * own label) and hidden elements unless walk.inHidden (a hidden element
	 * that aria-labelledby names).
	 */
	function addContent(node, walk, transform) {
		for (const child of flatChildren(node)) {
			if (walk.out.length > walk.max)
				return;
			if (child.nodeType === Node.TEXT_NODE)
				walk.out.push(transformed(child.data, transform));
			else if (child.nodeType === Node.ELEMENT_NODE && child !== walk.skip && !NO_TEXT.test(child.tagName))
				addElement(child, walk);
		}
	}

	/**
	 * Adds one element's part of a name from content (see addContent): an
	 * embedded control's value, its aria-label, its alt, or its content
	 * unless its role is a container whose content Chromium leaves out.
	 */
	function addElement(element, walk) {
		const { out, inHidden } = walk;
		if (element.getAttribute('aria-hidden') === 'true' && !inHidden)
			return;
		const style = getComputedStyle(element);
		if (!inHidden && (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')) {
			addSlottedText(element, walk);
			return;
		}
		const block = BLOCK_DISPLAY.test(style.display);
		if (block)
			out.push(' ');
		const value = embeddedValue(element);
		const label = element.getAttribute('aria-label');
		const native = nativeAlternative(element);
		if (value !== null)
			out.push(' ', value, ' ');
		else if (label !== null && label.trim() !== '')
			out.push(' ', label, ' ');
		else if (native !== null && native.trim() !== '')
			out.push(' ', native, ' ');
		else if (element.tagName === 'BR')
			out.push(' ');
		else if (!CONTENT_LEFT_OUT.has(roleWord(element)))
			addWithGenerated(element, walk, style.textTransform);
		if (block)
			out.push(' ');
	}

	/**
	 * Adds the text a hidden element's shadow tree shows through its
	 * slots: text nodes slotted straight from a visible host still count
	 * for Chromium (a Shoelace button hides its label while it loads).
	 */
	function addSlottedText(element, walk) {
		const tree = shadowRootOf(element) ?? (element.getRootNode() instanceof ShadowRoot ? element : null);
		if (tree === null)
			return;
		const slots = element.tagName === 'SLOT' ? [element] : tree.querySelectorAll('slot');
		for (const slot of slots) {
			for (const node of slot.assignedNodes({ flatten: true })) {
				if (node.nodeType === Node.TEXT_NODE)
					walk.out.push(node.data);
			}
		}
	}

	/** Adds an element's content between its generated ::before and ::after text. */
	function addWithGenerated(element, walk, transform) {
		walk.out.push(generatedText(element, '::before', walk));
		addContent(element, walk, transform);
		walk.out.push(generatedText(element, '::after', walk));
	}

	/**
	 * A list of strings that keeps the length of their text with its
	 * whitespace collapsed (the name's text so far, as clean leaves it): a
	 * component's template indents its markup with more whitespace than a
	 * name holds, which must not end the walk before the text.
	 */
	function textList() {
		const list = [];
		let length = 0;
		let endsInSpace = true;
		return {
			push(...texts) {
				for (const text of texts) {
					list.push(text);
					const collapsed = text.replace(/\s+/g, ' ');
					length += endsInSpace && collapsed.startsWith(' ') ? collapsed.length - 1 : collapsed.length;
					if (collapsed !== '')
						endsInSpace = collapsed.endsWith(' ');
				}
			},
			get length() {
				return length;
			},
			join: () => list.join(''),
		};
	}

	/**
	 * The name an element's content gives it (accname 2F): its text, its
	 * descendants' alternatives and embedded values, CSS generated text;
	 * leaving out skip. Read until it is longer than max.
	 */
	function contentName(element, max, skip = null, inHidden = false) {
		const walk = { out: textList(), max, skip, inHidden, trees: new Map() };
		addWithGenerated(element, walk, getComputedStyle(element).textTransform);
		return walk.out.join();
	}

	/** Whether an element is hidden: not rendered (display: none here or above) or invisible. */
	function isHidden(element) {
		return element.getClientRects().length === 0 || getComputedStyle(element).visibility !== 'visible';
	}

	/**
	 * The text of the elements named by an id list (aria-labelledby):
	 * each one's embedded value (another control's), or its aria-label, or
	 * its content, hidden or not.
	 */
	function labelledByText(element, ids, max) {
		const texts = [];
		for (const id of ids.split(/\s+/)) {
			const target = id === '' ? null : byId(element, id);
			if (target === null)
				continue;
			const label = target.getAttribute('aria-label');
			const value = target === element ? null : embeddedValue(target);
			if (value !== null)
				texts.push(value);
			else if (label !== null && label.trim() !== '')
				texts.push(label);
			else
				texts.push(nativeAlternative(target) ?? contentName(target, max, null, isHidden(target)));
		}
		return texts.join(' ');
	}

	/**
	 * An element's label elements: its labels, or for a custom element
	 * (which has no labels property; a form-associated one is labelable)
	 * the labels around it or pointing at its id whose control it is.
	 */
	function labelsOf(element) {
		if (element.labels !== undefined || !element.localName.includes('-'))
			return element.labels ? [...element.labels] : [];
		const around = element.parentElement?.closest('label');
		const found = around === null || around === undefined ? [] : [around];
		if (element.id)
			found.push(...[...element.getRootNode().querySelectorAll('label[for]')].filter(label => label.htmlFor === element.id));
		return found.filter((label, i) => label.control === element && found.indexOf(label) === i);
	}

	/** The text of an element's labels (label elements), '' when it has none. */
	function labelsText(element, max) {
		return labelsOf(element).map(label => contentName(label, max, element)).join(' ');
	}

	parts.names = { contentName, labelledByText, labelsText, nativeAlternative };
})(globalThis.__browserBridgePageParts ??= {});
