/*
 * In-page script: element collection. Lists a frame's interactive
 * elements and child frames in document order (composed tree: open and
 * closed shadow roots, slots), leaving out hidden ones (covered ones are
 * listed with what covers them) and
 * marking those a scroll container hides. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.snapshot !== undefined)
		return;

	const { NAME_MAX, clean } = parts.text;
	const { localIdOf } = parts.refs;
	const { shadowRootOf } = parts.tree;
	const { trackerRuns, listListeners, hasClickListener, hasHoverListener, internalsOf } = parts.clickTracker;
	const { nameOf, contextOf, roleOf, detailsOf, coverLabel } = parts.labels;
	const { isInert, isRendered, isShown, hitTest, clippedSide, box } = parts.visibility;
	const { isFrame, frameIndexOf, ownFrameIndex, contentBox } = parts.frames;

	/** The state's own roles, for elements with no role of their own (not controls). */
	const STATE_ROLES = new Set(['clickable', 'draggable', 'hoverable', 'scrollable']);
	/** A name with a letter or digit: one that tells alike controls apart without their context. */
	const WORDY = /[\p{L}\p{N}]/u;
	/** Elements that are never shown, nor hold anything shown. */
	const SKIP_TAGS = new Set([
		'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK',
		'TITLE', 'BASE',
	]);

	/**
	 * Lists the frame's interactive elements and child frames in document
	 * order (composed tree: open and closed shadow roots, slots); with
	 * text, the top frame also gives its page's visible text (innerText,
	 * as get_page_content reads it), null when it has none to give.
	 * @param {{text?: boolean}} [options]
	 */
	function snapshot(options = {}) {
		const items = [];
		let hiddenCount = 0;
		/* One question to the tracker when it can list (the common case), two when it cannot. */
		const listed = listListeners();
		const tracked = listed !== null || trackerRuns();
		const modal = document.querySelector('dialog:modal');

		/*
		 * clip: the box that ancestors with overflow other than visible
		 * leave showing ({top, bottom, left, right}), or null. reach: where
		 * an element must be for a scroll to reveal it (see reachable), for
		 * elements in flow; reachAbsolute: the same for absolutely
		 * positioned ones, which only a positioned ancestor's overflow clips.
		 */
		const hoverTriggers = hoverTriggerSelector();
		const visit = (element, parentCursor, insideInteractive, clip, container, reach, reachAbsolute) => {
			if (SKIP_TAGS.has(element.tagName))
				return;
			if (element.tagName === 'SLOT') {
				/* A slot renders its assigned elements, or its own children. */
				const assigned = element.assignedElements({ flatten: true });
				for (const child of assigned.length > 0 ? assigned : [...element.children])
					visit(child, parentCursor, insideInteractive, clip, container, reach, reachAbsolute);
				return;
			}
			/* Each computed property is read once: every read builds its value afresh. */
			const style = getComputedStyle(element);
			if (style.display === 'none' || style.contentVisibility === 'hidden')
				return;
			const position = style.position;
			/* An element's box, read once for all the questions below. */
			let ownRect = null;
			const rectOf = () => (ownRect ??= element.getBoundingClientRect());
			if (position === 'fixed') {
				clip = null;
				container = null;
				reach = { box: null, extent: { top: 0, left: 0, bottom: innerHeight, right: innerWidth } };
			} else if (position === 'absolute') {
				reach = reachAbsolute;
			}
			if (isFrame(element)) {
				const frameIndex = frameIndexOf(element);
				if (frameIndex < 0)
					return;
				const rect = element.getBoundingClientRect();
				const visible = rect.width >= 1 && rect.height >= 1 &&
				    isRendered(element) && !isInert(element, modal);
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
			/* Its cursor: read at most once, for its role or for its children's. */
			let cursor;
			const cursorOf = () => (cursor ??= style.cursor);
			/* What a custom element's ElementInternals set (its role, name and states), from the tracker's list. */
			const semantics = internalsOf(element, listed);
			let role = roleOf(element, cursorOf, parentCursor, insideInteractive, semantics);
			/* Hovering it shows something (a CSS menu): the agent needs a ref to hover. */
			if (role === null && !insideInteractive && hoverTriggers !== null && matchesSafely(element, hoverTriggers))
				role = 'hoverable';
			/*
			 * Clickable, or showing something on pointer entry, only
			 * through a listener: asked only for visible elements nothing
			 * else made interactive, never the root and body (where
			 * delegated listeners live).
			 */
			let byListener = false;
			if (role === null && tracked && !insideInteractive && style.visibility === 'visible' &&
			    element !== document.documentElement && element !== document.body) {
				const kind = hasClickListener(element, listed) ? 'clickable' :
				    hasHoverListener(element, listed) ? 'hoverable' : null;
				if (kind !== null) {
					const r = rectOf();
					if (r.width >= 1 && r.height >= 1) {
						role = kind;
						byListener = true;
					}
				}
			}
			let itemIndex = -1;
			if (role !== null) {
				const rect = rectOf();
				const clipped = clip === null ? null : clippedSide(rect, clip);
				let keep = true;
				let coveredBy;
				if (rect.width < 1 || rect.height < 1 || !isShown(element) ||
				    isInert(element, modal) || !reachable(rect, reach)) {
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
					if (hit.inView && hit.coveredBy !== undefined)
						coveredBy = coverLabel(hit.coveredBy, element);
				}
				if (keep) {
					const item = { id: localIdOf(element), role, name: nameOf(element, role, semantics), rect: box(rect) };
					if (!WORDY.test(item.name)) {
						const context = contextOf(element);
						if (context !== '')
							item.context = context;
					}
					if (clipped !== null) {
						item.clipped = clipped;
						if (container !== null)
							container.hiding++;
					}
					if (coveredBy !== undefined)
						item.covered_by = coveredBy;
					detailsOf(element, role, item, semantics);
					itemIndex = items.length;
					items.push(item);
				}
			}
			const shadow = shadowRootOf(element);
			const children = shadow !== null ? shadow.children : element.children;
			/*
			 * What a box's overflow and transform decide applies to what is
			 * inside it: a box with no children has them read only when it
			 * is a field, which is listed as scrollable when its text scrolls.
			 */
			const field = role === 'editable' || role === 'select' || role === 'textarea';
			if (children.length === 0 && !field)
				return;
			let scroller = null;
			let childReach = reach;
			const overflowX = style.overflowX, overflowY = style.overflowY;
			if (element !== document.documentElement && element !== document.body &&
			    (overflowX !== 'visible' || overflowY !== 'visible')) {
				const r = rectOf();
				const reached = reachable(r, reach);
				const own = {
					top: r.top + element.clientTop, left: r.left + element.clientLeft,
					bottom: r.top + element.clientTop + element.clientHeight,
					right: r.left + element.clientLeft + element.clientWidth,
				};
				/*
				 * Inside a box the user can scroll (and scroll to), its
				 * scroll reveals what it hides; a box that only clips hides
				 * what lies outside it.
				 */
				childReach = reached && (SCROLLS.test(overflowX) || SCROLLS.test(overflowY)) ?
				    { box: null, extent: null } :
				    { box: reach.box === null ? own : intersect(reach.box, own), extent: reach.extent };
				/* A box the user can scroll is listed when it hides controls. */
				if (isScrollable(element, overflowX, overflowY) && reached && isRendered(element)) {
					scroller = { id: localIdOf(element), role: 'scrollable', name: scrollerName(element), rect: box(r), hiding: 0 };
					if (clip !== null && clippedSide(r, clip) !== null)
						scroller.clipped = clippedSide(r, clip);
					items.push(scroller);
				}
				clip = clip === null ? own : intersect(clip, own);
			}
			if (field)
				return;	/* their insides are content, not controls */
			const positioned = position !== 'static' || style.transform !== 'none';
			/*
			 * A listener element does not hide the controls inside it; if
			 * any is listed, the listener is taken for a delegating
			 * container (a list, a card, an app's root) and left out.
			 */
			const inside = insideInteractive || (role !== null && role !== 'editable' && !byListener);
			for (const child of children)
				visit(child, cursorOf(), inside, clip, scroller ?? container, childReach, positioned ? childReach : reachAbsolute);
			if (scroller !== null) {
				if (scroller.hiding === 0)
					items.splice(items.indexOf(scroller), 1);	/* it hides nothing */
			}
			if (itemIndex >= 0 && (byListener ? items.length > itemIndex + 1 : standsInFor(element, shadow, role, itemIndex)))
				items.splice(itemIndex, 1);
		};

		/*
		 * Whether an element listed as clickable (by its cursor or onclick)
		 * only stands in for a control listed inside it: a label around its
		 * control, or a custom element's host around the controls of its
		 * shadow tree (Shoelace's checkbox label, @material/web's button
		 * hosts). Its click is the control's; the control is listed, with
		 * its own role, name and state.
		 */
		const standsInFor = (element, shadow, role, itemIndex) => role === 'clickable' &&
		    (element.tagName === 'LABEL' || shadow !== null) &&
		    items.slice(itemIndex + 1).some(item => item.frame === undefined && !STATE_ROLES.has(item.role));

		const scroller = document.scrollingElement ?? document.documentElement;
		if (document.documentElement) {
			const page = { box: null, extent: pageExtent(scroller) };
			visit(document.documentElement, 'auto', false, null, null, page, page);
		}
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
			...(options.text === true && window === window.top ? { text: document.body?.innerText?.trim() ?? null } : {}),
		};
	}

	/** The most elements a document may have for warmUp to walk it. */
	const WARM_MAX_ELEMENTS = 1000;
	/** Whether warmUp has run (or been declined) in this document. */
	let warmed = false;

	/**
	 * Once per document, on a timer (so while a caller waits for the page
	 * to be still), walks it as snapshot does and drops the answer: the
	 * first walk in a document runs cold code at about twice the cost of
	 * the next, and this takes that cost off the first read. Nothing of
	 * the walk is kept for a read. A document too big to walk within the
	 * quiet window is left alone.
	 */
	function warmUp() {
		if (warmed)
			return;
		warmed = true;
		setTimeout(() => {
			if (document.getElementsByTagName('*').length <= WARM_MAX_ELEMENTS)
				snapshot();
		}, 0);
	}

	/** Overflow values that let the user scroll a box. */
	const SCROLLS = /auto|scroll|overlay/;

	/** The overlap of two boxes {top, bottom, left, right}. */
	function intersect(a, b) {
		return {
			top: Math.max(a.top, b.top), bottom: Math.min(a.bottom, b.bottom),
			left: Math.max(a.left, b.left), right: Math.min(a.right, b.right),
		};
	}

	/** Whether a box {top, bottom, left, right} is a pixel or more each way. */
	function hasArea(box) {
		return box.right - box.left >= 1 && box.bottom - box.top >= 1;
	}

	/**
	 * Whether some scroll can bring a rectangle into view: the part of it
	 * that the boxes which clip without scrolling leave (reach.box) lies
	 * in the area the page can scroll over (reach.extent, the viewport for
	 * fixed elements); null for either means no limit (inside a box the
	 * user scrolls). Toolbars' pickers parked at left: -99999em, menus
	 * collapsed to height 0 and slides outside a carousel are not.
	 */
	function reachable(rect, reach) {
		const shown = reach.box === null ? rect : intersect(rect, reach.box);
		return hasArea(shown) && (reach.extent === null || hasArea(intersect(shown, reach.extent)));
	}

	/**
	 * The area the page can be scrolled over, in viewport coordinates:
	 * from the document's origin (its right edge on a right-to-left page,
	 * which overflows to the left) over its scroll size.
	 */
	function pageExtent(scroller) {
		const width = Math.max(scroller?.scrollWidth ?? 0, innerWidth);
		const height = Math.max(scroller?.scrollHeight ?? 0, innerHeight);
		const left = (getComputedStyle(document.documentElement).direction === 'rtl' ? innerWidth - width : 0) - scrollX;
		return { top: -scrollY, bottom: height - scrollY, left, right: left + width };
	}

	/**
	 * The :hover selectors of each style sheet read so far, with the number
	 * of top-level rules it had then: a sheet is read again when that
	 * number changes (a rule added or removed), not on every snapshot, so
	 * a page with thousands of rules pays for reading them once.
	 * @type {WeakMap<CSSStyleSheet, {length: number, selectors: string[]}>}
	 */
	const hoverRulesOf = new WeakMap();
	/** Whether this browser parses a selector, by selector. */
	const parses = new Map();

	/**
	 * The selectors before ":hover" in the rules of a list that show or
	 * change another element (".menu:hover > .submenu { display: block }"
	 * gives ".menu"), including rules inside @media, @supports and @layer.
	 * Rules that only restyle the hovered element itself (".card:hover
	 * { ... }") make nothing appear.
	 */
	function hoverSelectorsIn(rules, found = []) {
		for (const rule of rules) {
			if (rule.selectorText === undefined && rule.cssRules !== undefined) {
				hoverSelectorsIn(rule.cssRules, found);
				continue;
			}
			const text = rule.selectorText;
			if (typeof text !== 'string' || !text.includes(':hover'))
				continue;
			for (const selector of text.split(',')) {
				const at = selector.indexOf(':hover');
				const before = selector.slice(0, at).trim();
				if (at < 0 || before === '' || !/^\s*[>+~]|^\s+\S/.test(selector.slice(at + 6)))
					continue;
				found.push(before);
			}
		}
		return found;
	}

	/** Whether this browser parses a selector (remembered). */
	function parsesSelector(selector) {
		let ok = parses.get(selector);
		if (ok === undefined) {
			try {
				document.createDocumentFragment().querySelector(selector);
				ok = true;
			} catch {
				ok = false;
			}
			parses.set(selector, ok);
		}
		return ok;
	}

	/**
	 * One selector list matching the elements whose :hover shows or changes
	 * another element, from the page's readable style sheets, or null when
	 * there are none. Selectors this browser does not parse are left out,
	 * so the list parses: one matches() call per element, however many
	 * rules the page has.
	 */
	function hoverTriggerSelector() {
		const found = new Set();
		for (const sheet of document.styleSheets) {
			let rules;
			try {
				rules = sheet.cssRules;
			} catch {
				continue;	/* a cross-origin sheet: its rules cannot be read */
			}
			let known = hoverRulesOf.get(sheet);
			if (known === undefined || known.length !== rules.length) {
				known = { length: rules.length, selectors: hoverSelectorsIn(rules) };
				hoverRulesOf.set(sheet, known);
			}
			for (const selector of known.selectors)
				found.add(selector);
		}
		const valid = [...found].filter(parsesSelector);
		return valid.length === 0 ? null : valid.join(', ');
	}

	/** element.matches, false for a selector this browser does not parse. */
	function matchesSafely(element, selector) {
		try {
			return element.matches(selector);
		} catch {
			return false;
		}
	}

	/** Whether a box with overflow set (its computed overflow-x and overflow-y) has content the user can scroll to. */
	function isScrollable(element, overflowX, overflowY) {
		const vertical = /auto|scroll/.test(overflowY) && element.scrollHeight > element.clientHeight + 1;
		const horizontal = /auto|scroll/.test(overflowX) && element.scrollWidth > element.clientWidth + 1;
		return vertical || horizontal;
	}

	/** A scroll box's name: its label, its first heading, or its id. */
	function scrollerName(element) {
		const label = element.getAttribute('aria-label') ?? element.title ?? '';
		const heading = element.querySelector('h1, h2, h3, h4, h5, h6, [role="heading"]')?.textContent ?? '';
		return clean(label || heading || (element.id ? `#${element.id}` : ''), NAME_MAX);
	}

	parts.snapshot = { snapshot, warmUp };
})(globalThis.__browserBridgePageParts ??= {});
