// The model providers (src/agents/providers/) against the scripted model
// server (tests/agents/model-server.mjs) over real HTTP, and Gemini's
// request shape against a fake fetch; plus the server's own scenario play.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';

import { createProvider, testConnection, ProviderError, parseJsonText } from '../src/agents/providers/index.js';
import { retryAfterMs } from '../src/agents/providers/request.js';
import { geminiSchema } from '../src/agents/providers/gemini.js';
import { buildPrompt } from '../src/agents/prompts.js';
import { formatState } from '../src/page-state/format.js';
import { Player, findByLabel, parseState, readBlock, startModelServer } from '../../tests/agents/model-server.mjs';

const KEY = 'sk-unit-SECRET-0042';
const servers = [];
after(() => Promise.all(servers.map(s => new Promise(resolve => s.server.close(resolve)))));

// Starts the model server on a scenario; resolves to { url, log() }.
async function serve(scenario) {
	const started = await startModelServer(scenario);
	servers.push(started);
	return { url: started.url, log: async () => (await fetch(`${started.url}/log`)).json() };
}

// Records the waits a provider makes instead of sleeping.
function recordingSleep() {
	const waits = [];
	const sleep = async ms => { waits.push(ms); };
	return { waits, sleep };
}

const validatorCall = { role: 'validator', system: 'You are the validator.', messages: [{ role: 'user', content: 'Check.' }] };

for (const kind of ['openai', 'anthropic']) {
	test(`${kind}: a forced function call comes back checked, with the tokens used`, async () => {
		const model = await serve({ steps: [], usage_per_request: { input_tokens: 7, output_tokens: 3 } });
		const provider = createProvider({ kind, base_url: kind === 'openai' ? `${model.url}/v1` : model.url, api_key: KEY, model: 'scripted' }, { fetch });
		const reply = await provider.complete(validatorCall);
		assert.deepEqual(reply, { output: { verdict: 'accept', reason: 'ok' }, usage: { input_tokens: 7, output_tokens: 3, cached_input_tokens: 0 } });
		assert.deepEqual((await model.log()).map(e => [e.api, e.role, e.status]), [[kind, 'validator', 200]]);
	});
}

test('429 waits for Retry-After, 500 backs off, then the call succeeds', async () => {
	const model = await serve({ steps: [], faults: [{ request: 1, status: 429, retry_after: 2 }, { request: 2, status: 500 }] });
	const { waits, sleep } = recordingSleep();
	const provider = createProvider({ kind: 'openai', base_url: model.url, api_key: KEY, model: 'm' }, { fetch, sleep });
	const reply = await provider.complete(validatorCall);
	assert.equal(reply.output.verdict, 'accept');
	assert.deepEqual(waits, [2000, 2000], 'Retry-After 2 s, then the second backoff (1 s doubled)');
	assert.deepEqual((await model.log()).map(e => e.status), [429, 500, 200]);
});

