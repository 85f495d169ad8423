// The click-listener tracker (page/click-listeners.js), run in a vm context
// over a small fake DOM that follows the DOM standard where the tracker
// depends on it: listener identity (type, callback, capture), AbortSignal
// removal, capture-phase propagation through shadow roots (composed or
// not), retargeting and composedPath's hiding of closed shadow trees, and
// ElementInternals' ARIA reflection (strings or null).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const SOURCE = readFileSync(new URL('../page/click-listeners.js', import.meta.url), 'utf8');
const QUERY_EVENT = '__browser_bridge_has_click__';
// The ElementInternals properties the tracker reports.
const INTERNALS_ARIA = ['role', 'ariaLabel', 'ariaChecked', 'ariaSelected', 'ariaPressed', 'ariaExpanded',
	'ariaDisabled', 'ariaValueNow', 'ariaValueText'];
const ADDED = 'value returned by the original addEventListener';

// A fresh fake DOM: its classes, the window (set by load) and a log of the
// calls that reached the original EventTarget methods.
function fakeDom() {
	const dom = { window: null, log: [] };
	const listenersOf = new WeakMap();

	function listeners(target) {
		let list = listenersOf.get(target);
		if (list === undefined) {
			list = [];
			listenersOf.set(target, list);
		}
		return list;
	}

	function checkThis(self) {
		if (self === undefined || self === null)
			return dom.window;	// WebIDL: the global object
		if (typeof self !== 'object' && typeof self !== 'function')
			throw new TypeError('Illegal invocation');
		return self;
	}

	function flatten(options) {
		if (options === undefined || options === null)
			return { capture: false, once: false, signal: null };
		if (typeof options !== 'object')
			return { capture: Boolean(options), once: false, signal: null };
		return { capture: Boolean(options.capture), once: Boolean(options.once), signal: options.signal ?? null };
	}

	// The composed parent of a node for an event.
	function parentFor(node, event) {
		if (node instanceof ShadowRoot)
			return event.composed ? node.host : null;
		if (node instanceof Document)
			return dom.window;
		return node.parentNode ?? null;
	}

	// The shadow-including parent, regardless of events.
	function up(node) {
		if (node instanceof ShadowRoot)
			return node.host;
		return node.parentNode ?? null;
	}

	function rootOf(node) {
		let n = node;
		while (n.parentNode)
			n = n.parentNode;
		return n;
	}

	// Whether ancestor is node or a shadow-including ancestor of it.
	function includes(ancestor, node) {
		for (let n = node === dom.window ? dom.document : node; n; n = up(n)) {
			if (n === ancestor)
				return true;
		}
		return false;
	}

	// The DOM standard's retargeting of a against b.
	function retarget(a, b) {
		let n = a;
		while (n !== dom.window && rootOf(n) instanceof ShadowRoot && !includes(rootOf(n), b))
			n = rootOf(n).host;
		return n;
	}

	// Whether a node of the path is hidden from a listener on current.
	function hidden(node, current) {
		if (node === dom.window)
			return false;
		for (let root = rootOf(node); root instanceof ShadowRoot; root = rootOf(root.host)) {
			if (root.mode === 'closed' && !includes(root, current))
				return true;
		}
		return false;
	}

	class EventTarget {
		addEventListener(type, callback, options) {
			dom.log.push({ method: 'add', self: this, args: [...arguments] });
			const self = checkThis(this);
			const { capture, once, signal } = flatten(options);
			if (callback === null || callback === undefined)
				return ADDED;
			if (signal !== null && signal.aborted)
				return ADDED;
			const list = listeners(self);
			if (list.some(l => l.type === String(type) && l.callback === callback && l.capture === capture))
				return ADDED;
			const entry = { type: String(type), callback, capture, once };
			list.push(entry);
			if (signal !== null)
				signal.algorithms.push(() => {
					const i = list.indexOf(entry);
					if (i >= 0)
						list.splice(i, 1);
				});
			return ADDED;
		}

		removeEventListener(type, callback, options) {
			dom.log.push({ method: 'remove', self: this, args: [...arguments] });
			const self = checkThis(this);
			const { capture } = flatten(options);
			const list = listeners(self);
			const i = list.findIndex(l => l.type === String(type) && l.callback === callback && l.capture === capture);
			if (i >= 0)
				list.splice(i, 1);
		}

		dispatchEvent(event) {
			const self = checkThis(this);
			const path = [];
			for (let n = self; n; n = parentFor(n, event))
				path.push(n);
			event.path = path;
			const invoke = (node, phase) => {
				event.currentTarget = node;
				event.target = retarget(self, node);
				for (const entry of [...listeners(node)]) {
					if (entry.type !== event.type || (phase === 'capture' && !entry.capture) ||
					    (phase === 'bubble' && entry.capture))
						continue;
					if (entry.once)
						listeners(node).splice(listeners(node).indexOf(entry), 1);
					if (typeof entry.callback === 'function')
						entry.callback.call(node, event);
					else
						entry.callback.handleEvent(event);
				}
			};
			for (let i = path.length - 1; i > 0; i--)
				invoke(path[i], 'capture');
			invoke(self, 'target');
			if (event.bubbles)
				for (let i = 1; i < path.length; i++)
					invoke(path[i], 'bubble');
			event.currentTarget = null;
			return !event.defaultPrevented;
		}
	}

	class Event {
		constructor(type, init = {}) {
			this.type = type;
			this.bubbles = Boolean(init.bubbles);
			this.cancelable = Boolean(init.cancelable);
			this.composed = Boolean(init.composed);
			this.defaultPrevented = false;
			this.target = null;
			this.currentTarget = null;
			this.path = [];
		}

		preventDefault() {
			if (this.cancelable)
				this.defaultPrevented = true;
		}

		composedPath() {
			return this.path.filter(n => !hidden(n, this.currentTarget));
		}
	}

	class CustomEvent extends Event {
		constructor(type, init = {}) {
			super(type, init);
			this.detail = init.detail ?? null;
		}
	}

	class Node extends EventTarget {
		constructor() {
			super();
			this.parentNode = null;
			this.children = [];
		}

		append(...nodes) {
			for (const n of nodes) {
				n.parentNode = this;
				this.children.push(n);
			}
			return this;
		}

		// querySelectorAll('*'): the descendants in tree order, not crossing into shadow roots.
		querySelectorAll(selector) {
			if (selector !== '*')
				throw new Error(`the fake DOM selects only "*", not ${selector}`);
			const all = [];
			const walk = node => {
				for (const child of node.children) {
					all.push(child);
					walk(child);
				}
			};
			walk(this);
			return all;
		}
	}

	class Document extends Node {}

	class DocumentFragment extends Node {}

	class ShadowRoot extends DocumentFragment {
		constructor(host, mode) {
			super();
			this.host = host;
			this.mode = mode;
		}
	}

	class Element extends Node {
		constructor(name = 'div') {
			super();
			this.localName = name;
		}

		attachShadow(init) {
			dom.log.push({ method: 'attachShadow', self: this, args: [...arguments] });
			const root = new ShadowRoot(this, init.mode);
			shadowRoots.set(this, root);
			return root;
		}

		get shadowRoot() {
			const root = shadowRoots.get(this);
			return root?.mode === 'open' ? root : null;
		}
	}
	const shadowRoots = new WeakMap();

	// ElementInternals with the ARIA properties the tracker reads: a string or null each.
	class ElementInternals {}
	for (const name of INTERNALS_ARIA) {
		const values = new WeakMap();
		Object.defineProperty(ElementInternals.prototype, name, {
			get() {
				return values.get(this) ?? null;
			},
			set(value) {
				values.set(this, value === null ? null : String(value));
			},
			enumerable: true, configurable: true,
		});
	}

	const handlers = new WeakMap();
	class HTMLElement extends Element {
		attachInternals() {
			dom.log.push({ method: 'attachInternals', self: this, args: [...arguments] });
			return new ElementInternals();
		}
	}
	Object.defineProperty(HTMLElement.prototype, 'onclick', {
		get() {
			if (!(this instanceof HTMLElement))
				throw new TypeError('Illegal invocation');
			return handlers.get(this) ?? null;
		},
		set(value) {
			handlers.set(this, typeof value === 'function' ? value : null);
		},
		enumerable: true, configurable: true,
	});

	class AbortSignal extends EventTarget {
		constructor() {
			super();
			this.aborted = false;
			this.algorithms = [];
		}
	}

	class AbortController {
		constructor() {
			this.signal = new AbortSignal();
		}

		abort() {
			this.signal.aborted = true;
			for (const algorithm of this.signal.algorithms)
				algorithm();
			this.signal.dispatchEvent(new Event('abort'));
		}
	}

	// The WebIDL attributes of operations: writable, enumerable, configurable.
	for (const [proto, names] of [[EventTarget.prototype, ['addEventListener', 'removeEventListener', 'dispatchEvent']],
	    [Element.prototype, ['attachShadow']], [HTMLElement.prototype, ['attachInternals']]]) {
		for (const name of names)
			Object.defineProperty(proto, name, { enumerable: true });
	}

	Object.assign(dom, { EventTarget, Event, CustomEvent, Node, Document, DocumentFragment, ShadowRoot, Element, HTMLElement,
		ElementInternals, AbortController });
	return dom;
}

