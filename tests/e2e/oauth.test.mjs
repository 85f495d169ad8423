// End-to-end: each client gets its own key, given by the person (#25).
// Real headless Chromium with the extension, the real host, and the MCP
// TypeScript SDK's own OAuth client (its OAuthClientProvider and auth()) and
// mcp-remote (pinned in tests/package.json) as the clients. The person's
// browser is the same Chromium: the authorization URL opens in a tab of it,
// the host's waiting page reloads itself there, and its redirect lands on
// the client's loopback callback. The consent is given as a person gives
// it: the badge counts the waiting client, the popup lists it, and Allow or
// Deny is clicked on the extension's approval page (boxes unticked or ticked
// first). Then: the issued token works for tools/call; a scope left unticked
// is missing from tools/list and its tools get 403 insufficient_scope; Deny
// reaches the client as access_denied; client B cannot see, answer or stop
// client A's task nor read its network records while the owner key can;
// a client's run_task gets the page tools its key allows (#32): with every
// scope its task types, clicks and reads to done, without pages:act its
// navigator is offered only reading tools and an act step is refused;
// Revoke in the popup ends the client's open stream and its next request
// gets 401, within a second.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

import { EXTENSION_ID, startBridge, until } from './harness.mjs';
import { SHOP_ORDER_STEPS, configureAgents, inExtension, startModelServer } from './agents-harness.mjs';
import { APPROVE, authorizeClient, browse, browserProvider, consent, startCallback } from './oauth-harness.mjs';
import { scaled } from '../timing.mjs';

const POPUP = `chrome-extension://${EXTENSION_ID}/popup/popup.html`;
const MCP_REMOTE = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize',
	params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-e2e', version: '1.0.0' } } };

// A free loopback port (for mcp-remote's own callback listener).
async function freePort() {
	const server = createServer();
	await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	await new Promise(resolve => server.close(resolve));
	return port;
}

