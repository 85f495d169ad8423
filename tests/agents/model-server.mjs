#!/usr/bin/env node
// A scripted language model for tests: a loopback server that speaks the
// OpenAI-compatible Chat Completions API and the Anthropic Messages API
// (function/tool calling and JSON mode) and plays the planner, navigator
// and validator by following a scenario written in labels, never refs.
// The format is in docs/agents.md ("The scripted model").
//
// Usage: node tests/agents/model-server.mjs --scenario FILE [--port N]
// Prints "listening on http://127.0.0.1:PORT" as its first line.
// POST /release?request=N lets request N, held by a hold fault, answer.
// GET /log answers the requests so far: [{n, time, done, api, role, status,
// model, key, offered, chars_in, repeat, state_chars, chars_out, usage}] (key: the API key the
// request carried, or null; offered: the tools the navigator's prompt lists, by
// name, or null; chars_in: the prompt's characters, system and
// messages; repeat: how many of them begin as the same role's previous
// prompt did; state_chars: the page state it carried; chars_out: the
// output's JSON; usage: the tokens reported).

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const ROLES = ['planner', 'navigator', 'validator'];
const FENCE = /<untrusted_page_data nonce="([0-9a-f]+)">\n([\s\S]*?)\n<\/untrusted_page_data nonce="\1">/;

// Reads --name value pairs.
function options(argv) {
	const out = {};
	for (let i = 0; i < argv.length; i++) {
		if (!argv[i].startsWith('--') || i + 1 >= argv.length)
			throw new Error(`usage: model-server.mjs --scenario FILE [--port N] (bad argument ${argv[i]})`);
		out[argv[i].slice(2)] = argv[++i];
	}
	if (out.scenario === undefined)
		throw new Error('usage: model-server.mjs --scenario FILE [--port N]');
	return out;
}

