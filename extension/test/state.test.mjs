import { test } from 'node:test';
import assert from 'node:assert/strict';

import { buildState, extraElements, matchesType } from '../src/page-state/builder.js';
import { formatElement, formatExtra, formatState, quote, shortHref, structuredState } from '../src/page-state/format.js';
import { RefTable } from '../src/page-state/refs.js';

const VIEWPORT = { width: 1000, height: 600 };

// A frame report as the page agent returns it.
function report(items, extra = {}) {
	return {
		url: 'http://a.test/page', title: 'Page', frameIndex: -1,
		viewport: VIEWPORT, scroll: { x: 0, y: 0, width: 1000, height: 600 }, items, ...extra,
	};
}

function build(frames, options = {}) {
	const refs = options.refs ?? new RefTable();
	const map = new Map(frames.map(([id, entry]) => [id, entry]));
	return buildState({ tab: { id: 7, url: 'http://a.test/page', title: 'Page' }, frames: map, refs, ...options });
}

test('elements get refs, roles, names and details in document order', () => {
	const state = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'textbox', name: 'Email', type: 'email', placeholder: 'you@x', rect: [10, 10, 100, 20] },
		{ id: 2, role: 'button', name: 'Go', disabled: true, rect: [10, 40, 50, 20] },
	]) }]]);
	assert.deepEqual(state.elements.map(e => [e.ref, e.role, e.name]), [['e1', 'textbox', 'Email'], ['e2', 'button', 'Go']]);
	assert.equal(state.elements[0].type, 'email');
	assert.equal(state.elements[1].disabled, true);
	assert.deepEqual(state.tab, { id: 7, url: 'http://a.test/page', title: 'Page' });
});

test('only elements near the viewport are listed by default; the rest are counted', () => {
	const state = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'button', name: 'Far above', rect: [0, -2000, 10, 10] },
		{ id: 2, role: 'button', name: 'Just below', rect: [0, 700, 10, 10] },
		{ id: 3, role: 'button', name: 'In view', rect: [0, 100, 10, 10] },
		{ id: 4, role: 'button', name: 'Far below', rect: [0, 5000, 10, 10] },
	], { scroll: { x: 0, y: 2500, width: 1000, height: 9000 } }) }]]);
	assert.deepEqual(state.elements.map(e => e.name), ['Just below', 'In view']);
	assert.deepEqual(state.omitted, { above: 1, below: 1 });
	assert.equal(state.scroll.above, 2500);
	assert.equal(state.scroll.below, 9000 - 600 - 2500);
	const full = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'button', name: 'Far below', rect: [0, 5000, 10, 10] },
	]) }]], { fullPage: true });
	assert.equal(full.elements.length, 1);
	assert.deepEqual(full.omitted, { above: 0, below: 0 });
});

test('elements hidden inside a scroll container count as outside', () => {
	const state = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'button', name: 'Item 30', rect: [0, 300, 10, 10], clipped: 'below' },
	]) }]]);
	assert.equal(state.elements.length, 0);
	assert.deepEqual(state.omitted, { above: 0, below: 1 });
});

test('child frames are placed inside their iframe, across origins and nesting', () => {
	const state = build([
		[0, { documentId: 'd0', report: report([
			{ id: 1, role: 'button', name: 'Top', rect: [0, 0, 10, 10] },
			{ frame: 0, visible: true, rect: [100, 200, 400, 300], name: 'Pay', src: 'http://b.test/pay' },
			{ frame: 1, visible: false, rect: [0, 0, 0, 0], name: '', src: 'http://a.test/hidden' },
			{ id: 2, role: 'link', name: 'After', href: 'http://a.test/next', rect: [0, 550, 10, 10] },
		]) }],
		[11, { documentId: 'd11', parentFrameId: 0, report: report([
			{ id: 1, role: 'textbox', name: 'Card', rect: [5, 5, 100, 20] },
			{ frame: 0, visible: true, rect: [10, 50, 200, 100], name: '', src: 'http://c.test/inner' },
		], { url: 'http://b.test/pay', frameIndex: 0 }) }],
		[12, { documentId: 'd12', parentFrameId: 0, report: report([
			{ id: 1, role: 'button', name: 'Hidden frame button', rect: [0, 0, 10, 10] },
		], { url: 'http://a.test/hidden', frameIndex: 1 }) }],
		[13, { documentId: 'd13', parentFrameId: 11, report: report([
			{ id: 1, role: 'checkbox', name: 'Inner', checked: true, rect: [1, 1, 10, 10] },
		], { url: 'http://c.test/inner', frameIndex: 0 }) }],
	]);
	assert.deepEqual(state.elements.map(e => e.name), ['Top', 'Card', 'Inner', 'After']);
	const card = state.elements[1], inner = state.elements[2];
	assert.deepEqual(card.rect, [105, 205, 100, 20]);
	assert.equal(card.depth, 1);
	assert.deepEqual(inner.rect, [111, 251, 10, 10]);
	assert.equal(inner.depth, 2);
	assert.equal(state.frames[inner.frame].url, 'http://c.test/inner');
	assert.equal(state.frames[inner.frame].parent, card.frame);
	/* Same local ids in different documents: different refs. */
	assert.equal(new Set(state.elements.map(e => e.ref)).size, 4);
	const text = formatState(state);
	assert.match(text, /\nframe "Pay" http:\/\/b\.test\/pay\n {2}e\d+ textbox "Card"\n {2}frame "Page" http:\/\/c\.test\/inner\n {4}e\d+ checkbox "Inner" checked\n/);
	assert.match(text, /\ne\d+ link "After" href=\/next$/);
});

