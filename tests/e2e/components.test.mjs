// End-to-end: the controls of real web-component libraries (#32), on the
// names corpus's pages (site/names): @material/web text fields,
// checkboxes, radios, tabs and sliders, Shoelace checkboxes and switches,
// and hand-written elements whose role comes from ElementInternals. Each
// is listed with the role, name and state Chromium gives it, and acting on
// its ref changes the component itself, as read through DevTools.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge } from './harness.mjs';

describe('web components\' controls', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('@material/web: text fields under their resting labels take typed text; checkboxes, radios and tabs toggle by click', async () => {
		const { url } = await b.open('names/material.html');
		let s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ textbox "Email" type=email$/m);
		assert.match(s.text, /^e\d+ textarea "Message"$/m);
		assert.match(s.text, /^e\d+ checkbox "Checkbox by aria-label" checked$/m);
		assert.match(s.text, /^e\d+ radio "Small" checked$/m);
		assert.match(s.text, /^e\d+ tab "Flights" selected$/m);
		assert.doesNotMatch(s.text, /clickable md-/, 'no component host is listed in place of its control');

		await b.ok('type_value', { ref: s.ref('textbox', 'Email'), text: 'ada@example.org' });
		assert.equal(await b.evaluate(url, 'document.querySelector("md-filled-text-field[type=email]").value'), 'ada@example.org');
		await b.ok('click_element', { ref: s.ref('checkbox', 'Checkbox by aria-label') });
		// The third md-checkbox of the page is the one named by its aria-label.
		assert.equal(await b.evaluate(url, 'document.querySelectorAll("md-checkbox")[2].checked'), false);
		await b.ok('click_element', { ref: s.ref('radio', 'Large') });
		await b.ok('click_element', { ref: s.ref('tab', 'Trips') });

		s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ checkbox "Checkbox by aria-label" unchecked$/m);
		assert.match(s.text, /^e\d+ radio "Small" unchecked$/m);
		assert.match(s.text, /^e\d+ radio "Large" checked$/m);
		assert.match(s.text, /^e\d+ tab "Trips" selected$/m);
		assert.match(s.text, /^e\d+ tab "Flights"$/m);
		assert.equal(await b.evaluate(url, 'document.querySelector("md-radio[value=l]").checked'), true);
	});

	test('@material/web: a slider is listed as its range input, with its value, and takes a typed value', async () => {
		const { url } = await b.open('names/material.html');
		const s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ slider "Volume" type=range value="40"$/m);
		assert.match(s.text, /^e\d+ slider "Minimum price" type=range value="20"$/m);
		assert.match(s.text, /^e\d+ slider "Maximum price" type=range value="60"$/m);
		await b.ok('type_value', { ref: s.ref('slider', 'Volume'), text: '70' });
		assert.equal(await b.evaluate(url, 'document.querySelector("md-slider").value'), 70);
	});

	test('Shoelace: a checkbox and a switch drawn over a transparent input are listed as it, named and checked, and toggle by click', async () => {
		const { url } = await b.open('names/shoelace.html');
		let s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ checkbox "Send me news" unchecked$/m);
		assert.match(s.text, /^e\d+ checkbox "I agree to the terms" checked$/m);
		assert.match(s.text, /^e\d+ switch "Dark mode" unchecked$/m);
		assert.match(s.text, /^e\d+ switch "Auto update" checked$/m);
		assert.deepEqual(s.data.elements.filter(e => e.role === 'clickable' && e.tag === 'label' && e.name === ''), [],
		    'no unnamed label is listed in place of its checkbox');
		await b.ok('click_element', { ref: s.ref('checkbox', 'Send me news') });
		await b.ok('click_element', { ref: s.ref('switch', 'Dark mode') });
		s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ checkbox "Send me news" checked$/m);
		assert.match(s.text, /^e\d+ switch "Dark mode" checked$/m);
		assert.deepEqual(await b.evaluate(url, 'JSON.stringify([document.querySelector("sl-checkbox").checked, document.querySelector("sl-switch").checked])'),
		    '[true,true]');
	});

	test('roles, names and values set through ElementInternals are listed; clicking such a button reaches it', async () => {
		const { url } = await b.open('names/shadow.html');
		const s = await b.state({ full_page: true });
		assert.match(s.text, /^e\d+ button "Internals button"$/m);
		assert.match(s.text, /^e\d+ slider "Rating" value="3"$/m);
		await b.evaluate(url, 'document.querySelector("x-internals-button").onclick = () => { document.title = "Clicked" }, true');
		await b.ok('click_element', { ref: s.ref('button', 'Internals button') });
		assert.equal(await b.evaluate(url, 'document.title'), 'Clicked');
	});
});
