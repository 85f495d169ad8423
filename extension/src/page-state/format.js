/**
 * Formats page states for the model: compact text, one line per element,
 * no markup; and the structured form for programs. Pure.
 * @module page-state/format
 */

/**
 * Quotes a string for the text form: JSON rules, so quotes and newlines
 * cannot break a line.
 * @param {string} s
 * @returns {string}
 */
export function quote(s) {
	return JSON.stringify(String(s));
}

/**
 * Shortens a link target relative to the page: same origin drops the origin.
 * @param {string} href absolute URL
 * @param {string} pageUrl
 * @returns {string}
 */
export function shortHref(href, pageUrl) {
	let url, page;
	try {
		url = new URL(href);
		page = new URL(pageUrl);
	} catch {
		return href;
	}
	let s;
	if (url.origin === page.origin && url.origin !== 'null') {
		if (url.pathname === page.pathname && url.search === page.search && url.hash !== '')
			s = url.hash;
		else
			s = url.pathname + url.search + url.hash;
	} else
		s = url.href;
	return s.length > 100 ? `${s.slice(0, 99)}…` : s;
}

/**
 * One element as a line: `e12 textbox "Email" type=email value="a@b.c"`.
 * @param {import('./builder.js').StateElement} e
 * @param {string} pageUrl for shortening links
 * @returns {string}
 */
export function formatElement(e, pageUrl) {
	let line = `${e.ref} ${e.role}`;
	if (e.tag !== undefined)
		line += ` ${e.tag}`;
	if (e.name)
		line += ` ${quote(e.name)}`;
	if (e.context !== undefined)
		line += ` in ${quote(e.context)}`;
	if (e.type !== undefined)
		line += ` type=${e.type}`;
	if (e.checked !== undefined)
		line += e.checked === 'mixed' ? ' mixed' : e.checked ? ' checked' : ' unchecked';
	if (e.selected !== undefined && e.selected)
		line += ' selected';
	if (e.pressed !== undefined)
		line += e.pressed ? ' pressed' : ' not-pressed';
	if (e.expanded !== undefined)
		line += e.expanded ? ' expanded' : ' collapsed';
	if (e.disabled)
		line += ' disabled';
	if (e.readonly)
		line += ' readonly';
	if (e.multiple)
		line += ' multiple';
	if (e.value !== undefined)
		line += ` value=${quote(e.value)}`;
	if (e.placeholder !== undefined && e.value === undefined)
		line += ` placeholder=${quote(e.placeholder)}`;
	if (e.options !== undefined) {
		line += ` options=${quote(e.options.join('|'))}`;
		if (e.more_options)
			line += `+${e.more_options}`;
	}
	if (e.href !== undefined && !/^javascript:/i.test(e.href))
		line += ` href=${shortHref(e.href, pageUrl)}`;
	if (e.covered_by !== undefined)
		line += ` covered by ${e.covered_by}`;
	if (e.hiding !== undefined)
		line += ` hiding ${e.hiding} more (scroll_page with this ref)`;
	return line;
}

/**
 * The lines for a list of elements, with a header line where a child frame
 * starts and indentation by frame depth.
 * @param {import('./builder.js').StateElement[]} elements
 * @param {object[]} frames the state's frames
 * @param {string} pageUrl
 * @returns {string[]}
 */
export function formatElements(elements, frames, pageUrl) {
	const lines = [];
	let currentFrame = null;
	for (const e of elements) {
		const frame = e.frame ?? null;
		if (frame !== currentFrame) {
			/* Announce each frame (and ancestors not yet shown) once per run. */
			if (frame !== null) {
				const chain = [];
				for (let f = frames[frame]; f !== undefined && f.index !== currentFrame; f = f.parent === null ? undefined : frames[f.parent])
					chain.unshift(f);
				for (const f of chain) {
					const label = f.name ? `${quote(f.name)} ` : '';
					lines.push(`${'  '.repeat(f.depth - 1)}frame ${label}${f.url}`);
				}
			}
			currentFrame = frame;
		}
		lines.push(`${'  '.repeat(e.depth)}${formatElement(e, frame === null ? pageUrl : frames[frame].url)}`);
	}
	return lines;
}

/**
 * The text form of a state.
 * @param {ReturnType<import('./builder.js').buildState>} state
 * @returns {string}
 */
export function formatState(state) {
	const { tab, scroll, viewport } = state;
	const lines = [];
	lines.push(`Tab ${tab.id} ${quote(tab.title)} ${tab.url}`);
	lines.push(`Viewport ${viewport.width}x${viewport.height}, scrolled ${scroll.above}px, ${scroll.below}px more below`);
	const others = state.tabs.filter(t => t.id !== tab.id);
	if (others.length > 0)
		lines.push(`Other tabs: ${others.map(t => `${t.id} ${quote(truncate(t.title || t.url, 40))}`).join(', ')}`);
	if (state.elements.length === 0)
		lines.push('No interactive elements in view.');
	lines.push(...formatElements(state.elements, state.frames, tab.url));
	const { above, below } = state.omitted;
	if (above + below > 0) {
		const parts = [];
		if (above > 0)
			parts.push(`${above} above`);
		if (below > 0)
			parts.push(`${below} below`);
		lines.push(`Not listed: ${parts.join(', ')} the viewport (scroll_page, full_page: true or get_dom_extra_elements).`);
	}
	return lines.join('\n');
}

/**
 * The structured form of a state (structuredContent): no internal fields.
 * @param {ReturnType<import('./builder.js').buildState>} state
 * @returns {object}
 */
export function structuredState(state) {
	return {
		tab: state.tab,
		viewport: state.viewport,
		scroll: state.scroll,
		tabs: state.tabs,
		elements: state.elements.map(e => {
			const copy = { ...e };
			delete copy.depth;
			return copy;
		}),
		frames: state.frames.map(f => ({ index: f.index, url: f.url, name: f.name, parent: f.parent })),
		omitted: state.omitted,
	};
}

/**
 * The text of get_dom_extra_elements.
 * @param {ReturnType<import('./builder.js').extraElements>} page
 * @param {ReturnType<import('./builder.js').buildState>} state
 * @returns {string}
 */
export function formatExtra(page, state) {
	const lines = [];
	const kind = page.type === 'all' ? '' : ` (${page.type})`;
	if (page.total === 0) {
		lines.push(`Tab ${state.tab.id}: no elements${kind} outside the viewport.`);
		return lines.join('\n');
	}
	lines.push(`Tab ${state.tab.id}: elements${kind} outside the viewport, page ${page.page} of ${page.pages} (${page.total} in all):`);
	if (page.elements.length === 0)
		lines.push(`Page ${page.page} is past the end; the last page is ${page.pages}.`);
	lines.push(...formatElements(page.elements, state.frames, state.tab.url));
	if (page.page < page.pages)
		lines.push(`More: page ${page.page + 1}.`);
	return lines.join('\n');
}

/**
 * Cuts a string to max characters.
 * @param {string} s
 * @param {number} max
 * @returns {string}
 */
export function truncate(s, max) {
	s = String(s ?? '');
	return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
