// The names-and-roles oracle (#32): compares, element by element, the role
// and accessible name Browser Bridge's state gives with those of Chromium's
// own accessibility tree (DevTools Accessibility.getFullAXTree) for the
// same DOM node. Chromium is the ground truth; the differences the product
// makes on purpose are listed once, in INTENDED below, each with its reason
// (docs/extension.md says the same).
//
// How an element of the state is tied to its DOM node without trusting
// the product: the state is read through the tools (get_browser_state
// full_page), then each frame's in-page script is asked, in the
// extension's own isolated world, for the same listing; the two must agree
// in order, role and name, and the in-page listing's numbers give the live
// elements, whose DevTools backend node ids find their accessibility nodes.
//
// The other direction: every control of Chromium's tree on the same page
// (a node with a widget role, not ignored, with a DOM node) must have a
// state element that stands for it (see controlsOf), unless the state
// leaves it out on purpose for one of the reasons listed once, in OMITTED
// below.

import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE = join(dirname(fileURLToPath(import.meta.url)), 'site');

// Pages that are no page to name: parts of others (loaded in their
// frames), or pages whose point is to never settle or to open a dialog.
const NOT_PAGES = new Set(['child.html', 'dialogs.html', 'hovermenu.html']);

// Every .html file under dir, relative to the site, less NOT_PAGES.
function pagesUnder(dir) {
	return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
		const path = join(dir, entry.name);
		if (entry.isDirectory())
			return pagesUnder(path);
		return entry.name.endsWith('.html') ? [relative(SITE, path)] : [];
	}).filter(page => !NOT_PAGES.has(page)).sort();
}

// The pages the oracle compares: every fixture page of the suite
// (tests/e2e/site, the names corpus in site/names included), relative to
// the site, sorted.
export function oraclePages() {
	return pagesUnder(SITE);
}

// The roles Chromium may give each role of the state: the state folds some
// of Chromium's roles into fewer words an agent acts on the same way.
const ROLES = {
	textbox: ['textbox', 'searchbox', 'spinbutton', 'combobox', 'TextField', 'textField'],
	textarea: ['textbox'],
	select: ['combobox', 'listbox', 'ComboBoxSelect', 'MenuListPopup'],
	input: ['Date', 'DateTime', 'InputTime', 'ColorWell', 'button', 'textbox', 'spinbutton', 'combobox', 'slider', 'date', 'time'],
	editable: ['textbox', 'generic', 'paragraph', 'GenericContainer', 'Section', 'none'],
	button: ['button', 'PopUpButton', 'DisclosureTriangle', 'ToggleButton'],
	searchbox: ['searchbox', 'textbox'],
	slider: ['slider'],
	link: ['link'],
};

// The state's roles for elements that have no ARIA role.
export const NO_ROLE = new Set(['clickable', 'draggable', 'hoverable', 'scrollable']);

// Whether the state lists a <button> or a link as a button or link where
// Chromium gives it the role of its role attribute, which is no widget
// (listitem, generic, none, presentation).
function nativeWithoutWidgetRole(ours, theirs, element) {
	return (/^button\b/.test(element) && ours.role === 'button' || /^a\b/.test(element) && ours.role === 'link') &&
	    ['listitem', 'generic', 'none', 'presentation'].includes(theirs.role);
}

