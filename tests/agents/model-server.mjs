#!/usr/bin/env node
// A scripted language model for tests: a loopback server that speaks the
// OpenAI-compatible Chat Completions API and the Anthropic Messages API
// (function/tool calling and JSON mode) and plays the planner, navigator
// and validator by following a scenario written in labels, never refs.
// The format is in docs/agents.md ("The scripted model").
//
// Usage: node tests/agents/model-server.mjs --scenario FILE [--port N]
// Prints "listening on http://127.0.0.1:PORT" as its first line.
// GET /log answers the requests so far: [{n, time, done, api, role, status,
// model, key}] (key: the API key the request carried, or null).

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

// The parts of the untrusted block: {state, text, history, claimed}.
export function readBlock(prompt) {
	const match = FENCE.exec(prompt);
	if (!match)
		return null;
	const body = match[2];
	const section = (start, end) => {
		const from = body.indexOf(start);
		if (from === -1)
			return '';
		const to = end === undefined ? -1 : body.indexOf(end, from + start.length);
		return body.slice(from + start.length, to === -1 ? undefined : to).trim();
	};
	return {
		state: section('Page state:\n', '\nPage text:'),
		text: section('Page text:\n', '\nHistory of steps'),
		history: section('History of steps (labels and results quote the page):\n', '\n\n').split('\n').filter(Boolean),
		claimed: /\nClaimed answer: (.*)$/.exec(body)?.[1],
	};
}

// Finds the element a label names: exact name first, then a substring.
export function findByLabel(elements, label) {
	const lower = label.toLowerCase();
	return elements.find(e => e.name === label) ?? elements.find(e => e.name.toLowerCase().includes(lower));
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
		if (step.do === 'navigate')
			return this.act('navigate_to', { url: step.url });
		if (step.do === 'press')
			return this.act('press_keys', { keys: step.keys });
		if (step.do === 'scroll')
			return this.act('scroll_page', { direction: step.direction ?? 'down' });
		if (step.do === 'ask')
			return this.act('ask_user', { question: step.question });
		const element = findByLabel(parseState(block?.state ?? ''), step.label);
		if (element === undefined)
			return { thought: `No element labelled "${step.label}" yet; waiting.`, actions: [{ tool: 'wait_for', args: { delay_ms: 300 } }] };
		switch (step.do) {
		case 'click':
			return this.act('click_element', { ref: element.ref });
		case 'type':
			return this.act('type_value', { ref: element.ref, text: step.text });
		case 'select':
			return this.act('select_option', { ref: element.ref, values: [step.option] });
		default:
			throw new Error(`the scenario has an unknown step "${step.do}"`);
		}
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

// The role a request asks for, the prompt text and the API's shape.
function readRequest(api, body) {
	const forced = api === 'openai' ? body.tool_choice?.function?.name : body.tool_choice?.name;
	const system = api === 'openai' ? body.messages?.find(m => m.role === 'system')?.content ?? '' : body.system ?? '';
	const role = forced?.replace(/_output$/, '') ?? ROLES.find(r => String(system).includes(`You are the ${r}`));
	const user = body.messages?.find(m => m.role === 'user');
	const content = typeof user?.content === 'string' ? user.content :
	    (user?.content ?? []).filter(p => p.type === 'text').map(p => p.text).join('\n');
	return { role, prompt: content, tools: forced !== undefined };
}

// The API reply carrying output.
function reply(api, role, output, usage, viaTools) {
	if (api === 'openai') {
		const message = viaTools ?
		    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: `${role}_output`, arguments: JSON.stringify(output) } }] } :
		    { role: 'assistant', content: JSON.stringify(output) };
		return { id: 'chatcmpl-scripted', object: 'chat.completion', model: 'scripted', choices: [{ index: 0, message, finish_reason: viaTools ? 'tool_calls' : 'stop' }],
		    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens } };
	}
	return { id: 'msg_scripted', type: 'message', role: 'assistant', model: 'scripted',
	    content: viaTools ? [{ type: 'tool_use', id: 'toolu_1', name: `${role}_output`, input: output }] : [{ type: 'text', text: JSON.stringify(output) }],
	    stop_reason: viaTools ? 'tool_use' : 'end_turn', usage };
}

// Starts the server; resolves to { server, url }.
export function startModelServer(scenario, port = 0) {
	const player = new Player(scenario);
	const usage = scenario.usage_per_request ?? { input_tokens: 100, output_tokens: 20 };
	const faults = new Map((scenario.faults ?? []).map(f => [f.request, f]));
	const log = [];
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
			const { role, prompt, tools } = readRequest(api, body);
			entry.role = role ?? null;
			entry.model = typeof body.model === 'string' ? body.model : null;
			if (fault.delay_ms !== undefined) {
				await new Promise(resolve => setTimeout(resolve, fault.delay_ms));
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
			const output = fault.malformed ? { unexpected: 'not what the schema asks for' } : player[role](readBlock(prompt));
			entry.status = 200;
			send(200, reply(api, role, output, usage, tools));
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