// A fake page with the tracker loaded; `before` runs in the page first.
function load({ before } = {}) {
	const dom = fakeDom();
	dom.document = new dom.Document();
	dom.body = new dom.HTMLElement('body');
	dom.document.append(dom.body);
	const context = vm.createContext({
		EventTarget: dom.EventTarget, Event: dom.Event, CustomEvent: dom.CustomEvent,
		Element: dom.Element, HTMLElement: dom.HTMLElement, ElementInternals: dom.ElementInternals,
		Document: dom.Document, DocumentFragment: dom.DocumentFragment, document: dom.document,
	});
	dom.window = vm.runInContext('globalThis', context);
	if (before)
		before(dom);
	vm.runInContext(SOURCE, context);
	dom.context = context;
	return dom;
}

// What the page agent does: true when the tracker says the target has a listener.
function ask(dom, target, composed = true) {
	const event = new dom.CustomEvent(QUERY_EVENT, { bubbles: false, cancelable: true, composed });
	return !dom.EventTarget.prototype.dispatchEvent.call(target, event);
}

// A new element in the body.
function element(dom, name = 'div') {
	const e = new dom.HTMLElement(name);
	dom.body.append(e);
	return e;
}

test('an element with a click listener is reported, a plain one is not, and the window says the tracker runs', () => {
	const dom = load();
	const listened = element(dom), plain = element(dom);
	listened.addEventListener('click', () => {});
	assert.equal(ask(dom, listened), true);
	assert.equal(ask(dom, plain), false);
	assert.equal(ask(dom, dom.window), true);
});