test('retries stop after three, with the kind and the status', async () => {
	const model = await serve({ steps: [], faults: [1, 2, 3, 4].map(request => ({ request, status: 503 })) });
	const { sleep } = recordingSleep();
	const provider = createProvider({ kind: 'openai', base_url: model.url, api_key: KEY, model: 'm' }, { fetch, sleep });
	await assert.rejects(provider.complete(validatorCall), error => error instanceof ProviderError && error.kind === 'server' &&
	    error.status === 503 && /kept failing \(HTTP 503/.test(error.message));
	assert.equal((await model.log()).length, 4);
});

test('401 fails at once, names the provider and what to check, and never shows the key', async () => {
	const model = await serve({ steps: [], faults: [{ request: 1, status: 401 }] });
	const provider = createProvider({ kind: 'anthropic', base_url: model.url, api_key: KEY, model: 'm' }, { fetch });
	await assert.rejects(provider.complete(validatorCall), error => {
		assert.equal(error.kind, 'auth');
		assert.match(error.message, /^the Anthropic API at 127\.0\.0\.1:\d+ refused the request \(HTTP 401/);
		assert.match(error.message, /API key .* options page/);
		assert.ok(!error.message.includes(KEY));
		return true;
	});
	assert.equal((await model.log()).length, 1);
});

test('an error body that echoes the key is redacted', async () => {
	const echo = async () => new Response(JSON.stringify({ error: { message: `key ${KEY} is not valid` } }), { status: 400 });
	const provider = createProvider({ kind: 'openai', api_key: KEY, model: 'm' }, { fetch: echo });
	await assert.rejects(provider.complete(validatorCall), error => error.kind === 'bad_request' && !error.message.includes(KEY) &&
	    error.message.includes('[redacted]') && error.message.startsWith('OpenAI rejected'));
});

test('malformed output gets one repair retry that says what was wrong; twice malformed is an error', async () => {
	const once = await serve({ steps: [], faults: [{ request: 1, malformed: true }] });
	const bodies = [];
	const spy = async (url, init) => { bodies.push(JSON.parse(init.body)); return fetch(url, init); };
	const provider = createProvider({ kind: 'openai', base_url: once.url, api_key: KEY, model: 'm' }, { fetch: spy });
	const reply = await provider.complete(validatorCall);
	assert.equal(reply.output.verdict, 'accept');
	assert.deepEqual(reply.usage, { input_tokens: 200, output_tokens: 40, cached_input_tokens: 0 }, 'both requests count');
	assert.match(bodies[1].messages.at(-1).content, /^That reply cannot be used: the reply\.unexpected is not allowed\./);

	const twice = await serve({ steps: [], faults: [{ request: 1, malformed: true }, { request: 2, malformed: true }] });
	const bad = createProvider({ kind: 'openai', base_url: twice.url, api_key: KEY, model: 'm' }, { fetch });
	await assert.rejects(bad.complete(validatorCall), error => error.kind === 'malformed' && /unusable validator reply twice/.test(error.message));
});

test('a request that outlives its timeout, or is cancelled, ends with that kind', async () => {
	const model = await serve({ steps: [], faults: [{ request: 1, delay_ms: 2000 }, { request: 2, delay_ms: 2000 }] });
	const provider = createProvider({ kind: 'openai', base_url: model.url, api_key: KEY, model: 'm' }, { fetch });
	await assert.rejects(provider.complete({ ...validatorCall, timeoutMs: 100 }), error => error.kind === 'timeout');
	const controller = new AbortController();
	setTimeout(() => controller.abort(new Error('stop')), 50);
	await assert.rejects(provider.complete({ ...validatorCall, signal: controller.signal }), error => error.kind === 'cancelled');
});

test('an endpoint without tools falls back to JSON mode', async () => {
	const model = await serve({ steps: [] });
	const bodies = [];
	const noTools = async (url, init) => {
		const body = JSON.parse(init.body);
		bodies.push(body);
		if (body.tools !== undefined)
			return new Response(JSON.stringify({ error: { message: 'this model does not support tools' } }), { status: 400 });
		return fetch(url, init);
	};
	const provider = createProvider({ kind: 'openai', base_url: model.url, api_key: '', model: 'm' }, { fetch: noTools });
	const reply = await provider.complete(validatorCall);
	assert.equal(reply.output.verdict, 'accept');
	assert.deepEqual(bodies[1].response_format, { type: 'json_object' });
	assert.match(bodies[1].messages[0].content, /Answer with one JSON object/);
	assert.equal(bodies.length, 2);
});

test('Gemini: the key in a header, a schema it accepts, function call read back', async () => {
	let seen;
	const fake = async (url, init) => {
		seen = { url, headers: init.headers, body: JSON.parse(init.body) };
		return new Response(JSON.stringify({
			candidates: [{ content: { parts: [{ functionCall: { name: 'validator_output', args: { verdict: 'reject', reason: 'no' } } }] } }],
			usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 2 },
		}));
	};
	const provider = createProvider({ kind: 'gemini', api_key: KEY, model: 'gemini-x' }, { fetch: fake });
	const reply = await provider.complete(validatorCall);
	assert.deepEqual(reply, { output: { verdict: 'reject', reason: 'no' }, usage: { input_tokens: 11, output_tokens: 2, cached_input_tokens: 0 } });
	assert.equal(seen.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-x:generateContent');
	assert.equal(seen.headers['x-goog-api-key'], KEY);
	assert.ok(!seen.url.includes(KEY));
	const parameters = seen.body.tools[0].functionDeclarations[0].parameters;
	assert.equal(JSON.stringify(parameters).includes('additionalProperties'), false);
	assert.deepEqual(parameters.properties.verdict, { enum: ['accept', 'reject'], description: parameters.properties.verdict.description, type: 'string' });
	assert.deepEqual(seen.body.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['validator_output'] } });
	assert.deepEqual(geminiSchema({ type: 'object', additionalProperties: false }), { type: 'object', properties: {} });
	assert.deepEqual(geminiSchema({ anyOf: [{ type: 'object', additionalProperties: false, properties: { a: { enum: ['x'] } } }, { type: 'null' }] }),
	    { anyOf: [{ type: 'object', properties: { a: { enum: ['x'], type: 'string' } } }, { type: 'null' }] }, 'the branches of anyOf are converted too');
});

