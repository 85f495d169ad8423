/*
 * The click-listener tracker: a content script that runs in the page's own
 * (MAIN) world at document_start in every frame (manifest.json
 * "content_scripts"), before any page script. It lets the page agent
 * (in-page/click-tracker.js, in the extension's isolated world) list
 * elements that are clickable, or show something when the pointer enters
 * them, only through addEventListener, which no DOM property shows.
 *
 * - EventTarget.prototype.addEventListener and removeEventListener are
 *   wrapped to remember which objects have listeners for click-like events
 *   (click, mousedown, mouseup, pointerdown, pointerup, drop) and for
 *   pointer-entry events (mouseenter, mouseover, pointerenter,
 *   pointerover), per type, callback and capture flag, as the browser
 *   identifies them; listeners removed by an AbortSignal are forgotten
 *   when it aborts.
 * - The agent asks about an element by dispatching a cancelable CustomEvent
 *   on it (bubbles: false): CLICK_QUERY for click-like listeners,
 *   HOVER_QUERY for pointer-entry ones. The tracker listens for both in
 *   the capture phase on the window and on every shadow root the page
 *   attaches (Element.prototype.attachShadow is wrapped for that), and
 *   cancels the question when the element has such a listener or the
 *   matching handler property (onclick-like, onmouseenter-like). defaultPrevented is DOM state both worlds see, so the
 *   agent reads the answer from dispatchEvent's return value. The agent
 *   sends the event composed when every shadow root above the element is
 *   open (the window's listener then sees the element first in
 *   composedPath()) and not composed otherwise (only the listener on the
 *   element's own shadow root sees it).
 * - The same event dispatched on the window itself is always cancelled: it
 *   tells the agent the tracker runs in this document.
 * - To list a whole document with one question instead of one per
 *   element, the agent dispatches LIST_QUERY on the window. The tracker
 *   cancels it (so the agent knows it can list) and, before the agent's
 *   dispatchEvent returns, walks the document and the shadow roots it
 *   knows and dispatches LISTED_CLICK or LISTED_HOVER (composed, not
 *   bubbling) on each element that would answer yes to CLICK_QUERY or
 *   HOVER_QUERY; the agent collects them with a capture listener on the
 *   window. Elements inside closed shadow trees are left out (a listener
 *   outside cannot see them): the agent asks about those one by one.
 * - Roles and ARIA states a custom element sets through ElementInternals
 *   (internals.role = 'slider', internals.ariaChecked = 'true'), which no
 *   DOM property shows either: HTMLElement.prototype.attachInternals is
 *   wrapped to remember each element's internals. In the list, the
 *   tracker also dispatches LISTED_INTERNALS (composed, not bubbling) on
 *   each element whose internals set any, with those values as its detail
 *   ({ role, ariaLabel, ariaChecked, ... }: strings, which the agent's
 *   world reads as a copy); asked about one element with INTERNALS_QUERY,
 *   it dispatches the same answer on that element alone.
 *
 * Nothing is written to the DOM and nothing is exposed to the page. The
 * wrappers are transparent: the original function runs first with the same
 * this, arguments and return value (its exceptions propagate unchanged);
 * the bookkeeping runs after it and its own errors are swallowed. The
 * wrappers keep the originals' names, lengths and property attributes, are
 * not constructors, and their own toString gives the native text.
 *
 * Limits: a listener on an ancestor (event delegation, as in React) is seen
 * on the ancestor, not on the element it serves; a `once` listener is
 * remembered after it has run; closed shadow roots the HTML parser creates
 * (declarative shadow DOM) get no listener, so their elements are not
 * answered for.
 */