// The elements of a page state text: [{ref, role, name}] (format.js lines:
// `e12 textbox "Email" ...`, possibly indented).
export function parseState(text) {
	const elements = [];
	for (const line of text.split('\n')) {
		const match = /^\s*(e\d+)\s+(\S+)[^"]*?("(?:[^"\\]|\\.)*")/.exec(line);
		if (match)
			elements.push({ ref: match[1], role: match[2], name: JSON.parse(match[3]) });
	}
	return elements;
}

// The headers of the untrusted block's sections, in any order.
const SECTIONS = {
	state: 'Page state:\n',
	text: 'Page text:\n',
	history: 'History of steps (labels and results quote the page):\n',
	rejection: 'The validator rejected the last answer: ',
	claimed: 'Claimed answer: ',
	url: 'URL: ',
};

// The parts of the untrusted block: {state, text, history, claimed}. Each
// section runs from its header to the next header (or the block's end).
export function readBlock(prompt) {
	const match = FENCE.exec(prompt);
	if (!match)
		return null;
	const body = `\n${match[2]}`;
	const starts = Object.entries(SECTIONS).map(([name, header]) => [name, body.indexOf(`\n${header}`), header])
	    .filter(([, at]) => at !== -1).sort((a, b) => a[1] - b[1]);
	const parts = {};
	starts.forEach(([name, at, header], i) =>
		parts[name] = body.slice(at + 1 + header.length, i + 1 < starts.length ? starts[i + 1][1] : undefined).trim());
	return {
		state: parts.state ?? '',
		text: parts.text ?? '',
		history: (parts.history ?? '').split('\n').filter(Boolean),
		claimed: parts.claimed,
	};
}

// Finds the element a label names: exact name first, then a substring.
export function findByLabel(elements, label) {
	const lower = label.toLowerCase();
	return elements.find(e => e.name === label) ?? elements.find(e => e.name.toLowerCase().includes(lower));
}

// The action a scenario step names, on a page with these elements:
// {tool, args}, or null when the element it names is not there (yet).
export function actionFor(step, elements) {
	if (step.do === 'navigate')
		return { tool: 'navigate_to', args: { url: step.url, ...(step.new_tab === true ? { new_tab: true } : {}) } };
	if (step.do === 'press')
		return { tool: 'press_keys', args: { keys: step.keys } };
	if (step.do === 'scroll')
		return { tool: 'scroll_page', args: { direction: step.direction ?? 'down' } };
	if (step.do === 'ask')
		return { tool: 'ask_user', args: { question: step.question } };
	const element = findByLabel(elements, step.label);
	if (element === undefined)
		return null;
	switch (step.do) {
	case 'click':
		return { tool: 'click_element', args: { ref: element.ref } };
	case 'type':
		return { tool: 'type_value', args: { ref: element.ref, text: step.text } };
	case 'select':
		return { tool: 'select_option', args: { ref: element.ref, values: [step.option] } };
	default:
		throw new Error(`the scenario has an unknown step "${step.do}"`);
	}
}

// A scenario player; each call answers one request's role output.
export class Player {
	constructor(scenario) {
		this.steps = scenario.steps ?? [];
		this.wrongFirst = scenario.wrong_answer_first === true;
		this.cursor = 0;
		this.pending = null;	// the tool the last navigator reply asked for
		this.wrongGiven = false;
	}

	// The correct answer on a page: the first match of the answer step's pattern.
	answerOn(block) {
		const step = this.steps.find(s => s.do === 'answer');
		if (step === undefined || block === null)
			return null;
		return new RegExp(step.pattern).exec(`${block.state}\n${block.text}`)?.[0] ?? null;
	}

	planner() {
		const left = this.steps.slice(this.cursor);
		const next = left[0];
		if (next?.do === 'impossible')
			return { plan: 'The scenario says the task cannot be done.', next_goal: 'none', status: 'impossible', reason: next.reason ?? 'impossible' };
		return {
			plan: left.map((s, i) => `${i + 1}. ${s.do} ${s.label ?? s.url ?? s.pattern ?? ''}`.trim()).join('\n') || '1. Report the result.',
			next_goal: next === undefined ? 'Report the result.' : `${next.do} ${next.label ?? next.url ?? next.pattern ?? ''}`.trim(),
			status: 'continue',
		};
	}

	navigator(block) {
		if (this.pending !== null) {
			const last = [...(block?.history ?? [])].reverse().find(line => line.includes(`: ${this.pending} `) || line.includes(`: ${this.pending} ->`));
			if (last !== undefined && / -> ok\b/.test(last))
				this.cursor++;
			this.pending = null;
		}
		const step = this.steps[this.cursor];
		if (step === undefined || step.do === 'answer') {
			let answer = this.answerOn(block) ?? 'no answer on the page';
			if (this.wrongFirst && !this.wrongGiven) {
				this.wrongGiven = true;
				answer = 'Order #0';
			}
			return { thought: 'The page shows the result.', actions: [], done: { answer } };
		}
		const action = actionFor(step, parseState(block?.state ?? ''));
		if (action === null)
			return { thought: `No element labelled "${step.label}" yet; waiting.`, actions: [{ tool: 'wait_for', args: { delay_ms: 300 } }] };
		return this.act(action.tool, action.args);
	}

	act(tool, args) {
		this.pending = tool;
		return { thought: `Next: ${tool}.`, actions: [{ tool, args }] };
	}

	validator(block) {
		const right = this.answerOn(block);
		const claimed = block?.claimed;
		if (claimed === undefined)
			return { verdict: 'accept', reason: 'ok' };
		if (right !== null && claimed.trim() === right)
			return { verdict: 'accept', reason: `The page shows ${right}.` };
		return { verdict: 'reject', reason: right === null ? 'The page does not show the answer.' : `The page shows ${right}, not ${claimed}.` };
	}
}

// The text of a message's content (its text parts).
function contentText(content) {
	if (typeof content === 'string')
		return content;
	return (Array.isArray(content) ? content : []).filter(p => p.type === 'text' || typeof p.text === 'string').map(p => p.text).join('\n');
}

// The role a request asks for, the prompt text, the whole prompt as the
// model reads it (system, then each message) and the API's shape.
function readRequest(api, body) {
	const forced = api === 'openai' ? body.tool_choice?.function?.name : body.tool_choice?.name;
	const system = api === 'openai' ? contentText(body.messages?.find(m => m.role === 'system')?.content ?? '') : contentText(body.system ?? '');
	const role = forced?.replace(/_output$/, '') ?? ROLES.find(r => system.includes(`You are the ${r}`));
	const user = body.messages?.find(m => m.role === 'user');
	const whole = [...(api === 'openai' ? [] : [system]), ...(body.messages ?? []).map(m => contentText(m.content))].join('\n');
	return { role, prompt: contentText(user?.content), whole, offered: offeredTools(system), tools: forced !== undefined };
}

// The tools a navigator's system prompt offers, by name (the "- name(...)"
// lines under "Tools you may use"), or null for a prompt with no such list.
function offeredTools(system) {
	const at = system.indexOf('Tools you may use');
	if (at === -1)
		return null;
	const names = [];
	for (const line of system.slice(at).split('\n').slice(1)) {
		const match = /^- (\w+)\(/.exec(line);
		if (match === null)
			break;
		names.push(match[1]);
	}
	return names;
}

// How many characters two texts share from their beginning.
export function commonPrefix(a, b) {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i))
		i++;
	return i;
}

// The usage a reply reports: the scenario's fixed numbers, or with
// usage "estimate" the characters over 4 (in: the prompt; out: the
// output; cached: the prompt's repeat of the same role's last prompt, as a
// provider's prefix cache would find it).
function usageFor(scenario, entry) {
	if (scenario.usage === 'estimate')
		return { input_tokens: Math.ceil(entry.chars_in / 4), output_tokens: Math.ceil(entry.chars_out / 4), cached_tokens: Math.floor(entry.repeat / 4) };
	const fixed = scenario.usage_per_request ?? { input_tokens: 100, output_tokens: 20 };
	return { input_tokens: fixed.input_tokens, output_tokens: fixed.output_tokens, cached_tokens: fixed.cached_tokens ?? 0 };
}

// The API reply carrying output, with usage in the API's own fields
// (OpenAI: prompt_tokens_details.cached_tokens; Anthropic: input_tokens
// without the cached part, which is cache_read_input_tokens).
function reply(api, role, output, usage, viaTools) {
	if (api === 'openai') {
		const message = viaTools ?
		    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: `${role}_output`, arguments: JSON.stringify(output) } }] } :
		    { role: 'assistant', content: JSON.stringify(output) };
		return { id: 'chatcmpl-scripted', object: 'chat.completion', model: 'scripted', choices: [{ index: 0, message, finish_reason: viaTools ? 'tool_calls' : 'stop' }],
		    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens,
			...(usage.cached_tokens > 0 ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } } : {}) } };
	}
	return { id: 'msg_scripted', type: 'message', role: 'assistant', model: 'scripted',
	    content: viaTools ? [{ type: 'tool_use', id: 'toolu_1', name: `${role}_output`, input: output }] : [{ type: 'text', text: JSON.stringify(output) }],
	    stop_reason: viaTools ? 'tool_use' : 'end_turn',
	    usage: { input_tokens: usage.input_tokens - usage.cached_tokens, output_tokens: usage.output_tokens,
		...(usage.cached_tokens > 0 ? { cache_read_input_tokens: usage.cached_tokens } : {}) } };
}

