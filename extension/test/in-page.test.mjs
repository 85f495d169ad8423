// The in-page script (extension/in-page/*.js) in a jsdom document: the
// files load in the page channel's order and install one API; elements
// get numbers that last; the snapshot lists what a person could use and
// counts what is hidden and names what covers a covered one; names come from labels; typing and
// clicking check the element first. jsdom has no layout, so each element's
// box comes from its data-box attribute ("x y width height"; its client
// size too, with no border or scroll bar) and
// elementFromPoint answers the last element in document order whose box
// holds the point (the one painted on top, for these pages); computed
// styles get the initial values of the properties jsdom leaves empty (it
// does not expand the overflow shorthand: pages write overflow-x and -y), and
// PointerEvent is a MouseEvent. Answers are copied as JSON, as
// chrome.scripting copies them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// tests/extension-unit.sh installs jsdom (test/package.json) into the build
// tree and names the folder in BRIDGE_TEST_PACKAGES; by hand, after `npm ci`
// in extension/test, it is found beside this file.
const packages = process.env.BRIDGE_TEST_PACKAGES;
const { JSDOM } = createRequire(packages ? `${packages}/` : import.meta.url)('jsdom');

const { IN_PAGE_SCRIPT } = await import('../src/browser/page-channel.js');

const extensionDir = new URL('..', import.meta.url);
const sources = IN_PAGE_SCRIPT.files.map(file => readFileSync(new URL(file, extensionDir), 'utf8'));

// The box of an element, from its data-box attribute (or none).
function boxOf(element) {
	const [x, y, width, height] = (element.getAttribute('data-box') ?? '0 0 0 0').split(/\s+/).map(Number);
	return { x, y, width, height, left: x, top: y, right: x + width, bottom: y + height };
}

/** Initial values of the properties jsdom's getComputedStyle leaves empty. */
const INITIAL_STYLE = {
	opacity: '1', overflowX: 'visible', overflowY: 'visible', position: 'static', contentVisibility: 'visible', transform: 'none',
};

// A document holding body, with layout stubbed and the in-page script installed.
function pageWith(body) {
	const dom = new JSDOM(`<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`,
	    { url: 'https://shop.test/cart', runScripts: 'outside-only', pretendToBeVisual: true });
	const { window } = dom;
	window.Element.prototype.getBoundingClientRect = function () { return boxOf(this); };
	Object.defineProperty(window.Element.prototype, 'clientWidth', { get() { return boxOf(this).width; } });
	Object.defineProperty(window.Element.prototype, 'clientHeight', { get() { return boxOf(this).height; } });
	window.Element.prototype.scrollIntoView = function () {};
	const computedStyle = window.getComputedStyle.bind(window);
	window.getComputedStyle = element => new Proxy(computedStyle(element), {
		get: (style, name) => (style[name] === '' && name in INITIAL_STYLE ? INITIAL_STYLE[name] : style[name]),
	});
	window.document.elementFromPoint = (x, y) => {
		const under = [...window.document.querySelectorAll('[data-box]')].filter(e => {
			const b = boxOf(e);
			return x >= b.left && x < b.right && y >= b.top && y < b.bottom;
		});
		return under.at(-1) ?? window.document.body;
	};
	window.eval('globalThis.PointerEvent ??= class PointerEvent extends MouseEvent {};');
	for (const source of sources)
		window.eval(source);
	const page = window[IN_PAGE_SCRIPT.global];
	const api = new Proxy(page, {
		get: (target, name) => (...args) => {
			const answer = target[name](...args);
			return answer instanceof window.Node || answer === undefined ? answer : JSON.parse(JSON.stringify(answer));
		},
	});
	return { window, document: window.document, page, api };
}

test('the files install one API, and installing them again keeps it and its numbers', () => {
	const { window, page, api } = pageWith('<button data-box="0 0 80 20">Pay</button>');
	assert.equal(typeof page.snapshot, 'function');
	const first = api.snapshot().items[0].id;
	for (const source of sources)
		window.eval(source);
	assert.equal(window[IN_PAGE_SCRIPT.global], page);
	assert.equal(api.snapshot().items[0].id, first);
});

test('the snapshot lists controls with role, name and box, counts the hidden, and names what covers a covered one', () => {
	const { api } = pageWith(`
		<a href="/checkout" data-box="0 0 100 20">Checkout</a>
		<label for="q">Search the shop</label><input id="q" data-box="0 30 200 20">
		<button aria-label="Close dialog" data-box="0 60 20 20">×</button>
		<button style="display:none" data-box="0 90 80 20">Gone</button>
		<button data-box="0 0 0 0">No size</button>
		<button data-box="300 0 80 20">Under</button><div id="banner" data-box="290 0 200 40">We use cookies</div>`);
	const state = api.snapshot();
	assert.equal(state.url, 'https://shop.test/cart');
	assert.equal(state.title, 'Shop');
	const listed = state.items.map(item => [item.role, item.name]);
	assert.deepEqual(listed, [['link', 'Checkout'], ['textbox', 'Search the shop'], ['button', 'Close dialog'], ['button', 'Under']]);
	assert.deepEqual(state.items[0].rect, [0, 0, 100, 20]);
	assert.equal(state.hidden, 1, 'the 0-by-0 button is hidden (display:none ones are skipped whole)');
	assert.equal(state.items[3].covered_by, 'div#banner "We use cookies"', 'the button under the overlay is listed, with its cover');
	assert.equal(state.items[2].covered_by, undefined);
});

