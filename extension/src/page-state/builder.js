/**
 * Builds a tab's page state from the reports of its frames' page agents
 * (page/agent.js): places each frame's elements in the top-level viewport,
 * decides which are near the viewport, and hands out refs. Pure: no
 * browser APIs, so node --test covers it.
 * @module page-state/builder
 */

/** How far beyond the viewport (in viewport heights) "near" reaches. */
export const NEAR_VIEWPORT = 0.5;

/**
 * One frame's report, as the page agent's snapshot() returns it.
 * @typedef {object} FrameReport
 * @property {string} url
 * @property {string} title
 * @property {{width: number, height: number}} viewport
 * @property {{x: number, y: number, width: number, height: number}} scroll
 * @property {number} frameIndex the frame's index in its parent's window.frames (-1 for the top frame)
 * @property {object[]} items elements ({id, role, name, rect, ...}) and child frames ({frame: index in window.frames, rect, visible, name, src})
 */

/**
 * An element of the state.
 * @typedef {object} StateElement
 * @property {string} ref
 * @property {string} role
 * @property {string} name
 * @property {number[]} rect [x, y, width, height] in top-level viewport pixels
 * @property {'in'|'above'|'below'} where relative to the viewport (and margin)
 * @property {number} depth frame nesting, 0 for the top frame
 * @property {number} [frame] index into the state's frames, for elements in child frames
 * @property {boolean} [secret] a field that holds a secret (a password, a PIN...): its value is a mask of its length
 */

/** The details of an element the state keeps (secret: a field whose value is shown masked, docs/security.md). */
const DETAIL_KEYS = ['type', 'placeholder', 'value', 'secret', 'checked', 'selected', 'pressed',
	'expanded', 'href', 'disabled', 'readonly', 'options', 'more_options', 'multiple', 'tag', 'covered_by', 'hiding', 'context'];

/**
 * Intersects two boxes {top, bottom, left, right}.
 * @param {{top: number, bottom: number, left: number, right: number}} a
 * @param {{top: number, bottom: number, left: number, right: number}} b
 */
function intersect(a, b) {
	return {
		top: Math.max(a.top, b.top), bottom: Math.min(a.bottom, b.bottom),
		left: Math.max(a.left, b.left), right: Math.min(a.right, b.right),
	};
}

/**
 * Builds the state.
 * @param {object} input
 * @param {{id: number, url: string, title: string}} input.tab
 * @param {Map<number, {documentId: string, parentFrameId?: number, report: FrameReport}>} input.frames by frameId; 0 is the top frame
 * @param {{assign: (tabId: number, frameId: number, documentId: string, localId: number) => string}} input.refs
 * @param {boolean} [input.fullPage] list every element, not only those near the viewport
 * @param {Array<{id: number, title: string, url: string, active: boolean}>} [input.tabs] the open tabs
 * @returns {{tab: object, viewport: object, scroll: object, elements: StateElement[], all: StateElement[], frames: object[], omitted: {above: number, below: number}, tabs: object[]}}
 */
