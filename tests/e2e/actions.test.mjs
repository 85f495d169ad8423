// End-to-end: navigation and input actions (navigate_to, navigate_history,
// click_element, type_value, scroll_page) in real Chromium, each checked
// against the page itself through the DevTools pipe.

import { createServer } from 'node:net';
import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';
import { scaled } from '../timing.mjs';

describe('navigation', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('navigate_to waits for the load event by default and reports the page', async () => {
		const url = b.page('checkout.html');
		const { text, data } = await b.ok('navigate_to', { url });
		assert.equal(data.url, url);
		assert.equal(data.title, 'Checkout');
		assert.equal(data.status, 200);
		assert.equal(data.url_changed, true);
		assert.match(text, new RegExp(`^Loaded in tab ${data.tab_id}: .*checkout\\.html.* "Checkout"\\.$`));
		assert.equal(await b.evaluate(url, 'document.readyState'), 'complete');
	});

	test('navigate_to with domcontentloaded returns before a slow image has loaded', async () => {
		const url = b.page('slow-image.html');
		await b.ok('navigate_to', { url, wait_until: 'domcontentloaded' });
		assert.equal(await b.evaluate(url, 'document.readyState'), 'interactive');
	});

	test('navigate_to with networkidle waits for requests made after the load event', async () => {
		const url = b.page('network.html');
		await b.ok('navigate_to', { url, wait_until: 'networkidle' });
		assert.equal(await b.evaluate(url, 'window.__resourceLoaded === true'), true);
	});

	/** Whether a state holds late-view.html's view. */
	const hasLateView = s => s.find('button', 'Add todo') && s.find('textbox', '');

	/*
	 * The settle is capped at 1 s. On a machine so busy that the app's
	 * request and render take longer, navigate_to says the page had not
	 * settled (`still`) and to read the state again; such a read must then
	 * find the view, and only a minority of reads may come to the cap.
	 */
	test('the state after navigate_to holds a view the app renders 200-400 ms after the load event, 20 times in a row', async () => {
		const capped = [];
		for (let i = 0; i < 20; i++) {
			const via = i % 2 === 0 ? 'fetch' : 'chunk';
			const loaded = await b.ok('navigate_to', { url: b.page(`late-view.html?via=${via}`) });
			if (loaded.data.still !== undefined) {
				capped.push(`read ${i + 1}: ${loaded.text}`);
				await until(async () => hasLateView(await b.state()), { what: `read ${i + 1}'s view after the cap` });
				continue;
			}
			const s = await b.state();
			assert.ok(hasLateView(s), `read ${i + 1} (the view waits for a ${via}) lacks the app's view:\n${s.text}\nafter: ${loaded.text}`);
		}
		assert.ok(capped.length < 10, `the settle came to its cap in ${capped.length} of 20 reads:\n${capped.join('\n')}`);
	});

	/*
	 * No request announces this view: the settle knows of the timer from
	 * the page's own world (page/timers.js), and waits for it. Its cap
	 * (1 s) is far beyond the timer, so every read must have the view.
	 */
	test('the state after navigate_to holds a view the app renders from a timer alone 200-400 ms after the load event, 12 times in a row', async () => {
		for (let i = 0; i < 12; i++) {
			const loaded = await b.ok('navigate_to', { url: b.page('late-view.html?via=timer') });
			const s = await b.state();
			assert.ok(hasLateView(s), `read ${i + 1} lacks the app's view:\n${s.text}\nafter: ${loaded.text}`);
		}
	});

	test('navigate_to on a page with a 5 s timer, a 100 ms interval and a chain of 100 ms timeouts settles without waiting for them', async () => {
		const loaded = await b.ok('navigate_to', { url: b.page('timers.html') });
		assert.equal(loaded.data.still, undefined, `the settle came to its cap: ${loaded.text}`);
		/* The page's timers run as they would without the extension. */
		await until(async () => (await b.evaluate(loaded.data.url, 'window.intervalTicks >= 3 && window.pollTicks >= 3')) === true,
		    { what: 'the interval and the chain of timeouts ticking' });
	});

	test('navigate_to on a page whose worker fetches its data settles once the view is there, not at the cap', async () => {
		const loaded = await b.ok('navigate_to', { url: b.page('worker-fetch.html') });
		assert.equal(loaded.data.still, undefined, `the settle came to its cap: ${loaded.text}`);
		assert.equal(await b.evaluate(loaded.data.url, 'document.getElementById("status").textContent'), 'The worker answered');
	});

	test('navigate_to with none returns at once', async () => {
		/* The page answers only when released: the call returns while it is still held, so it waited for nothing. */
		const url = b.page('held?key=none');
		const start = Date.now();
		const { text, data } = await b.ok('navigate_to', { url, wait_until: 'none' });
		assert.ok(Date.now() - start < scaled(2500), `took ${Date.now() - start} ms`);
		assert.match(text, /^Started loading in tab/);
		assert.equal(data.waited_for, 'none');
		await b.site.arrived('none');
		b.site.release('none');
		await until(async () => (await b.evaluate(url, 'document.title')) === 'Held page', { what: 'the held page' });
	});

	test('navigate_to that does not load in time is TIMEOUT with what to do', async () => {
		const error = await b.fails('navigate_to', { url: b.page('hang'), timeout_ms: 600 });
		assert.equal(error.code, 'TIMEOUT');
		assert.match(error.message, /did not reach "load" in time/);
		assert.match(error.message, /timeout_ms/);
	});

	test('a refused connection is NAVIGATION_FAILED naming the network error', async () => {
		const server = createServer();
		await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address();
		await new Promise(resolve => server.close(resolve));
		const error = await b.fails('navigate_to', { url: `http://127.0.0.1:${port}/` });
		assert.equal(error.code, 'NAVIGATION_FAILED');
		assert.match(error.message, /net::ERR_CONNECTION_REFUSED/);
		assert.match(error.message, /server is running/);
	});

	test('a relative URL is INVALID_ARGUMENT and a 404 is reported', async () => {
		const bad = await b.fails('navigate_to', { url: 'checkout.html' });
		assert.equal(bad.code, 'INVALID_ARGUMENT');
		assert.match(bad.message, /absolute URL/);
		const missing = await b.ok('navigate_to', { url: b.page('status/404') });
		assert.equal(missing.data.status, 404);
		assert.match(missing.text, /404 Not Found/);
	});

	test('navigate_to with new_tab opens and activates a tab', async () => {
		const before = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
		const url = b.page('form.html');
		const { data } = await b.ok('navigate_to', { url, new_tab: true });
		assert.equal(data.new_tab, true);
		assert.ok(!before.some(t => t.id === data.tab_id));
		const tabs = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
		assert.deepEqual(tabs.filter(t => t.active).map(t => t.id), [data.tab_id]);
		assert.equal(await b.evaluate(url, 'document.title'), 'Form fixture');
		await b.ok('manage_tabs', { action: 'close', tab_id: data.tab_id });
	});

	test('navigate_to sends progress when asked', async () => {
		const progress = [];
		const result = await b.call('navigate_to', { url: b.page('checkout.html') },
		    { onprogress: p => progress.push(p) });
		assert.ok(!result.isError);
		assert.ok(progress.length >= 2, JSON.stringify(progress));
		assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress));
	});

	test('navigate_history goes back, forward and reloads', async () => {
		const first = b.page('checkout.html');
		const second = b.page('form.html');
		const { tabId } = await b.open('index.html');
		await b.ok('navigate_to', { url: first });
		await b.ok('navigate_to', { url: second });
		const back = await b.ok('navigate_history', { action: 'back' });
		assert.equal(back.data.url, first);
		assert.match(back.text, new RegExp(`^Went back in tab ${tabId}: `));
		assert.equal(await b.evaluate(first, 'document.title'), 'Checkout');
		const forward = await b.ok('navigate_history', { action: 'forward' });
		assert.equal(forward.data.url, second);
		await b.evaluate(second, 'window.__marker = 1');
		await b.ok('navigate_history', { action: 'reload' });
		assert.equal(await b.evaluate(second, 'window.__marker'), undefined);
	});

	test('navigate_history follows pushState entries of a single-page app', async () => {
		const { url } = await b.open('spa.html');
		const s = await b.state();
		const click = await b.ok('click_element', { ref: s.ref('button', 'About') });
		assert.equal(click.data.url_changed, true);
		assert.equal(click.data.navigated, false);
		assert.match(click.text, /The URL changed to .*\/spa\/about \(same page\)/);
		const about = click.data.url;
		assert.equal(await b.evaluate(about, 'document.title'), 'SPA about');
		const back = await b.ok('navigate_history', { action: 'back' });
		assert.equal(back.data.url, url);
		assert.equal(await b.evaluate(url, 'document.title'), 'SPA home');
	});

	test('going back with no history is NAVIGATION_FAILED', async () => {
		const opened = await b.ok('manage_tabs', { action: 'open' });
		const error = await b.fails('navigate_history', { action: 'back', tab_id: opened.data.tab_id });
		assert.equal(error.code, 'NAVIGATION_FAILED');
		assert.match(error.message, /no previous page/);
		await b.ok('manage_tabs', { action: 'close', tab_id: opened.data.tab_id });
	});
});

