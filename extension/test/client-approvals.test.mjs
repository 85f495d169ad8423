// The person's consent to an MCP client (issue #25, src/client-approvals.js):
// the host's approve_client request is answered only when the person
// decides, with the scopes left ticked; the host's cancel drops it; what the
// approval page shows is cleaned and says what was asked. The requests come
// through the real RequestRunner, as the host sends them.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { readFileSync } from 'node:fs';

import { ClientApprovals, PENDING_KEY, SCOPES, fromExtensionPage, pendingClient, shownName } from '../src/client-approvals.js';
import { RequestRunner } from '../src/rpc.js';
import { ErrorCode } from '../src/errors.js';

const ID = '0123456789abcdef0123456789abcdef';
const asked = (overrides = {}) => ({
	request_id: ID, client_id: 'c-1', client_name: 'Claude Code',
	redirect_uri: 'http://127.0.0.1:53123/callback', redirect_host: '127.0.0.1:53123',
	scopes: ['pages:read', 'pages:act', 'tasks', 'network'],
	requested_at_ms: 1764100000000, expires_at_ms: 1764100300000, ...overrides,
});

// The approvals behind a RequestRunner, with what was sent to the host,
// what session storage holds and what the badge heard. When the test ends,
// the host's cancel drops what still waits, so no 5-minute deadline keeps
// the test process alive.
function setup(t) {
	const stored = new Map();
	const session = { get: async key => ({ [key]: stored.get(key) }), set: async items => Object.entries(items).forEach(([k, v]) => stored.set(k, structuredClone(v))) };
	const heard = [];
	const approvals = new ClientApprovals({ session, onChange: pending => heard.push(pending.length) });
	const sent = [];
	const runner = new RequestRunner({
		send: message => sent.push(message),
		dispatch: (method, params, context) => approvals.ask(params, context.signal),
	});
	const request = (id, params, timeout = 300000) => runner.handle({ type: 'request', id, method: 'approve_client', timeout_ms: timeout, params });
	const settle = () => new Promise(resolve => setTimeout(resolve, 5));
	t.after(() => [...runner.running.keys()].forEach(id => runner.handle({ type: 'cancel', id, reason: 'test over' })));
	return { approvals, runner, sent, stored, heard, request, settle, saved: () => approvals.saved.then(() => stored.get(PENDING_KEY)) };
}

test('a request waits for the person: no answer until Allow, then the ticked scopes only, in the asked order', async t => {
	const { approvals, sent, heard, request, settle, saved } = setup(t);
	request(7, asked());
	await settle();
	assert.deepEqual(sent, [], 'nothing is answered before the person decides');
	const [shown] = approvals.pending();
	assert.equal(shown.client_name, 'Claude Code');
	assert.equal(shown.redirect_host, '127.0.0.1:53123');
	assert.deepEqual(shown.scopes.map(s => [s.name, s.label, s.ticked]), [
		['pages:read', 'Read pages', true], ['pages:act', 'Act on pages', true],
		['tasks', 'Run tasks with the agents', true], ['network', 'Network details', false],
	]);
	assert.deepEqual((await saved()).map(p => p.request_id), [ID], 'mirrored for the popup');
	assert.equal(heard.at(-1), 1, 'the badge hears of it');

	assert.deepEqual(approvals.decide(ID, { approved: true, scopes: ['tasks', 'pages:read'] }), { approved: true, scopes: ['pages:read', 'tasks'] });
	await settle();
	assert.deepEqual(sent, [{ type: 'response', id: 7, result: { approved: true, scopes: ['pages:read', 'tasks'] } }]);
	assert.deepEqual(approvals.pending(), []);
	assert.deepEqual(await saved(), []);
	assert.equal(heard.at(-1), 0);
	assert.throws(() => approvals.decide(ID, { approved: true, scopes: ['tasks'] }), /no longer waiting/, 'decided once');
});