export function buildState({ tab, frames, refs, fullPage = false, tabs = [] }) {
	const top = frames.get(0);
	if (top === undefined)
		throw new Error('the top frame did not report');
	const { viewport, scroll } = top.report;
	const margin = Math.round(viewport.height * NEAR_VIEWPORT);
	const window = {
		top: -margin, bottom: viewport.height + margin,
		left: -margin, right: viewport.width + margin,
	};
	const all = [];
	const frameList = [];
	const seen = new Set();
	/* A child frame is found by its parent's frameId and its index in window.frames. */
	const childOf = new Map();
	for (const [frameId, entry] of frames) {
		if (frameId !== 0 && entry.parentFrameId !== undefined && entry.report.frameIndex >= 0)
			childOf.set(`${entry.parentFrameId}:${entry.report.frameIndex}`, frameId);
	}

	const walk = (frameId, entry, offsetX, offsetY, clip, depth, frameIndex) => {
		if (seen.has(frameId))
			return;
		seen.add(frameId);
		for (const item of entry.report.items) {
			if (item.frame !== undefined) {
				const childId = childOf.get(`${frameId}:${item.frame}`);
				const child = childId === undefined ? undefined : frames.get(childId);
				if (child === undefined || !item.visible)
					continue;
				const [x, y, w, h] = item.rect;
				const fx = offsetX + x, fy = offsetY + y;
				const childMargin = Math.round(h * NEAR_VIEWPORT);
				const childClip = intersect(clip, {
					top: fy - childMargin, bottom: fy + h + childMargin,
					left: fx - childMargin, right: fx + w + childMargin,
				});
				const index = frameList.length;
				frameList.push({
					index, frame_id: childId, url: child.report.url,
					name: item.name || child.report.title || '', depth: depth + 1,
					parent: frameIndex,
				});
				walk(childId, child, fx, fy, childClip, depth + 1, index);
				continue;
			}
			const [x, y, w, h] = item.rect;
			const rx = offsetX + x, ry = offsetY + y;
			let where;
			if (item.clipped !== undefined)
				where = item.clipped;
			else if (ry + h > clip.top && ry < clip.bottom && rx + w > clip.left && rx < clip.right)
				where = 'in';
			else if (ry + h <= clip.top)
				where = 'above';
			else if (ry >= clip.bottom)
				where = 'below';
			else
				where = rx + w <= clip.left ? 'above' : 'below';
			const element = {
				ref: refs.assign(tab.id, frameId, entry.documentId, item.id),
				role: item.role,
				name: item.name ?? '',
			};
			for (const key of DETAIL_KEYS) {
				if (item[key] !== undefined && item[key] !== null && item[key] !== '')
					element[key] = item[key];
			}
			element.rect = [rx, ry, w, h];
			element.where = where;
			element.depth = depth;
			if (frameIndex !== null)
				element.frame = frameIndex;
			all.push(element);
		}
	};
	walk(0, top, 0, 0, window, 0, null);

	const elements = fullPage ? all : all.filter(e => e.where === 'in');
	const omitted = { above: 0, below: 0 };
	if (!fullPage) {
		for (const e of all) {
			if (e.where === 'above')
				omitted.above++;
			else if (e.where === 'below')
				omitted.below++;
		}
	}
	return {
		tab: { id: tab.id, url: top.report.url || tab.url, title: top.report.title || tab.title || '' },
		viewport: { width: viewport.width, height: viewport.height },
		scroll: {
			x: scroll.x, y: scroll.y, width: scroll.width, height: scroll.height,
			above: Math.max(0, scroll.y),
			below: Math.max(0, scroll.height - viewport.height - scroll.y),
		},
		elements,
		all,
		frames: frameList,
		omitted,
		tabs,
	};
}

/** Element roles per get_dom_extra_elements type. */
export const TYPE_ROLES = Object.freeze({
	links: new Set(['link']),
	buttons: new Set(['button', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab']),
	inputs: new Set(['textbox', 'textarea', 'input', 'checkbox', 'radio', 'slider',
		'spinbutton', 'searchbox', 'editable', 'switch']),
	selects: new Set(['select', 'combobox', 'option', 'listbox']),
});

/**
 * Whether an element is of a get_dom_extra_elements type.
 * @param {{role: string}} element
 * @param {string} type all, links, buttons, inputs, selects or other
 * @returns {boolean}
 */
export function matchesType(element, type) {
	if (type === undefined || type === 'all')
		return true;
	if (type === 'other')
		return !Object.values(TYPE_ROLES).some(set => set.has(element.role));
	return TYPE_ROLES[type]?.has(element.role) ?? false;
}

/**
 * One page of the elements the default state leaves out.
 * @param {StateElement[]} all every element of the page
 * @param {{page?: number, page_size?: number, type?: string}} options
 * @returns {{elements: StateElement[], page: number, pages: number, total: number, page_size: number, type: string}}
 */
export function extraElements(all, { page = 1, page_size: pageSize = 100, type = 'all' } = {}) {
	const matching = all.filter(e => e.where !== 'in' && matchesType(e, type));
	const pages = Math.max(1, Math.ceil(matching.length / pageSize));
	const start = (page - 1) * pageSize;
	return {
		elements: matching.slice(start, start + pageSize),
		page, pages, total: matching.length, page_size: pageSize, type,
	};
}
