// End-to-end: handle_dialog and dialogs that open during other actions
// (alert, confirm, prompt, beforeunload), checked against the page itself
// through the DevTools pipe once the dialog is answered.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';
import { scaled } from '../timing.mjs';

describe('dialogs', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('a click that opens an alert returns with the dialog; accepting it lets the page go on', async () => {
		const { url } = await b.open('dialogs.html');
		const s = await b.state();
		const started = Date.now();
		const click = await b.ok('click_element', { ref: s.ref('button', 'Show alert') });
		assert.ok(Date.now() - started < scaled(8000), `the click took ${Date.now() - started} ms`);
		assert.match(click.text, /opened the alert "Hello from the page"/);
		assert.match(click.text, /handle_dialog/);
		assert.deepEqual(click.data.dialog, { type: 'alert', message: 'Hello from the page', url: click.data.dialog.url });
		const blocked = await b.fails('get_browser_state');
		assert.equal(blocked.code, 'NOT_INTERACTABLE');
		assert.match(blocked.message, /blocked by the alert "Hello from the page"/);
		const handled = await b.ok('handle_dialog', { action: 'accept' });
		assert.equal(handled.text, 'Accepted the alert "Hello from the page".');
		assert.equal(handled.data.dialog.type, 'alert');
		assert.equal(await b.evaluate(url, 'window.__afterAlert'), true);
		assert.equal(await b.evaluate(url, 'document.getElementById("log").textContent'), 'alert closed');
		// Clicked once: the cut-short click did not fall back to a second, synthetic one.
		assert.equal(await b.evaluate(url, 'window.__clicks'), 1);
		await b.state();
	});

	test('confirm: accept gives the page true, dismiss gives false', async () => {
		const { url } = await b.open('dialogs.html');
		const ref = (await b.state()).ref('button', 'Delete draft');
		const first = await b.ok('click_element', { ref });
		assert.deepEqual(first.data.dialog, { type: 'confirm', message: 'Delete the draft?', url: first.data.dialog.url });
		assert.match((await b.ok('handle_dialog', { action: 'accept' })).text, /^Accepted the confirm "Delete the draft\?"\.$/);
		assert.equal(await b.evaluate(url, 'window.__confirm'), true);
		const second = await b.ok('click_element', { ref });
		assert.equal(second.data.dialog.type, 'confirm');
		assert.match((await b.ok('handle_dialog', { action: 'dismiss' })).text, /^Dismissed the confirm "Delete the draft\?"\.$/);
		assert.equal(await b.evaluate(url, 'window.__confirm'), false);
	});

	test('prompt: accept with prompt_text gives the page the text; dismiss gives null', async () => {
		const { url } = await b.open('dialogs.html');
		const ref = (await b.state()).ref('button', 'Ask name');
		const first = await b.ok('click_element', { ref });
		assert.equal(first.data.dialog.type, 'prompt');
		assert.equal(first.data.dialog.message, 'Your name?');
		assert.equal(first.data.dialog.default_prompt, 'Anonymous');
		assert.match(first.text, /prompt_text/);
		const answered = await b.ok('handle_dialog', { action: 'accept', prompt_text: 'Ada' });
		assert.equal(answered.text, 'Accepted the prompt "Your name?" with "Ada".');
		assert.equal(answered.data.prompt_text, 'Ada');
		assert.equal(await b.evaluate(url, 'window.__prompt'), 'Ada');
		await b.ok('click_element', { ref });
		await b.ok('handle_dialog', { action: 'dismiss' });
		assert.equal(await b.evaluate(url, 'window.__prompt'), null);
	});

	test('beforeunload: navigate_to away reports the dialog; accepting it lets the navigation go on', async () => {
		const { url } = await b.open('dialogs.html');
		// The page needs a user gesture before Chrome shows its beforeunload dialog.
		await b.ok('click_element', { ref: (await b.state()).ref('button', 'Warn before leaving') });
		assert.equal(await b.evaluate(url, 'window.__armed'), true);
		const target = b.page('index.html');
		const away = await b.ok('navigate_to', { url: target });
		assert.equal(away.data.dialog?.type, 'beforeunload', away.text);
		assert.match(away.text, /navigate_to stopped: the page opened the beforeunload dialog/);
		const handled = await b.ok('handle_dialog', { action: 'accept' });
		assert.match(handled.text, /^Accepted the beforeunload dialog.*The page is being left\.$/);
		await until(async () => (await b.ok('get_browser_state')).data.tab.url === target,
		    { what: 'the navigation to proceed' });
	});

	// fill_form and drag_and_drop send the same input as click_element, so
	// their catalogue entries set watches_dialogs: a dialog they cause is
	// reported, even in a tab the person opened (no earlier navigate_to
	// had its dialogs watched), instead of a command that hangs.
	async function openAsThePerson() {
		const url = b.page('dialogs.html');
		const person = await b.openDirectly(url);
		const tabId = (await b.ok('manage_tabs', { action: 'list' })).data.tabs.find(t => t.url === url).id;
		return { url, tabId, state: await b.state({ tab_id: tabId }), close: person.close };
	}

	test('fill_form that makes the page open an alert returns with the dialog', async () => {
		const { url, tabId, state, close } = await openAsThePerson();
		try {
			const filled = await b.ok('fill_form', { fields: [{ ref: state.ref('checkbox', 'I agree'), value: true }] });
			assert.deepEqual(filled.data.dialog, { type: 'alert', message: 'Thanks for agreeing', url: filled.data.dialog?.url }, filled.text);
			assert.match((await b.ok('handle_dialog', { action: 'accept', tab_id: tabId })).text,
			    /^Accepted the alert "Thanks for agreeing"\.$/);
			assert.equal(await b.evaluate(url, 'window.__agreed'), true);
		} finally {
			await close();
		}
	});

	test('drag_and_drop whose drop opens an alert returns with the dialog', async () => {
		const { url, tabId, state, close } = await openAsThePerson();
		try {
			const letter = state.find('draggable', 'Letter');
			const outbox = state.data.elements.find(e => e.name.startsWith('Outbox'));
			assert.ok(letter && outbox, `the letter and the outbox have refs:\n${state.text}`);
			const dragged = await b.ok('drag_and_drop', { from_ref: letter.ref, to_ref: outbox.ref });
			assert.deepEqual(dragged.data.dialog, { type: 'alert', message: 'Sent the letter', url: dragged.data.dialog?.url }, dragged.text);
			assert.match((await b.ok('handle_dialog', { action: 'accept', tab_id: tabId })).text,
			    /^Accepted the alert "Sent the letter"\.$/);
			assert.equal(await b.evaluate(url, 'window.__dropped'), true);
		} finally {
			await close();
		}
	});

	test('handle_dialog with no dialog open is INVALID_ARGUMENT', async () => {
		const { tabId } = await b.open('dialogs.html');
		const error = await b.fails('handle_dialog', { action: 'accept' });
		assert.equal(error.code, 'INVALID_ARGUMENT');
		assert.equal(error.message.startsWith(`No dialog is open on tab ${tabId}`), true, error.message);
		const dismissed = await b.fails('handle_dialog', { action: 'dismiss', tab_id: tabId });
		assert.equal(dismissed.code, 'INVALID_ARGUMENT');
	});
});