test('Deny, and Allow with every box unticked, tell the host approved: false', async t => {
	const { approvals, sent, request, settle } = setup(t);
	const other = 'f'.repeat(32);
	request(1, asked());
	request(2, asked({ request_id: other }));
	await settle();
	assert.deepEqual(approvals.pending().map(p => p.request_id), [ID, other], 'oldest first');
	approvals.decide(ID, { approved: false, scopes: ['tasks'] });
	approvals.decide(other, { approved: true, scopes: [] });
	await settle();
	assert.deepEqual(sent.map(m => [m.id, m.result]), [[1, { approved: false }], [2, { approved: false }]]);
});

test('a scope the client did not ask for cannot be given', async t => {
	const { approvals, sent, request, settle } = setup(t);
	request(3, asked({ scopes: ['pages:read'] }));
	await settle();
	assert.throws(() => approvals.decide(ID, { approved: true, scopes: ['pages:read', 'scripts'] }), /Only the scopes the client asked for/);
	assert.throws(() => approvals.decide(ID, { approved: true, scopes: 'pages:read' }), /Only the scopes/);
	assert.equal(approvals.pending().length, 1, 'still waiting after a refused decision');
	assert.deepEqual(sent, []);
});

test('the host\'s cancel (it gave up after 5 minutes) drops the request, and no answer goes out', async t => {
	const { approvals, runner, sent, request, settle, saved } = setup(t);
	request(9, asked());
	await settle();
	runner.handle({ type: 'cancel', id: 9, reason: 'timeout' });
	await settle();
	assert.deepEqual(approvals.pending(), []);
	assert.deepEqual(await saved(), []);
	assert.throws(() => approvals.decide(ID, { approved: true, scopes: ['tasks'] }), /expired/);
	assert.deepEqual(sent, []);
});

test('the runner\'s own deadline drops it too, answering TIMEOUT once', async t => {
	const { approvals, sent, request } = setup(t);
	request(4, asked(), 300);
	await new Promise(resolve => setTimeout(resolve, 120));
	assert.equal(approvals.pending().length, 0);
	assert.deepEqual(sent.map(m => [m.id, m.error?.code]), [[4, ErrorCode.TIMEOUT]]);
});

test('a malformed request is refused at once with INVALID_ARGUMENT, never shown', async t => {
	const { approvals, sent, request, settle } = setup(t);
	request(5, asked({ request_id: 'short' }));
	request(6, asked({ scopes: ['pages:read', 'admin'] }));
	request(8, asked({ scopes: [] }));
	request(10, asked({ redirect_host: undefined }));
	await settle();
	assert.deepEqual(sent.map(m => [m.id, m.error?.code]), [5, 6, 8, 10].map(id => [id, ErrorCode.INVALID_ARGUMENT]));
	assert.match(sent[1].error.message, /does not know \(admin\)/);
	assert.deepEqual(approvals.pending(), []);
	request(11, asked());
	request(12, asked());
	await settle();
	assert.equal(sent.at(-1).id, 12, 'the same request_id twice');
	assert.equal(approvals.pending().length, 1);
});

test('the name is what the client declared, every control or format character replaced, and cut; an empty one says so', () => {
	assert.equal(pendingClient(asked({ client_name: 'Evil\u0007 \u202eedoC\u202c\u009b2J\u200b\u2028x\n' })).client_name,
	    'Evil\ufffd \ufffdedoC\ufffd\ufffd2J\ufffd\ufffdx\ufffd');
	assert.equal(pendingClient(asked({ client_name: 'x'.repeat(300) })).client_name.length, 100);
	assert.equal([...pendingClient(asked({ client_name: '\u{1f600}'.repeat(300) })).client_name].length, 100, 'characters, not UTF-16 units');
	assert.equal(pendingClient(asked({ client_name: ' ' })).client_name, '(no name given)');
	assert.equal(shownName('Claude \u00e9t\u00e9 \u65e5'), 'Claude \u00e9t\u00e9 \u65e5', 'letters of any script stay');
});