// Starts the server; resolves to { server, url }.
export function startModelServer(scenario, port = 0) {
	const player = new Player(scenario);
	const lastPrompt = new Map();
	const faults = new Map((scenario.faults ?? []).map(f => [f.request, f]));
	const log = [];
	const holds = new Map();
	// The release a held request number waits for (made by whichever comes first).
	const holdOf = n => {
		if (!holds.has(n)) {
			const hold = {};
			hold.released = new Promise(resolve => { hold.release = resolve; });
			holds.set(n, hold);
		}
		return holds.get(n);
	};
	const server = createServer((req, res) => {
		const send = (status, body, headers = {}) => {
			res.writeHead(status, { 'content-type': 'application/json', ...headers });
			res.end(JSON.stringify(body));
			if (entry !== null)
				entry.done = Date.now();
		};
		let entry = null;
		if (req.method === 'GET' && req.url === '/log') {
			send(200, log);
			return;
		}
		if (req.method === 'POST' && req.url.startsWith('/release?')) {
			const n = Number(new URL(req.url, 'http://x').searchParams.get('request'));
			holdOf(n).release();
			send(200, { released: n });
			return;
		}
		const api = req.url.endsWith('/chat/completions') ? 'openai' : req.url.endsWith('/v1/messages') ? 'anthropic' : null;
		if (req.method !== 'POST' || api === null) {
			send(404, { error: { message: `no such endpoint: ${req.method} ${req.url}` } });
			return;
		}
		const chunks = [];
		req.on('data', chunk => chunks.push(chunk));
		req.on('end', async () => {
			const key = api === 'openai' ? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] : req.headers['x-api-key'];
			entry = { n: log.length + 1, time: Date.now(), done: null, api, role: null, status: 0, model: null, key: key ?? null };
			log.push(entry);
			const fault = faults.get(entry.n) ?? {};
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				entry.status = 400;
				send(400, { error: { message: 'the body is not JSON' } });
				return;
			}
			const { role, prompt, whole, offered, tools } = readRequest(api, body);
			entry.role = role ?? null;
			entry.offered = offered;
			entry.chars_in = whole.length;
			entry.repeat = commonPrefix(lastPrompt.get(role) ?? '', whole);
			lastPrompt.set(role, whole);
			entry.model = typeof body.model === 'string' ? body.model : null;
			if (fault.delay_ms !== undefined || fault.hold) {
				await (fault.hold ? holdOf(entry.n).released : new Promise(resolve => setTimeout(resolve, fault.delay_ms)));
				if (res.destroyed || req.socket.destroyed)
					return;
			}
			if (fault.status !== undefined) {
				entry.status = fault.status;
				send(fault.status, { error: { message: `scripted failure ${fault.status}` } },
				    fault.retry_after !== undefined ? { 'retry-after': String(fault.retry_after) } : {});
				return;
			}
			if (role === undefined) {
				entry.status = 400;
				send(400, { error: { message: 'no role: force a <role>_output tool, or name the role in the system prompt' } });
				return;
			}
			const block = readBlock(prompt);
			entry.state_chars = block?.state.length ?? 0;
			const output = fault.malformed ? { unexpected: 'not what the schema asks for' } : player[role](block);
			entry.status = 200;
			entry.chars_out = JSON.stringify(output).length;
			entry.usage = usageFor(scenario, entry);
			send(200, reply(api, role, output, entry.usage, tools));
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }));
	});
}

if (import.meta.url === `file://${process.argv[1]}`) {
	try {
		const args = options(process.argv.slice(2));
		const scenario = JSON.parse(readFileSync(args.scenario, 'utf8'));
		const { url } = await startModelServer(scenario, Number(args.port ?? 0));
		console.log(`listening on ${url}`);
	} catch (error) {
		console.error(`model-server: ${error.message}`);
		process.exit(2);
	}
}
