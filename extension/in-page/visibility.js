/*
 * In-page script: whether an element can be seen and reached: inert,
 * rendered, why hidden, hit tests (is it covered, and by what), what its
 * scroll containers show, and bringing it into view. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.visibility !== undefined)
		return;

	const { describe } = parts.text;
	const { composedContains, composedParent, flatParent } = parts.tree;
	/** Input types that are buttons, not fields. */
	const BUTTON_TYPES = /^(button|submit|reset|image|hidden)$/;

	/**
	 * Whether the element is inert or outside an open modal dialog. modal:
	 * the document's open modal dialog or null, when the caller asks about
	 * many elements and has looked it up once (a lookup scans the document).
	 */
	function isInert(element, modal = element.ownerDocument.querySelector('dialog:modal')) {
		for (let n = element; n; n = composedParent(n)) {
			if (n.inert)
				return true;
		}
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

	/**
	 * Whether an element that isRendered finds transparent is a field the
	 * page draws some other way: a custom-drawn checkbox, radio, switch or
	 * slider over (or under) its transparent native input, a text field
	 * whose input is transparent under its resting label. That is: an
	 * input (not a button), textarea or select, kept in the tab order, not
	 * visibility: hidden, whose transparency (opacity 0) is its own or
	 * comes from elements of shadow trees, a component's own parts. A field
	 * inside a transparent element of the page's own tree (a section
	 * faded out) is hidden like everything there, and one out of the tab
	 * order is a script widget's copy of its data (Choices.js and Tom
	 * Select keep the native select under their own widget).
	 */
	function isDrawnByPage(element) {
		const tag = element.tagName;
		if (!(tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'INPUT' && !BUTTON_TYPES.test(element.type)) ||
		    element.tabIndex < 0 || getComputedStyle(element).visibility !== 'visible')
			return false;
		for (let n = flatParent(element); n !== null; n = flatParent(n)) {
			if (!(n.getRootNode() instanceof ShadowRoot) && Number(getComputedStyle(n).opacity) === 0)
				return false;
		}
		return true;
	}

	/**
	 * Whether a person sees the element (isRendered), or the page draws it
	 * in its place (isDrawnByPage): what the state lists and actions take.
	 */
	function isShown(element) {
		return isRendered(element) || isDrawnByPage(element);
	}

	/** Why an element is not visible, naming the ancestor (in the flat tree, where it is painted) that hides it. */
	function whyHidden(element) {
		for (let n = element; n; n = flatParent(n)) {
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

	/** Rounds a DOMRect to [x, y, width, height]. */
	function box(rect) {
		return [Math.round(rect.left), Math.round(rect.top), Math.round(rect.width), Math.round(rect.height)];
	}

	parts.visibility = { isInert, isRendered, isShown, whyHidden, hitTest, clippedSide, shownRect, bringIntoView, box };
})(globalThis.__browserBridgePageParts ??= {});
