/*
 * The approval page: one MCP client's request to use this browser (the
 * host's approve_client, waiting in the service worker): its self-declared
 * name (with a warning when an approved client already uses a name like
 * it), where its key goes, one box per scope it asked for, Allow and
 * Deny. The page named by ?request=<id>, else the oldest waiting request.
 */

const $ = id => document.getElementById(id);
const wanted = new URLSearchParams(location.search).get('request');
/** The request shown, once one is; null before. */
let shown = null;
/** True from the press of Allow or Deny on, unless the service worker refuses the decision. */
let deciding = false;

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

/**
 * Shows the waiting requests as they stand; the shown one going away
 * unanswered is said. While this page's own decision is on its way, the
 * shown request leaving the list is that decision's doing: the service
 * worker's new list can arrive before its answer to the page.
 */
function render(pending) {
	if (deciding)
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
	const taken = request.name_taken_by ?? null;
	$('namesake').hidden = taken === null;
	if (taken !== null) {
		const date = ms => (ms === null ? 'at an unknown date' : new Date(ms).toLocaleString());
		$('namesake').textContent = `Another client already uses this name: "${taken.client_name}", registered ${date(taken.registered_at_ms)}` +
		    `${taken.approved_at_ms === null ? '' : ` and approved ${date(taken.approved_at_ms)}`}. ` +
		    'Deny this one unless you have just set up a second copy of that client yourself.';
	}
	$('redirect').textContent = request.redirect_host;
	$('scopes').replaceChildren(...request.scopes.map(scopeBox));
	$('expires').textContent = `Unanswered, it expires at ${new Date(request.expires_at_ms).toLocaleTimeString()}.`;
	$('request').hidden = false;
}

/** Sends the decision to the service worker, which answers the host; a second press while it is on its way does nothing. */
async function decide(approved) {
	if (deciding)
		return;
	const scopes = [...document.querySelectorAll('input[name=scope]:checked')].map(box => box.value);
	deciding = true;
	const { result: reply, error } = await chrome.runtime.sendMessage({ type: 'decideClient', request_id: shown.request_id, approved, scopes });
	if (error !== undefined) {
		deciding = false;
		say(error, true);
		return;
	}
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
