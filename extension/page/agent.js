/*
 * The page agent: injected with chrome.scripting.executeScript into every
 * frame of a tab (the extension's isolated world), it lists the frame's
 * interactive elements and acts on them. A classic script, not a module:
 * executeScript runs files as classic scripts. It installs itself once per
 * document as globalThis.__browserBridgeAgent; the service worker then calls
 * its methods with executeScript({func}). Results are plain JSON.
 *
 * Elements get a number (localId) the first time a state lists them and
 * keep it for the document's life; the service worker turns
 * (documentId, localId) into the ref an agent sees (src/page-state/refs.js).
 */
(() => {
	'use strict';

	if (globalThis.__browserBridgeAgent !== undefined)
		return;

	/** element -> localId */
	const idOf = new WeakMap();
	/** localId -> WeakRef(element) */
	const elementOf = new Map();
	let nextId = 1;

	const INTERACTIVE_ROLES = new Set([
		'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
		'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'textbox',
		'searchbox', 'slider', 'spinbutton', 'treeitem',
	]);
	const TEXT_INPUT_TYPES = new Set([
		'text', 'email', 'password', 'search', 'tel', 'url', 'number', '',
	]);
	const VALUE_INPUT_TYPES = new Set([
		'date', 'time', 'datetime-local', 'month', 'week', 'color', 'range',
	]);
	const SKIP_TAGS = new Set([
		'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK',
		'TITLE', 'BASE',
	]);
	const NAME_MAX = 80;
	const VALUE_MAX = 100;
	const OPTIONS_MAX = 10;

	/** Returns the element's localId, giving it one if it has none. */
	function localIdOf(element) {
		let id = idOf.get(element);
		if (id === undefined) {
			id = nextId++;
			idOf.set(element, id);
			elementOf.set(id, new WeakRef(element));
		}
		return id;
	}

	/** Returns the live element with this localId, or null. */
	function elementById(id) {
		const ref = elementOf.get(id);
		const element = ref === undefined ? undefined : ref.deref();
		if (element === undefined || !element.isConnected) {
			elementOf.delete(id);
			return null;
		}
		return element;
	}

	/** Collapses whitespace and cuts text to max characters. */
	function clean(text, max) {
		const s = String(text ?? '').replace(/\s+/g, ' ').trim();
		return s.length > max ? `${s.slice(0, max - 1)}…` : s;
	}

	/** The composed parent: parent element, or the host of a shadow root. */
	function composedParent(node) {
		if (node.parentElement)
			return node.parentElement;
		const root = node.getRootNode();
		return root instanceof ShadowRoot ? root.host : null;
	}

	/** The shadow root of an element, open or closed, or null. */
	function shadowRootOf(element) {
		if (element.shadowRoot)
			return element.shadowRoot;
		try {
			if (globalThis.chrome?.dom?.openOrClosedShadowRoot)
				return chrome.dom.openOrClosedShadowRoot(element) ?? null;
		} catch {
			/* not a shadow host */
		}
		return null;
	}

	/** Whether node is element or inside it, across shadow boundaries. */
	function composedContains(element, node) {
		for (let n = node; n; n = n.parentNode ?? (n instanceof ShadowRoot ? n.host : null)) {
			if (n === element)
				return true;
		}
		return false;
	}

	/** Whether the element is inert or outside an open modal dialog. */
	function isInert(element) {
		for (let n = element; n; n = composedParent(n)) {
			if (n.inert)
				return true;
		}
		const modal = element.ownerDocument.querySelector('dialog:modal');
		return modal !== null && !composedContains(modal, element);
	}

	/** Whether the element is rendered and not transparent. */
	function isRendered(element) {
		if (typeof element.checkVisibility === 'function') {
			return element.checkVisibility({
				opacityProperty: true, visibilityProperty: true,
				checkOpacity: true, checkVisibilityCSS: true,
			});
		}
		const style = getComputedStyle(element);
		return style.visibility !== 'hidden' && style.display !== 'none' &&
		    Number(style.opacity) !== 0;
	}

	/* The question the click-listener tracker (page/click-listeners.js) answers. */
	const CLICK_QUERY_EVENT = '__browser_bridge_has_click__';

	/**
	 * Asks the click-listener tracker, which runs in the page's own world,
	 * about a target: true when it cancels the question.
	 */
	function askTracker(target, composed) {
		try {
			return !target.dispatchEvent(new CustomEvent(CLICK_QUERY_EVENT,
			    { bubbles: false, cancelable: true, composed }));
		} catch {
			return false;
		}
	}

	/** Whether the click-listener tracker runs in this document. */
	function trackerRuns() {
		return askTracker(window, false);
	}

	/**
	 * Whether the page gave the element itself a click, mousedown, mouseup,
	 * pointerdown or pointerup listener, or an onclick-like handler property.
	 * The question is composed (the tracker's window listener sees the
	 * element in composedPath()) when every shadow root above the element is
	 * open; otherwise it stays in the element's own shadow root, where the
	 * tracker listens too.
	 */
	function hasClickListener(element) {
		let composed = true;
		for (let root = element.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
			if (root.mode !== 'open') {
				composed = false;
				break;
			}
		}
		return askTracker(element, composed);
	}

	/** A short description of an element for messages: tag#id.class "text". */
	function describe(element, withText = true) {
		if (element === null || element === undefined)
			return 'nothing';
		let s = element.tagName.toLowerCase();
		if (element.id)
			s += `#${element.id}`;
		const classes = typeof element.className === 'string' ?
		    element.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
		for (const c of classes)
			s += `.${c}`;
		const text = withText ? clean(element.innerText ?? element.textContent, 40) : '';
		return text ? `<${s}> "${text}"` : `<${s}>`;
	}

	/** Text of the elements named by an id list (aria-labelledby). */
	function textOfIds(element, ids) {
		const root = element.getRootNode();
		const parts = [];
		for (const id of ids.split(/\s+/)) {
			const target = id && root.getElementById ? root.getElementById(id) :
			    element.ownerDocument.getElementById(id);
			if (target)
				parts.push(target.innerText ?? target.textContent);
		}
		return parts.join(' ');
	}

	/** The text of a label without the text of the controls inside it. */
	function labelText(label) {
		let text = '';
		const walker = label.ownerDocument.createTreeWalker(label, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
			acceptNode: node => node.nodeType === Node.ELEMENT_NODE &&
			    /^(SELECT|TEXTAREA|INPUT|BUTTON|SCRIPT|STYLE)$/.test(node.tagName) ?
			    NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
		});
		for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
			if (node.nodeType === Node.TEXT_NODE)
				text += node.data;
		}
		return text;
	}

	/** The visible text of an element, bounded. */
	function textOf(element) {
		const raw = element.textContent ?? '';
		if (raw.length > 2000)
			return raw.slice(0, 400);
		return element.innerText ?? raw;
	}

	/** An approximation of the accessible name. */
	function nameOf(element, role) {
		const labelledBy = element.getAttribute('aria-labelledby');
		if (labelledBy) {
			const t = clean(textOfIds(element, labelledBy), NAME_MAX);
			if (t)
				return t;
		}
		const label = element.getAttribute('aria-label');
		if (label && label.trim())
			return clean(label, NAME_MAX);
		const tag = element.tagName;
		if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') {
			const type = (element.type || '').toLowerCase();
			if (tag === 'INPUT' && (type === 'submit' || type === 'reset' || type === 'button'))
				return clean(element.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), NAME_MAX);
			if (tag === 'INPUT' && type === 'image')
				return clean(element.alt || element.value || 'Submit', NAME_MAX);
			if (element.labels && element.labels.length > 0) {
				const t = clean([...element.labels].map(labelText).join(' '), NAME_MAX);
				if (t)
					return t;
			}
			return clean(element.title, NAME_MAX);
		}
		if (role === 'editable' || role === 'textbox')
			return clean(element.title || element.getAttribute('aria-placeholder') || '', NAME_MAX);
		let t = clean(textOf(element), NAME_MAX);
		if (!t) {
			const img = element.querySelector('img[alt]');
			if (img)
				t = clean(img.alt, NAME_MAX);
		}
		if (!t)
			t = clean(element.title || element.getAttribute('alt') || '', NAME_MAX);
		if (!t && element.tagName === 'svg')
			t = clean(element.querySelector('title')?.textContent, NAME_MAX);
		return t;
	}

	/**
	 * The role an agent sees, or null if the element is not interactive.
	 * `style` is its computed style, `parentCursor` the parent's cursor.
	 */
	function roleOf(element, style, parentCursor, insideInteractive) {
		const explicit = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
		if (INTERACTIVE_ROLES.has(explicit))
			return explicit;
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
		if (element.hasAttribute('onclick'))
			return 'clickable';
		if (style.cursor === 'pointer' && parentCursor !== 'pointer')
			return 'clickable';
		return null;
	}

	/** The fields of an element an agent needs besides role and name. */
	function detailsOf(element, role, out) {
		const tag = element.tagName;
		if (tag === 'INPUT') {
			const type = element.type;
			if (role === 'textbox' || role === 'input' || role === 'slider') {
				if (type !== 'text')
					out.type = type;
				if (element.placeholder)
					out.placeholder = clean(element.placeholder, NAME_MAX);
				if (type === 'password')
					out.value = element.value ? '•'.repeat(Math.min(element.value.length, 8)) : undefined;
				else if (type === 'file')
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
			if (element.value)
				out.value = clean(element.value, VALUE_MAX);
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
		} else if (role === 'editable') {
			const t = clean(element.innerText, VALUE_MAX);
			if (t)
				out.value = t;
		}
		const ariaChecked = element.getAttribute('aria-checked');
		if (ariaChecked !== null && out.checked === undefined)
			out.checked = ariaChecked === 'mixed' ? 'mixed' : ariaChecked === 'true';
		const pressed = element.getAttribute('aria-pressed');
		if (pressed !== null)
			out.pressed = pressed === 'true';
		const selected = element.getAttribute('aria-selected');
		if (selected !== null && (role === 'tab' || role === 'option' || role === 'treeitem'))
			out.selected = selected === 'true';
		const expanded = element.getAttribute('aria-expanded');
		if (expanded !== null)
			out.expanded = expanded === 'true';
		const valueNow = element.getAttribute('aria-valuenow');
		if (valueNow !== null && out.value === undefined)
			out.value = clean(element.getAttribute('aria-valuetext') || valueNow, VALUE_MAX);
		if (element.matches(':disabled') || element.getAttribute('aria-disabled') === 'true')
			out.disabled = true;
		if (role === 'clickable')
			out.tag = tag.toLowerCase();
		return out;
	}

	/** Whether a point of the frame's viewport hits the element. */
	function hits(element, x, y) {
		const root = element.getRootNode();
		const hit = (root.elementFromPoint ? root : element.ownerDocument).elementFromPoint(x, y);
		if (hit === null)
			return { ok: false, hit: null };
		if (composedContains(element, hit))
			return { ok: true, hit };
		/* A label in front of its own control (custom checkboxes). */
		const label = hit.closest ? hit.closest('label') : null;
		if (label && label.control === element)
			return { ok: true, hit };
		return { ok: false, hit };
	}

	/**
	 * Hit-tests the part of `rect` inside the viewport. Returns the point to
	 * click, or what covers it; `inView` false when no part is in view.
	 */
	function hitTest(element, rect) {
		const vw = innerWidth, vh = innerHeight;
		const left = Math.max(rect.left, 0), right = Math.min(rect.right, vw);
		const top = Math.max(rect.top, 0), bottom = Math.min(rect.bottom, vh);
		if (right - left < 1 || bottom - top < 1)
			return { inView: false };
		const cx = (left + right) / 2, cy = (top + bottom) / 2;
		const points = [[cx, cy],
		    [left + Math.min(3, (right - left) / 2), cy],
		    [right - Math.min(3, (right - left) / 2), cy],
		    [cx, top + Math.min(3, (bottom - top) / 2)],
		    [cx, bottom - Math.min(3, (bottom - top) / 2)]];
		let first = null;
		for (const [x, y] of points) {
			const r = hits(element, x, y);
			if (r.ok)
				return { inView: true, x, y };
			if (first === null)
				first = r.hit;
		}
		return { inView: true, coveredBy: first };
	}

	/**
	 * Whether a scroll container hides the whole element: 'above' or
	 * 'below' the part it shows, or null when some of it shows.
	 */
	function clippedSide(rect, clip) {
		const width = Math.min(rect.right, clip.right) - Math.max(rect.left, clip.left);
		const height = Math.min(rect.bottom, clip.bottom) - Math.max(rect.top, clip.top);
		if (width >= 1 && height >= 1)
			return null;
		if (rect.bottom <= clip.top)
			return 'above';
		if (rect.top >= clip.bottom)
			return 'below';
		return rect.right <= clip.left ? 'above' : 'below';
	}

	/** Whether the element itself is a frame. */
	function isFrame(element) {
		return element.tagName === 'IFRAME' || element.tagName === 'FRAME';
	}

	/**
	 * The index of an iframe element's window in window.frames, or -1. The
	 * child computes the same number (ownFrameIndex), so the service worker
	 * can pair frames with their iframe elements, across origins.
	 */
	function frameIndexOf(element) {
		const win = element.contentWindow;
		if (win === null)
			return -1;
		for (let i = 0; i < window.length; i++) {
			if (window[i] === win)
				return i;
		}
		return -1;
	}

	/** This frame's index in its parent's window.frames, or -1 for the top. */
	function ownFrameIndex() {
		if (window.parent === window)
			return -1;
		try {
			const frames = window.parent;
			for (let i = 0; i < frames.length; i++) {
				if (frames[i] === window)
					return i;
			}
		} catch {
			/* unreachable parent */
		}
		return -1;
	}

	/** The content box of an iframe in its frame's viewport. */
	function contentBox(element) {
		const rect = element.getBoundingClientRect();
		const style = getComputedStyle(element);
		const left = rect.left + element.clientLeft + parseFloat(style.paddingLeft || '0');
		const top = rect.top + element.clientTop + parseFloat(style.paddingTop || '0');
		return {
			x: left, y: top,
			width: element.clientWidth - parseFloat(style.paddingLeft || '0') - parseFloat(style.paddingRight || '0'),
			height: element.clientHeight - parseFloat(style.paddingTop || '0') - parseFloat(style.paddingBottom || '0'),
		};
	}

	/** Rounds a DOMRect to [x, y, width, height]. */
	function box(rect) {
		return [Math.round(rect.left), Math.round(rect.top), Math.round(rect.width), Math.round(rect.height)];
	}

	/**
	 * Lists the frame's interactive elements and child frames in document
	 * order (composed tree: open and closed shadow roots, slots).
	 */
	function snapshot() {
		const items = [];
		let hiddenCount = 0, coveredCount = 0;
		const tracked = trackerRuns();

		/*
		 * clip: the box that ancestors with overflow other than visible
		 * leave showing ({top, bottom, left, right}), or null.
		 */
		const visit = (element, parentCursor, insideInteractive, clip) => {
			if (SKIP_TAGS.has(element.tagName))
				return;
			if (element.tagName === 'SLOT') {
				/* A slot renders its assigned elements, or its own children. */
				const assigned = element.assignedElements({ flatten: true });
				for (const child of assigned.length > 0 ? assigned : [...element.children])
					visit(child, parentCursor, insideInteractive, clip);
				return;
			}
			const style = getComputedStyle(element);
			if (style.display === 'none' || style.contentVisibility === 'hidden')
				return;
			if (style.position === 'fixed')
				clip = null;
			if (isFrame(element)) {
				const frameIndex = frameIndexOf(element);
				if (frameIndex < 0)
					return;
				const rect = element.getBoundingClientRect();
				const visible = rect.width >= 1 && rect.height >= 1 &&
				    isRendered(element) && !isInert(element);
				const cb = contentBox(element);
				items.push({
					frame: frameIndex,
					visible,
					rect: [Math.round(cb.x), Math.round(cb.y), Math.round(cb.width), Math.round(cb.height)],
					name: clean(element.title || element.name || '', NAME_MAX),
					src: element.src || '',
				});
				return;
			}
			let role = roleOf(element, style, parentCursor, insideInteractive);
			/*
			 * Clickable only through a listener: asked only for visible
			 * elements nothing else made interactive, never the root and
			 * body (where delegated listeners live).
			 */
			let byListener = false;
			if (role === null && tracked && !insideInteractive && style.visibility === 'visible' &&
			    element !== document.documentElement && element !== document.body) {
				const r = element.getBoundingClientRect();
				if (r.width >= 1 && r.height >= 1 && hasClickListener(element)) {
					role = 'clickable';
					byListener = true;
				}
			}
			let itemIndex = -1;
			if (role !== null) {
				const rect = element.getBoundingClientRect();
				const clipped = clip === null ? null : clippedSide(rect, clip);
				let keep = true;
				if (rect.width < 1 || rect.height < 1 || !isRendered(element) || isInert(element)) {
					keep = false;
					if (!byListener)
						hiddenCount++;
				} else if (clipped === null) {
					/* Hit-test only the part its scroll containers show. */
					const shown = clip === null ? rect : {
						left: Math.max(rect.left, clip.left), right: Math.min(rect.right, clip.right),
						top: Math.max(rect.top, clip.top), bottom: Math.min(rect.bottom, clip.bottom),
					};
					const hit = hitTest(element, shown);
					if (hit.inView && hit.coveredBy !== undefined) {
						keep = false;
						coveredCount++;
					}
				}
				if (keep) {
					const item = { id: localIdOf(element), role, name: nameOf(element, role), rect: box(rect) };
					if (clipped !== null)
						item.clipped = clipped;
					detailsOf(element, role, item);
					itemIndex = items.length;
					items.push(item);
				}
			}
			if (element !== document.documentElement && element !== document.body &&
			    (style.overflowX !== 'visible' || style.overflowY !== 'visible')) {
				const r = element.getBoundingClientRect();
				const own = {
					top: r.top + element.clientTop, left: r.left + element.clientLeft,
					bottom: r.top + element.clientTop + element.clientHeight,
					right: r.left + element.clientLeft + element.clientWidth,
				};
				clip = clip === null ? own : {
					top: Math.max(clip.top, own.top), bottom: Math.min(clip.bottom, own.bottom),
					left: Math.max(clip.left, own.left), right: Math.min(clip.right, own.right),
				};
			}
			/*
			 * A listener element does not hide the controls inside it; if
			 * any is listed, the listener is taken for a delegating
			 * container (a list, a card, an app's root) and left out.
			 */
			const inside = insideInteractive || (role !== null && role !== 'editable' && !byListener);
			if (role === 'editable' || role === 'select' || role === 'textarea')
				return;	/* their insides are content, not controls */
			const shadow = shadowRootOf(element);
			for (const child of shadow !== null ? shadow.children : element.children)
				visit(child, style.cursor, inside, clip);
			if (byListener && itemIndex >= 0 && items.length > itemIndex + 1)
				items.splice(itemIndex, 1);
		};

		if (document.documentElement)
			visit(document.documentElement, 'auto', false, null);
		const scroller = document.scrollingElement ?? document.documentElement;
		return {
			url: location.href,
			title: document.title,
			frameIndex: ownFrameIndex(),
			viewport: { width: innerWidth, height: innerHeight },
			scroll: {
				x: Math.round(scrollX), y: Math.round(scrollY),
				width: scroller ? scroller.scrollWidth : innerWidth,
				height: scroller ? scroller.scrollHeight : innerHeight,
			},
			items,
			hidden: hiddenCount,
			covered: coveredCount,
		};
	}

	/** An action error: a protocol code and a message. */
	function fail(code, message) {
		return { error: { code, message } };
	}

	/** Why an element is not visible, naming the ancestor that hides it. */
	function whyHidden(element) {
		for (let n = element; n; n = composedParent(n)) {
			const style = getComputedStyle(n);
			const who = n === element ? 'it' : `its ancestor ${describe(n, false)}`;
			if (style.display === 'none')
				return `${who} has display: none`;
			if (style.visibility === 'hidden' || style.visibility === 'collapse')
				return `${who} has visibility: hidden`;
			if (Number(style.opacity) === 0)
				return `${who} has opacity: 0`;
			if (style.contentVisibility === 'hidden')
				return `${who} has content-visibility: hidden`;
		}
		const rect = element.getBoundingClientRect();
		if (rect.width < 1 || rect.height < 1)
			return 'it has no size (0 by 0 pixels)';
		return 'it is not rendered';
	}

	/** Whether an element (or the window) scrolls vertically. */
	function canScrollY(element) {
		if (element === document.scrollingElement || element === document.documentElement ||
		    element === document.body)
			return element.scrollHeight > element.clientHeight + 1;
		const style = getComputedStyle(element);
		return /(auto|scroll|overlay)/.test(style.overflowY) &&
		    element.scrollHeight > element.clientHeight + 1;
	}

	/** Whether an element scrolls horizontally. */
	function canScrollX(element) {
		if (element === document.scrollingElement)
			return element.scrollWidth > element.clientWidth + 1;
		const style = getComputedStyle(element);
		return /(auto|scroll|overlay)/.test(style.overflowX) &&
		    element.scrollWidth > element.clientWidth + 1;
	}

	/**
	 * The part of an element its scroll containers and the viewport show,
	 * as {left, top, right, bottom} (empty when right <= left or bottom <= top).
	 */
	function shownRect(element) {
		const r = element.getBoundingClientRect();
		let shown = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
		let fixed = getComputedStyle(element).position === 'fixed';
		for (let n = composedParent(element); n && !fixed; n = composedParent(n)) {
			if (n === document.documentElement || n === document.body)
				break;
			const style = getComputedStyle(n);
			if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
				const c = n.getBoundingClientRect();
				const box = {
					left: c.left + n.clientLeft, top: c.top + n.clientTop,
					right: c.left + n.clientLeft + n.clientWidth, bottom: c.top + n.clientTop + n.clientHeight,
				};
				shown = {
					left: Math.max(shown.left, box.left), top: Math.max(shown.top, box.top),
					right: Math.min(shown.right, box.right), bottom: Math.min(shown.bottom, box.bottom),
				};
			}
			fixed = style.position === 'fixed';
		}
		return {
			left: Math.max(shown.left, 0), top: Math.max(shown.top, 0),
			right: Math.min(shown.right, innerWidth), bottom: Math.min(shown.bottom, innerHeight),
		};
	}

	/** Scrolls an element into view unless it is wholly shown already. */
	function bringIntoView(element) {
		const r = element.getBoundingClientRect();
		const shown = shownRect(element);
		if (shown.right - shown.left >= r.width - 1 && shown.bottom - shown.top >= r.height - 1)
			return false;
		element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
		return true;
	}

	/** Looks up an element for an action, or an error result. */
	function target(id) {
		const element = elementById(id);
		if (element === null)
			return { missing: true };
		return { element };
	}

	/** The element that has focus, inside shadow roots too. */
	function deepActiveElement() {
		let active = document.activeElement;
		while (active && active.shadowRoot && active.shadowRoot.activeElement)
			active = active.shadowRoot.activeElement;
		return active;
	}

	/** Role and name of an element, for messages. */
	function info(element) {
		const style = getComputedStyle(element);
		const role = roleOf(element, style, 'auto', false) ??
		    (hasClickListener(element) ? 'clickable' : element.tagName.toLowerCase());
		return { role, name: nameOf(element, role) };
	}

	/** The parts of an element's state a click can change. */
	function stateOf(element) {
		const style = getComputedStyle(element);
		const role = roleOf(element, style, 'auto', false) ?? 'element';
		const details = detailsOf(element, role, {});
		const out = {};
		for (const key of ['checked', 'selected', 'pressed', 'expanded', 'value'])
			if (details[key] !== undefined)
				out[key] = details[key];
		return out;
	}

	/** Checks an element can take a click; returns the point or an error. */
	function prepareClick(id, options = {}) {
		const t = target(id);
		if (t.missing)
			return { stale: true };
		const element = t.element;
		const about = info(element);
		if (!isRendered(element) || element.getBoundingClientRect().width < 1 ||
		    element.getBoundingClientRect().height < 1)
			return { ...fail('NOT_INTERACTABLE', `it is hidden: ${whyHidden(element)}`), info: about };
		if (element.matches(':disabled') || element.getAttribute('aria-disabled') === 'true')
			return { ...fail('NOT_INTERACTABLE', 'it is disabled'), info: about };
		if (isInert(element))
			return { ...fail('NOT_INTERACTABLE', 'it is inert (inside an [inert] element or behind a modal dialog)'), info: about };
		const scrolled = options.scroll === false ? false : bringIntoView(element);
		const rect = element.getBoundingClientRect();
		const hit = hitTest(element, shownRect(element));
		if (!hit.inView)
			return { ...fail('NOT_INTERACTABLE', 'it cannot be scrolled into view'), info: about };
		if (hit.coveredBy !== undefined)
			return { ...fail('NOT_INTERACTABLE', `it is covered by ${describe(hit.coveredBy)}`), info: about, coveredBy: describe(hit.coveredBy) };
		return {
			x: hit.x, y: hit.y, scrolled, info: about, rect: box(rect), state: stateOf(element),
			visible: document.visibilityState === 'visible',
		};
	}

	/** The content box of a child frame (by frame index), scrolled into view if asked. */
	function frameRect(frameIndex, scroll) {
		const find = root => {
			for (const element of root.querySelectorAll('*')) {
				if (isFrame(element) && frameIndexOf(element) === frameIndex)
					return element;
				const shadow = shadowRootOf(element);
				if (shadow !== null) {
					const found = find(shadow);
					if (found)
						return found;
				}
			}
			return null;
		};
		const element = find(document);
		if (element === null)
			return null;
		if (scroll)
			bringIntoView(element);
		const cb = contentBox(element);
		return { x: cb.x, y: cb.y, width: cb.width, height: cb.height };
	}

	/** Synthetic click, for when the debugger cannot be used. */
	function syntheticClick(id, options = {}) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		const rect = element.getBoundingClientRect();
		const init = {
			bubbles: true, cancelable: true, composed: true, view: window,
			clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2,
			button: options.button === 'right' ? 2 : options.button === 'middle' ? 1 : 0,
			ctrlKey: options.modifiers?.includes('Control'), shiftKey: options.modifiers?.includes('Shift'),
			altKey: options.modifiers?.includes('Alt'), metaKey: options.modifiers?.includes('Meta'),
		};
		const count = options.clickCount ?? 1;
		for (let i = 1; i <= count; i++) {
			element.dispatchEvent(new PointerEvent('pointerdown', init));
			element.dispatchEvent(new MouseEvent('mousedown', { ...init, detail: i }));
			if (typeof element.focus === 'function')
				element.focus();
			element.dispatchEvent(new PointerEvent('pointerup', init));
			element.dispatchEvent(new MouseEvent('mouseup', { ...init, detail: i }));
			if (init.button === 0)
				element.click();
			else if (init.button === 2)
				element.dispatchEvent(new MouseEvent('contextmenu', init));
		}
		if (count === 2)
			element.dispatchEvent(new MouseEvent('dblclick', { ...init, detail: 2 }));
		return { ok: true };
	}

	/** The editable kind of an element for type_value, or an error. */
	function editKind(element) {
		if (element.tagName === 'INPUT') {
			const type = element.type;
			if (TEXT_INPUT_TYPES.has(type))
				return { kind: 'text' };
			if (VALUE_INPUT_TYPES.has(type))
				return { kind: 'value' };
			if (type === 'checkbox' || type === 'radio')
				return fail('NOT_INTERACTABLE', `it is a ${type}: use click_element to change it`);
			if (type === 'file')
				return fail('NOT_INTERACTABLE', 'it is a file input: this extension version cannot upload files');
			return fail('NOT_INTERACTABLE', `it is an input of type ${type}, which takes no text: use click_element`);
		}
		if (element.tagName === 'TEXTAREA')
			return { kind: 'text' };
		if (element.tagName === 'SELECT')
			return { kind: 'select' };
		if (element.isContentEditable)
			return { kind: 'editable' };
		const role = element.getAttribute('role');
		if (role === 'textbox' || role === 'searchbox' || role === 'combobox' ||
		    element.tabIndex >= 0)
			return { kind: 'keys' };
		return fail('NOT_INTERACTABLE', 'it does not take text (not an input, textarea, select or editable element)');
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
			/* email and number inputs have no selection API */
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

	/** The current text of a field, for results. */
	function currentValue(element) {
		if (element.tagName === 'INPUT' || element.tagName === 'TEXTAREA')
			return element.type === 'password' ? '•'.repeat(element.value.length) : element.value;
		if (element.tagName === 'SELECT')
			return [...element.selectedOptions].map(o => o.label || o.text).join(', ');
		return element.innerText ?? element.textContent ?? '';
	}

	/**
	 * Gets an element ready for typing: checks, focuses, scrolls into view,
	 * and selects all (clear) or puts the caret at the end.
	 */
	function prepareType(id, options) {
		const t = target(id);
		if (t.missing)
			return { stale: true };
		const element = t.element;
		const about = info(element);
		const kind = editKind(element);
		if (kind.error)
			return { ...kind, info: about };
		if (!isRendered(element))
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
		if (options.clear)
			selectAll(element);
		else
			caretToEnd(element);
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

	/** The nearest scroll container of an element (itself included). */
	function scrollContainerOf(element, vertical) {
		for (let n = element; n; n = composedParent(n)) {
			if (vertical ? canScrollY(n) : canScrollX(n))
				return n;
		}
		return document.scrollingElement;
	}

	/** The largest visible scrollable element, for pages whose window does not scroll. */
	function largestScroller() {
		let best = null, bestArea = 0;
		const walk = root => {
			for (const element of root.querySelectorAll('*')) {
				const shadow = shadowRootOf(element);
				if (shadow !== null)
					walk(shadow);
				if (!canScrollY(element))
					continue;
				const r = element.getBoundingClientRect();
				const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
				const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
				if (w * h > bestArea && isRendered(element)) {
					best = element;
					bestArea = w * h;
				}
			}
		};
		walk(document);
		return best;
	}

	/** Position of a scroll container. */
	function position(element) {
		const isWindow = element === document.scrollingElement;
		return {
			x: Math.round(isWindow ? scrollX : element.scrollLeft),
			y: Math.round(isWindow ? scrollY : element.scrollTop),
			height: element.scrollHeight,
			viewport: isWindow ? innerHeight : element.clientHeight,
		};
	}

	/** Scrolls the page, a container, or an element into view. */
	function scroll(id, direction, pixels) {
		let element = null;
		if (id !== null && id !== undefined) {
			element = elementById(id);
			if (element === null)
				return { stale: true };
		}
		if (direction === 'to_element') {
			if (element === null)
				return fail('INVALID_ARGUMENT', 'scroll_page to_element needs ref: the element to bring into view');
			if (!isRendered(element))
				return fail('NOT_INTERACTABLE', `The element cannot be scrolled into view: ${whyHidden(element)}`);
			element.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
			const r = element.getBoundingClientRect();
			return {
				container: 'page', info: info(element),
				window: { x: Math.round(scrollX), y: Math.round(scrollY) },
				rect: box(r),
				inView: r.bottom > 0 && r.top < innerHeight,
			};
		}
		let container;
		if (element !== null)
			container = scrollContainerOf(element, true);
		else if (canScrollY(document.scrollingElement))
			container = document.scrollingElement;
		else
			container = largestScroller() ?? document.scrollingElement;
		const isWindow = container === document.scrollingElement;
		const before = position(container);
		const step = pixels ?? before.viewport;
		const scroller = isWindow ? window : container;
		const options = { behavior: 'instant' };
		if (direction === 'up')
			scroller.scrollBy({ top: -step, ...options });
		else if (direction === 'down')
			scroller.scrollBy({ top: step, ...options });
		else if (direction === 'to_top')
			scroller.scrollTo({ top: 0, ...options });
		else if (direction === 'to_bottom')
			scroller.scrollTo({ top: container.scrollHeight, ...options });
		const after = position(container);
		return {
			container: isWindow ? 'page' : describe(container, false),
			containerRole: isWindow ? 'page' : 'container',
			before, after,
			above: after.y,
			below: Math.max(0, after.height - after.viewport - after.y),
		};
	}

	/** Starts counting DOM mutations; returns a token for watchStop. */
	let watchers = 0;
	const observers = new Map();
	function watchStart() {
		const token = ++watchers;
		const state = { count: 0 };
		const observer = new MutationObserver(records => {
			state.count += records.length;
		});
		const options = { subtree: true, childList: true, attributes: true, characterData: true };
		observer.observe(document, options);
		const walk = root => {
			for (const element of root.querySelectorAll('*')) {
				const shadow = shadowRootOf(element);
				if (shadow !== null) {
					observer.observe(shadow, options);
					walk(shadow);
				}
			}
		};
		walk(document);
		observers.set(token, { observer, state });
		return token;
	}

	/** Stops a watch; returns the mutations seen, or -1 for an unknown token. */
	function watchStop(token) {
		const entry = observers.get(token);
		if (entry === undefined)
			return -1;
		entry.state.count += entry.observer.takeRecords().length;
		entry.observer.disconnect();
		observers.delete(token);
		return entry.state.count;
	}

	globalThis.__browserBridgeAgent = {
		version: 1,
		snapshot,
		prepareClick,
		syntheticClick,
		frameRect,
		prepareType,
		setValue,
		syntheticType,
		readValue,
		scroll,
		watchStart,
		watchStop,
		frameIndex: ownFrameIndex,
		/* The live element of a localId (or null), for the content tools' own page functions. */
		element: id => elementById(id),
		state: id => {
			const element = elementById(id);
			return element === null ? { stale: true } : stateOf(element);
		},
		info: id => {
			const element = elementById(id);
			return element === null ? { stale: true } : info(element);
		},
	};
})();
true;