test('elements scrolled out of a small iframe are outside the viewport', () => {
	const state = build([
		[0, { documentId: 'd0', report: report([
			{ frame: 0, visible: true, rect: [0, 0, 300, 100], name: '', src: '' },
		]) }],
		[5, { documentId: 'd5', parentFrameId: 0, report: report([
			{ id: 1, role: 'button', name: 'Deep in frame', rect: [0, 400, 10, 10] },
		], { frameIndex: 0, viewport: { width: 300, height: 100 } }) }],
	]);
	assert.equal(state.elements.length, 0);
	assert.equal(state.omitted.below, 1);
});

test('refs stay the same when the state is read again', () => {
	const refs = new RefTable();
	const frames = [[0, { documentId: 'd0', report: report([{ id: 4, role: 'button', name: 'A', rect: [0, 0, 1, 1] }]) }]];
	assert.equal(build(frames, { refs }).elements[0].ref, build(frames, { refs }).elements[0].ref);
});

test('formatElement writes one compact line with the attributes an agent needs', () => {
	const page = 'http://a.test/dir/page?x=1';
	assert.equal(formatElement({ ref: 'e1', role: 'textbox', name: 'Email', type: 'email', placeholder: 'you@x' }, page),
	    'e1 textbox "Email" type=email placeholder="you@x"');
	assert.equal(formatElement({ ref: 'e2', role: 'textbox', name: 'Name', value: 'Ann', placeholder: 'ignored' }, page),
	    'e2 textbox "Name" value="Ann"');
	assert.equal(formatElement({ ref: 'e3', role: 'checkbox', name: 'Agree', checked: false }, page), 'e3 checkbox "Agree" unchecked');
	assert.equal(formatElement({ ref: 'e4', role: 'button', name: 'Pay', disabled: true }, page), 'e4 button "Pay" disabled');
	assert.equal(formatElement({ ref: 'e5', role: 'link', name: 'Home', href: 'http://a.test/' }, page), 'e5 link "Home" href=/');
	assert.equal(formatElement({ ref: 'e6', role: 'link', name: 'Ext', href: 'https://b.test/x' }, page), 'e6 link "Ext" href=https://b.test/x');
	assert.equal(formatElement({ ref: 'e7', role: 'clickable', tag: 'div', name: 'Menu' }, page), 'e7 clickable div "Menu"');
	assert.equal(formatElement({ ref: 'e8', role: 'select', name: 'Size', value: 'S', options: ['S', 'M'], more_options: 3 }, page),
	    'e8 select "Size" value="S" options="S|M"+3');
	assert.equal(formatElement({ ref: 'e9', role: 'link', name: 'JS', href: 'javascript:void(0)' }, page), 'e9 link "JS"');
	assert.equal(formatElement({ ref: 'e10', role: 'tab', name: 'One', selected: true, expanded: false }, page),
	    'e10 tab "One" selected collapsed');
});

test('a control is written with the context the page gave it: an unnamed one, or one named by a symbol alone', () => {
	const page = 'http://a.test/';
	assert.equal(formatElement({ ref: 'e1', role: 'checkbox', name: '', context: 'walk the dog', checked: false }, page),
	    'e1 checkbox in "walk the dog" unchecked');
	assert.equal(formatElement({ ref: 'e2', role: 'button', name: '×', context: 'walk the dog' }, page), 'e2 button "×" in "walk the dog"');
	assert.equal(formatElement({ ref: 'e3', role: 'button', name: 'Delete' }, page), 'e3 button "Delete"');
	const state = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'button', name: '', context: 'walk the dog', rect: [10, 10, 20, 20] },
	]) }]]);
	assert.equal(state.elements[0].context, 'walk the dog', 'the builder keeps it for structuredContent');
});