describe('clicking', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('click_element checks a checkbox with a trusted click and says so', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		const ref = s.ref('checkbox', 'I agree');
		const { text, data } = await b.ok('click_element', { ref });
		assert.equal(await b.evaluate(url, 'document.getElementById("agree").checked'), true);
		assert.match(text, new RegExp(`^Clicked ${ref} \\(checkbox "I agree"\\)\\. ${ref} is now checked\\.`));
		assert.equal(data.dom_changed, true);
		await b.ok('click_element', { ref: s.ref('button', 'Trusted check') });
		assert.equal(await b.evaluate(url, 'document.getElementById("trusted").textContent'), 'Trusted true');
	});

	test('double, right and modifier clicks reach the page', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		const dbl = await b.ok('click_element', { ref: s.ref('button', 'Double click me'), click_count: 2 });
		assert.match(dbl.text, /^Double-clicked/);
		assert.equal(await b.evaluate(url, 'document.getElementById("dbl").textContent'), 'Double clicked');
		await b.ok('click_element', { ref: s.ref('button', 'Right click me'), button: 'right' });
		assert.equal(await b.evaluate(url, 'document.getElementById("ctx").textContent'), 'Right clicked');
		await b.ok('click_element', { ref: s.ref('button', 'Modifier click'), modifiers: ['Control', 'Shift'] });
		assert.equal(await b.evaluate(url, 'document.getElementById("modclick").textContent'), 'Mods Control+Shift');
	});

	test('an element below the fold is scrolled into view and clicked', async () => {
		const { url } = await b.open('long.html');
		const s = await b.state({ full_page: true });
		await b.ok('click_element', { ref: s.ref('button', 'Bottom button') });
		assert.equal(await b.evaluate(url, 'document.getElementById("bottom-button").textContent'), 'Bottom clicked');
		assert.ok(await b.evaluate(url, 'scrollY') > 3000);
		await b.ok('click_element', { ref: s.ref('button', 'Item 30') });
		assert.ok(await b.evaluate(url, 'document.getElementById("list").scrollTop') > 0);
	});

	test('a link navigates and the result says so, with the new state when asked', async () => {
		await b.open('tabs.html');
		const s = await b.state();
		const { text, data } = await b.ok('click_element', { ref: s.ref('link', 'Same tab link'), include_state: true });
		assert.equal(data.navigated, true);
		assert.match(data.url, /checkout\.html\?from=same$/);
		assert.match(text, /The page navigated to .*checkout\.html\?from=same\./);
		assert.equal(data.state.tab.title, 'Checkout');
		assert.ok(data.state.elements.some(e => e.name === 'Place order'));
		assert.match(text, /\ne\d+ button "Place order"/);
	});

	test('a target=_blank link and window.open report the new tab', async () => {
		await b.open('tabs.html');
		const s = await b.state();
		const link = await b.ok('click_element', { ref: s.ref('link', 'Open checkout in a new tab') });
		assert.equal(link.data.new_tabs.length, 1);
		assert.match(link.text, new RegExp(`It opened tab ${link.data.new_tabs[0].id} \\(.*checkout\\.html\\?from=blank\\)`));
		/* The first click made the new tab active: this one goes to a background tab. */
		const opened = await b.ok('click_element', { ref: s.ref('button', 'Open long page'), tab_id: s.data.tab.id });
		assert.equal(opened.data.new_tabs.length, 1);
		assert.match(opened.text, /Used DOM events instead of real input because tab \d+ is not visible.*Switch to the tab with manage_tabs/);
		const tabs = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
		for (const t of [...link.data.new_tabs, ...opened.data.new_tabs])
			assert.ok(tabs.some(x => x.id === t.id), `tab ${t.id} is open`);
		for (const t of [...link.data.new_tabs, ...opened.data.new_tabs])
			await b.ok('manage_tabs', { action: 'close', tab_id: t.id });
		await b.ok('manage_tabs', { action: 'switch', tab_id: s.data.tab.id });
	});

	test('a disabled button is NOT_INTERACTABLE and is not clicked', async () => {
		await b.open('form.html');
		const s = await b.state();
		const error = await b.fails('click_element', { ref: s.ref('button', 'Disabled button') });
		assert.equal(error.code, 'NOT_INTERACTABLE');
		assert.match(error.message, /"Disabled button"\): it is disabled\./);
	});

	test('fill_form fills text, email, a date, a select, a checkbox and a radio in one call, with one settle', async () => {
		const { url } = await b.open('form.html');
		await b.evaluate(url, 'document.getElementById("text").value = "old text"; 0');
		const s = await b.state();
		const r = await b.ok('fill_form', { fields: [
			{ ref: s.ref('textbox', 'Text'), value: 'Ada Lovelace' },
			{ ref: s.ref('textbox', 'Email'), value: 'ada@example.com' },
			{ ref: s.ref('input', 'Date'), value: '2024-05-31' },
			{ ref: s.ref('select', 'Country'), value: 'Canada' },
			{ ref: s.ref('checkbox', 'I agree'), value: true },
			{ ref: s.ref('radio', 'Small'), value: true },
		] });
		assert.match(r.text, /^Filled 6 fields: e\d+ \(textbox "Text"\) = "Ada Lovelace"; /);
		assert.match(r.text, /\(checkbox "I agree"\) checked; e\d+ \(radio "Small"\) checked\./);
		assert.deepEqual(await b.evaluate(url, '[text.value, email.value, date.value, country.value, agree.checked, r1.checked, r2.checked]'),
		    ['Ada Lovelace', 'ada@example.com', '2024-05-31', 'ca', true, true, false]);
		const again = await b.ok('fill_form', { fields: [{ ref: s.ref('checkbox', 'I agree'), value: 'false' }] });
		assert.match(again.text, /unchecked/);
		assert.equal(await b.evaluate(url, 'agree.checked'), false);
		const bad = await b.fails('fill_form', { fields: [{ ref: s.ref('textbox', 'Text'), value: 'kept' }, { ref: s.ref('select', 'Country'), value: 'Atlantis' }] });
		assert.equal(bad.code, 'INVALID_ARGUMENT');
		assert.match(bad.message, /no option "Atlantis".*The fields before it were filled: e\d+ \(textbox "Text"\) = "kept"\./);
	});

	test('a covered button is NOT_INTERACTABLE naming what covers it', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		const counter = s.ref('button', 'Count 0');
		await b.ok('click_element', { ref: s.ref('button', 'Show overlay') });
		const error = await b.fails('click_element', { ref: counter });
		assert.equal(error.code, 'NOT_INTERACTABLE');
		assert.match(error.message, /it is covered by div#overlay\./);
		assert.match(error.message, /Close or dismiss/);
		assert.equal(await b.evaluate(url, 'document.getElementById("counter").textContent'), 'Count 0');
		const after = await b.state();
		assert.equal(after.find('button', 'Count 0').covered_by, 'div#overlay', 'the state says what covers it');
	});

	test('a cover with an accessible name is named by it, in the error and in the state', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		await b.evaluate(url, 'document.getElementById("cookie-banner").className = "on"');
		const error = await b.fails('click_element', { ref: s.ref('button', 'Count 0') });
		assert.equal(error.code, 'NOT_INTERACTABLE');
		assert.match(error.message, /: it is covered by "Cookie banner"\. Close or dismiss/);
		const after = await b.state();
		assert.equal(after.find('button', 'Count 0').covered_by, '"Cookie banner"');
		assert.match(after.text, /button "Count 0" covered by "Cookie banner"$/m);
	});

	test('a button hidden after the state was read is NOT_INTERACTABLE naming why', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		await b.evaluate(url, 'document.getElementById("counter").parentElement.style.display = "none"');
		const error = await b.fails('click_element', { ref: s.ref('button', 'Count 0') });
		assert.equal(error.code, 'NOT_INTERACTABLE');
		assert.match(error.message, /hidden: its ancestor <div\.row> has display: none/);
	});

	test('coordinates click a viewport point when asked', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		const [x, y, w, h] = s.find('button', 'Count 0').rect;
		await b.ok('click_element', { coordinates: { x: x + w / 2, y: y + h / 2 } });
		assert.equal(await b.evaluate(url, 'document.getElementById("counter").textContent'), 'Count 1');
		const none = await b.fails('click_element', {});
		assert.equal(none.code, 'INVALID_ARGUMENT');
	});

	test('an unknown tab is TAB_NOT_FOUND', async () => {
		const error = await b.fails('get_browser_state', { tab_id: 987654321 });
		assert.equal(error.code, 'TAB_NOT_FOUND');
		assert.match(error.message, /manage_tabs/);
	});
});