test('a namesake of an approved client is passed on as shown, with its dates; none is null', () => {
	assert.equal(pendingClient(asked()).name_taken_by, null);
	assert.deepEqual(pendingClient(asked({ name_taken_by: { client_name: 'Claude\u202e Code', registered_at_ms: 5, approved_at_ms: 6 } })).name_taken_by,
	    { client_name: 'Claude\ufffd Code', registered_at_ms: 5, approved_at_ms: 6 });
	assert.deepEqual(pendingClient(asked({ name_taken_by: { client_name: 'C', registered_at_ms: 'soon' } })).name_taken_by,
	    { client_name: 'C', registered_at_ms: null, approved_at_ms: null });
	assert.equal(pendingClient(asked({ client_id: 'c-9' })).client_id, 'c-9');
	assert.throws(() => pendingClient(asked({ client_id: undefined })), /client_id/);
});

test('Deny all denies every waiting request of one client, or of every client, at once', async t => {
	const { approvals, sent, heard, request, settle } = setup(t);
	const id = n => n.toString(16).padStart(32, '0');
	request(1, asked({ request_id: id(1), client_id: 'flooder' }));
	request(2, asked({ request_id: id(2), client_id: 'other' }));
	request(3, asked({ request_id: id(3), client_id: 'flooder' }));
	request(4, asked({ request_id: id(4), client_id: 'third' }));
	await settle();
	const changes = heard.length;
	assert.deepEqual(approvals.denyAll('flooder'), { denied: 2 });
	await settle();
	assert.equal(heard.length, changes + 1, 'one change for the badge and the pages');
	assert.deepEqual(approvals.pending().map(p => p.client_id), ['other', 'third']);
	assert.deepEqual(sent.map(m => [m.id, m.result]), [[1, { approved: false }], [3, { approved: false }]]);
	assert.deepEqual(approvals.denyAll('nobody'), { denied: 0 });
	assert.deepEqual(approvals.denyAll(null), { denied: 2 });
	await settle();
	assert.deepEqual(approvals.pending(), []);
	assert.deepEqual(sent.map(m => m.id).sort(), [1, 2, 3, 4]);
});

test('the scope list matches the contract: names, labels and which start ticked', () => {
	assert.deepEqual(SCOPES.map(s => [s.name, s.label, s.ticked]), [
		['pages:read', 'Read pages', true],
		['pages:act', 'Act on pages', true],
		['tasks', 'Run tasks with the agents', true],
		['network', 'Network details', false],
		['scripts', 'Run page scripts', false],
	]);
});

test('requests a previous service worker left in storage are cleared: they can no longer be answered', async () => {
	const stored = new Map([[PENDING_KEY, [{ request_id: ID }]]]);
	const approvals = new ClientApprovals({ session: { set: async items => Object.entries(items).forEach(([k, v]) => stored.set(k, v)) } });
	await approvals.saved;
	assert.deepEqual(stored.get(PENDING_KEY), []);
});

test('decisions are taken only from the extension\'s own pages: not a content script, another extension or a look-alike origin', () => {
	const id = 'lbgfejnjcgkdeceohflfkdiejmokjlpk';
	const base = `chrome-extension://${id}/`;
	assert.equal(fromExtensionPage({ id, url: `${base}approve/approve.html?request=${ID}` }, base), true);
	assert.equal(fromExtensionPage({ id, url: `${base}popup/popup.html` }, base), true);
	assert.equal(fromExtensionPage({ id, url: 'https://shop.test/checkout', tab: { id: 4 }, frameId: 0 }, base), false, 'a content script');
	assert.equal(fromExtensionPage({ id, url: `chrome-extension://${id}.evil.test/x` }, base), false);
	assert.equal(fromExtensionPage({ id: 'another', url: 'chrome-extension://another/page.html' }, base), false);
	assert.equal(fromExtensionPage({ id }, base), false, 'no URL');
});

test('no web page can reach the extension: no externally_connectable, no web-accessible resources', () => {
	const manifest = JSON.parse(readFileSync(new URL('../manifest.json', import.meta.url), 'utf8'));
	assert.equal(manifest.externally_connectable, undefined);
	assert.equal(manifest.web_accessible_resources, undefined);
});