((global) => {
	'use strict';

	const CLICK_QUERY = '__browser_bridge_has_click__';
	const HOVER_QUERY = '__browser_bridge_has_hover__';
	const LIST_QUERY = '__browser_bridge_list_listeners__';
	const LISTED_CLICK = '__browser_bridge_listed_click__';
	const LISTED_HOVER = '__browser_bridge_listed_hover__';
	const INTERNALS_QUERY = '__browser_bridge_internals__';
	const LISTED_INTERNALS = '__browser_bridge_listed_internals__';
	/* The ElementInternals properties that give an element a role, a name or a state (ARIA reflection). */
	const INTERNALS_PROPERTIES = ['role', 'ariaLabel', 'ariaChecked', 'ariaSelected', 'ariaPressed', 'ariaExpanded',
		'ariaDisabled', 'ariaValueNow', 'ariaValueText'];
	/*
	 * Per question, the listener types and handler properties that answer
	 * yes. Click-like, and drop: a drop zone is something to act on too
	 * (drag_and_drop's target).
	 */
	const KINDS = new Map([
		[CLICK_QUERY, {
			types: ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'drop'],
			properties: ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup'],
		}],
		[HOVER_QUERY, {
			types: ['mouseenter', 'mouseover', 'pointerenter', 'pointerover'],
			properties: ['onmouseenter', 'onmouseover', 'onpointerenter', 'onpointerover'],
		}],
	]);
	const TRACKED_TYPES = new Set([...KINDS.values()].flatMap(kind => kind.types));

	const apply = Reflect.apply;
	const EventTargetClass = global.EventTarget;
	const EventClass = global.Event;
	if (typeof EventTargetClass !== 'function' || typeof EventClass !== 'function')
		return;
	const targetProto = EventTargetClass.prototype;
	const originalAdd = targetProto.addEventListener;
	const originalRemove = targetProto.removeEventListener;
	const originalDispatch = targetProto.dispatchEvent;
	const ElementClass = global.Element;
	const originalAttachShadow = typeof ElementClass === 'function' ?
	    ElementClass.prototype.attachShadow : undefined;
	const preventDefault = EventClass.prototype.preventDefault;
	const composedPath = EventClass.prototype.composedPath;
	const CustomEventClass = global.CustomEvent;
	const documentNode = global.document;
	/* querySelectorAll of documents and of shadow roots (fragments), and the open-root getter, as they were. */
	const ownMethod = (name, method) => {
		const proto = typeof global[name] === 'function' ? global[name].prototype : undefined;
		return proto === undefined ? undefined : proto[method];
	};
	const documentQueryAll = ownMethod('Document', 'querySelectorAll');
	const fragmentQueryAll = ownMethod('DocumentFragment', 'querySelectorAll');
	const openRootOf = typeof ElementClass === 'function' ?
	    Object.getOwnPropertyDescriptor(ElementClass.prototype, 'shadowRoot')?.get : undefined;
	const HTMLElementClass = global.HTMLElement;
	const originalAttachInternals = typeof HTMLElementClass === 'function' ?
	    HTMLElementClass.prototype.attachInternals : undefined;
	/* The getters of INTERNALS_PROPERTIES as they were: [name, getter]. */
	const internalsGetters = typeof global.ElementInternals === 'function' ?
	    INTERNALS_PROPERTIES.map(name => [name, Object.getOwnPropertyDescriptor(global.ElementInternals.prototype, name)?.get])
		.filter(([, getter]) => typeof getter === 'function') : [];
	if (typeof originalAdd !== 'function' || typeof originalRemove !== 'function' ||
	    typeof preventDefault !== 'function')
		return;

	/* Installed already in this realm (a second injection): leave it. */
	try {
		if (typeof global.CustomEvent === 'function' &&
		    !apply(originalDispatch, global, [new global.CustomEvent(CLICK_QUERY, { cancelable: true })]))
			return;
	} catch {
		/* no way to ask: install */
	}

	/** target -> Map(type -> Array<{listener, capture}>) */
	const records = new WeakMap();
	/** host -> the shadow root the page attached to it (open or closed) */
	const shadowRoots = new WeakMap();
	/** custom element -> the ElementInternals the page attached to it */
	const internalsOf = new WeakMap();

	/* Per kind, the getters of its handler properties, per prototype. */
	for (const kind of KINDS.values()) {
		kind.getters = [];
		for (const name of ['HTMLElement', 'SVGElement', 'MathMLElement']) {
			const proto = typeof global[name] === 'function' ? global[name].prototype : undefined;
			if (proto === undefined)
				continue;
			const getters = [];
			for (const property of kind.properties) {
				const descriptor = Object.getOwnPropertyDescriptor(proto, property);
				if (descriptor !== undefined && typeof descriptor.get === 'function')
					getters.push(descriptor.get);
			}
			if (getters.length > 0)
				kind.getters.push(getters);
		}
	}

	/** The capture flag the browser derives from addEventListener's third argument. */
	function captureOf(options) {
		if (options === undefined || options === null)
			return false;
		if (typeof options === 'object' || typeof options === 'function')
			return Boolean(options.capture);
		return Boolean(options);
	}

	/** The index of a remembered listener in a list, or -1. */
	function indexOf(list, listener, capture) {
		for (let i = 0; i < list.length; i++) {
			if (list[i].listener === listener && list[i].capture === capture)
				return i;
		}
		return -1;
	}

	/** Forgets one entry (the entry object itself, or by listener and capture). */
	function forget(target, type, listener, capture, entry) {
		const byType = records.get(target);
		if (byType === undefined)
			return;
		const list = byType.get(type);
		if (list === undefined)
			return;
		const i = indexOf(list, listener, capture);
		if (i < 0 || (entry !== undefined && list[i] !== entry))
			return;
		list.splice(i, 1);
		if (list.length === 0) {
			byType.delete(type);
			if (byType.size === 0)
				records.delete(target);
		}
	}

	/** Remembers a listener the browser has just added, unless it is not click-like. */
	function remember(target, type, listener, options) {
		if (typeof type !== 'string' || !TRACKED_TYPES.has(type))
			return;
		if (target === null || (typeof target !== 'object' && typeof target !== 'function'))
			return;
		if (listener === null || (typeof listener !== 'object' && typeof listener !== 'function'))
			return;
		const capture = captureOf(options);
		let signal = null;
		if (options !== null && (typeof options === 'object' || typeof options === 'function')) {
			signal = options.signal ?? null;
			if (signal !== null && signal.aborted)
				return;	/* the browser did not add it */
		}
		let byType = records.get(target);
		if (byType === undefined) {
			byType = new Map();
			records.set(target, byType);
		}
		let list = byType.get(type);
		if (list === undefined) {
			list = [];
			byType.set(type, list);
		}
		if (indexOf(list, listener, capture) >= 0)
			return;	/* the browser ignores a duplicate */
		const entry = { listener, capture };
		list.push(entry);
		if (signal !== null) {
			const weak = typeof WeakRef === 'function' ? new WeakRef(target) : { deref: () => target };
			apply(originalAdd, signal, ['abort', () => {
				try {
					const t = weak.deref();
					if (t !== undefined)
						forget(t, type, listener, capture, entry);
				} catch {
					/* never disturb the page */
				}
			}, { once: true }]);
		}
	}

	/** Whether an object has one of a kind's handler properties set. */
	function hasHandlerProperty(target, kind) {
		for (const getters of kind.getters) {
			try {
				for (const getter of getters) {
					const handler = apply(getter, target, []);
					if (handler !== null && handler !== undefined)
						return true;
				}
				return false;
			} catch {
				/* another kind of element: try the next prototype */
			}
		}
		return false;
	}

	/** Whether an object has a listener or handler of a kind. */
	function hasListener(target, kind) {
		const byType = records.get(target);
		if (byType !== undefined && kind.types.some(type => byType.has(type)))
			return true;
		return hasHandlerProperty(target, kind);
	}

	/** Answers the agent's question: cancels the event if its target has a listener of the kind asked. */
	function answer(event) {
		try {
			const kind = KINDS.get(event.type);
			let target = event.target;
			if (typeof composedPath === 'function') {
				const path = apply(composedPath, event, []);
				if (path.length > 0)
					target = path[0];
			}
			if (target === global || hasListener(target, kind))
				apply(preventDefault, event, []);
		} catch {
			/* never disturb the page */
		}
	}

	/**
	 * The role and ARIA states an element's ElementInternals set, as
	 * { role, ariaLabel, ... } with the properties that are set (strings),
	 * or null when it has no internals or they set none.
	 */
	function semanticsOf(element) {
		const internals = internalsOf.get(element);
		if (internals === undefined)
			return null;
		let semantics = null;
		for (const [name, getter] of internalsGetters) {
			const value = apply(getter, internals, []);
			if (typeof value === 'string')
				(semantics ??= {})[name] = value;
		}
		return semantics;
	}

	/** Dispatches on an element what its ElementInternals set (LISTED_INTERNALS), if they set anything. */
	function tellSemantics(element, composed) {
		const semantics = semanticsOf(element);
		if (semantics !== null) {
			apply(originalDispatch, element,
			    [new CustomEventClass(LISTED_INTERNALS, { bubbles: false, composed, detail: semantics })]);
		}
	}

	/** The questions about ElementInternals answered already (the window and a shadow root may both see one). */
	const answeredSemantics = new WeakSet();

	/** Answers the agent's question about one element's ElementInternals: the answer is dispatched on that element alone. */
	function answerSemantics(event) {
		try {
			if (answeredSemantics.has(event))
				return;
			answeredSemantics.add(event);
			const path = apply(composedPath, event, []);
			const target = path.length > 0 ? path[0] : event.target;
			if (target !== global)
				tellSemantics(target, false);
		} catch {
			/* never disturb the page */
		}
	}

	/**
	 * Answers the agent's request for a list: cancels it, then names every
	 * element outside closed shadow trees that has a listener or handler
	 * of a kind, by dispatching LISTED_CLICK or LISTED_HOVER on it, and
	 * gives what each one's ElementInternals set (LISTED_INTERNALS).
	 */
	function list(event) {
		try {
			if (event.target !== global)
				return;
			apply(preventDefault, event, []);
			const click = KINDS.get(CLICK_QUERY);
			const hover = KINDS.get(HOVER_QUERY);
			const name = (element, type) => apply(originalDispatch, element,
			    [new CustomEventClass(type, { bubbles: false, composed: true })]);
			const walk = (elements, closed) => {
				for (const element of elements) {
					if (!closed) {
						if (hasListener(element, click))
							name(element, LISTED_CLICK);
						if (hasListener(element, hover))
							name(element, LISTED_HOVER);
						tellSemantics(element, true);
					}
					const root = shadowRoots.get(element) ??
					    (openRootOf === undefined ? null : apply(openRootOf, element, []));
					if (root !== null && root !== undefined && fragmentQueryAll !== undefined)
						walk(apply(fragmentQueryAll, root, ['*']), closed || root.mode === 'closed');
				}
			};
			walk(apply(documentQueryAll, documentNode, ['*']), false);
		} catch {
			/* never disturb the page: the agent then has a partial list */
		}
	}

	/** Gives a wrapper the original's property attributes and a native-looking toString. */
	function install(proto, name, wrapper) {
		const descriptor = Object.getOwnPropertyDescriptor(proto, name);
		const text = `function ${name}() { [native code] }`;
		Object.defineProperty(wrapper, 'toString', {
			value: { toString() { return text; } }.toString,
			writable: true, enumerable: false, configurable: true,
		});
		Object.defineProperty(proto, name, {
			value: wrapper,
			writable: descriptor.writable, enumerable: descriptor.enumerable,
			configurable: descriptor.configurable,
		});
	}

	/*
	 * Method shorthand: not constructors, no prototype property, and
	 * `length` 2 like the originals (the options argument is read from
	 * `arguments`). Strict mode keeps an undefined `this` undefined, which
	 * the browser takes as the window, as for a bare addEventListener(...).
	 */
	const wrappers = {
		addEventListener(type, listener) {
			const result = apply(originalAdd, this, arguments);
			try {
				remember(this, type, listener, arguments[2]);
			} catch {
				/* never disturb the page */
			}
			return result;
		},
		removeEventListener(type, listener) {
			const result = apply(originalRemove, this, arguments);
			try {
				if (typeof type === 'string' && TRACKED_TYPES.has(type) && this !== null &&
				    (typeof this === 'object' || typeof this === 'function'))
					forget(this, type, listener, captureOf(arguments[2]));
			} catch {
				/* never disturb the page */
			}
			return result;
		},
		attachShadow(init) {
			const root = apply(originalAttachShadow, this, arguments);
			try {
				shadowRoots.set(this, root);
				for (const query of KINDS.keys())
					apply(originalAdd, root, [query, answer, true]);
				apply(originalAdd, root, [INTERNALS_QUERY, answerSemantics, true]);
			} catch {
				/* never disturb the page */
			}
			return root;
		},
		attachInternals() {
			const internals = apply(originalAttachInternals, this, arguments);
			try {
				internalsOf.set(this, internals);
			} catch {
				/* never disturb the page */
			}
			return internals;
		},
	};
	/*
	 * removeEventListener first, so a listener is never remembered without
	 * a way to forget it; the window answers only once both are in place.
	 * A frozen prototype leaves the page as it was, without detection.
	 */
	try {
		install(targetProto, 'removeEventListener', wrappers.removeEventListener);
		install(targetProto, 'addEventListener', wrappers.addEventListener);
		for (const query of KINDS.keys())
			apply(originalAdd, global, [query, answer, true]);
		if (typeof CustomEventClass === 'function' && documentNode !== undefined && documentNode !== null &&
		    typeof documentQueryAll === 'function')
			apply(originalAdd, global, [LIST_QUERY, list, true]);
		if (typeof CustomEventClass === 'function' && typeof composedPath === 'function')
			apply(originalAdd, global, [INTERNALS_QUERY, answerSemantics, true]);
	} catch {
		return;
	}
	try {
		if (typeof originalAttachShadow === 'function')
			install(ElementClass.prototype, 'attachShadow', wrappers.attachShadow);
	} catch {
		/* elements in closed shadow roots go unanswered */
	}
	try {
		if (typeof originalAttachInternals === 'function' && internalsGetters.length > 0)
			install(HTMLElementClass.prototype, 'attachInternals', wrappers.attachInternals);
	} catch {
		/* roles set through ElementInternals go unseen */
	}
})(globalThis);
