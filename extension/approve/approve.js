/*
 * The approval page: one MCP client's request to use this browser (the
 * host's approve_client, waiting in the service worker): its self-declared
 * name, where its key goes, one box per scope it asked for, Allow and
 * Deny. The page named by ?request=<id>, else the oldest waiting request.
 */

const $ = id => document.getElementById(id);
const wanted = new URLSearchParams(location.search).get('request');
/** The request shown, once one is; null before. */
let shown = null;
let decided = false;

/** Shows the outcome, in red when it is a failure. */
function say(text, failed = false) {
	$('outcome').textContent = text;
	$('outcome').className = failed ? 'error' : '';
}

/** One box per scope asked for, ticked as the contract says. */
function scopeBox(scope) {
	const label = document.createElement('label');
	const box = document.createElement('input');
	box.type = 'checkbox';
	box.name = 'scope';
	box.value = scope.name;
	box.checked = scope.ticked;
	label.append(box, ` ${scope.label} `);
	const name = document.createElement('code');
	name.textContent = `(${scope.name})`;
	label.append(name);
	return label;
}

/** Shows the waiting requests as they stand; the shown one going away unanswered is said. */
function render(pending) {
	if (decided)
		return;
	if (shown !== null) {
		if (!pending.some(request => request.request_id === shown.request_id)) {
			$('request').hidden = true;
			say('This request is no longer waiting: it expired (after 5 minutes) or was answered elsewhere. The client asks again when it next connects.', true);
		}
		return;
	}
	const request = wanted !== null ? pending.find(r => r.request_id === wanted) : pending[0];
	if (request === undefined) {
		$('none').hidden = wanted !== null;
		if (wanted !== null)
			say('This request is no longer waiting: it expired (after 5 minutes) or was answered. The client asks again when it next connects.', true);
		return;
	}
	shown = request;
	$('none').hidden = true;
	$('name').textContent = request.client_name;
	$('redirect').textContent = request.redirect_host;
	$('scopes').replaceChildren(...request.scopes.map(scopeBox));
	$('expires').textContent = `Unanswered, it expires at ${new Date(request.expires_at_ms).toLocaleTimeString()}.`;
	$('request').hidden = false;
}

/** Sends the decision to the service worker, which answers the host. */
async function decide(approved) {
	const scopes = [...document.querySelectorAll('input[name=scope]:checked')].map(box => box.value);
	const { result: reply, error } = await chrome.runtime.sendMessage({ type: 'decideClient', request_id: shown.request_id, approved, scopes });
	if (error !== undefined) {
		say(error, true);
		return;
	}
	decided = true;
	$('request').hidden = true;
	const labels = shown.scopes.filter(scope => reply.scopes?.includes(scope.name)).map(scope => scope.label);
	say(reply.approved ?
	    `Allowed: ${shown.client_name} may now do this: ${labels.join(', ')}. You can close this tab.` :
	    `Denied${approved ? ' (no box was ticked)' : ''}: ${shown.client_name} was told so. You can close this tab.`);
}

$('request').addEventListener('submit', event => {
	event.preventDefault();
	decide(true);
});
$('deny').addEventListener('click', () => decide(false));

chrome.runtime.onMessage.addListener(message => {
	if (message?.type === 'approvals')
		render(message.pending);
});
render((await chrome.runtime.sendMessage({ type: 'getApprovals' })).result ?? []);