test('the snapshot leaves out what no scroll reveals: controls parked off the page or cut off by a box that does not scroll', () => {
	const { document, api } = pageWith(`
		<button data-box="0 0 80 20">Bold</button>
		<ul style="overflow-x:hidden; overflow-y:hidden" data-box="0 30 200 0"><li><a href="/a" data-box="0 30 100 20">Collapsed item</a></li></ul>
		<div style="overflow-x:hidden; overflow-y:hidden" data-box="0 60 300 40">
			<a href="/s1" data-box="0 60 300 40">Slide 1</a><a href="/s2" data-box="300 60 300 40">Slide 2</a></div>
		<div style="overflow-x:hidden; overflow-y:hidden" data-box="0 120 200 0"><div style="position:absolute" data-box="0 120 200 50">
			<button data-box="0 120 80 20">Escapes the static box</button></div></div>
		<div style="overflow-x:auto; overflow-y:auto" data-box="0 200 200 50"><button data-box="0 300 80 20">Scrolled out of its box</button></div>
		<button data-box="0 1900 80 20">Far below</button>
		<div style="position:absolute; overflow-x:hidden; overflow-y:hidden" data-box="-1599984 1950 1 1">
			<button data-box="-1599984 1950 20 20">Smiley 1</button><button data-box="-1599984 1970 20 20">Smiley 2</button></div>`);
	Object.defineProperty(document.documentElement, 'scrollHeight', { value: 2000 });
	const state = api.snapshot();
	assert.deepEqual(state.items.map(item => item.name),
	    ['Bold', 'Slide 1', 'Escapes the static box', 'Scrolled out of its box', 'Far below']);
	assert.equal(state.hidden, 4, 'the collapsed item, the second slide and both smileys');
	assert.equal(state.items[3].clipped, 'below', 'its box scrolls: it counts as below');
});

test('an unnamed control, or one named by a symbol alone, gets the text of its list item or row, or its fieldset\'s legend, cut at a word', () => {
	const { api } = pageWith(`
		<ul><li><input type="checkbox" data-box="0 0 20 20"><label>walk the dog</label><button data-box="200 0 20 20">×</button></li>
		<li><input type="checkbox" data-box="0 30 20 20"><label>buy milk, eggs, flour and sugar for the birthday cake</label></li></ul>
		<table><tr><td><input type="checkbox" data-box="0 60 20 20"></td><td>report.pdf</td><td>2 MB</td></tr></table>
		<fieldset><legend>Priority</legend><select data-box="0 90 80 20"><option>High</option></select></fieldset>
		<fieldset><legend>Size</legend><label><input type="radio" data-box="0 120 20 20"> Large</label></fieldset>
		<div><button data-box="0 150 20 20"></button></div>`);
	const listed = api.snapshot().items.map(item => [item.role, item.name, item.context]);
	assert.deepEqual(listed, [
		['checkbox', '', 'walk the dog'], ['button', '×', 'walk the dog'],
		['checkbox', '', 'buy milk, eggs, flour and sugar…'],
		['checkbox', '', 'report.pdf 2 MB'], ['select', '', 'Priority'],
		['radio', 'Large', undefined], ['button', '', undefined],
	]);
});

test('an element keeps its number while it lives; a removed one is stale', () => {
	const { document, api } = pageWith('<button id="a" data-box="0 0 80 20">A</button><button id="b" data-box="0 30 80 20">B</button>');
	const [a, b] = api.snapshot().items.map(item => item.id);
	assert.notEqual(a, b);
	assert.equal(api.element(a), document.getElementById('a'));
	document.getElementById('a').remove();
	assert.equal(api.element(a), null);
	assert.deepEqual(api.state(a), { stale: true });
	assert.deepEqual(api.snapshot().items.map(item => item.id), [b]);
});

test('setValue sets an input the way a person would: the value changes and input and change fire', () => {
	const { document, api } = pageWith('<input id="q" aria-label="Quantity" data-box="0 0 80 20">');
	const [{ id }] = api.snapshot().items;
	const seen = [];
	document.getElementById('q').addEventListener('input', () => seen.push('input'));
	document.getElementById('q').addEventListener('change', () => seen.push('change'));
	const answer = api.setValue(id, '3');
	assert.equal(answer.ok, true);
	assert.equal(document.getElementById('q').value, '3');
	assert.deepEqual(seen, ['input', 'change']);
	assert.equal(api.readValue(id).value, '3');
});