test('every click-like type counts and other types do not', () => {
	const dom = load();
	for (const type of ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup']) {
		const e = element(dom);
		e.addEventListener(type, () => {});
		assert.equal(ask(dom, e), true, type);
	}
	for (const type of ['keydown', 'mouseover', 'focus', 'CLICK', 'dblclick']) {
		const e = element(dom);
		e.addEventListener(type, () => {});
		assert.equal(ask(dom, e), false, type);
	}
});

test('elements get a listener before they are in the document and keep it after', () => {
	const dom = load();
	const e = new dom.HTMLElement();
	e.addEventListener('click', () => {});
	dom.body.append(e);
	assert.equal(ask(dom, e), true);
});

test('removal matches callback and capture flag as the browser does, duplicates count once', () => {
	const dom = load();
	const e = element(dom);
	const f = () => {}, g = () => {};
	e.addEventListener('click', f, true);
	e.removeEventListener('click', f);
	assert.equal(ask(dom, e), true, 'a bubble-phase removal leaves the capture listener');
	e.removeEventListener('click', f, { capture: true });
	assert.equal(ask(dom, e), false);

	e.addEventListener('click', f);
	e.addEventListener('click', f, false);
	e.addEventListener('click', f, { capture: false, passive: true });
	e.removeEventListener('click', f);
	assert.equal(ask(dom, e), false, 'the browser added f once, so one removal removes it');

	e.addEventListener('click', f);
	e.addEventListener('mousedown', g);
	e.removeEventListener('click', f);
	assert.equal(ask(dom, e), true, 'the mousedown listener is still there');
	e.removeEventListener('mousedown', () => {});
	assert.equal(ask(dom, e), true, 'removing another callback changes nothing');
	e.removeEventListener('mousedown', g);
	assert.equal(ask(dom, e), false);
});

test('handleEvent objects count; null and undefined listeners do not', () => {
	const dom = load();
	const a = element(dom), b = element(dom);
	const handler = { handleEvent() {} };
	a.addEventListener('click', handler);
	assert.equal(ask(dom, a), true);
	a.removeEventListener('click', handler);
	assert.equal(ask(dom, a), false);
	b.addEventListener('click', null);
	b.addEventListener('click', undefined);
	assert.equal(ask(dom, b), false);
});

