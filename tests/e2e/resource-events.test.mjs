// End-to-end: a client subscribed to the browser:// resources hears
// notifications/resources/updated when the active tab navigates and when
// tabs open or close; an unsubscribed resource stays quiet.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { startBridge, until } from './harness.mjs';

describe('resource notifications', () => {
	let b;
	const notes = [];
	const count = uri => notes.filter(n => n.params.uri === uri).length;
	before(async () => {
		b = await startBridge();
		b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, note => notes.push(note));
	});
	after(async () => {
		await b?.close();
	});

	test('the active tab navigating updates browser://current/state', async () => {
		await b.client.subscribeResource({ uri: 'browser://current/state' });
		await b.open('controls.html');
		await until(() => count('browser://current/state') > 0, { what: 'a current/state notification' });
		assert.equal(count('browser://tabs'), 0, 'browser://tabs was not subscribed');
		assert.equal(count('browser://dom/state'), 0, 'browser://dom/state was not subscribed');
		const before = count('browser://current/state');
		await b.open('waits.html');
		await until(() => count('browser://current/state') > before, { what: 'a second notification' });
		const text = (await b.client.readResource({ uri: 'browser://current/state' })).contents[0].text;
		assert.match(text, /"Waits"/);
	});

	test('opening and closing a tab updates browser://tabs', async () => {
		await b.client.subscribeResource({ uri: 'browser://tabs' });
		const start = count('browser://tabs');
		const { data } = await b.ok('manage_tabs', { action: 'open', url: b.page('index.html') });
		await until(() => count('browser://tabs') > start, { what: 'a tabs notification for the new tab' });
		const opened = data.tab_id ?? data.tab?.id;
		const after = count('browser://tabs');
		await b.ok('manage_tabs', { action: 'close', tab_id: opened });
		await until(() => count('browser://tabs') > after, { what: 'a tabs notification for the closed tab' });
		await b.client.unsubscribeResource({ uri: 'browser://tabs' });
		await b.client.unsubscribeResource({ uri: 'browser://current/state' });
	});
});