// Issue #35, finding 7: what is typed into a field that holds a secret is
// shown only as a mask of its length, in the state and in what typing answers.
test('a secret field (password, one-time code, a PIN or token by name, id or label) shows its value masked; others do not', () => {
	const secret = [
		'<input type="password" aria-label="Passwort" value="hunter22" data-box="0 0 80 20">',
		'<input autocomplete="one-time-code" aria-label="Code" value="123456" data-box="0 30 80 20">',
		'<input name="pin" aria-label="Card" value="739164" data-box="0 60 80 20">',
		'<input id="cardPin" aria-label="Card 2" value="739164" data-box="0 90 80 20">',
		'<label>Security code <input value="042" data-box="0 120 80 20"></label>',
		'<input placeholder="Your OTP" value="881122" data-box="0 150 80 20">',
		'<input name="api_token" aria-label="Key" value="tok-abc-123" data-box="0 180 80 20">',
		'<textarea name="client_secret" aria-label="Client" data-box="0 210 80 20">s3cr3t-value</textarea>',
		'<input type="number" name="cvv" aria-label="CVV" value="123" data-box="0 240 80 20">',
	];
	const plain = [
		'<input name="shipping" aria-label="Shipping" value="Express" data-box="0 300 80 20">',
		'<input name="spinner" aria-label="Spin" value="7" data-box="0 330 80 20">',
		'<input type="email" autocomplete="username" aria-label="Email" value="ada@example.com" data-box="0 360 80 20">',
		'<input name="opinion" aria-label="Opinion" value="Good" data-box="0 390 80 20">',
	];
	const { api } = pageWith([...secret, ...plain].join(''));
	const { items } = api.snapshot();
	assert.equal(items.length, secret.length + plain.length);
	items.forEach((item, i) => {
		const html = [...secret, ...plain][i];
		const value = /value="([^"]*)"|>([^<]+)<\/textarea>/.exec(html).slice(1).find(v => v !== undefined);
		if (i < secret.length) {
			assert.equal(item.secret, true, html);
			assert.equal(item.value, '•'.repeat(Math.min(value.length, 8)), html);
			assert.equal(api.readValue(item.id).value, '•'.repeat(value.length), `${html}: readValue`);
			assert.equal(api.prepareType(item.id, {}).info.secret, true, `${html}: prepareType`);
		} else {
			assert.equal(item.secret, undefined, html);
			assert.equal(item.value, value, html);
			assert.equal(api.readValue(item.id).value, value);
			assert.equal(api.prepareType(item.id, {}).info.secret, undefined);
		}
	});
});

// Issue #35 (after finding 7): press_keys without a ref asks whether the
// focused field holds a secret before it echoes the keys.
test('focusSecret says whether the focused field holds a secret, inside a shadow root too', () => {
	const { document, api } = pageWith('<input type="password" id="pin" aria-label="PIN" data-box="0 0 80 20">' +
	    '<input id="name" aria-label="Name" data-box="0 30 80 20"><div id="host"></div>');
	assert.equal(api.focusSecret(), false, 'nothing focused');
	document.getElementById('pin').focus();
	assert.equal(api.focusSecret(), true);
	document.getElementById('name').focus();
	assert.equal(api.focusSecret(), false);
	const root = document.getElementById('host').attachShadow({ mode: 'open' });
	root.innerHTML = '<input autocomplete="one-time-code" aria-label="Code">';
	root.querySelector('input').focus();
	assert.equal(document.activeElement, document.getElementById('host'));
	assert.equal(api.focusSecret(), true);
});

test('typing into a disabled or read-only field is refused with the reason', () => {
	const { api } = pageWith('<input disabled aria-label="Off" data-box="0 0 80 20"><input readonly aria-label="Fixed" data-box="0 30 80 20">');
	const { items } = api.snapshot();
	const byName = Object.fromEntries(items.map(item => [item.name, item.id]));
	assert.match(api.prepareType(byName.Fixed, {}).error.message, /read-only/);
	assert.equal(api.prepareType(byName.Fixed, {}).error.code, 'NOT_INTERACTABLE');
	assert.match(api.prepareType(byName.Off, {}).error.message, /disabled/);
});

test('a click is refused on a covered element, naming what covers it', () => {
	const { document, api } = pageWith('<button id="pay" data-box="0 0 80 20">Pay</button>');
	const [{ id }] = api.snapshot().items;
	const banner = document.createElement('div');
	banner.className = 'cookie-banner';
	banner.setAttribute('data-box', '0 0 400 100');
	banner.textContent = 'We use cookies';
	document.body.append(banner);
	const answer = api.prepareClick(id);
	assert.equal(answer.error.code, 'NOT_INTERACTABLE');
	assert.equal(answer.error.message, 'it is covered by div "We use cookies"');
	banner.remove();
	assert.equal(api.prepareClick(id).error, undefined);
});