// The differences Browser Bridge makes on purpose, each with its reason.
// A state element whose pair with Chromium matches one is counted as
// agreeing, under its key; rules marked role excuse a role, the others a
// name. test(ours, theirs, element) gets the state's and Chromium's role
// and name, and the element as "tag#id.class <html>".
export const INTENDED = [
	{
		key: 'no role of its own',
		why: 'an element the state lists because a click does something there (clickable: pointer cursor, ' +
		    'onclick, a click listener), it can be dragged (draggable), hovering it shows something (hoverable) ' +
		    'or it scrolls (scrollable) has no ARIA role; the state names it by its text or id so the agent can ' +
		    'tell it apart, where Chromium gives a generic node no name',
		test: (ours) => NO_ROLE.has(ours.role),
	},
	{
		key: 'name cut at 80 characters',
		why: 'the state cuts a name at 80 characters (NAME_MAX) and ends it with …, to keep states small',
		test: (ours, theirs) => ours.name.endsWith('…') && theirs.name.startsWith(ours.name.slice(0, -1)),
	},
	{
		key: 'placeholder kept apart',
		why: 'a field named only by its placeholder shows it as placeholder="…" beside an empty name, so the ' +
		    'agent knows the text is a hint, not a label (Chromium uses it as the name)',
		test: (ours, theirs) => ours.name === '' && ours.placeholder !== undefined &&
		    clean(ours.placeholder) === theirs.name,
	},
	{
		key: 'native control with a role that is no widget',
		why: 'a <button> or a link given a role that is no widget (role=listitem, as @material/web\'s list items ' +
		    'are) still acts as a button or link: the state keeps that role, so the agent knows it can click it',
		role: true,
		test: (ours, theirs, element) => nativeWithoutWidgetRole(ours, theirs, element),
	},
	{
		key: 'named as the control it acts as',
		why: 'such a button or link (above) is named by its content, as a button or link is; Chromium names a ' +
		    'list item by nothing',
		test: (ours, theirs, element) => nativeWithoutWidgetRole(ours, theirs, element) && theirs.name === '',
	},
	{
		key: 'editable region named by its text',
		why: 'a contenteditable region gets no name in the state (its text is its value=); Chromium names ' +
		    'some regions from their content',
		test: (ours) => ours.role === 'editable' && ours.name === '',
	},
];

// Chromium's roles of the controls a person acts on: its tree's nodes with
// one of these roles are what the reverse check looks for in the state.
// The ARIA widget roles, and the names Chromium gives native controls that
// have no ARIA one (a summary's DisclosureTriangle, a date input's Date...).
const WIDGET_ROLES = new Set([
	'button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider',
	'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem',
	'PopUpButton', 'ToggleButton', 'DisclosureTriangle', 'ComboBoxSelect', 'TextField', 'textField',
	'Date', 'DateTime', 'InputTime', 'ColorWell',
]);

// The controls Chromium exposes that the state leaves out on purpose, each
// with its reason. test(control) gets the facts controlFacts gathers about
// the control's DOM node and Chromium's role: { role, holder (the state's
// role of the nearest listed element around it, or null), noSize,
// transparent, drawnByPage, reach ('clipped', 'off the page' or null) }.
export const OMITTED = [
	{
		key: 'a select\'s options',
		why: 'the options of a native select the state lists are its options= and value= (select_option picks ' +
		    'one); a date input\'s fields and picker button need no rule, as the state\'s input stands for them',
		test: control => control.holder === 'select',
	},
	{
		key: 'no size',
		why: 'an element less than a pixel wide or high: a person can neither see nor click it',
		test: control => control.noSize,
	},
	{
		key: 'transparent',
		why: 'an element with opacity 0 (or inside one) is not seen; only a field kept in the tab order that ' +
		    'is transparent within its own component (a custom-drawn checkbox or slider, a text field under its ' +
		    'resting label) is listed, as the page draws it another way. A transparent field out of the tab ' +
		    'order is a script widget\'s copy of its data (Choices.js, Tom Select keep the native select under ' +
		    'their own widget)',
		test: control => control.transparent && !control.drawnByPage,
	},
	{
		key: 'out of reach',
		why: 'an element no scroll can bring into view: outside a box that clips without scrolling (a ' +
		    'collapsed menu, a carousel\'s other slides), outside the area the page scrolls over (DokuWiki parks ' +
		    'its toolbar\'s pickers at left: -99999em), or, fixed, outside the viewport',
		test: control => control.reach !== null,
	},
];

// Collapses whitespace as the state does.
export function clean(text) {
	return String(text ?? '').replace(/\s+/g, ' ').trim();
}

// Whether Chromium's role is one the state's role stands for.
function roleAgrees(ours, theirs) {
	if (ours === theirs)
		return true;
	return (ROLES[ours] ?? []).includes(theirs);
}

// The DevTools session of the page target whose URL is url.
async function pageSession(bridge, url) {
	const targets = await bridge.cdp.targets();
	const target = targets.find(t => t.type === 'page' && t.url === url);
	if (target === undefined)
		throw new Error(`no page target at ${url}: ${targets.map(t => t.url).join(', ')}`);
	const { sessionId } = await bridge.cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
	return sessionId;
}

// Every frame of a frame tree, with its URL.
function framesOf(tree, out = []) {
	out.push({ id: tree.frame.id, url: tree.frame.url + (tree.frame.urlFragment ?? '') });
	for (const child of tree.childFrames ?? [])
		framesOf(child, out);
	return out;
}

