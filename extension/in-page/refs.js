/*
 * In-page script: element numbers. Elements get a number (localId) the
 * first time a state lists them and keep it for the document's life; the
 * service worker turns (documentId, localId) into the ref an agent sees
 * (src/page-state/refs.js). See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.refs !== undefined)
		return;

	/** element -> localId */
	const idOf = new WeakMap();
	/** localId -> WeakRef(element) */
	const elementOf = new Map();
	let nextId = 1;

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

	parts.refs = { localIdOf, elementById };
})(globalThis.__browserBridgePageParts ??= {});