test('a cover with an accessible name is named by it, even where a child of it is in front', () => {
	const { document, api } = pageWith('<button id="pay" data-box="0 0 80 20">Pay</button>' +
	    '<section id="main" aria-label="Checkout"><button id="buy" data-box="100 0 80 20">Buy</button></section>');
	const ids = Object.fromEntries(api.snapshot().items.map(item => [item.name, item.id]));
	const banner = document.createElement('div');
	banner.id = 'consent';
	banner.setAttribute('aria-label', 'Cookie banner');
	banner.innerHTML = '<p data-box="0 0 400 100">We use cookies</p>';
	document.body.append(banner);
	assert.equal(api.prepareClick(ids.Pay).error.message, 'it is covered by "Cookie banner"');
	assert.equal(api.snapshot().items.find(item => item.name === 'Pay').covered_by, '"Cookie banner"');
	banner.remove();
	/* What is in front inside the element's own named section is not named by the section. */
	const overlay = document.createElement('span');
	overlay.id = 'spinner';
	overlay.setAttribute('data-box', '100 0 80 20');
	document.getElementById('main').append(overlay);
	assert.equal(api.prepareClick(ids.Buy).error.message, 'it is covered by span#spinner');
	const dialog = document.createElement('div');
	dialog.setAttribute('role', 'dialog');
	dialog.innerHTML = '<h2>Sign in</h2><p data-box="0 0 400 100">Your email</p>';
	document.body.append(dialog);
	assert.equal(api.prepareClick(ids.Pay).error.message, 'it is covered by dialog "Sign in"');
});

test('a synthetic click reaches the element\'s listeners', () => {
	const { document, api } = pageWith('<button id="pay" data-box="0 0 80 20">Pay</button>');
	let clicks = 0;
	document.getElementById('pay').addEventListener('click', () => clicks++);
	const [{ id }] = api.snapshot().items;
	assert.equal(api.syntheticClick(id).ok, true);
	assert.equal(clicks, 1);
});

test('watchQuiet resolves once the DOM has been still, and at the cap while it keeps changing', async () => {
	const { window, document, page } = pageWith('<p id="clock" data-box="0 0 80 20">0</p>');
	const clock = document.getElementById('clock');
	const still = page.watchStart();
	clock.textContent = '1';	/* one change, then nothing */
	const settled = await page.watchQuiet(still, 30, 2000);
	assert.equal(settled.quiet, true);
	assert.equal(settled.count, 1, 'the watch ends with the changes it saw');
	assert.equal(page.watchStop(still), -1, 'and is gone');

	const busy = page.watchStart();
	const ticker = window.setInterval(() => { clock.textContent = String(Number(clock.textContent) + 1); }, 5);
	try {
		const capped = await page.watchQuiet(busy, 60, 300);
		assert.equal(capped.quiet, false, 'the cap ends a wait on a page that never stops');
		assert.ok(capped.count > 3);
	} finally {
		window.clearInterval(ticker);
	}
	assert.equal((await page.watchQuiet(12345, 30, 100)).quiet, true, 'an unknown watch does not hold anyone up');
});

test('a look that comes a whole window late (the page could not run either) starts the window again', async () => {
	const { window, document, page } = pageWith('<p id="clock" data-box="0 0 80 20">0</p>');
	const clock = document.getElementById('clock');
	const token = page.watchStart();
	clock.textContent = '1';
	await Promise.resolve();	/* the observer hears of it now, before the thread is held */
	const settled = page.watchQuiet(token, 30, 2000);
	window.setTimeout(() => { clock.textContent = '2'; }, 10);	/* what the page does once it runs again */
	const busyUntil = Date.now() + 100;
	while (Date.now() < busyUntil)
		;	/* the thread is held: neither the look nor the page's timer runs */
	const answer = await settled;
	assert.equal(answer.quiet, true);
	assert.equal(answer.count, 2, 'the change the page made when it ran again was seen before calling it still');
});

test('watchQuiet waits until the page has the responses the browser saw end (at most 100 ms), then for the window; a full buffer ends the wait', async () => {
	const { window, document, page } = pageWith('<main id="view"><p>Loading</p></main>');
	const entries = [];
	window.performance.getEntriesByType = type => (type === 'resource' ? [...entries] : []);
	/* As a busy machine does it: the response reaches the page 80 ms after the browser saw it end, then the app renders. */
	window.setTimeout(() => {
		entries.push({ name: 'https://shop.test/api/todos' });
		window.setTimeout(() => { document.getElementById('view').innerHTML = '<button>Add todo</button>'; }, 5);
	}, 80);
	const token = page.watchStart();
	const settled = await page.watchQuiet(token, 30, 2000, ['https://shop.test/api/todos']);
	assert.equal(settled.quiet, true);
	assert.ok(settled.count >= 1, 'the render after the response was seen before calling it still');
	assert.ok(document.querySelector('button'));

	const alone = page.watchStart();
	const windowAlone = await page.watchQuiet(alone, 30, 2000, []);
	assert.equal(windowAlone.quiet, true, 'with nothing to wait for, the window alone');
	assert.equal(windowAlone.count, 0);

	/* One the page never lists (a worker's fetch, in the worker's own timeline) is waited for 100 ms, not until the cap. */
	const never = page.watchStart();
	const neverBegun = Date.now();
	const unlisted = await page.watchQuiet(never, 30, 2000, ['https://shop.test/api/never']);
	assert.equal(unlisted.quiet, true, 'then the window alone decides');
	assert.ok(unlisted.elapsed >= 100 + 30, `it waited for the response first (${unlisted.elapsed} ms)`);
	assert.ok(Date.now() - neverBegun < 1000, 'not until the cap');

	entries.length = 0;
	for (let i = 0; i < 250; i++)
		entries.push({ name: `https://shop.test/img/${i}.png` });
	const full = page.watchStart();
	const begun = Date.now();
	assert.equal((await page.watchQuiet(full, 30, 2000, ['https://shop.test/api/dropped'])).quiet, true);
	assert.ok(Date.now() - begun < 1000, 'a full buffer may have dropped it: not waited for');
});