test('JSON in text is found whole, fenced or among words; Retry-After in seconds or as a date', () => {
	assert.deepEqual(parseJsonText('{"a":1}'), { a: 1 });
	assert.deepEqual(parseJsonText('Sure:\n```json\n{"a":2}\n```'), { a: 2 });
	assert.deepEqual(parseJsonText('The answer is {"a":3}. Done.'), { a: 3 });
	assert.equal(parseJsonText('no json'), undefined);
	assert.equal(retryAfterMs('3', 0), 3000);
	assert.equal(retryAfterMs(new Date(10000).toUTCString(), 4000), 6000);
	assert.equal(retryAfterMs('9999', 0), 60000);
	assert.equal(retryAfterMs(null, 0), null);
});

test('Test connection reports the model, or the reason it failed', async () => {
	const good = await serve({ steps: [] });
	const ok = await testConnection({ kind: 'openai', base_url: good.url, api_key: KEY, model: 'scripted' }, { fetch });
	assert.equal(ok.ok, true);
	assert.match(ok.message, /^Connected: scripted at the OpenAI-compatible API at 127\.0\.0\.1:\d+ answered \(120 tokens\)\.$/);
	const bad = await serve({ steps: [], faults: [{ request: 1, status: 403 }] });
	const refused = await testConnection({ kind: 'openai', base_url: bad.url, api_key: KEY, model: 'scripted' }, { fetch });
	assert.equal(refused.ok, false);
	assert.match(refused.message, /HTTP 403/);
});

// A state text as get_browser_state writes it.
const STATE = formatState({
	tab: { id: 1, url: 'http://shop/order', title: 'Order' }, viewport: { width: 800, height: 600 }, scroll: { x: 0, y: 0, above: 0, below: 0 },
	tabs: [], frames: [], omitted: 0,
	elements: [
		{ ref: 'e4', role: 'textbox', name: 'Full name', depth: 0 },
		{ ref: 'e5', role: 'combobox', name: 'Country', value: 'Choose…', depth: 0 },
		{ ref: 'e6', role: 'button', name: 'Place order', depth: 0 },
	],
});

test('the model server finds refs by label in a real state text, advances on ok and repeats after an error', () => {
	assert.deepEqual(parseState(STATE).map(e => e.ref), ['e4', 'e5', 'e6']);
	assert.equal(findByLabel(parseState(STATE), 'place ORDER').ref, 'e6');
	const player = new Player({ steps: [{ do: 'type', label: 'Full name', text: 'Ada' }, { do: 'click', label: 'Place order' }, { do: 'answer', pattern: 'Order #\\d+' }] });
	const block = history => readBlock(buildPrompt('navigator', { task: 't', state: STATE, page_text: 'Order #77 placed', history, tools: [] }, 'ab').messages[0].content);
	assert.deepEqual(player.navigator(block([])).actions, [{ tool: 'type_value', args: { ref: 'e4', text: 'Ada' } }]);
	const typed = { step: 1, tool: 'type_value', args: { ref: 'e4' }, outcome: 'ok', detail: 'Typed' };
	assert.deepEqual(player.navigator(block([typed])).actions, [{ tool: 'click_element', args: { ref: 'e6' } }]);
	const stale = { step: 2, tool: 'click_element', args: { ref: 'e6' }, outcome: 'error', detail: 'STALE_REF: gone' };
	assert.deepEqual(player.navigator(block([typed, stale])).actions, [{ tool: 'click_element', args: { ref: 'e6' } }], 'repeated after the error');
	const clicked = { ...stale, outcome: 'ok', detail: 'Clicked' };
	assert.deepEqual(player.navigator(block([typed, stale, clicked])), { thought: 'The page shows the result.', actions: [], done: { answer: 'Order #77' } });
	const validator = readBlock(buildPrompt('validator', { task: 't', state: STATE, page_text: 'Order #77 placed', history: [], claimed_answer: 'Order #1' }, 'cd').messages[0].content);
	assert.equal(player.validator(validator).verdict, 'reject');
	assert.equal(player.validator({ ...validator, claimed: 'Order #77' }).verdict, 'accept');
});