// The extension's isolated world and the page's own (main) world in each
// frame: frameId -> { isolated, main } context ids.
async function worldsOf(cdp, sessionId) {
	const worlds = new Map();
	const stop = cdp.on(message => {
		if (message.sessionId === sessionId && message.method === 'Runtime.executionContextCreated') {
			const context = message.params.context;
			const frameId = context.auxData?.frameId;
			if (!worlds.has(frameId))
				worlds.set(frameId, {});
			if (context.auxData?.type === 'isolated' && context.origin.startsWith('chrome-extension://'))
				worlds.get(frameId).isolated = context.id;
			else if (context.auxData?.isDefault === true)
				worlds.get(frameId).main = context.id;
		}
	});
	await cdp.send('Runtime.enable', {}, sessionId);
	stop();
	return worlds;
}

// Runs an expression in a context; resolves to its RemoteObject.
async function run(cdp, sessionId, contextId, expression, byValue) {
	const result = await cdp.send('Runtime.evaluate',
	    { expression, contextId, returnByValue: byValue, awaitPromise: true }, sessionId);
	if (result.exceptionDetails)
		throw new Error(`evaluate ${expression}: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`);
	return result.result;
}

// Chromium's accessibility nodes of a frame: { nodes, byNode } where
// byNode maps a backend DOM node id to its node.
async function axNodes(cdp, sessionId, frameId) {
	const { nodes } = await cdp.send('Accessibility.getFullAXTree', { frameId }, sessionId);
	const byNode = new Map();
	for (const node of nodes) {
		if (node.backendDOMNodeId !== undefined)
			byNode.set(node.backendDOMNodeId, node);
	}
	return { nodes, byNode };
}

// A short description of a DOM node for reports: tag#id.class "text".
const DESCRIBE = `function () {
	const e = this;
	let s = e.localName;
	if (e.id) s += '#' + e.id;
	const c = typeof e.className === 'string' ? e.className.trim().split(/\\s+/).filter(Boolean).slice(0, 2) : [];
	for (const k of c) s += '.' + k;
	const html = e.outerHTML.replace(/\\s+/g, ' ');
	return s + ' ' + (html.length > 160 ? html.slice(0, 159) + '…' : html);
}`;

/*
 * Facts about the DOM node of one of Chromium's controls that no state
 * element stands for by itself, for OMITTED's rules (this is the node).
 * listed is the frame's state elements' local ids, in order. Runs in the
 * page, in the extension's isolated world (Runtime.callFunctionOn), so it
 * uses nothing outside itself. Answers { holder: the index in listed of
 * the nearest listed element around the node, or -1; noSize; transparent
 * (rendered but with opacity 0, its own or an ancestor's); drawnByPage (a
 * transparent field kept in the tab order whose transparency is its own
 * or comes from elements of shadow trees, a component's own parts);
 * reach: 'clipped' (outside a box that clips without scrolling), 'off the
 * page' (outside the area the page scrolls over, or the viewport when
 * fixed) or null }. Layout is followed in the flat tree (a slotted node's
 * slot, a shadow root's host) and, for clipping, along the chain of
 * containing blocks.
 */