test('an AbortSignal removes the listener; an aborted signal never adds it', () => {
	const dom = load();
	const e = element(dom);
	const controller = new dom.AbortController();
	const f = () => {};
	e.addEventListener('click', f, { signal: controller.signal });
	assert.equal(ask(dom, e), true);
	controller.abort();
	assert.equal(ask(dom, e), false);
	e.addEventListener('click', () => {}, { signal: controller.signal });
	assert.equal(ask(dom, e), false, 'added with an aborted signal');

	const old = new dom.AbortController();
	e.addEventListener('click', f, { signal: old.signal });
	e.removeEventListener('click', f);
	e.addEventListener('click', f);
	old.abort();
	assert.equal(ask(dom, e), true, 'the old signal does not remove the listener added again without it');
});

test('the wrappers pass this, arguments and return value through', () => {
	const dom = load();
	const e = element(dom);
	const f = () => {};
	const options = { capture: true, once: false };
	dom.log.length = 0;
	assert.equal(e.addEventListener('click', f, options), ADDED);
	assert.equal(e.removeEventListener('click', f, options), undefined);
	assert.equal(dom.log.length, 2);
	for (const [i, method] of [[0, 'add'], [1, 'remove']]) {
		assert.equal(dom.log[i].method, method);
		assert.equal(dom.log[i].self, e);
		assert.equal(dom.log[i].args.length, 3);
		assert.equal(dom.log[i].args[0], 'click');
		assert.equal(dom.log[i].args[1], f);
		assert.equal(dom.log[i].args[2], options);
	}
	dom.log.length = 0;
	dom.EventTarget.prototype.addEventListener.call(undefined, 'click', f);
	assert.equal(dom.log[0].self, undefined, 'a bare addEventListener(...) reaches the browser with this undefined');
	assert.equal(dom.log[0].args.length, 2, 'no options argument is invented');

	const root = e.attachShadow({ mode: 'closed' });
	assert.ok(root instanceof dom.ShadowRoot);
	assert.equal(root.host, e);
	const attach = dom.log.find(l => l.method === 'attachShadow');
	assert.equal(attach.self, e);
	assert.equal(attach.args.length, 1);
});

test("the original's exceptions propagate unchanged and nothing is remembered", () => {
	const dom = load();
	let thrown = null;
	try {
		dom.EventTarget.prototype.addEventListener.call(42, 'click', () => {});
	} catch (error) {
		thrown = error;
	}
	assert.ok(thrown instanceof TypeError);
	assert.equal(thrown.message, 'Illegal invocation');
	const e = element(dom);
	const boom = new Error('page getter');
	assert.throws(() => e.addEventListener('click', () => {}, { get capture() { throw boom; } }), error => error === boom);
	assert.equal(ask(dom, e), false);
});

test('errors in the bookkeeping never reach the page', () => {
	const dom = load();
	const e = element(dom);
	let reads = 0;
	const options = {
		get capture() {
			if (++reads > 1)
				throw new Error('read twice');
			return false;
		},
	};
	assert.equal(e.addEventListener('click', () => {}, options), ADDED);
	let signalReads = 0;
	const tricky = {
		get signal() {
			if (++signalReads > 1)
				throw new Error('signal read twice');
			return null;
		},
	};
	assert.equal(e.addEventListener('click', () => {}, tricky), ADDED);
	reads = 0;
	assert.equal(e.removeEventListener('click', () => {}, options), undefined);
});

test('the wrappers look like the originals', () => {
	const before = fakeDom();
	const dom = load();
	for (const [className, name, length] of [['EventTarget', 'addEventListener', 2],
	    ['EventTarget', 'removeEventListener', 2], ['Element', 'attachShadow', 1], ['HTMLElement', 'attachInternals', 0]]) {
		const proto = dom[className].prototype;
		const wrapper = proto[name];
		const original = Object.getOwnPropertyDescriptor(before[className].prototype, name);
		assert.notEqual(wrapper, original.value, `${name} is wrapped`);
		assert.equal(wrapper.name, name);
		assert.equal(wrapper.length, length);
		assert.equal(String(wrapper), `function ${name}() { [native code] }`);
		assert.equal(wrapper.toString(), `function ${name}() { [native code] }`);
		assert.equal(Object.prototype.propertyIsEnumerable.call(wrapper, 'toString'), false);
		assert.equal('prototype' in wrapper, false);
		assert.throws(() => new wrapper('click', () => {}), TypeError);
		const descriptor = Object.getOwnPropertyDescriptor(proto, name);
		assert.deepEqual([descriptor.writable, descriptor.enumerable, descriptor.configurable],
		    [original.writable, original.enumerable, original.configurable]);
	}
});