/**
 * Installs the short-timer tracker (page/timers.js) as the page's own world
 * has it, and returns that world's timer functions (bound to the window);
 * the window keeps its own for the in-page script, which in the browser
 * runs in the extension's isolated world, whose timers are its own.
 */
function pageTimers(window) {
	const names = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'];
	const own = Object.fromEntries(names.map(name => [name, window[name]]));
	window.eval(readFileSync(new URL('page/timers.js', extensionDir), 'utf8'));
	const page = Object.fromEntries(names.map(name => [name, window[name].bind(window)]));
	Object.assign(window, own);
	return page;
}

test('watchQuiet on a page that has just loaded waits for the short timers it set, then for the window; later links of a chain, long timers and intervals do not hold it', async () => {
	const { window, document, page } = pageWith('<main id="view"><p>Loading</p></main>');
	const timers = pageTimers(window);
	/* As late-view.html?via=timer does it: a view from a timer set as the page loaded, before the watch. */
	timers.setTimeout(() => { document.getElementById('view').innerHTML = '<button>Add todo</button>'; }, 300);
	const long = timers.setTimeout(() => { document.getElementById('view').textContent = 'Banner'; }, 5000);
	const interval = timers.setInterval(() => {}, 10);
	let links = 0;
	let polling = true;
	const poll = () => {
		links++;
		if (polling)
			timers.setTimeout(poll, 40);
	};
	timers.setTimeout(poll, 40);
	try {
		const token = page.watchStart(true);
		const settled = await page.watchQuiet(token, 30, 2000);
		assert.equal(settled.quiet, true, `not at the cap (${settled.elapsed} ms)`);
		assert.ok(document.querySelector('button'), 'the view the timer rendered was there before calling it still');
		assert.ok(settled.count >= 1);
		assert.ok(links >= 1, 'the first link of the chain, set before the wait, was waited for');
	} finally {
		polling = false;
		timers.clearTimeout(long);
		timers.clearInterval(interval);
	}
});

test('a watch for an action waits for the short timers set since it started, not before; a cleared one does not hold it', async () => {
	const { window, document, page } = pageWith('<ul id="items"></ul>');
	const timers = pageTimers(window);
	const add = name => () => { document.getElementById('items').insertAdjacentHTML('beforeend', `<li>${name}</li>`); };
	const older = timers.setTimeout(add('older'), 1500);
	const token = page.watchStart();
	/* What the action's click handler does: a toast from a timer, and one it takes back. */
	timers.setTimeout(add('toast'), 300);
	timers.clearTimeout(timers.setTimeout(add('cleared'), 300));
	try {
		const settled = await page.watchQuiet(token, 30, 2000);
		assert.equal(settled.quiet, true);
		assert.deepEqual([...document.querySelectorAll('li')].map(li => li.textContent), ['toast'],
		    'the timer set since the watch started ran first; the older one and the cleared one were not waited for');
	} finally {
		timers.clearTimeout(older);
	}
});

test('a watch started warm walks the page once, in a timer, changing nothing; a big page is not walked', async () => {
	const body = '<label>Gift <input type="checkbox" data-box="0 0 20 20"></label><button data-box="0 30 80 20">Pay</button>';
	const walks = ({ window }) => {
		const style = window.getComputedStyle;
		const counter = { calls: 0 };
		window.getComputedStyle = element => { counter.calls++; return style(element); };
		return counter;
	};
	const tick = window => new Promise(resolve => window.setTimeout(resolve, 20));
	const cold = pageWith(body);
	const coldCalls = walks(cold);
	cold.page.watchStop(cold.page.watchStart());
	await tick(cold.window);
	assert.equal(coldCalls.calls, 0, 'a watch alone walks nothing');

	const warm = pageWith(body);
	const warmCalls = walks(warm);
	const token = warm.page.watchStart(true);
	assert.equal(warmCalls.calls, 0, 'the walk waits for a timer');
	const settled = await warm.page.watchQuiet(token, 30, 2000);
	assert.ok(warmCalls.calls >= 4, `the page was walked (${warmCalls.calls} styles read)`);
	assert.equal(settled.count, 0, 'the walk changes nothing on the page');
	const once = warmCalls.calls;
	warm.page.watchStop(warm.page.watchStart(true));
	await tick(warm.window);
	assert.equal(warmCalls.calls, once, 'only once per document');
	assert.deepEqual(warm.api.snapshot(), cold.api.snapshot(), 'the state read after it is the same');

	const big = pageWith(body + '<span></span>'.repeat(1000));
	const bigCalls = walks(big);
	big.page.watchStop(big.page.watchStart(true));
	await tick(big.window);
	assert.equal(bigCalls.calls, 0);
});