function controlFacts(listed) {
	const page = globalThis.__browserBridgePage;
	const indexOf = new Map(listed.map((id, index) => [page.element(id), index]));
	const flatParent = node => node.assignedSlot ?? node.parentElement ??
	    (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null);
	let holder = -1;
	for (let n = flatParent(this); n !== null && holder < 0; n = flatParent(n))
		holder = indexOf.get(n) ?? -1;

	const rect = this.getBoundingClientRect();
	const transparent = this.checkVisibility({ visibilityProperty: true }) &&
	    !this.checkVisibility({ opacityProperty: true, visibilityProperty: true });
	const field = /^(TEXTAREA|SELECT)$/.test(this.tagName) ||
	    this.tagName === 'INPUT' && !/^(button|submit|reset|image|hidden)$/.test(this.type);
	let withinComponent = true;
	for (let n = flatParent(this); n !== null && withinComponent; n = flatParent(n))
		withinComponent = n.getRootNode() instanceof ShadowRoot || getComputedStyle(n).opacity !== '0';

	const area = box => box.right - box.left >= 1 && box.bottom - box.top >= 1;
	const intersect = (a, b) => ({
		left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
		right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom),
	});
	let shown = { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
	let position = getComputedStyle(this).position;
	let clipped = false;
	for (let n = flatParent(this); n !== null && n !== document.body && n !== document.documentElement &&
	    position !== 'fixed' && !clipped; n = flatParent(n)) {
		const style = getComputedStyle(n);
		if (position === 'absolute' && style.position === 'static' && style.transform === 'none')
			continue;	/* not its containing block: its overflow does not clip it */
		position = style.position;
		if (style.overflowX === 'visible' && style.overflowY === 'visible')
			continue;
		const box = n.getBoundingClientRect();
		if (/auto|scroll|overlay/.test(`${style.overflowX} ${style.overflowY}`)) {
			/* A box the user scrolls reveals what it holds: then the box itself must be reached. */
			shown = { left: box.left, top: box.top, right: box.right, bottom: box.bottom };
			continue;
		}
		shown = intersect(shown, {
			left: box.left + n.clientLeft, top: box.top + n.clientTop,
			right: box.left + n.clientLeft + n.clientWidth, bottom: box.top + n.clientTop + n.clientHeight,
		});
		clipped = !area(shown);
	}
	const scroller = document.scrollingElement ?? document.documentElement;
	const width = Math.max(scroller.scrollWidth, innerWidth), height = Math.max(scroller.scrollHeight, innerHeight);
	const left = (getComputedStyle(document.documentElement).direction === 'rtl' ? innerWidth - width : 0) - scrollX;
	const extent = position === 'fixed' ? { left: 0, top: 0, right: innerWidth, bottom: innerHeight } :
	    { left, top: -scrollY, right: left + width, bottom: height - scrollY };
	return {
		holder,
		noSize: rect.width < 1 || rect.height < 1,
		transparent,
		drawnByPage: transparent && field && this.tabIndex >= 0 && withinComponent,
		reach: clipped ? 'clipped' : area(intersect(shown, extent)) ? null : 'off the page',
	};
}

/**
 * The reverse check for one frame: each of Chromium's controls in it (its
 * nodes with a widget role, not ignored, with a DOM node) with the state
 * element that stands for it, or the OMITTED rule that leaves it out. A
 * state element stands for a control when its role agrees with
 * Chromium's (roleAgrees: a clickable host does not stand for the checkbox
 * in it) and it is the control's DOM node, or the nearest state element
 * around that node in the flat tree (a custom element's host for the
 * input of its shadow tree, a label for the input inside it). elements
 * are tieToChromium's. Resolves to [{ element, theirs: {role, name}, ref
 * (of the state element that stands for it, or null), around (whether
 * that is an element around the control), listedAs (the state's role for
 * the node itself, when listed with another role, else null), omitted
 * (the OMITTED rule's key, or null) }].
 */
async function controlsOf(cdp, frame, chromiumNodes, elements) {
	const byNode = new Map(elements.map(e => [e.backendNodeId, e]));
	const listed = elements.map(e => e.localId);
	const controls = [];
	for (const node of chromiumNodes) {
		const role = node.role?.value ?? '';
		if (node.ignored || node.backendDOMNodeId === undefined || !WIDGET_ROLES.has(role))
			continue;
		const theirs = { role, name: clean(node.name?.value) };
		const itself = byNode.get(node.backendDOMNodeId);
		if (itself !== undefined && roleAgrees(itself.ours.role, role)) {
			controls.push({ element: itself.element, theirs, ref: itself.ref, around: false, listedAs: null, omitted: null });
			continue;
		}
		const { object } = await cdp.send('DOM.resolveNode',
		    { backendNodeId: node.backendDOMNodeId, executionContextId: frame.isolatedContext }, frame.sessionId);
		const call = async (declaration, args) => (await cdp.send('Runtime.callFunctionOn', {
			objectId: object.objectId, functionDeclaration: declaration, arguments: args, returnByValue: true,
		}, frame.sessionId)).result.value;
		const facts = await call(String(controlFacts), [{ value: listed }]);
		const element = await call(DESCRIBE, []);
		await cdp.send('Runtime.releaseObject', { objectId: object.objectId }, frame.sessionId);
		const holder = itself === undefined && facts.holder >= 0 ? elements[facts.holder] : undefined;
		if (holder !== undefined && roleAgrees(holder.ours.role, role)) {
			controls.push({ element, theirs, ref: holder.ref, around: true, listedAs: null, omitted: null });
			continue;
		}
		const control = { ...facts, role, holder: holder?.ours.role ?? null };
		const omitted = itself === undefined ? OMITTED.find(rule => rule.test(control))?.key ?? null : null;
		controls.push({ element, theirs, ref: null, around: false, listedAs: itself?.ours.role ?? null, omitted });
	}
	return controls;
}

