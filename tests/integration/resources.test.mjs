// Resource subscriptions and the evaluate_script setting in the welcome:
// a client that subscribed to a resource hears notifications/resources/updated
// when the extension reports a resource_updated event; one that did not, or
// that unsubscribed, does not.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { scaled, startHost } from './fake-extension.mjs';
import { close, connect, opts } from './mcp-client.mjs';

// Collects a client's resource notifications.
function listen(client) {
	const notes = [];
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, note => notes.push(note));
	return notes;
}

// Waits until check() holds, polling; fails after ms.
async function until(check, what, ms = 5000) {
	const limit = Date.now() + scaled(ms);
	while (!check()) {
		if (Date.now() > limit)
			throw new Error(`timed out waiting for ${what}`);
		await new Promise(resolve => setTimeout(resolve, 20));
	}
}

// The pause after which a notification that was going to come has come.
const settle = () => new Promise(resolve => setTimeout(resolve, scaled(300)));

describe('resource subscriptions', () => {
	let host;
	let subscribed;
	let bystander;
	let subscribedNotes;
	let bystanderNotes;

	before(async () => {
		host = await startHost();
		subscribed = await connect(host, { name: 'subscriber' });
		bystander = await connect(host, { name: 'bystander' });
		subscribedNotes = listen(subscribed);
		bystanderNotes = listen(bystander);
		// The SDK opens the GET /mcp stream after initialize; let it land.
		await settle();
	});

	after(async () => {
		await close(subscribed);
		await close(bystander);
		await host.stop();
	});

	it('initialize advertises resources.subscribe', () => {
		assert.equal(subscribed.getServerCapabilities().resources.subscribe, true);
	});

	it('a subscriber is told when the extension reports an update; others are not', async () => {
		assert.deepEqual(await subscribed.subscribeResource({ uri: 'browser://current/state' }, opts()), {});
		host.send({ type: 'event', event: 'resource_updated', uri: 'browser://current/state' });
		await until(() => subscribedNotes.length === 1, 'the subscriber\'s notification');
		assert.equal(subscribedNotes[0].method, 'notifications/resources/updated');
		assert.deepEqual(subscribedNotes[0].params, { uri: 'browser://current/state' });
		await settle();
		assert.equal(subscribedNotes.length, 1);
		assert.deepEqual(bystanderNotes, []);
	});

	it('an update to another resource reaches nobody subscribed only elsewhere', async () => {
		host.send({ type: 'event', event: 'resource_updated', uri: 'browser://tabs' });
		host.send({ type: 'event', event: 'resource_updated', uri: 'browser://nowhere' });
		host.send({ type: 'event', event: 'tab_navigated', tab_id: 1 });
		await settle();
		assert.equal(subscribedNotes.length, 1);
		assert.deepEqual(bystanderNotes, []);
	});

	it('after unsubscribing, the client hears nothing more', async () => {
		assert.deepEqual(await subscribed.unsubscribeResource({ uri: 'browser://current/state' }, opts()), {});
		host.send({ type: 'event', event: 'resource_updated', uri: 'browser://current/state' });
		await settle();
		assert.equal(subscribedNotes.length, 1);
		assert.deepEqual(bystanderNotes, []);
	});

	it('subscribing to an unknown resource is -32002', async () => {
		await assert.rejects(subscribed.subscribeResource({ uri: 'browser://nowhere' }, opts()),
		    error => error.code === -32002);
	});
});

describe('evaluate_script in the welcome', () => {
	let configHome;

	before(() => {
		configHome = mkdtempSync(join(tmpdir(), 'bb-resources-'));
	});

	after(() => {
		rmSync(configHome, { recursive: true, force: true });
	});

	it('is false by default', async () => {
		const host = await startHost();
		try {
			await host.until(() => host.welcome, 'the welcome');
			assert.equal(host.welcome.evaluate_script, false);
		} finally {
			await host.stop();
		}
	});

	it('is true with --allow-evaluate', async () => {
		const host = await startHost({ args: ['--allow-evaluate'] });
		try {
			await host.until(() => host.welcome, 'the welcome');
			assert.equal(host.welcome.evaluate_script, true);
		} finally {
			await host.stop();
		}
	});

	it('is true with "evaluate_script": true in config.json', async () => {
		const dir = join(configHome, 'browser-bridge');
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		writeFileSync(join(dir, 'config.json'), '{"evaluate_script": true}\n');
		const host = await startHost({ env: { XDG_CONFIG_HOME: configHome } });
		try {
			await host.until(() => host.welcome, 'the welcome');
			assert.equal(host.welcome.evaluate_script, true);
		} finally {
			await host.stop();
		}
	});

	it('a value other than true or false in config.json stops the host with the reason', () => {
		const dir = join(configHome, 'browser-bridge');
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		writeFileSync(join(dir, 'config.json'), '{"evaluate_script": "yes"}\n');
		const r = spawnSync(process.env.BRIDGE_BIN, ['token'], {
			env: { ...process.env, HOME: configHome, XDG_CONFIG_HOME: configHome },
			encoding: 'utf8',
		});
		assert.notEqual(r.status, 0, r.stdout);
		assert.match(r.stderr, /"evaluate_script" must be true or false/);
	});
});