test('elements whose :hover shows another get a ref; the style sheets are read again when their rules change', () => {
	const { document, api } = pageWith(`
		<style>.menu:hover > .sub { display: block } .card:hover { color: red }</style>
		<span class="menu" data-box="0 0 80 20">Products<span class="sub"></span></span>
		<span class="card" data-box="0 30 80 20">Card</span>
		<span class="tip" data-box="0 60 80 20">Help</span>`);
	const hoverable = () => api.snapshot().items.filter(i => i.role === 'hoverable').map(i => i.name);
	assert.deepEqual(hoverable(), ['Products'], 'a rule that restyles only the hovered element shows nothing');
	const sheet = document.styleSheets[0];
	sheet.insertRule('.tip:hover + .bubble { display: block }', sheet.cssRules.length);
	assert.deepEqual(hoverable(), ['Products', 'Help'], 'a rule added later counts');
	sheet.deleteRule(0);
	assert.deepEqual(hoverable(), ['Help'], 'a rule removed no longer counts');
});

test('listener-only elements get refs from one list request to the click-listener tracker; an older tracker is asked element by element', () => {
	const trackerSource = readFileSync(new URL('page/click-listeners.js', extensionDir), 'utf8');
	const body = '<div id="buy" data-box="0 0 80 20">Buy</div><div id="menu" data-box="0 30 80 20">Menu</div>' +
	    '<div id="text" data-box="0 60 80 20">Text</div>';
	const listed = items => items.filter(i => i.role === 'clickable' || i.role === 'hoverable').map(i => `${i.role} ${i.name}`);
	const questionsIn = window => {
		const asked = [];
		window.addEventListener('__browser_bridge_has_click__', event => {
			if (event.target !== window)
				asked.push(event.target.id);
		}, true);
		return asked;
	};

	const current = pageWith(body);
	current.window.eval(trackerSource);
	current.document.getElementById('buy').addEventListener('click', () => {});
	current.document.getElementById('menu').addEventListener('mouseenter', () => {});
	const asked = questionsIn(current.window);
	const toWindow = [];
	for (const query of ['__browser_bridge_has_click__', '__browser_bridge_list_listeners__']) {
		current.window.addEventListener(query, event => {
			if (event.target === current.window)
				toWindow.push(query);
		}, true);
	}
	assert.deepEqual(listed(current.api.snapshot().items), ['clickable Buy', 'hoverable Menu']);
	assert.deepEqual(asked, [], 'no question per element');
	assert.deepEqual(toWindow, ['__browser_bridge_list_listeners__'], 'one question for the document: the list, not also whether the tracker runs');

	const older = pageWith(body);
	for (const [query, id] of [['__browser_bridge_has_click__', 'buy'], ['__browser_bridge_has_hover__', 'menu']]) {
		older.window.addEventListener(query, event => {
			if (event.target === older.window || event.target.id === id)
				event.preventDefault();
		}, true);
	}
	const askedOlder = questionsIn(older.window);
	assert.deepEqual(listed(older.api.snapshot().items), ['clickable Buy', 'hoverable Menu']);
	assert.ok(askedOlder.includes('text'), 'an older tracker is asked about each element');
});

test('a state read reads each element\'s box, position, overflow and cursor once, however many questions they answer', () => {
	const { window, api } = pageWith('<div style="overflow-x: hidden; overflow-y: hidden" data-box="0 0 300 100">' +
	    '<input id="q" style="overflow-x: hidden; overflow-y: hidden; position: relative" data-box="0 0 100 20">' +
	    '<span data-box="0 30 100 20"><b data-box="0 30 10 20">a</b><i data-box="10 30 10 20">b</i><u data-box="20 30 10 20">c</u></span></div>');
	const boxes = new Map();
	const box = window.Element.prototype.getBoundingClientRect;
	window.Element.prototype.getBoundingClientRect = function () {
		boxes.set(this, (boxes.get(this) ?? 0) + 1);
		return box.call(this);
	};
	const reads = new Map();
	const style = window.getComputedStyle;
	window.getComputedStyle = element => new Proxy(style(element), {
		get: (target, name) => {
			if (name === 'position' || name === 'overflowX' || name === 'overflowY' || name === 'cursor') {
				const key = `${element.tagName} ${name}`;
				reads.set(key, (reads.get(key) ?? 0) + 1);
			}
			return target[name];
		},
	});
	assert.deepEqual(api.snapshot().items.map(i => `${i.role} ${i.name}`), ['textbox ']);
	assert.deepEqual([...boxes.values()].filter(n => n > 1), [], 'no element\'s box is read twice');
	assert.deepEqual([...reads].filter(([, n]) => n > 1), [], 'no position, overflow or cursor is read twice');
	assert.equal(reads.get('SPAN cursor'), 1, 'the span\'s cursor is read once, for its role and its three children');
});

