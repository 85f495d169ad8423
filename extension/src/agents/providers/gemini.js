/**
 * Google Gemini (generateContent): the reply is forced through one
 * function call, or asked for as JSON. The key goes in a header, never in
 * the URL, so it cannot leak through an error that quotes the URL.
 * @module agents/providers/gemini
 */

/**
 * The schema in the OpenAPI subset Gemini accepts: no
 * additionalProperties (in anyOf branches too), and every enum typed as a
 * string.
 * @param {object} schema
 * @returns {object}
 */
export function geminiSchema(schema) {
	const out = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === 'additionalProperties')
			continue;
		if (key === 'properties')
			out.properties = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, geminiSchema(item)]));
		else if (key === 'items')
			out.items = geminiSchema(value);
		else if (key === 'anyOf')
			out.anyOf = value.map(geminiSchema);
		else
			out[key] = value;
	}
	if (out.enum !== undefined && out.type === undefined)
		out.type = 'string';
	if (out.type === 'object' && out.properties === undefined)
		out.properties = {};
	return out;
}

/** @type {import('./index.js').ProviderAdapter} */
export const gemini = {
	defaultBaseUrl: 'https://generativelanguage.googleapis.com',

	name(baseUrl) {
		return baseUrl === this.defaultBaseUrl ? 'Google Gemini' : `the Gemini API at ${new URL(baseUrl).host}`;
	},

	request(settings, baseUrl, call) {
		const contents = call.messages.map(message => ({
			role: message.role === 'assistant' ? 'model' : 'user',
			parts: (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content).map(part => part.type === 'image' ?
			    { inlineData: { mimeType: part.media_type, data: part.data } } : { text: part.text }),
		}));
		const body = { systemInstruction: { parts: [{ text: call.system }] }, contents, generationConfig: { temperature: 0 } };
		if (call.jsonMode)
			body.generationConfig.responseMimeType = 'application/json';
		else {
			body.tools = [{ functionDeclarations: [{ name: call.functionName, description: call.functionDescription, parameters: geminiSchema(call.schema) }] }];
			body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [call.functionName] } };
		}
		return {
			url: `${baseUrl}/v1beta/models/${encodeURIComponent(settings.model)}:generateContent`,
			headers: { 'x-goog-api-key': settings.api_key },
			body,
		};
	},

	read(reply) {
		const parts = reply.candidates?.[0]?.content?.parts ?? [];
		const call = parts.find(part => part.functionCall !== undefined)?.functionCall;
		const text = parts.filter(part => typeof part.text === 'string').map(part => part.text).join('');
		return {
			arguments: call?.args,
			text: text !== '' ? text : undefined,
			/* Implicit caching: the cached part is counted in promptTokenCount too. */
			usage: {
				input_tokens: reply.usageMetadata?.promptTokenCount ?? 0,
				output_tokens: reply.usageMetadata?.candidatesTokenCount ?? 0,
				cached_input_tokens: reply.usageMetadata?.cachedContentTokenCount ?? 0,
			},
		};
	},
};
