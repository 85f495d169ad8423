/**
 * The Anthropic Messages API: the reply is forced through one tool, or
 * asked for as JSON text.
 * @module agents/providers/anthropic
 */

/** Most tokens a reply may take. */
const MAX_TOKENS = 2048;

/** @type {import('./index.js').ProviderAdapter} */
export const anthropic = {
	defaultBaseUrl: 'https://api.anthropic.com',

	name(baseUrl) {
		return baseUrl === this.defaultBaseUrl ? 'Anthropic' : `the Anthropic API at ${new URL(baseUrl).host}`;
	},

	request(settings, baseUrl, call) {
		const messages = call.messages.map(message => ({
			role: message.role,
			content: typeof message.content === 'string' ? message.content : message.content.map(part => part.type === 'image' ?
			    { type: 'image', source: { type: 'base64', media_type: part.media_type, data: part.data } } :
			    { type: 'text', text: part.text }),
		}));
		/* A cache breakpoint after the system prompt: the tool and the system prompt, the same for every step of a task, are cached. */
		const system = [{ type: 'text', text: call.system, cache_control: { type: 'ephemeral' } }];
		const body = { model: settings.model, max_tokens: MAX_TOKENS, system, messages, temperature: 0 };
		if (!call.jsonMode) {
			body.tools = [{ name: call.functionName, description: call.functionDescription, input_schema: call.schema }];
			body.tool_choice = { type: 'tool', name: call.functionName };
		}
		return {
			url: `${baseUrl}/v1/messages`,
			headers: {
				'x-api-key': settings.api_key,
				'anthropic-version': '2023-06-01',
				/* Calls from an extension carry an Origin; the API wants this to allow them. */
				'anthropic-dangerous-direct-browser-access': 'true',
			},
			body,
		};
	},

	read(reply) {
		const parts = Array.isArray(reply.content) ? reply.content : [];
		const tool = parts.find(part => part.type === 'tool_use');
		const text = parts.filter(part => part.type === 'text').map(part => part.text).join('');
		return {
			arguments: tool?.input,
			text: text !== '' ? text : undefined,
			/* input_tokens leaves out what was read from or written to the cache: the task counts all of it. */
			usage: {
				input_tokens: (reply.usage?.input_tokens ?? 0) + (reply.usage?.cache_read_input_tokens ?? 0) +
				    (reply.usage?.cache_creation_input_tokens ?? 0),
				output_tokens: reply.usage?.output_tokens ?? 0,
				cached_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
			},
		};
	},
};
