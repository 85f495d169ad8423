/*
 * In-page script: iframes. A parent reports each iframe by its index in
 * window.frames and a child computes its own index in parent.frames, so the
 * service worker can pair frames with their iframe elements across
 * origins; frameRect says where a child frame's viewport is. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.frames !== undefined)
		return;

	const { shadowRootOf } = parts.tree;
	const { bringIntoView } = parts.visibility;

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

	parts.frames = { isFrame, frameIndexOf, ownFrameIndex, contentBox, frameRect };
})(globalThis.__browserBridgePageParts ??= {});
