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
	const { info, stateOf } = parts.labels;
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
		/* warm: also warm the walk up while the watch waits (a page that has just loaded). */
		watchStart: warm => {
			if (warm === true)
				parts.snapshot.warmUp();
			return parts.mutations.watchStart();
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
	};
})(globalThis.__browserBridgePageParts ??= {});
