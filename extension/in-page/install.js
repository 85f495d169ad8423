/*
 * In-page script, last file: installs the API the service worker calls
 * through the page channel (src/browser/page-channel.js), as
 * globalThis.__browserBridgePage, once per document. Results are plain
 * JSON. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (globalThis.__browserBridgePage !== undefined)
		return;

	const { elementById } = parts.refs;
	const { info, stateOf, secretField } = parts.labels;
	const { ownFrameIndex, frameRect } = parts.frames;
	const { prepareClick, syntheticClick } = parts.pointer;
	const { prepareType, setValue, syntheticType, readValue } = parts.typing;

	globalThis.__browserBridgePage = {
		version: 2,
		snapshot: parts.snapshot.snapshot,
		prepareClick,
		syntheticClick,
		frameRect,
		prepareType,
		setValue,
		syntheticType,
		readValue,
		scroll: parts.scrolling.scroll,
		/*
		 * loaded: a page that has just loaded: also warm the walk up while
		 * the watch waits, and wait for the short timers it set as it loaded.
		 */
		watchStart: loaded => {
			if (loaded === true)
				parts.snapshot.warmUp();
			return parts.mutations.watchStart(loaded === true);
		},
		watchQuiet: parts.mutations.watchQuiet,
		watchStop: parts.mutations.watchStop,
		frameIndex: ownFrameIndex,
		/* The live element of a localId (or null), for the page functions of the tools. */
		element: id => elementById(id),
		state: id => {
			const element = elementById(id);
			return element === null ? { stale: true } : stateOf(element);
		},
		info: id => {
			const element = elementById(id);
			return element === null ? { stale: true } : info(element);
		},
		/* Whether the element focused in this document (inside shadow roots too) holds a secret (press_keys without a ref). */
		focusSecret: () => {
			let active = document.activeElement;
			while (active?.shadowRoot?.activeElement)
				active = active.shadowRoot.activeElement;
			return active !== null && secretField(active);
		},
	};
})(globalThis.__browserBridgePageParts ??= {});