test('onclick-like handler properties count, on HTML elements only through their own getter', () => {
	const dom = load();
	const e = element(dom);
	e.onclick = () => {};
	assert.equal(ask(dom, e), true);
	e.onclick = null;
	assert.equal(ask(dom, e), false);
	const other = new dom.Element('svg');
	dom.body.append(other);
	assert.equal(ask(dom, other), false, 'a getter that throws for another kind of element is no answer');
});

test('shadow roots: open ones are answered through the window, closed ones through their own root', () => {
	const dom = load();
	const host = element(dom, 'x-open');
	const root = host.attachShadow({ mode: 'open' });
	const inner = new dom.HTMLElement();
	const plain = new dom.HTMLElement();
	root.append(inner, plain);
	inner.addEventListener('click', () => {});
	assert.equal(ask(dom, inner, true), true);
	assert.equal(ask(dom, plain, true), false);
	assert.equal(ask(dom, host, true), false, 'the host does not inherit its content\'s listener');

	const closedHost = element(dom, 'x-closed');
	const closed = closedHost.attachShadow({ mode: 'closed' });
	const secret = new dom.HTMLElement(), quiet = new dom.HTMLElement();
	closed.append(secret, quiet);
	secret.addEventListener('pointerdown', () => {});
	closedHost.addEventListener('click', () => {});
	assert.equal(ask(dom, secret, false), true);
	assert.equal(ask(dom, quiet, false), false, 'the host\'s listener is not the element\'s');
	assert.equal(ask(dom, quiet, true), true,
	    'composed, the window sees only the host: why the agent does not compose below a closed root');
});

test('shadow roots attached before the tracker are answered through the window when open', () => {
	let inner;
	const dom = load({
		before: d => {
			const host = new d.HTMLElement('x-early');
			d.body.append(host);
			const root = host.attachShadow({ mode: 'open' });
			inner = new d.HTMLElement();
			root.append(inner);
		},
	});
	inner.addEventListener('click', () => {});
	assert.equal(ask(dom, inner, true), true);
});

test('a second copy of the tracker in the same page leaves the first in place', () => {
	const dom = load();
	const proto = dom.EventTarget.prototype;
	const wrappers = [proto.addEventListener, proto.removeEventListener, dom.Element.prototype.attachShadow];
	vm.runInContext(SOURCE, dom.context);
	assert.deepEqual([proto.addEventListener, proto.removeEventListener, dom.Element.prototype.attachShadow], wrappers);
	const e = element(dom);
	const f = () => {};
	e.addEventListener('click', f);
	e.removeEventListener('click', f);
	assert.equal(ask(dom, e), false);
});

test('a frozen EventTarget prototype leaves the page working and the tracker silent', () => {
	const dom = load({ before: d => Object.freeze(d.EventTarget.prototype) });
	const e = element(dom);
	assert.equal(e.addEventListener('click', () => {}), ADDED);
	assert.equal(ask(dom, dom.window), false, 'the window does not claim a tracker that is not there');
	assert.equal(ask(dom, e), false);
});

// What the page agent does to list a document: the elements named for
// clicks and for hover, or null when the tracker did not take the request.
function list(dom) {
	const named = { click: [], hover: [] };
	const collect = into => event => into.push(event.composedPath()[0]);
	const onClick = collect(named.click), onHover = collect(named.hover);
	const { addEventListener, removeEventListener, dispatchEvent } = dom.EventTarget.prototype;
	addEventListener.call(dom.window, '__browser_bridge_listed_click__', onClick, true);
	addEventListener.call(dom.window, '__browser_bridge_listed_hover__', onHover, true);
	const event = new dom.CustomEvent('__browser_bridge_list_listeners__', { bubbles: false, cancelable: true });
	const taken = !dispatchEvent.call(dom.window, event);
	removeEventListener.call(dom.window, '__browser_bridge_listed_click__', onClick, true);
	removeEventListener.call(dom.window, '__browser_bridge_listed_hover__', onHover, true);
	return taken ? named : null;
}