describe('per-client keys with consent in the extension', () => {
	let b;
	let model = null;
	const cleanups = [];

	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		for (const cleanup of cleanups.reverse())
			await cleanup().catch(() => {});
		await model?.close();
		await b?.close();
	});

	// The SDK's authorization for a client, with the person's decision (oauth-harness.mjs).
	const authorize = (name, options) => authorizeClient(b, name, options);

	// Starts the scripted model on these steps and points the extension's agents at it.
	async function useScenario(steps) {
		await model?.close();
		model = await startModelServer({ steps });
		await configureAgents(b, { baseUrl: `${model.url}/v1`, domains: '127.0.0.1' });
	}

	// The tools each navigator request's prompt offered (the scripted model's log).
	async function offeredToNavigator() {
		return (await model.log()).filter(entry => entry.role === 'navigator').map(entry => entry.offered);
	}

	// A raw POST to /mcp with a key.
	function post(key, body, headers = {}) {
		return fetch(b.url, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}`, ...headers },
			body: JSON.stringify(body),
		});
	}

	// A raw session opened with a key; resolves to its headers for later requests.
	async function rawSession(key) {
		const opened = await post(key, INITIALIZE);
		assert.equal(opened.status, 200, opened.status === 200 ? '' : await opened.text());
		await opened.body?.cancel();
		return { 'Mcp-Session-Id': opened.headers.get('mcp-session-id'), 'MCP-Protocol-Version': '2025-06-18' };
	}

	test('the SDK\'s own OAuth client: 401, registration, Allow in the extension\'s page, the code at its callback, then tools/call', async () => {
		const callback = await startCallback();
		cleanups.push(callback.close);
		const client = browserProvider(b, 'SDK e2e client', callback.url);
		const first = new Client({ name: 'SDK e2e client', version: '1.0.0' });
		const transport = new StreamableHTTPClientTransport(new URL(b.url), { authProvider: client });
		const back = callback.next();
		await assert.rejects(first.connect(transport, { timeout: scaled(10000) }), UnauthorizedError);
		assert.ok(client.kept.client?.client_id, 'the SDK registered itself');

		/* The popup shows the waiting client, marked self-declared, with a way to the approval page. */
		await until(async () => await inExtension(b, 'chrome.action.getBadgeText({})') === '1', { what: 'the badge to count it' });
		const popup = await b.openDirectly(POPUP);
		/* An empty list is the popup before it has asked: wait for the line. */
		const waiting = await until(async () => {
			const lines = await b.evaluate(POPUP, '[...document.querySelectorAll("#approvals li")].map(li => li.textContent)');
			return lines.length > 0 ? lines : null;
		}, { what: 'the popup to list the waiting client' }).finally(() => popup.close());
		assert.match(waiting[0], /^SDK e2e client \(self-declared name\) 1 request waiting Review Deny all$/);

		const shown = await consent(b);
		assert.equal(shown.name, 'SDK e2e client');
		assert.match(shown.text, /self-declared/);
		assert.equal(shown.redirect, new URL(callback.url).host);
		assert.deepEqual(shown.boxes, [
			['pages:read', true, 'Read pages (pages:read)'],
			['pages:act', true, 'Act on pages (pages:act)'],
			['tasks', true, 'Run tasks with the agents (tasks)'],
		]);
		assert.match(shown.outcome, /^Allowed: SDK e2e client may now do this: Read pages, Act on pages, Run tasks with the agents\./);
		const redirect = await back;
		for (const close of client.opened)
			await close();
		assert.equal(redirect.searchParams.get('state'), client.kept.state);
		assert.ok(redirect.searchParams.get('code'));
		assert.equal(await inExtension(b, 'chrome.action.getBadgeText({})') === '1', false, 'the badge no longer counts it');

		await transport.finishAuth(redirect.searchParams.get('code'));
		const mcp = new Client({ name: 'SDK e2e client', version: '1.0.0' });
		await mcp.connect(new StreamableHTTPClientTransport(new URL(b.url), { authProvider: client }), { timeout: scaled(10000) });
		b.clients.push(mcp);
		const as = Object.create(b, { client: { value: mcp } });
		const { tabId } = await as.open('form.html');
		const state = await as.state({ tab_id: tabId });
		assert.ok(state.find('checkbox', 'I agree'), state.text);
		assert.ok(client.kept.tokens.access_token !== b.token, 'its own key, not the owner key');

		/* The popup lists it among the approved clients. */
		const listed = await b.openDirectly(POPUP);
		const line = await until(async () => (await b.evaluate(POPUP, '[...document.querySelectorAll("#approved li")].map(li => li.textContent)'))
		    .find(text => text.startsWith('SDK e2e client')), { what: 'the popup to list the approved client' }).finally(() => listed.close());
		assert.match(line, /pages:read, pages:act, tasks; approved .*, last used .* Revoke$/);
	});

	test('a namesake of an approved client, its name shown without its bidi override: marked in the popup and on the approval page; Deny all denies its two requests', async () => {
		const base = new URL(b.url).origin;
		const registered = await fetch(`${base}/register`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ client_name: 'sdk E2E c1ient\u202e', redirect_uris: ['http://127.0.0.1:41999/callback'] }),
		});
		const client = await registered.json();
		assert.equal(client.client_name, 'sdk E2E c1ient\u202e', 'kept as sent');
		const ask = async () => {
			const url = new URL(`${base}/authorize`);
			for (const [name, value] of Object.entries({ response_type: 'code', client_id: client.client_id,
				redirect_uri: 'http://127.0.0.1:41999/callback', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
				code_challenge_method: 'S256', state: 'namesake' }))
				url.searchParams.set(name, value);
			const page = await fetch(url, { redirect: 'manual' });
			assert.equal(page.status, 200);
			return /request_id=([0-9a-f]{32})/.exec(await page.text())[1];
		};
		const requests = [await ask(), await ask()];
		await until(async () => await inExtension(b, 'chrome.action.getBadgeText({})') === '2', { what: 'the badge to count both requests' });

		const approve = await b.openDirectly(APPROVE);
		try {
			await until(() => b.evaluate(APPROVE, '!document.getElementById("request").hidden'), { what: 'the approval page to show the request' });
			assert.equal(await b.evaluate(APPROVE, 'document.getElementById("name").textContent'), 'sdk E2E c1ient\ufffd');
			assert.match(await b.evaluate(APPROVE, 'document.getElementById("namesake").textContent'),
			    /^Another client already uses this name: "SDK e2e client", registered .+ and approved .+\. Deny this one unless/);
		} finally {
			await approve.close();
		}

		const popup = await b.openDirectly(POPUP);
		try {
			const line = await until(async () => (await b.evaluate(POPUP, '[...document.querySelectorAll("#approvals li")].map(li => li.textContent)'))[0],
			    { what: 'the popup to list the waiting client' });
			assert.equal(line, 'sdk E2E c1ient\ufffd (self-declared name) 2 requests waiting Review Deny all Another client already uses this name (SDK e2e client).');
			await b.evaluate(POPUP, '[...document.querySelectorAll("#approvals button")].find(button => button.textContent === "Deny all").click()');
			await until(async () => !/^\d+$/.test(await inExtension(b, 'chrome.action.getBadgeText({})')), { what: 'the badge to count none' });
		} finally {
			await popup.close();
		}
		for (const id of requests) {
			const back = await fetch(`${base}/authorize?request_id=${id}`, { redirect: 'manual' });
			assert.equal(back.status, 302);
			assert.equal(new URL(back.headers.get('location')).searchParams.get('error'), 'access_denied');
		}
	});

	test('mcp-remote: it prints the URL and opens its own callback listener; Allow in the extension; then tools/call through it', async () => {
		const config = mkdtempSync(join(tmpdir(), 'bb-mcp-remote-'));
		cleanups.push(async () => rmSync(config, { recursive: true, force: true }));
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [MCP_REMOTE, b.url, String(await freePort()), '--host', '127.0.0.1'],
			env: { ...process.env, MCP_REMOTE_CONFIG_DIR: config, BROWSER: 'true' },
			stderr: 'pipe',
		});
		let said = '';
		transport.stderr.on('data', chunk => { said += chunk; });
		const mcp = new Client({ name: 'via-mcp-remote', version: '1.0.0' });
		const connected = mcp.connect(transport, { timeout: scaled(60000) });
		cleanups.push(() => mcp.close());
		const url = await until(() => /Please authorize this client by visiting:\s*(\S+)/.exec(said)?.[1],
		    { ms: 30000, what: 'mcp-remote to print the authorization URL' }).catch(error => {
			error.message += `\nmcp-remote said:\n${said}`;
			throw error;
		});
		assert.match(url, /\/authorize\?/);
		cleanups.push(await browse(b, url));
		const shown = await consent(b);
		assert.match(shown.redirect, /^127\.0\.0\.1:\d+$/);
		await connected;
		const tools = (await mcp.listTools()).tools.map(tool => tool.name);
		assert.ok(tools.includes('navigate_to') && !tools.includes('evaluate_script'), tools.join(' '));
		const result = await mcp.callTool({ name: 'manage_tabs', arguments: { action: 'list' } });
		assert.notEqual(result.isError, true, JSON.stringify(result));
	});

	test('Deny tells the client access_denied; a box left unticked leaves its tools out of tools/list and gets 403 insufficient_scope', async () => {
		const denied = await authorize('Denied e2e client', { decision: { allow: false } });
		assert.match(denied.shown.outcome, /^Denied: Denied e2e client was told so/);
		assert.equal(denied.redirect.searchParams.get('error'), 'access_denied');
		assert.equal(denied.redirect.searchParams.get('state'), denied.client.kept.state);
		assert.equal(denied.redirect.searchParams.has('code'), false);

		const reader = await authorize('Reader e2e client', { decision: { untick: ['pages:act', 'tasks'] } });
		assert.deepEqual(reader.shown.boxes.map(([name, checked]) => [name, checked]),
		    [['pages:read', true], ['pages:act', true], ['tasks', true], ['network', false], ['scripts', false]],
		    'it asked for every scope (the SDK takes scopes_supported); network and scripts start unticked');
		const tools = (await reader.mcp.listTools()).tools.map(tool => tool.name);
		assert.ok(tools.includes('get_browser_state'), tools.join(' '));
		for (const name of ['navigate_to', 'click_element', 'run_task', 'list_tasks', 'list_network_requests', 'evaluate_script'])
			assert.ok(!tools.includes(name), `${name} is not listed`);
		const session = await rawSession(reader.client.kept.tokens.access_token);
		const refused = await post(reader.client.kept.tokens.access_token,
		    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'navigate_to', arguments: { url: b.page('form.html') } } }, session);
		assert.equal(refused.status, 403, await refused.text());
		assert.match(refused.headers.get('www-authenticate'), /error="insufficient_scope"/);
		assert.match(refused.headers.get('www-authenticate'), /scope="[^"]*pages:act/);
		await reader.as.state();
	});

	test('client B cannot list, get, answer or stop client A\'s task, nor read its network records; the owner key can', async () => {
		await useScenario([{ do: 'ask', question: 'Which colour?' }, ...SHOP_ORDER_STEPS]);
		const scope = 'pages:read pages:act tasks network';
		const a = await authorize('Client A', { scope, decision: { tick: ['network'] } });
		const bee = await authorize('Client B', { scope, decision: { tick: ['network'] } });

		const { tabId } = await a.as.open('shop/', { args: { new_tab: true } });
		const requests = await until(async () => {
			const { data } = await a.as.ok('list_network_requests', { tab_id: tabId });
			return data.requests.length > 0 && data.requests;
		}, { what: 'client A to see its tab\'s requests' });
		const started = (await a.as.ok('run_task', { task: 'Buy a mug in the colour the person likes.', tab_id: tabId, wait: false })).data;
		await until(async () => (await a.as.ok('get_task', { task_id: started.task_id })).data.status === 'input_required',
		    { ms: 20000, what: 'A\'s task to ask its question' });

		assert.deepEqual((await bee.as.ok('list_tasks')).data.tasks, [], 'B lists none of A\'s tasks');
		for (const [tool, args] of [['get_task', {}], ['answer_task', { answer: 'Blue' }], ['stop_task', {}]]) {
			const refused = await bee.as.fails(tool, { task_id: started.task_id, ...args });
			assert.equal(refused.code, 'TASK_NOT_FOUND', `${tool}: ${refused.text}`);
		}
		assert.equal((await bee.as.fails('list_network_requests', { tab_id: tabId })).code, 'INVALID_ARGUMENT');
		assert.match((await bee.as.fails('get_network_request', { id: requests[0].id })).message, /There is no request/);
		assert.equal((await a.as.ok('get_task', { task_id: started.task_id })).data.status, 'input_required', 'B changed nothing');

		/* The owner key (the harness's client) sees and acts on everything. */
		const owner = await b.ok('list_tasks');
		assert.ok(owner.data.tasks.some(task => task.task_id === started.task_id), owner.text);
		assert.equal((await b.ok('get_task', { task_id: started.task_id })).data.question, 'Which colour?');
		assert.ok((await b.ok('list_network_requests', { tab_id: tabId })).data.requests.some(r => r.id === requests[0].id));
		assert.match((await b.ok('get_network_request', { id: requests[0].id })).text, /shop/);
		assert.equal((await b.ok('stop_task', { task_id: started.task_id })).data.stopped, true);
		assert.equal((await a.as.ok('get_task', { task_id: started.task_id })).data.stop_reason, 'cancelled');
	});

	// Issue #32: the welcome's catalogue carried no scope, so an OAuth
	// client's agents were offered ask_user alone and every step was refused.
	test('a client approved with every scope runs a task that types, clicks and reads; it ends done', async () => {
		await useScenario([{ do: 'type', label: 'Text', text: 'Ada Lovelace' }, { do: 'click', label: 'Send' },
			{ do: 'answer', pattern: 'Submitted [0-9]+' }]);
		const every = await authorize('Every scope client', { scope: 'pages:read pages:act tasks network scripts',
			decision: { tick: ['network', 'scripts'] } });
		const { tabId, url } = await every.as.open('form.html', { args: { new_tab: true } });
		const r = await every.as.call('run_task', { task: 'Type Ada Lovelace into Text, send the form and report what the page says.',
			tab_id: tabId });
		const text = r.content?.[0]?.text;
		assert.equal(r.structuredContent?.stop_reason, 'done', text);
		assert.equal(r.structuredContent.answer, 'Submitted 1', text);
		assert.equal(r.structuredContent.verdict.verdict, 'accept', text);
		assert.deepEqual(r.structuredContent.steps.filter(step => !['planner', 'validator'].includes(step.tool))
		    .map(step => [step.tool, step.outcome]), [['type_value', 'ok'], ['click_element', 'ok']], text);
		assert.equal(await b.evaluate(url, 'document.getElementById("text").value'), 'Ada Lovelace', 'the typing reached the page');
		assert.equal(await b.evaluate(url, 'window.__submitted'), 1, 'the click sent the form once');
		for (const offered of await offeredToNavigator()) {
			for (const name of ['get_browser_state', 'type_value', 'click_element', 'navigate_to', 'ask_user'])
				assert.ok(offered.includes(name), `the navigator was offered ${name}: ${offered.join(' ')}`);
		}
	});

	test('a client approved without pages:act: its task\'s navigator is offered only reading tools, and an act step is refused', async () => {
		await useScenario([{ do: 'type', label: 'Text', text: 'Ada Lovelace' }, { do: 'answer', pattern: 'Submitted [0-9]+' }]);
		const reader = await authorize('Reading task client', { scope: 'pages:read tasks' });
		const listed = new Map((await reader.mcp.listTools()).tools.map(tool => [tool.name, tool]));
		const { tabId, url } = await b.open('form.html', { args: { new_tab: true } });
		const r = await reader.as.call('run_task', { task: 'Type Ada Lovelace into Text.', tab_id: tabId, max_failures: 2 });
		const text = r.content?.[0]?.text;
		assert.equal(r.structuredContent?.stop_reason, 'max_failures', text);

		const offered = await offeredToNavigator();
		assert.ok(offered.length > 0, 'the navigator was asked');
		for (const names of offered) {
			assert.deepEqual(names, offered[0], 'the same tools at every step');
			for (const name of names.filter(name => name !== 'ask_user'))
				assert.equal(listed.get(name)?.annotations?.readOnlyHint, true, `${name} is a reading tool its key lists`);
		}
		for (const name of ['get_browser_state', 'get_page_content'])
			assert.ok(offered[0].includes(name), `the navigator reads with ${name}: ${offered[0].join(' ')}`);

		const tried = r.structuredContent.steps.filter(step => step.tool === 'type_value');
		assert.equal(tried.length, 2, text);
		for (const step of tried) {
			assert.equal(step.outcome, 'refused', JSON.stringify(step));
			assert.equal(step.detail, `There is no action "type_value". Use one of: ${offered[0].join(', ')}.`);
		}
		assert.equal(await b.evaluate(url, 'document.getElementById("text").value'), '', 'nothing was typed');
	});

	test('Revoke in the popup ends the client\'s open stream and its next request gets 401, within a second', async () => {
		const revoked = await authorize('Revoked e2e client');
		const key = revoked.client.kept.tokens.access_token;
		const session = await rawSession(key);
		const stream = await fetch(b.url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}`, ...session } });
		assert.equal(stream.status, 200);
		const reader = stream.body.getReader();
		const ended = (async () => {
			for (;;) {
				const { done } = await reader.read().catch(() => ({ done: true }));
				if (done)
					return performance.now();
			}
		})();

		const popup = await b.openDirectly(POPUP);
		try {
			const where = `[...document.querySelectorAll('#approved li')].find(li => li.textContent.startsWith('Revoked e2e client'))`;
			await until(() => b.evaluate(POPUP, `!!${where}`), { what: 'the popup to list the client' });
			const clicked = performance.now();
			await b.evaluate(POPUP, `${where}.querySelector('button').click()`);
			const closedAt = await Promise.race([ended, new Promise(resolve => setTimeout(resolve, scaled(1000), null))]);
			assert.notEqual(closedAt, null, 'the open stream closed within a second of Revoke');
			const next = await post(key, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, session);
			assert.equal(next.status, 401);
			assert.ok(performance.now() - clicked < scaled(1000), `401 within a second (${Math.round(performance.now() - clicked)} ms)`);
			await until(() => b.evaluate(POPUP, `!${where}`), { what: 'the popup to drop the client from its list' });
		} finally {
			await popup.close();
		}
	});
});
