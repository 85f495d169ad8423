/**
 * The language models the agents call: one small interface over the
 * OpenAI-compatible, Anthropic and Gemini APIs. A completion asks for a
 * role's reply as a forced function call (JSON mode when the endpoint has
 * no tools), checks it against the role's schema, and repairs it once.
 * @module agents/providers
 */

import { ROLE_SCHEMAS, checkOutput } from '../roles.js';
import { sleep } from '../../sleep.js';
import { ProviderError, postJson } from './request.js';
import { openai } from './openai.js';
import { anthropic } from './anthropic.js';
import { gemini } from './gemini.js';

export { ProviderError };

/**
 * What each API module provides.
 * @typedef {object} ProviderAdapter
 * @property {string} defaultBaseUrl
 * @property {(baseUrl: string) => string} name the API as messages name it
 * @property {(settings: object, baseUrl: string, call: object) => {url: string, headers: object, body: object}} request
 * @property {(reply: object) => {arguments?: object|string, text?: string, usage: Usage}} read
 */

/**
 * The tokens of one reply.
 * @typedef {object} Usage
 * @property {number} input_tokens every input token, cached or not
 * @property {number} output_tokens
 * @property {number} cached_input_tokens the input tokens the API's prompt cache served
 */

/** @type {Record<string, ProviderAdapter>} */
const ADAPTERS = { openai, anthropic, gemini };

/** What the function each role must call is for. */
const FUNCTION_DESCRIPTIONS = {
	planner: 'Give the plan, the next sub-goal and the task\'s status.',
	navigator: 'Give the next actions, or done with the final answer.',
	validator: 'Give the verdict on the claimed answer.',
};

/**
 * Reads the JSON object in a model's text: the whole text, a fenced
 * block, or the outermost braces.
 * @param {string} text
 * @returns {unknown} undefined when there is none
 */
export function parseJsonText(text) {
	const candidates = [text, /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1], text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)];
	for (const candidate of candidates) {
		if (typeof candidate !== 'string' || candidate.trim() === '')
			continue;
		try {
			return JSON.parse(candidate);
		} catch {
			/* try the next form */
		}
	}
	return undefined;
}

/**
 * Says whether a 400 means the endpoint cannot do tools (so JSON mode).
 * @param {ProviderError} error
 */
function toolsUnsupported(error) {
	return error.kind === 'bad_request' && /\b(tools?|tool_choice|function[s_ ]?(call|calling)?)\b/i.test(error.message);
}

/**
 * A provider for one model.
 * @param {import('../settings.js').ProviderSettings} settings
 * @param {{fetch: typeof fetch, sleep?: (ms: number, signal?: AbortSignal) => Promise<void>, log?: (text: string) => void}} deps
 * @returns {{kind: string, model: string, name: string, complete: (call: object) => Promise<{output: object, usage: object}>}}
 */
export function createProvider(settings, deps) {
	const adapter = ADAPTERS[settings.kind];
	if (adapter === undefined)
		throw new Error(`unknown provider kind ${settings.kind}`);
	const baseUrl = (settings.base_url ?? adapter.defaultBaseUrl).replace(/\/+$/, '');
	const name = adapter.name(baseUrl);
	const secrets = [settings.api_key];
	const httpDeps = { fetch: deps.fetch, sleep: deps.sleep ?? sleep };
	let jsonMode = false;

	/** One request; answers the role's raw output and the tokens used. */
	async function ask(role, system, messages, signal, timeoutMs) {
		const schema = ROLE_SCHEMAS[role];
		const call = {
			system: jsonMode ? `${system}\n\nAnswer with one JSON object, and nothing else, that matches this JSON schema:\n${JSON.stringify(schema)}` : system,
			messages, jsonMode, schema,
			functionName: `${role}_output`,
			functionDescription: FUNCTION_DESCRIPTIONS[role],
		};
		const request = adapter.request(settings, baseUrl, call);
		let reply;
		try {
			reply = await postJson({ name, secrets, signal, timeoutMs, ...request }, httpDeps);
		} catch (error) {
			if (!jsonMode && error instanceof ProviderError && toolsUnsupported(error)) {
				jsonMode = true;
				deps.log?.(`${name} does not take tools; asking for JSON instead`);
				return ask(role, system, messages, signal, timeoutMs);
			}
			throw error;
		}
		const read = adapter.read(reply);
		let output = read.arguments;
		if (typeof output === 'string')
			output = parseJsonText(output);
		if (output === undefined && read.text !== undefined)
			output = parseJsonText(read.text);
		return { output, raw: read.arguments ?? read.text ?? '', usage: read.usage };
	}

	return {
		kind: settings.kind,
		model: settings.model,
		name,
		/**
		 * A role's reply, checked; one repair retry when it is unusable.
		 * @param {{role: string, system: string, messages: object[], signal?: AbortSignal, timeoutMs?: number}} call
		 */
		async complete({ role, system, messages, signal, timeoutMs }) {
			const usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
			let conversation = messages;
			for (let attempt = 0; attempt < 2; attempt++) {
				const reply = await ask(role, system, conversation, signal, timeoutMs);
				usage.input_tokens += reply.usage.input_tokens;
				usage.output_tokens += reply.usage.output_tokens;
				usage.cached_input_tokens += reply.usage.cached_input_tokens;
				const wrong = reply.output === undefined ? 'the reply held no JSON object' : checkOutput(role, reply.output);
				if (wrong === null)
					return { output: reply.output, usage };
				if (attempt === 1)
					throw new ProviderError('malformed', `${name}'s model ${settings.model} gave an unusable ${role} reply twice ` +
					    `(${wrong}). Choose a model that supports function calling or JSON output on the options page.`);
				const shown = typeof reply.raw === 'string' ? reply.raw : JSON.stringify(reply.raw);
				conversation = [...messages,
				    { role: 'assistant', content: shown.slice(0, 4000) || '(empty)' },
				    { role: 'user', content: `That reply cannot be used: ${wrong}. Answer again through ${role}_output, ` +
				        `with an object that matches its schema exactly.` }];
			}
			throw new Error('unreachable');
		},
	};
}

/**
 * Makes one tiny call, for the options page's Test connection button.
 * @param {import('../settings.js').ProviderSettings} settings
 * @param {{fetch: typeof fetch, sleep?: Function}} deps
 * @returns {Promise<{ok: boolean, message: string}>}
 */
export async function testConnection(settings, deps) {
	const provider = createProvider(settings, deps);
	try {
		const reply = await provider.complete({
			role: 'validator',
			system: 'This is a connection test. Call validator_output with verdict "accept" and reason "ok".',
			messages: [{ role: 'user', content: 'Connection test: answer verdict accept, reason ok.' }],
			timeoutMs: 30000,
		});
		const tokens = reply.usage.input_tokens + reply.usage.output_tokens;
		return { ok: true, message: `Connected: ${settings.model} at ${provider.name} answered (${tokens} tokens).` };
	} catch (error) {
		return { ok: false, message: error instanceof ProviderError ? error.message : `The test failed: ${error?.message ?? error}` };
	}
}