test('quote keeps one element on one line', () => {
	assert.equal(quote('a "b"\nc'), '"a \\"b\\"\\nc"');
	assert.ok(!formatElement({ ref: 'e1', role: 'button', name: 'two\nlines' }, 'http://a.test/').includes('\n'));
});

test('shortHref drops the origin of same-origin links', () => {
	assert.equal(shortHref('http://a.test/x?y#z', 'http://a.test/page'), '/x?y#z');
	assert.equal(shortHref('http://a.test/page#sec', 'http://a.test/page'), '#sec');
	assert.equal(shortHref('http://b.test/x', 'http://a.test/page'), 'http://b.test/x');
	assert.equal(shortHref('not a url', 'http://a.test/'), 'not a url');
	assert.ok(shortHref(`http://b.test/${'x'.repeat(300)}`, 'http://a.test/').length <= 100);
});

test('formatState has a header, the elements and what was left out', () => {
	const state = build([[0, { documentId: 'd0', report: report([
		{ id: 1, role: 'button', name: 'Go', rect: [0, 0, 10, 10] },
		{ id: 2, role: 'button', name: 'Later', rect: [0, 3000, 10, 10] },
	], { scroll: { x: 0, y: 0, width: 1000, height: 4000 } }) }]], {
		tabs: [{ id: 7, title: 'Page', url: 'http://a.test/page', active: true }, { id: 8, title: 'Docs', url: 'http://d/', active: false }],
	});
	assert.equal(formatState(state), [
		'Tab 7 "Page" http://a.test/page',
		'Viewport 1000x600, scrolled 0px, 3400px more below',
		'Other tabs: 8 "Docs"',
		'e1 button "Go"',
		'Not listed: 1 below the viewport (scroll_page, full_page: true or get_dom_extra_elements).',
	].join('\n'));
	const structured = structuredState(state);
	assert.equal(structured.elements[0].ref, 'e1');
	assert.equal(structured.elements[0].depth, undefined);
	assert.deepEqual(structured.omitted, { above: 0, below: 1 });
});

test('an empty page says so', () => {
	assert.match(formatState(build([[0, { documentId: 'd0', report: report([]) }]])), /No interactive elements in view\./);
});

test('extraElements pages through what the state left out, by type', () => {
	const items = [];
	for (let i = 0; i < 25; i++)
		items.push({ id: i + 1, role: i % 2 ? 'link' : 'button', name: `N${i}`, rect: [0, 2000 + i * 10, 10, 10] });
	items.push({ id: 99, role: 'button', name: 'Visible', rect: [0, 10, 10, 10] });
	const state = build([[0, { documentId: 'd0', report: report(items) }]]);
	const page1 = extraElements(state.all, { page: 1, page_size: 10 });
	assert.equal(page1.total, 25);
	assert.equal(page1.pages, 3);
	assert.equal(page1.elements.length, 10);
	assert.ok(!page1.elements.some(e => e.name === 'Visible'));
	const links = extraElements(state.all, { type: 'links', page_size: 100 });
	assert.equal(links.total, 12);
	assert.ok(links.elements.every(e => e.role === 'link'));
	const page3 = extraElements(state.all, { page: 3, page_size: 10 });
	assert.equal(page3.elements.length, 5);
	assert.match(formatExtra(page1, state), /page 1 of 3 \(25 in all\):[\s\S]*More: page 2\./);
	assert.match(formatExtra(extraElements(state.all, { page: 9, page_size: 10 }), state), /past the end; the last page is 3/);
	assert.match(formatExtra(extraElements(state.all, { type: 'selects' }), state), /no elements \(selects\) outside/);
});

test('matchesType sorts roles into the filter types', () => {
	assert.ok(matchesType({ role: 'link' }, 'links'));
	assert.ok(matchesType({ role: 'menuitem' }, 'buttons'));
	assert.ok(matchesType({ role: 'editable' }, 'inputs'));
	assert.ok(matchesType({ role: 'select' }, 'selects'));
	assert.ok(matchesType({ role: 'clickable' }, 'other'));
	assert.ok(!matchesType({ role: 'button' }, 'other'));
	assert.ok(matchesType({ role: 'anything' }, 'all'));
});
