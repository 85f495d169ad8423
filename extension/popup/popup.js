/*
 * The popup: whether the host is connected, the MCP URL, a button that
 * copies a client configuration, the last error in words a user can act
 * on, the switch that pauses all agent control, the last actions the
 * tools took, the MCP clients waiting for approval (each with how many
 * requests it has waiting, Review, which opens the approval page, and Deny
 * all) and the approved ones, each with Revoke. Client names are shown as
 * shownName makes them: no control or format character.
 */

import { shownName } from '../src/client-approvals.js';
import { clientConfig } from '../src/status.js';

const $ = id => document.getElementById(id);
let current = null;

/** Shows a status from the service worker. */
function render(status) {
	current = status;
	const state = $('state');
	state.className = `state ${status.state}`;
	state.textContent = {
		connected: `Connected to the host${status.hostVersion ? ` (version ${status.hostVersion})` : ''}.`,
		connecting: 'Connecting to the host…',
		disconnected: 'Not connected to the host.',
		incompatible: 'The host is from another release.',
	}[status.state] ?? status.state;
	$('connected').hidden = status.state !== 'connected';
	if (status.state === 'connected') {
		$('url').textContent = status.mcpUrl ?? '';
		$('port-note').hidden = !status.portNote;
		$('port-note').textContent = status.portNote ?? '';
		$('port-note').className = status.portUnsafe ? 'error' : 'note';
		$('token-hint').hidden = !status.auth || typeof status.token === 'string';
		$('copy-owner').hidden = !(status.auth && status.oauth);
		$('oauth-hint').hidden = !(status.auth && status.oauth);
	}
	const problem = status.state !== 'connected' && status.lastError;
	$('problem').hidden = !problem;
	if (problem) {
		$('error-summary').textContent = status.lastError.summary;
		$('error-detail').textContent = status.lastError.detail;
		const seconds = status.retryAt ? Math.max(0, Math.round((status.retryAt - Date.now()) / 1000)) : null;
		$('retry').textContent = seconds === null ? '' : `Retrying by itself in ${seconds} s.`;
	}
}

/** One line of the recent actions: time, who, tool, tab, outcome. */
function activityLine(entry) {
	const li = document.createElement('li');
	const time = document.createElement('span');
	time.className = 'time';
	time.textContent = new Date(entry.time).toLocaleTimeString();
	const tab = entry.tab === undefined ? '' : ` in tab ${entry.tab}`;
	const took = entry.ms === undefined ? '' : ` (${entry.ms} ms)`;
	li.append(time, ` ${entry.who}: ${entry.tool}${tab}: ${entry.outcome}${took}`);
	if (entry.outcome !== 'ok' && entry.outcome !== 'running')
		li.className = 'failed';
	return li;
}

/** Shows the pause switch and the recent actions. */
function renderControl(control) {
	if (control === undefined || control.error !== undefined)
		return;
	$('pause').disabled = false;
	$('pause').checked = control.paused;
	$('paused-note').hidden = !control.paused;
	$('activity').replaceChildren(...control.activity.map(activityLine));
	$('no-activity').hidden = control.activity.length > 0;
}

/** A button that runs action when pressed. */
function button(text, action) {
	const pressed = document.createElement('button');
	pressed.type = 'button';
	pressed.textContent = text;
	pressed.addEventListener('click', action);
	return pressed;
}

/** Denies the waiting requests of one client (clientId), or of all (null); the list follows from the service worker. */
async function denyAll(clientId) {
	const reply = await chrome.runtime.sendMessage({ type: 'denyClients', client_id: clientId });
	$('approvals-error').hidden = reply?.error === undefined;
	$('approvals-error').textContent = reply?.error ?? '';
}

/**
 * The clients waiting for approval, one line each however many requests
 * it has waiting: the count, Review (its oldest request's approval page)
 * and Deny all; a namesake of an approved client is marked.
 */