describe('typing and scrolling', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('type_value replaces what an input holds, and appends when asked', async () => {
		const { url } = await b.open('editor.html');
		const s = await b.state();
		const ref = s.ref('textbox', 'Single');
		const replaced = await b.ok('type_value', { ref, text: 'fresh' });
		assert.equal(await b.evaluate(url, 'document.getElementById("single").value'), 'fresh');
		assert.match(replaced.text, /into e\d+ \(textbox "Single"\)\. Its value is now "fresh"\./);
		const appended = await b.ok('type_value', { ref, text: ' and more', append: true });
		assert.equal(await b.evaluate(url, 'document.getElementById("single").value'), 'fresh and more');
		assert.equal(appended.data.value, 'fresh and more');
	});

	test('{Control+A} selects all, doubled braces type braces', async () => {
		const { url } = await b.open('editor.html');
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textbox', 'Single'), text: '{Control+A}{{json}}: {{"a": 1}}' });
		assert.equal(await b.evaluate(url, 'document.getElementById("single").value'), '{json}: {"a": 1}');
		const keys = await b.evaluate(url, '[...document.querySelectorAll("#keys li")].map(li => li.textContent)');
		assert.ok(keys.includes('Control+a'), keys.join(' '));
	});

	test('a bad key sequence is INVALID_ARGUMENT and types nothing', async () => {
		const { url } = await b.open('editor.html');
		const s = await b.state();
		const error = await b.fails('type_value', { ref: s.ref('textbox', 'Single'), text: 'function() { return 1; }' });
		assert.equal(error.code, 'INVALID_ARGUMENT');
		assert.match(error.message, /Nothing was typed: "\{" at position 11.*double it/);
		assert.equal(await b.evaluate(url, 'document.getElementById("single").value'), 'old value');
		const unknown = await b.fails('type_value', { ref: s.ref('textbox', 'Single'), text: '{Entr}' });
		assert.match(unknown.message, /Unknown key "\{Entr\}"/);
	});

	test('{Enter} and submit submit a form', async () => {
		const { url } = await b.open('editor.html');
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textbox', 'Query'), text: 'cats{Enter}' });
		assert.equal(await b.evaluate(url, 'document.getElementById("searched").textContent'), 'Searched cats');
		await b.ok('type_value', { ref: s.ref('textbox', 'Query'), text: 'dogs', submit: true });
		assert.equal(await b.evaluate(url, 'document.getElementById("searched").textContent'), 'Searched dogs');
	});

	test('textareas, contenteditable and a key-driven rich editor take text and special keys', async () => {
		const { url } = await b.open('editor.html');
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textarea', 'Message'), text: 'line one{Enter}line two' });
		assert.equal(await b.evaluate(url, 'document.getElementById("message").value'), 'line one\nline two');
		await b.ok('type_value', { ref: s.ref('editable', 'Notes editor'), text: 'Hello{Enter}World' });
		assert.equal(await b.evaluate(url, 'document.getElementById("ce").innerText.trim()'), 'Hello\nWorld');
		const rich = await b.ok('type_value', { ref: s.ref('textbox', 'Rich editor'), text: 'ab{Enter}cx{Backspace}d' });
		assert.equal(await b.evaluate(url, 'document.getElementById("rich").__text'), 'ab\ncd');
		assert.match(rich.text, /Typed 5 characters and \{Enter\} \{Backspace\}/);
		await b.ok('type_value', { ref: s.ref('textarea', 'Message'), text: 'unicode: héllo 😀 日本' });
		assert.equal(await b.evaluate(url, 'document.getElementById("message").value'), 'unicode: héllo 😀 日本');
	});

	test('date, range and select controls take a value', async () => {
		const { url } = await b.open('form.html');
		const s = await b.state();
		const date = await b.ok('type_value', { ref: s.ref('input', 'Date'), text: '2024-05-31' });
		assert.match(date.text, /^Set e\d+ \(input "Date"\) to "2024-05-31"\.$/);
		assert.equal(await b.evaluate(url, 'document.getElementById("date").value'), '2024-05-31');
		await b.ok('type_value', { ref: s.ref('slider', 'Range'), text: '7' });
		assert.equal(await b.evaluate(url, 'document.getElementById("range").value'), '7');
		await b.ok('type_value', { ref: s.ref('select', 'Country'), text: 'Canada' });
		assert.equal(await b.evaluate(url, 'document.getElementById("country").value'), 'ca');
		const bad = await b.fails('type_value', { ref: s.ref('input', 'Date'), text: 'tomorrow' });
		assert.equal(bad.code, 'INVALID_ARGUMENT');
		assert.match(bad.message, /YYYY-MM-DD/);
		const check = await b.fails('type_value', { ref: s.ref('checkbox', 'I agree'), text: 'x' });
		assert.equal(check.code, 'NOT_EDITABLE');
		assert.match(check.message, /use click_element/);
		// A button takes no text: typing would press it and submit the form.
		const submits = await b.evaluate(url, 'window.__submits = 0; document.querySelector("form").addEventListener("submit", e => { e.preventDefault(); window.__submits++; }); 0');
		assert.equal(submits, 0);
		const button = await b.fails('type_value', { ref: s.ref('button', 'Send'), text: ' ' });
		assert.equal(button.code, 'NOT_EDITABLE');
		assert.match(button.message, /^Cannot type into e\d+ \(button "Send"\): it is a button, which takes no text: use click_element\.$/);
		assert.equal(await b.evaluate(url, 'window.__submits'), 0, 'the form was not submitted');
		const ro = await b.fails('type_value', { ref: s.ref('textbox', 'Readonly'), text: 'x' });
		assert.match(ro.message, /read-only/);
	});

	test('typed text replaces what React and Vue controlled inputs hold, at once; per_key sends one key event per character', async () => {
		const { url } = await b.open('frameworks.html');
		await until(async () => (await b.evaluate(url, 'document.getElementById("react-echo") !== null && window.__vue !== undefined')),
		    { what: 'React and Vue to render' });
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textbox', 'React name'), text: 'Ada Lovelace' });
		await b.ok('type_value', { ref: s.ref('textbox', 'Vue name'), text: 'Grace Hopper' });
		assert.equal(await b.evaluate(url, 'document.getElementById("react-echo").textContent'), 'React says: Ada Lovelace');
		assert.equal(await b.evaluate(url, 'document.getElementById("vue-echo").textContent'), 'Vue says: Grace Hopper');
		assert.equal(await b.evaluate(url, 'window.__reactKeys'), 0, 'inserted at once: no key events');
		const again = await b.state();
		await b.ok('type_value', { ref: again.ref('textbox', 'React name'), text: 'xyz', per_key: true });
		assert.equal(await b.evaluate(url, 'document.getElementById("react-echo").textContent'), 'React says: xyz');
		assert.ok(await b.evaluate(url, 'window.__reactKeys') >= 3, 'one keydown per character');
		await b.ok('type_value', { ref: again.ref('textbox', 'Vue name'), text: '{Control+A}{Backspace}Vue{Enter}' });
		assert.equal(await b.evaluate(url, 'window.__vue.name'), 'Vue', 'keys in braces are still keys');
	});

	test('typed text replaces what an Angular ngModel input holds, at once; per_key types key by key', async () => {
		const { url } = await b.open('angular.html');
		await until(async () => (await b.evaluate(url, 'window.__angular !== undefined || window.__angularError !== undefined')),
		    { what: 'Angular to compile and render' });
		assert.equal(await b.evaluate(url, 'window.__angularError ?? null'), null);
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textbox', 'Angular name'), text: 'Katherine Johnson' });
		assert.equal(await b.evaluate(url, 'document.getElementById("angular-echo").textContent'), 'Angular says: Katherine Johnson');
		assert.equal(await b.evaluate(url, 'window.__angular.name'), 'Katherine Johnson', 'the model has the text');
		assert.equal(await b.evaluate(url, 'window.__angularKeys'), 0, 'inserted at once: no key events');
		await b.ok('type_value', { ref: s.ref('textbox', 'Angular name'), text: 'Ada', per_key: true });
		assert.equal(await b.evaluate(url, 'window.__angular.name'), 'Ada');
		assert.ok(await b.evaluate(url, 'window.__angularKeys') >= 3, 'one keydown per character');
	});

	test('typing reaches inputs in same- and cross-origin iframes', async () => {
		const { url } = await b.open('frames.html');
		const s = await b.state();
		const [same, cross] = s.data.elements.filter(e => e.name === 'Frame input');
		await b.ok('type_value', { ref: cross.ref, text: 'cross text' });
		await until(async () => (await b.evaluate(url, 'window.__frames.cross?.input')) === 'cross text',
		    { what: 'the cross-origin frame to report the text' });
		await b.ok('type_value', { ref: same.ref, text: 'same text' });
		assert.equal(await b.evaluate(url, 'document.getElementById("same").contentDocument.getElementById("child-input").value'),
		    'same text');
	});

	test('typing into a background tab works and leaves the active tab alone', async () => {
		const { url, tabId } = await b.open('editor.html');
		const s = await b.state();
		const other = await b.ok('navigate_to', { url: b.page('checkout.html'), new_tab: true });
		await b.ok('type_value', { ref: s.ref('textbox', 'Single'), text: 'typed in the background', tab_id: tabId });
		assert.equal(await b.evaluate(url, 'document.getElementById("single").value'), 'typed in the background');
		const tabs = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
		assert.equal(tabs.find(t => t.active).id, other.data.tab_id);
		await b.ok('manage_tabs', { action: 'close', tab_id: other.data.tab_id });
		await b.ok('manage_tabs', { action: 'switch', tab_id: tabId });
	});

	test('scroll_page scrolls the window by a viewport, to the bottom and back to the top', async () => {
		const { url } = await b.open('long.html');
		const height = await b.evaluate(url, 'innerHeight');
		const down = await b.ok('scroll_page', { direction: 'down' });
		assert.equal(await b.evaluate(url, 'scrollY'), height);
		assert.equal(down.data.after.y, height);
		assert.match(down.text, new RegExp(`^Scrolled the page down ${height}px: now ${height}px from the top, \\d+px more below\\.$`));
		await b.ok('scroll_page', { direction: 'up', pixels: 100 });
		assert.equal(await b.evaluate(url, 'scrollY'), height - 100);
		const bottom = await b.ok('scroll_page', { direction: 'to_bottom' });
		const max = await b.evaluate(url, 'document.documentElement.scrollHeight - innerHeight');
		assert.equal(await b.evaluate(url, 'scrollY'), max);
		assert.equal(bottom.data.below, 0);
		const again = await b.ok('scroll_page', { direction: 'down' });
		assert.match(again.text, /already at the bottom/);
		await b.ok('scroll_page', { direction: 'to_top' });
		assert.equal(await b.evaluate(url, 'scrollY'), 0);
	});

	test('scroll_page with a ref scrolls its container, not the window', async () => {
		const { url } = await b.open('long.html');
		const s = await b.state();
		const r = await b.ok('scroll_page', { direction: 'down', ref: s.ref('button', 'Item 2'), pixels: 120 });
		assert.equal(await b.evaluate(url, 'document.getElementById("list").scrollTop'), 120);
		assert.equal(await b.evaluate(url, 'scrollY'), 0);
		assert.match(r.text, /^Scrolled <div#list> down 120px/);
		const after = await b.state();
		assert.ok(after.find('button', 'Item 5'));
		assert.equal(after.find('button', 'Item 1'), undefined, 'Item 1 scrolled out of the list');
	});

	test('scroll_page to_element brings an element into view', async () => {
		const { url } = await b.open('long.html');
		const s = await b.state({ full_page: true });
		const r = await b.ok('scroll_page', { direction: 'to_element', ref: s.ref('button', 'Middle button') });
		assert.equal(r.data.in_view, true);
		const top = await b.evaluate(url, 'document.getElementById("middle-button").getBoundingClientRect().top');
		assert.ok(top >= 0 && top < await b.evaluate(url, 'innerHeight'), `top ${top}`);
		const missing = await b.fails('scroll_page', { direction: 'to_element' });
		assert.equal(missing.code, 'INVALID_ARGUMENT');
	});

	test('scroll_page on a page whose window does not scroll scrolls the main container', async () => {
		const { url } = await b.open('app-scroll.html');
		const r = await b.ok('scroll_page', { direction: 'down', pixels: 300 });
		assert.match(r.text, /^Scrolled <main#main> down 300px/);
		assert.equal(await b.evaluate(url, 'document.getElementById("main").scrollTop'), 300);
	});
});