/**
 * Ties each element of the state of the page open in the active tab, whose
 * URL is url, to its DOM node and to Chromium's accessibility node for it.
 * For each frame of the state, while the page's DevTools session is still
 * attached, awaits visit(frame, elements): frame is { url, sessionId,
 * isolatedContext, mainContext, chromiumNodes } (the extension's isolated
 * world and the page's own world, Chromium's accessibility nodes of the
 * frame), elements [{ ref, localId, backendNodeId, element,
 * ours: {role, name, placeholder}, theirs: {role, name} }] in the state's
 * order, element being "tag#id.class <html>". Resolves to the problems:
 * failures to tie a frame's elements to nodes.
 */
export async function tieToChromium(bridge, url, visit) {
	const { data } = await bridge.ok('get_browser_state', { full_page: true });
	const cdp = bridge.cdp;
	const sessionId = await pageSession(bridge, url);
	const problems = [];
	try {
		await cdp.send('DOM.enable', {}, sessionId);
		await cdp.send('Accessibility.enable', {}, sessionId);
		const { frameTree } = await cdp.send('Page.getFrameTree', {}, sessionId);
		const frames = framesOf(frameTree);
		const worlds = await worldsOf(cdp, sessionId);
		// The state's frames: index -> URL (the top frame is index null).
		const stateFrames = [{ index: null, url: data.tab?.url ?? url }, ...(data.frames ?? [])];
		for (const stateFrame of stateFrames) {
			const ours = data.elements.filter(e => (e.frame ?? null) === stateFrame.index);
			const frame = stateFrame.index === null ? frames[0] : frames.find(f => f.url === stateFrame.url);
			if (frame === undefined) {
				problems.push(`${url}: no DevTools frame for the state's frame ${stateFrame.url}`);
				continue;
			}
			const { isolated: contextId, main: mainContext } = worlds.get(frame.id) ?? {};
			if (contextId === undefined) {
				problems.push(`${url}: no extension world in frame ${frame.url}`);
				continue;
			}
			const listing = (await run(cdp, sessionId, contextId,
			    'globalThis.__browserBridgePage.snapshot({}).items.filter(i => i.frame === undefined)' +
			    '.map(i => ({ id: i.id, role: i.role, name: i.name ?? "" }))', true)).value;
			const same = listing.length === ours.length &&
			    listing.every((item, i) => item.role === ours[i].role && item.name === ours[i].name);
			if (!same) {
				problems.push(`${frame.url}: the state's elements and the in-page listing differ ` +
				    `(${ours.length} against ${listing.length}): ${JSON.stringify(ours.map(e => [e.role, e.name]))} ` +
				    `against ${JSON.stringify(listing.map(e => [e.role, e.name]))}`);
				continue;
			}
			const { nodes: chromiumNodes, byNode: ax } = await axNodes(cdp, sessionId, frame.id);
			const elements = [];
			for (let i = 0; i < ours.length; i++) {
				const element = await run(cdp, sessionId, contextId, `globalThis.__browserBridgePage.element(${listing[i].id})`, false);
				const { node } = await cdp.send('DOM.describeNode', { objectId: element.objectId }, sessionId);
				const described = (await cdp.send('Runtime.callFunctionOn',
				    { objectId: element.objectId, functionDeclaration: DESCRIBE, returnByValue: true }, sessionId)).result.value;
				await cdp.send('Runtime.releaseObject', { objectId: element.objectId }, sessionId);
				const axNode = ax.get(node.backendNodeId);
				const theirs = axNode === undefined ? { role: '(no node)', name: '' } :
				    axNode.ignored ? { role: '(ignored)', name: '' } :
				    { role: axNode.role?.value ?? '', name: clean(axNode.name?.value) };
				elements.push({ ref: ours[i].ref, localId: listing[i].id, backendNodeId: node.backendNodeId, element: described,
					ours: { role: ours[i].role, name: clean(ours[i].name), placeholder: ours[i].placeholder }, theirs });
			}
			await visit({ url: frame.url, sessionId, isolatedContext: contextId, mainContext, chromiumNodes }, elements);
		}
	} finally {
		await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
	}
	return problems;
}