function renderApprovals(pending) {
	const byClient = new Map();
	for (const request of pending)
		byClient.set(request.client_id, [...(byClient.get(request.client_id) ?? []), request]);
	$('approvals-section').hidden = pending.length === 0;
	$('deny-every').hidden = byClient.size < 2;
	$('approvals').replaceChildren(...[...byClient.values()].map(requests => {
		const [oldest] = requests;
		const li = document.createElement('li');
		const declared = document.createElement('span');
		declared.className = 'self-declared';
		declared.textContent = ' (self-declared name)';
		const count = ` ${requests.length} request${requests.length === 1 ? '' : 's'} waiting `;
		const review = button('Review', async () => {
			await chrome.tabs.create({ url: chrome.runtime.getURL(`approve/approve.html?request=${oldest.request_id}`) });
			window.close();
		});
		li.append(oldest.client_name, declared, count, review, ' ', button('Deny all', () => denyAll(oldest.client_id)));
		if (oldest.name_taken_by !== null) {
			const taken = document.createElement('span');
			taken.className = 'error';
			taken.textContent = ` Another client already uses this name (${oldest.name_taken_by.client_name}).`;
			li.append(taken);
		}
		return li;
	}));
}

/** When a time was, in words. */
function when(ms) {
	return ms === null || ms === undefined ? 'never' : new Date(ms).toLocaleString();
}

/**
 * The approved clients from the host, each with Revoke; none shown while
 * the host cannot say, nor while OAuth is off and none is left.
 */
async function showClients() {
	const { result } = await chrome.runtime.sendMessage({ type: 'listClients' });
	$('clients-section').hidden = result === undefined || (result.clients.length === 0 && current?.oauth !== true);
	if (result === undefined)
		return;
	$('no-clients').hidden = result.clients.length > 0;
	$('approved').replaceChildren(...result.clients.map(client => {
		const li = document.createElement('li');
		const name = document.createElement('strong');
		name.textContent = shownName(client.client_name ?? '').trim() || '(no name given)';
		const revoke = document.createElement('button');
		revoke.type = 'button';
		revoke.textContent = 'Revoke';
		revoke.addEventListener('click', async () => {
			revoke.disabled = true;
			const reply = await chrome.runtime.sendMessage({ type: 'revokeClient', client_id: client.client_id });
			$('clients-error').hidden = reply.error === undefined;
			$('clients-error').textContent = reply.error ?? '';
			await showClients();
		});
		li.append(name, ` at ${client.redirect_host}: ${client.scopes.join(', ')}; approved ${when(client.approved_at_ms)}, ` +
		    `last used ${when(client.last_used_ms)} `, revoke);
		return li;
	}));
}

$('deny-every').addEventListener('click', () => denyAll(null));

$('pause').addEventListener('change', async () => {
	renderControl(await chrome.runtime.sendMessage({ type: 'setPaused', paused: $('pause').checked }));
});

$('side-panel').addEventListener('click', async () => {
	const window = await chrome.windows.getCurrent();
	await chrome.sidePanel.open({ windowId: window.id });
});

/** Copies a text and says so for two seconds. */
async function copy(text) {
	await navigator.clipboard.writeText(text);
	$('copied').hidden = false;
	setTimeout(() => { $('copied').hidden = true; }, 2000);
}

$('copy-url').addEventListener('click', () => {
	if (current?.state === 'connected')
		copy(current.mcpUrl);
});

$('copy').addEventListener('click', () => {
	if (current?.state === 'connected')
		copy(clientConfig({ mcpUrl: current.mcpUrl, auth: current.auth, token: current.token, oauth: current.oauth }));
});

$('copy-owner').addEventListener('click', () => {
	if (current?.state === 'connected')
		copy(clientConfig({ mcpUrl: current.mcpUrl, auth: current.auth, token: current.token }));
});

$('reconnect').addEventListener('click', async () => {
	render(await chrome.runtime.sendMessage({ type: 'reconnect' }));
});

chrome.runtime.onMessage.addListener(message => {
	if (message?.type === 'status')
		render(message.status);
	else if (message?.type === 'control')
		renderControl(message.control);
	else if (message?.type === 'approvals') {
		renderApprovals(message.pending);
		showClients();
	}
});

render(await chrome.runtime.sendMessage({ type: 'getStatus' }));
renderControl(await chrome.runtime.sendMessage({ type: 'getControl' }));
renderApprovals((await chrome.runtime.sendMessage({ type: 'getApprovals' })).result ?? []);
showClients();
const host = await chrome.runtime.sendMessage({ type: 'hostStatus' });
if (host?.result) {
	$('sessions').textContent = `${host.result.sessions} MCP session(s) open, ${host.result.pending_calls} call(s) in progress.`;
	const clients = host.result.clients ?? [];
	$('clients').replaceChildren(...clients.map(c => {
		const li = document.createElement('li');
		li.textContent = `${c.client} (${c.transport}, ${c.calls} call${c.calls === 1 ? '' : 's'})`;
		return li;
	}));
}
