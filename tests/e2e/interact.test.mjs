// End-to-end: select_option, hover_element and press_keys in real
// Chromium, each checked against the page itself through the DevTools pipe.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';

describe('select, hover and keys', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('select_option chooses by label and by value and fires input and change', async () => {
		const { url } = await b.open('controls.html');
		const s = await b.state();
		const ref = s.ref('select', 'Country');
		const byLabel = await b.ok('select_option', { ref, values: ['Canada'] });
		assert.match(byLabel.text, /^Selected "Canada" in e\d+/);
		assert.deepEqual(byLabel.data.values, ['ca']);
		assert.equal(await b.evaluate(url, 'document.getElementById("country").value'), 'ca');
		const byValue = await b.ok('select_option', { ref, values: ['us'] });
		assert.deepEqual(byValue.data.labels, ['United States']);
		assert.deepEqual(await b.evaluate(url, 'window.__changes.map(c => c.values[0])'), ['ca', 'us']);
		assert.equal(await b.evaluate(url, 'window.__inputs'), 2);
		const again = await b.ok('select_option', { ref, values: ['us'] });
		assert.equal(again.data.changed, false);
		assert.equal(await b.evaluate(url, 'window.__changes.length'), 2);
	});

	test('select_option on a multiple select selects exactly the values given', async () => {
		const { url } = await b.open('controls.html');
		const s = await b.state();
		const ref = s.find(undefined, 'Toppings').ref;
		const r = await b.ok('select_option', { ref, values: ['Ham', 'basil'] });
		assert.deepEqual(r.data.values, ['ham', 'basil']);
		assert.deepEqual(await b.evaluate(url, '[...document.getElementById("toppings").selectedOptions].map(o => o.value)'),
		    ['ham', 'basil']);
		await b.ok('select_option', { ref, values: ['cheese'] });
		assert.deepEqual(await b.evaluate(url, '[...document.getElementById("toppings").selectedOptions].map(o => o.value)'),
		    ['cheese']);
		assert.deepEqual(await b.evaluate(url, 'window.__changes.map(c => c.values)'), [['ham', 'basil'], ['cheese']]);
	});

	test('select_option errors: unknown option lists the options, disabled option, several for one, not a select', async () => {
		const { url } = await b.open('controls.html');
		const s = await b.state();
		const country = s.ref('select', 'Country');
		const unknown = await b.fails('select_option', { ref: country, values: ['Peru'] });
		assert.equal(unknown.code, 'INVALID_ARGUMENT');
		assert.match(unknown.message, /has no option "Peru"/);
		assert.match(unknown.message, /"Canada" \(value "ca"\)/);
		const disabled = await b.fails('select_option', { ref: country, values: ['Mexico'] });
		assert.equal(disabled.code, 'NOT_INTERACTABLE');
		assert.match(disabled.message, /disabled/);
		const two = await b.fails('select_option', { ref: country, values: ['us', 'ca'] });
		assert.equal(two.code, 'INVALID_ARGUMENT');
		assert.match(two.message, /takes one option/);
		const input = await b.fails('select_option', { ref: s.ref('textbox', 'City'), values: ['x'] });
		assert.equal(input.code, 'NOT_INTERACTABLE');
		assert.match(input.message, /not a <select>/);
		assert.equal(await b.evaluate(url, 'window.__changes.length'), 0);
	});

	test('hover_element opens a CSS :hover menu whose item can then be clicked', async () => {
		const { url } = await b.open('controls.html');
		const before = await b.state();
		assert.equal(before.find('button', 'Laptops'), undefined, before.text);
		const hover = await b.ok('hover_element', { ref: before.ref('button', 'Products') });
		assert.match(hover.text, /^Hovered over e\d+ \(button "Products"\)/);
		assert.equal(await b.evaluate(url, 'window.__entered'), 1);
		assert.equal(await b.evaluate(url, 'window.__over'), true);
		const after = await b.state();
		const laptops = after.ref('button', 'Laptops');
		await b.ok('click_element', { ref: laptops });
		assert.equal(await b.evaluate(url, 'document.getElementById("picked").textContent'), 'Laptops chosen');
	});

	test('press_keys: Control+A then Backspace clears an input', async () => {
		const { url } = await b.open('controls.html');
		const s = await b.state();
		const r = await b.ok('press_keys', { ref: s.ref('textbox', 'Name'), keys: '{Control+A}{Backspace}' });
		assert.match(r.text, /^Pressed \{Control\+A\} \{Backspace\} in e\d+.* Its value is now ""\./i);
		assert.equal(r.data.value, '');
		assert.equal(await b.evaluate(url, 'document.getElementById("name").value'), '');
	});

	test('press_keys: Enter submits the form, Tab moves focus, braces are literal', async () => {
		const { url } = await b.open('controls.html');
		const s = await b.state();
		await b.ok('press_keys', { ref: s.ref('textbox', 'Name'), keys: '{Enter}' });
		assert.equal(await b.evaluate(url, 'window.__submitted'), 1);
		const tab = await b.ok('press_keys', { keys: '{Tab}' });
		assert.equal(await b.evaluate(url, 'document.activeElement.id'), 'city');
		assert.equal(tab.data.focused.id, 'city');
		await b.ok('press_keys', { keys: 'a{{b}}' });
		assert.equal(await b.evaluate(url, 'document.getElementById("city").value'), 'a{b}');
	});

	test('press_keys with a bad key sequence presses nothing', async () => {
		await b.open('controls.html');
		const error = await b.fails('press_keys', { keys: '{Nope}' });
		assert.equal(error.code, 'INVALID_ARGUMENT');
		assert.match(error.message, /^No key was pressed/);
		void until;
	});

	test('a CSS :hover menu trigger gets a ref; hovering it, by ref or by point, shows the menu', async () => {
		await b.open('hovermenu.html');
		const s = await b.state();
		const trigger = s.find('hoverable', 'Products');
		assert.ok(trigger, s.text);
		assert.equal(s.find(undefined, 'A card that only glows'), undefined, 'a hover that only restyles gives no ref');
		assert.equal(s.find('link', 'Laptops'), undefined, 'the menu is closed');
		const hovered = await b.ok('hover_element', { ref: trigger.ref, include_state: true });
		assert.match(hovered.text, /link "Laptops"/);
		await b.ok('hover_element', { coordinates: { x: 600, y: 400 } });	/* away: the menu closes */
		assert.equal((await b.state()).find('link', 'Laptops'), undefined);
		const [x, y, w, h] = trigger.rect;
		const byPoint = await b.ok('hover_element', { coordinates: { x: x + 10, y: y + h / 2 }, include_state: true });
		assert.match(byPoint.text, /^Hovered over \(\d+(\.\d+)?, \d+(\.\d+)?\)\./);
		assert.match(byPoint.text, /link "Laptops"/);
		const neither = await b.fails('hover_element', {});
		assert.equal(neither.code, 'INVALID_ARGUMENT');
	});

	test('an element that opens a menu from a mouseenter listener gets a ref; hovering it opens the menu', async () => {
		await b.open('hovermenu.html');
		const s = await b.state();
		const account = s.find('hoverable', 'Account');
		assert.ok(account, `the mouseenter trigger is missing:\n${s.text}`);
		assert.equal(s.find('link', 'Sign out'), undefined, 'the menu is closed');
		assert.equal(s.data.elements.filter(e => e.role === 'hoverable').length, 2,
		    `only the two triggers are hoverable (the body's delegated listener adds none):\n${s.text}`);
		const hovered = await b.ok('hover_element', { ref: account.ref, include_state: true });
		assert.match(hovered.text, /link "Sign out"/);
	});

	test('drag_and_drop finishes an HTML5 drag and drives a pointer-based sortable list', async () => {
		const { url } = await b.open('dragdrop.html');
		const s = await b.state();
		const card = s.find('draggable', 'Card A');
		const zone = s.data.elements.find(e => e.role === 'clickable' && e.name.startsWith('Done'));
		assert.ok(card && zone, `a draggable and its drop zone (it has a drop listener) have refs:\n${s.text}`);
		const html5 = await b.ok('drag_and_drop', { from_ref: card.ref, to_ref: zone.ref });
		assert.match(html5.text, /\(HTML5 drag\)/);
		assert.equal(await b.evaluate(url, 'document.getElementById("done").textContent'), 'Done: card-a');
		const sorted = await b.ok('drag_and_drop', { from_ref: s.ref('button', 'First'), to_ref: s.ref('button', 'Third') });
		assert.match(sorted.text, /\(pointer drag\)/);
		assert.deepEqual(await b.evaluate(url, '[...document.querySelectorAll("#sortable li")].map(li => li.textContent)'),
		    ['Second', 'Third', 'First']);
	});
});