/**
 * Judges a name and role against Chromium's: mine is { role, name,
 * placeholder } (the state's role and placeholder, a name), theirs
 * Chromium's { role, name }, element "tag#id.class <html>". Resolves to {
 * roleOk, nameOk, intended }: nameOk when the names are equal, intended the
 * key of the INTENDED rule that excuses a difference (or, when the names
 * agree, the role rule that excused the role), else null.
 */
export function judge(mine, theirs, element) {
	const roleRule = INTENDED.find(rule => rule.role && rule.test(mine, theirs, element));
	const roleOk = roleAgrees(mine.role, theirs.role) || roleRule !== undefined || NO_ROLE.has(mine.role);
	const nameOk = mine.name === theirs.name;
	const intended = nameOk ? roleRule?.key ?? null :
	    INTENDED.find(rule => !rule.role && rule.test(mine, theirs, element))?.key ?? null;
	return { roleOk, nameOk, intended };
}

/**
 * Compares the state of the page open in the active tab, whose URL is url,
 * with Chromium's accessibility tree, both ways. Resolves to { compared:
 * [{page, ref, element, ours: {role, name}, theirs: {role, name}, roleOk,
 * nameOk, intended}], controls: [{page, element, theirs: {role, name},
 * ref, around, listedAs, omitted}] (controlsOf), problems: [string] } where
 * problems are failures to tie an element to a node (each one a
 * difference too).
 */
export async function compareWithChromium(bridge, url) {
	const compared = [];
	const controls = [];
	const problems = await tieToChromium(bridge, url, async (frame, elements) => {
		for (const { ref, element, ours, theirs } of elements)
			compared.push({ page: frame.url, ref, element, ours, theirs, ...judge(ours, theirs, element) });
		for (const control of await controlsOf(bridge.cdp, frame, frame.chromiumNodes, elements))
			controls.push({ page: frame.url, ...control });
	});
	return { compared, controls, problems };
}

// The lines of a report: one per element that disagrees.
export function disagreements(compared) {
	return compared.filter(c => !c.roleOk || (!c.nameOk && c.intended === null))
	    .map(c => `${c.page}\n    ${c.element}\n    ours: ${c.ours.role} ${JSON.stringify(c.ours.name)}  ` +
		`Chromium: ${c.theirs.role} ${JSON.stringify(c.theirs.name)}`);
}

// A one-line summary: how many names and roles agree.
export function agreement(compared) {
	const names = compared.filter(c => c.nameOk || c.intended !== null).length;
	const roles = compared.filter(c => c.roleOk).length;
	const exact = compared.filter(c => c.nameOk).length;
	return `names: ${names} of ${compared.length} agree (${exact} exactly, ${names - exact} by an intended difference); ` +
	    `roles: ${roles} of ${compared.length} agree`;
}

// The lines of the reverse check's report: one per control of Chromium's
// that no state element stands for and no OMITTED rule leaves out.
export function missedControls(controls) {
	return controls.filter(c => c.ref === null && c.omitted === null)
	    .map(c => `${c.page}\n    ${c.element}\n    Chromium: ${c.theirs.role} ${JSON.stringify(c.theirs.name)}  ` +
		`ours: ${c.listedAs === null ? 'not listed' : `listed as ${c.listedAs}`}`);
}

// A one-line summary of the reverse check: how many of Chromium's
// controls the state has, how many it leaves out on purpose (per OMITTED
// rule) and how many it misses.
export function controlsAgreement(controls) {
	const inState = controls.filter(c => c.ref !== null).length;
	const around = controls.filter(c => c.around).length;
	const byRule = OMITTED.map(rule => [rule.key, controls.filter(c => c.omitted === rule.key).length])
	    .filter(([, count]) => count > 0).map(([key, count]) => `${count} ${key}`);
	const omitted = controls.filter(c => c.omitted !== null).length;
	return `controls: ${inState} of ${controls.length} Chromium exposes are in the state (${around} by the element ` +
	    `around them); ${omitted} left out on purpose (${byRule.join(', ') || 'none'}); ` +
	    `${controls.length - inState - omitted} missing`;
}
