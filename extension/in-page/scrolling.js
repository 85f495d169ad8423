/*
 * In-page script: scrolling the page, the container of an element, or the
 * largest scroller of a page whose window does not scroll. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.scrolling !== undefined)
		return;

	const { describe, fail } = parts.text;
	const { elementById } = parts.refs;
	const { composedParent, shadowRootOf } = parts.tree;
	const { info } = parts.labels;
	const { isRendered, isShown, whyHidden, box } = parts.visibility;

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
			if (!isShown(element))
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

	parts.scrolling = { scroll };
})(globalThis.__browserBridgePageParts ??= {});