test('a state read leaves the overflow and transform of boxes with no children unread, but not of fields, and a scrolling field is still listed as scrollable', () => {
	const { window, api } = pageWith('<div data-box="0 0 300 100"><span data-box="0 0 50 20">text</span>' +
	    '<input id="q" data-box="0 30 100 20"><img alt="" data-box="0 60 10 10">' +
	    '<textarea style="overflow-x: auto; overflow-y: auto" data-box="0 80 100 20">notes</textarea></div>');
	const reads = new Map();
	const style = window.getComputedStyle;
	window.getComputedStyle = element => new Proxy(style(element), {
		get: (target, name) => {
			if (name === 'overflowX' || name === 'overflowY' || name === 'transform')
				reads.set(element.tagName, [...(reads.get(element.tagName) ?? []), name]);
			return target[name];
		},
	});
	assert.deepEqual(api.snapshot().items.map(i => i.role), ['textbox', 'textarea']);
	assert.deepEqual(['SPAN', 'INPUT', 'IMG'].filter(tag => reads.has(tag)), [], 'a box with no children is not asked what only its children need');
	assert.deepEqual(reads.get('TEXTAREA'), ['overflowX', 'overflowY'], 'a field\'s overflow is read: its text can scroll');
	assert.deepEqual(reads.get('DIV'), ['overflowX', 'overflowY', 'transform'], 'a box with children is asked all three');
	Object.defineProperty(window.document.querySelector('textarea'), 'scrollHeight', { value: 200 });
	assert.deepEqual(api.snapshot().items.map(i => i.role), ['textbox', 'textarea', 'scrollable'], 'a field whose text scrolls is listed as scrollable too');
});

test('the snapshot gives the top frame\'s visible text only when asked, null when the page has none to give', () => {
	const { document, api } = pageWith('<button data-box="0 0 80 20">Pay</button><p>Total: 12 EUR</p>');
	assert.equal('text' in api.snapshot(), false, 'not asked: no text');
	assert.equal(api.snapshot({ text: true }).text, null, 'jsdom lays out nothing: no innerText, so get_page_content must read it');
	Object.defineProperty(document.body, 'innerText', { get: () => '\n Pay\nTotal: 12 EUR \n' });
	assert.equal(api.snapshot({ text: true }).text, 'Pay\nTotal: 12 EUR', 'innerText, trimmed, as get_page_content reads it');
});

// The ElementInternals properties the click-listener tracker reads
// (page/click-listeners.js). jsdom 26 reflects none of them (its setters
// throw), so withInternalsAria gives ElementInternals plain accessors that
// keep a string or null, as the ARIA mixin does.
const INTERNALS_ARIA = ['role', 'ariaLabel', 'ariaChecked', 'ariaSelected', 'ariaPressed', 'ariaExpanded',
	'ariaDisabled', 'ariaValueNow', 'ariaValueText'];

// Gives a jsdom window's ElementInternals the ARIA accessors it lacks, then
// runs the click-listener tracker in it, as the page's world has it before
// any page script.
function withTracker(window) {
	const values = new WeakMap();
	for (const name of INTERNALS_ARIA) {
		Object.defineProperty(window.ElementInternals.prototype, name, {
			get() {
				return values.get(this)?.[name] ?? null;
			},
			set(value) {
				values.set(this, { ...values.get(this), [name]: value === null ? null : String(value) });
			},
			configurable: true, enumerable: true,
		});
	}
	window.eval(readFileSync(new URL('page/click-listeners.js', extensionDir), 'utf8'));
}

test('a custom element\'s role, name and states set through ElementInternals are listed; a role attribute wins; one element is asked alone', () => {
	const page = pageWith('<section id="here"></section>');
	withTracker(page.window);
	page.window.eval(`
		customElements.define('x-stars', class extends HTMLElement {
			static formAssociated = true;
			connectedCallback() {
				const internals = this.attachInternals();
				internals.role = 'slider';
				internals.ariaValueNow = '3';
			}
		});
		customElements.define('x-action', class extends HTMLElement {
			connectedCallback() {
				const internals = this.attachInternals();
				internals.role = 'button';
				internals.ariaLabel = 'Internals button';
			}
		});
		customElements.define('x-choice', class extends HTMLElement {
			static formAssociated = true;
			connectedCallback() {
				this.internals = this.attachInternals();
				this.internals.role = 'radio';
				this.internals.ariaChecked = 'true';
			}
		});
		document.getElementById('here').innerHTML =
		    '<label>Rating <x-stars data-box="0 0 80 20">★★★</x-stars></label>' +
		    '<x-action data-box="0 30 80 20">Slotted text</x-action>' +
		    '<x-choice id="small" data-box="0 60 20 20"></x-choice><label for="small">Small</label>' +
		    '<x-action role="link" aria-label="Attributes win" data-box="0 90 80 20">Text</x-action>';
	`);
	const items = page.api.snapshot().items.map(({ role, name, value, checked, selected }) => ({ role, name, value, checked, selected }));
	assert.deepEqual(JSON.parse(JSON.stringify(items)), [
		{ role: 'slider', name: 'Rating', value: '3' },
		{ role: 'button', name: 'Internals button' },
		{ role: 'radio', name: 'Small', checked: true },
		{ role: 'link', name: 'Attributes win' },
	]);
	const choice = page.document.getElementById('small');
	const id = page.api.snapshot().items[2].id;
	choice.internals.ariaChecked = 'false';
	assert.deepEqual(page.api.state(id), { checked: false }, 'stateOf asks the tracker about the one element');
	assert.deepEqual(page.api.info(id), { role: 'radio', name: 'Small' });
});

