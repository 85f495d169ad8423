// What the end-to-end tests add to the harness for clients with a key of
// their own (#25): the MCP SDK's OAuth client (its OAuthClientProvider and
// auth()) whose "browser" is the test's Chromium, a loopback callback the
// redirect lands on, and the person's consent given on the extension's
// approval page (boxes ticked or unticked, then Allow or Deny).

import assert from 'node:assert/strict';
import { createServer } from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';

import { EXTENSION_ID, until } from './harness.mjs';
import { inExtension } from './agents-harness.mjs';
import { scaled } from '../timing.mjs';

export const APPROVE = `chrome-extension://${EXTENSION_ID}/approve/approve.html`;

// A client's loopback callback (what a native app listens on for its code):
// next() resolves to the URL of the next redirect that lands on it.
export async function startCallback() {
	const waiting = [];
	const server = createServer((request, response) => {
		response.end('Browser Bridge test callback: you can close this tab.');
		waiting.shift()?.(new URL(request.url, `http://${request.headers.host}`));
	});
	await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/callback`,
		next: () => new Promise(resolve => waiting.push(resolve)),
		close: () => new Promise(resolve => {
			server.close(resolve);
			server.closeAllConnections();
		}),
	};
}

// The person's browser: opens a URL in a background tab of the test's
// Chromium; resolves to its close().
export async function browse(bridge, url) {
	const { targetId } = await bridge.cdp.send('Target.createTarget', { url: String(url), background: true });
	return () => bridge.closeTarget(targetId).catch(() => {});
}

// The SDK's OAuthClientProvider for a client named name: it keeps what the
// SDK hands it (in .kept), and opens the authorization URL in the test's
// Chromium (its tabs' close functions in .opened).
export function browserProvider(bridge, name, redirectUrl) {
	const kept = {};
	const opened = [];
	return {
		kept,
		opened,
		get redirectUrl() {
			return redirectUrl;
		},
		get clientMetadata() {
			return { client_name: name, redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
				response_types: ['code'], token_endpoint_auth_method: 'none' };
		},
		state: () => (kept.state = `state-${name}-${Date.now()}`),
		clientInformation: () => kept.client,
		saveClientInformation: client => { kept.client = client; },
		tokens: () => kept.tokens,
		saveTokens: tokens => { kept.tokens = tokens; },
		redirectToAuthorization: async url => { opened.push(await browse(bridge, url)); },
		saveCodeVerifier: verifier => { kept.verifier = verifier; },
		codeVerifier: () => kept.verifier,
	};
}

// The person at the browser: the badge counts the waiting client, and on
// the approval page they tick and untick boxes by scope name, then press
// Allow (or Deny); resolves to what the page showed.
export async function consent(bridge, { allow = true, tick = [], untick = [] } = {}) {
	await until(async () => await inExtension(bridge, 'chrome.action.getBadgeText({})') === '1',
	    { what: 'the badge to count the waiting client' });
	const page = await bridge.openDirectly(APPROVE);
	try {
		await until(() => bridge.evaluate(APPROVE, '!document.getElementById("request").hidden'), { what: 'the approval page to show the request' });
		const shown = await bridge.evaluate(APPROVE, `({
			name: document.getElementById('name').textContent,
			text: document.body.innerText,
			redirect: document.getElementById('redirect').textContent,
			boxes: [...document.querySelectorAll('input[name=scope]')].map(box => [box.value, box.checked, box.parentElement.textContent.trim()]),
		})`);
		for (const [name, checked] of [...tick.map(n => [n, true]), ...untick.map(n => [n, false])])
			await bridge.evaluate(APPROVE, `(box => { if (box.checked !== ${checked}) box.click(); })(document.querySelector('input[value="${name}"]'))`);
		await bridge.evaluate(APPROVE, `document.getElementById('${allow ? 'allow' : 'deny'}').click()`);
		shown.outcome = await until(() => bridge.evaluate(APPROVE, 'document.getElementById("outcome").textContent'), { what: 'the page to say what it did' });
		return shown;
	} finally {
		await page.close();
	}
}

// Runs the SDK's authorization for a client (auth(), asking for scope when
// given, else for what the host's metadata lists) with the person's
// decision; resolves to its provider, the redirect, what the approval page
// showed, and when approved its connected Client (closed with the bridge)
// and the harness's call helpers as that client (as.ok, as.fails, ...).
export async function authorizeClient(bridge, name, { scope, decision = {} } = {}) {
	const callback = await startCallback();
	const client = browserProvider(bridge, name, callback.url);
	let redirect, shown;
	try {
		assert.equal(await auth(client, { serverUrl: bridge.url, scope }), 'REDIRECT');
		const back = callback.next();
		shown = await consent(bridge, decision);
		redirect = await back;
	} finally {
		await callback.close();
		for (const close of client.opened)
			await close();
	}
	if (redirect.searchParams.has('error'))
		return { client, shown, redirect };
	assert.equal(await auth(client, { serverUrl: bridge.url, authorizationCode: redirect.searchParams.get('code') }), 'AUTHORIZED');
	const mcp = new Client({ name, version: '1.0.0' });
	await mcp.connect(new StreamableHTTPClientTransport(new URL(bridge.url), { authProvider: client }), { timeout: scaled(10000) });
	bridge.clients.push(mcp);
	return { client, shown, redirect, mcp, as: Object.create(bridge, { client: { value: mcp } }) };
}
