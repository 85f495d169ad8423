/**
 * OpenAI-compatible Chat Completions (OpenAI, Ollama, LM Studio, vLLM,
 * OpenRouter, Groq, DeepSeek, ...): the reply is forced through one
 * function call, or asked for as a JSON object in JSON mode.
 * @module agents/providers/openai
 */

/** @type {import('./index.js').ProviderAdapter} */
export const openai = {
	defaultBaseUrl: 'https://api.openai.com/v1',

	name(baseUrl) {
		return baseUrl === this.defaultBaseUrl ? 'OpenAI' : `the OpenAI-compatible API at ${new URL(baseUrl).host}`;
	},

	request(settings, baseUrl, call) {
		const messages = [{ role: 'system', content: call.system }, ...call.messages.map(message => ({
			role: message.role,
			content: typeof message.content === 'string' ? message.content : message.content.map(part => part.type === 'image' ?
			    { type: 'image_url', image_url: { url: `data:${part.media_type};base64,${part.data}` } } :
			    { type: 'text', text: part.text }),
		}))];
		const body = { model: settings.model, messages, temperature: 0 };
		if (call.jsonMode)
			body.response_format = { type: 'json_object' };
		else {
			body.tools = [{ type: 'function', function: { name: call.functionName, description: call.functionDescription, parameters: call.schema } }];
			body.tool_choice = { type: 'function', function: { name: call.functionName } };
		}
		return {
			url: `${baseUrl}/chat/completions`,
			headers: settings.api_key !== '' ? { authorization: `Bearer ${settings.api_key}` } : {},
			body,
		};
	},

	read(reply) {
		const message = reply.choices?.[0]?.message ?? {};
		const call = message.tool_calls?.[0]?.function;
		return {
			arguments: call?.arguments,
			text: typeof message.content === 'string' ? message.content : undefined,
			/* The prefix the API's cache served is part of prompt_tokens. */
			usage: {
				input_tokens: reply.usage?.prompt_tokens ?? 0,
				output_tokens: reply.usage?.completion_tokens ?? 0,
				cached_input_tokens: reply.usage?.prompt_tokens_details?.cached_tokens ?? 0,
			},
		};
	},
};