test('without the tracker, a role set through ElementInternals is not seen', () => {
	const page = pageWith('<x-plain data-box="0 0 80 20" style="cursor: pointer">Plain</x-plain>');
	page.window.eval(`customElements.define('x-plain', class extends HTMLElement {
		connectedCallback() { this.attachInternals(); }
	});`);
	assert.deepEqual(page.api.snapshot().items.map(i => `${i.role} ${i.name}`), ['clickable Plain']);
});

// Gives a jsdom window an Element.prototype.checkVisibility that, like
// Chromium's, finds an element hidden by opacity 0 on it or on an ancestor
// of the flat tree (opacityProperty) and by visibility (visibilityProperty).
function withCheckVisibility(window) {
	window.Element.prototype.checkVisibility = function (options = {}) {
		const style = window.getComputedStyle(this);
		if (options.visibilityProperty && style.visibility !== 'visible')
			return false;
		for (let n = this; n !== null; n = n.assignedSlot ?? n.parentElement ?? n.getRootNode().host ?? null) {
			if (options.opacityProperty && window.getComputedStyle(n).opacity === '0')
				return false;
		}
		return true;
	};
}

test('a transparent field the page draws itself is listed; one in a faded section, out of the tab order, or a transparent button is not', () => {
	const page = pageWith(`
		<label><input type="checkbox" style="opacity: 0" data-box="0 0 16 16" checked><span data-box="0 0 16 16"></span> Remember me</label>
		<x-field id="email" data-box="0 30 200 30"></x-field>
		<div style="opacity: 0"><input aria-label="Faded" data-box="0 70 200 20"></div>
		<select aria-label="Copy" tabindex="-1" style="opacity: 0" data-box="0 100 200 20"><option>A</option></select>
		<button style="opacity: 0" data-box="0 130 80 20">Invisible</button>`);
	withCheckVisibility(page.window);
	page.window.eval(`customElements.define('x-field', class extends HTMLElement {
		constructor() {
			super();
			this.attachShadow({ mode: 'open' }).innerHTML = '<span data-box="4 30 100 20">Email</span>' +
			    '<div style="opacity: 0" data-box="4 34 190 20"><input aria-label="Email" type="email" data-box="4 34 190 20"></div>';
		}
	});`);
	const state = page.api.snapshot();
	assert.deepEqual(state.items.map(i => [i.role, i.name, i.checked]),
	    [['checkbox', 'Remember me', true], ['textbox', 'Email', undefined]]);
	assert.equal(state.hidden, 3, 'the faded field, the hidden copy and the transparent button');
	const click = page.api.prepareClick(state.items[0].id);
	assert.equal(click.error, undefined, 'the checkbox takes a click, through what its label draws');
	assert.deepEqual([click.x, click.y], [8, 8]);
	assert.equal(page.api.prepareType(state.items[1].id, {}).error, undefined, 'the field takes typed text');
});

test('a label or a custom element\'s host clickable only by its cursor is left out when it holds its listed control; another clickable box is not', () => {
	const page = pageWith(`
		<label style="cursor: pointer" data-box="0 0 200 20"><input type="checkbox" data-box="0 0 16 16"> Send me news</label>
		<x-button style="cursor: pointer" data-box="0 30 80 20">Save</x-button>
		<div style="cursor: pointer" data-box="0 60 300 60">Product card <button data-box="0 90 80 20">Buy</button></div>`);
	page.window.eval(`customElements.define('x-button', class extends HTMLElement {
		constructor() {
			super();
			this.attachShadow({ mode: 'open' }).innerHTML = '<button data-box="0 30 80 20"><slot></slot></button>';
		}
	});`);
	assert.deepEqual(page.api.snapshot().items.map(i => `${i.role} ${i.name}`),
	    ['checkbox Send me news', 'button Save', 'clickable Product card Buy', 'button Buy']);
});

test('a listbox is listed with its options', () => {
	const { api } = pageWith(`<ul role="listbox" aria-label="Fruit" aria-expanded="false" data-box="0 0 200 40">
		<li role="option" aria-selected="true" data-box="0 0 200 20">Apple</li><li role="option" data-box="0 20 200 20">Pear</li></ul>`);
	assert.deepEqual(api.snapshot().items.map(i => [i.role, i.name, i.selected ?? i.expanded]),
	    [['listbox', 'Fruit', false], ['option', 'Apple', true], ['option', 'Pear', undefined]]);
});