test('one list request names every element that has a listener or handler, in open shadow roots too, never in closed ones', () => {
	const dom = load();
	const clicked = element(dom), hovered = element(dom), both = element(dom), property = element(dom);
	const plain = element(dom), removed = element(dom);
	const nested = new dom.HTMLElement();
	plain.append(nested);
	clicked.addEventListener('click', () => {});
	hovered.addEventListener('mouseover', () => {});
	both.addEventListener('pointerdown', () => {});
	both.addEventListener('mouseenter', () => {});
	property.onclick = () => {};
	nested.addEventListener('mouseup', () => {});
	const gone = () => {};
	removed.addEventListener('click', gone);
	removed.removeEventListener('click', gone);

	const openHost = element(dom, 'x-open');
	const open = openHost.attachShadow({ mode: 'open' });
	const inOpen = new dom.HTMLElement();
	open.append(inOpen);
	inOpen.addEventListener('click', () => {});

	const closedHost = element(dom, 'x-closed');
	const closed = closedHost.attachShadow({ mode: 'closed' });
	const inClosed = new dom.HTMLElement();
	closed.append(inClosed);
	inClosed.addEventListener('click', () => {});

	const named = list(dom);
	assert.notEqual(named, null, 'the tracker takes the request');
	assert.deepEqual(named.click, [clicked, both, property, nested, inOpen]);
	assert.deepEqual(named.hover, [hovered, both]);
	assert.equal(ask(dom, inClosed, false), true, 'one in a closed root is still answered when asked about alone');
});

// A copy of an event's detail, as the agent's isolated world reads one set
// in the page's world (and in this test's realm, for deepEqual).
function detailOf(event) {
	return JSON.parse(JSON.stringify(event.detail));
}

// What the page agent does to learn what ElementInternals set: the list's
// answers (element -> detail).
function internalsListed(dom) {
	const named = new Map();
	const collect = event => named.set(event.composedPath()[0], detailOf(event));
	const { addEventListener, removeEventListener, dispatchEvent } = dom.EventTarget.prototype;
	addEventListener.call(dom.window, '__browser_bridge_listed_internals__', collect, true);
	dispatchEvent.call(dom.window, new dom.CustomEvent('__browser_bridge_list_listeners__', { bubbles: false, cancelable: true }));
	removeEventListener.call(dom.window, '__browser_bridge_listed_internals__', collect, true);
	return named;
}

// The tracker's answer about one element's ElementInternals, heard on the
// element itself, or null.
function internalsOf(dom, target, composed) {
	let answer = null;
	const take = event => {
		answer = detailOf(event);
	};
	const { addEventListener, removeEventListener, dispatchEvent } = dom.EventTarget.prototype;
	addEventListener.call(target, '__browser_bridge_listed_internals__', take);
	dispatchEvent.call(target, new dom.CustomEvent('__browser_bridge_internals__', { bubbles: false, composed }));
	removeEventListener.call(target, '__browser_bridge_listed_internals__', take);
	return answer;
}

test('what ElementInternals set is given in the list and to a question about one element, in a closed shadow root too', () => {
	const dom = load();
	const slider = element(dom, 'x-stars');
	const internals = slider.attachInternals();
	internals.role = 'slider';
	internals.ariaValueNow = 3;
	const unset = element(dom, 'x-plain');
	unset.attachInternals();
	const closedHost = element(dom, 'x-closed');
	const closed = closedHost.attachShadow({ mode: 'closed' });
	const inClosed = new dom.HTMLElement('x-tab');
	closed.append(inClosed);
	const tab = inClosed.attachInternals();
	tab.role = 'tab';
	tab.ariaSelected = 'true';

	const listed = internalsListed(dom);
	assert.deepEqual([...listed], [[slider, { role: 'slider', ariaValueNow: '3' }]],
	    'only elements whose internals set something, outside closed roots');
	internals.ariaValueNow = '4';
	assert.deepEqual(internalsOf(dom, slider, true), { role: 'slider', ariaValueNow: '4' }, 'read when asked');
	assert.deepEqual(internalsOf(dom, inClosed, false), { role: 'tab', ariaSelected: 'true' });
	assert.equal(internalsOf(dom, unset, true), null);
	assert.deepEqual(dom.log.filter(l => l.method === 'attachInternals').map(l => l.self), [slider, unset, inClosed],
	    'the page\'s attachInternals calls reach the original');
});
