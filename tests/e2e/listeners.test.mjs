// End-to-end: elements clickable only through addEventListener (or an
// onclick property) are listed, through the click-listener tracker
// (extension/page/click-listeners.js) in the page's own world, and the
// page's DOM is left untouched.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';

describe('click listeners', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('an element with a click listener gets a ref and clicking it runs the handler; a plain one is not listed', async () => {
		const { url } = await b.open('listeners.html');
		const s = await b.state();
		const listened = s.find('clickable', 'Listened div');
		assert.ok(listened, `the listened div is missing:\n${s.text}`);
		assert.match(listened.ref, /^e\d+$/);
		assert.equal(listened.tag, 'div');
		assert.match(s.text, new RegExp(`^${listened.ref} clickable div "Listened div"$`, 'm'));
		assert.equal(s.find(undefined, 'Plain div'), undefined, `the plain div is listed:\n${s.text}`);

		await b.ok('click_element', { ref: listened.ref });
		await until(async () => (await b.evaluate(url, 'window.__clicks')).includes('listened'),
		    { what: 'the page to record the click on the listened div' });
		assert.deepEqual(await b.evaluate(url, 'window.__clicks'), ['listened']);
	});

	test('every click-like listener counts, removed, aborted, hidden and other listeners do not', async () => {
		const { url } = await b.open('listeners.html');
		const s = await b.state();
		for (const name of ['Pointerdown div', 'Property handler div', 'Detached then attached div', 'Closed shadow listened div',
		    'Open shadow listened div'])
			assert.ok(s.find('clickable', name), `${name} is missing:\n${s.text}`);
		for (const name of ['Removed listener div', 'Aborted listener div', 'Keydown div', 'Hidden listened div',
		    'Closed shadow plain div', 'Open shadow plain div'])
			assert.equal(s.find(undefined, name), undefined, `${name} should not be listed:\n${s.text}`);

		await b.ok('click_element', { ref: s.ref('clickable', 'Closed shadow listened div') });
		await b.ok('click_element', { ref: s.ref('clickable', 'Pointerdown div') });
		await b.ok('click_element', { ref: s.ref('clickable', 'Open shadow listened div') });
		await until(async () => (await b.evaluate(url, 'window.__clicks')).length === 3,
		    { what: 'the page to record three clicks' });
		assert.deepEqual(await b.evaluate(url, 'window.__clicks'), ['closed', 'pressed', 'open']);
	});

	test('a delegating container is not listed and does not hide the controls inside it', async () => {
		await b.open('listeners.html');
		const s = await b.state();
		assert.ok(s.find('button', 'Menu button'), s.text);
		assert.ok(s.find('clickable', 'Pointer entry'), `the pointer entry inside the listening list is missing:\n${s.text}`);
		const containers = s.data.elements.filter(e => e.tag === 'ul' || e.tag === 'li' || e.tag === 'body');
		assert.deepEqual(containers, [], `a delegating container is listed:\n${s.text}`);
	});

	test("reading the state leaves the page's DOM untouched and the wrapped functions look native", async () => {
		const { url } = await b.open('listeners.html');
		const before = await b.evaluate(url, 'window.__mutations');
		const s = await b.state({ full_page: true });
		assert.ok(s.find('clickable', 'Listened div'));
		assert.deepEqual(await b.evaluate(url, 'window.__mutations'), before);
		assert.equal(await b.evaluate(url, 'String(EventTarget.prototype.addEventListener)'),
		    'function addEventListener() { [native code] }');
		assert.equal(await b.evaluate(url, 'EventTarget.prototype.addEventListener.length'), 2);
		assert.deepEqual(await b.evaluate(url, 'Object.keys(window).filter(k => /bridge/i.test(k))'), []);
		assert.equal(await b.evaluate(url, 'document.querySelectorAll("[data-browser-bridge], [data-bb]").length'), 0);
	});
});
