/*
 * The popup: whether the host is connected, the MCP URL, a button that
 * copies a client configuration, the last error in words a user can act
 * on, the switch that pauses all agent control, and the last actions the
 * tools took.
 */

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
});

render(await chrome.runtime.sendMessage({ type: 'getStatus' }));
renderControl(await chrome.runtime.sendMessage({ type: 'getControl' }));
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
