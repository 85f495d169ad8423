// The agents' question reaching the MCP caller's own user (2025-11-25
// elicitation): when a run_task call's task asks (progress with "input"),
// a 1.x SDK client that declared the elicitation capability gets
// elicitation/create on the call's stream, even without asking for
// progress; its accepted answer reaches the extension as answer_task with
// the task, the question and the client's name; a decline reaches nothing;
// a client without the capability is never asked.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { startHost } from './fake-extension.mjs';
import { close, connect, opts } from './mcp-client.mjs';

const QUESTION = { task_id: 'T1', question_id: 'q1', question: 'Which country should the mug go to?' };

describe('the agents ask the caller\'s user', () => {
	let host;
	let answers;
	let answered;
	let untoldAfterMs;	// null: the task waits for its answer however long it takes
	before(async () => {
		host = await startHost({
			handlers: {
				// A task whose agents ask once, then finish with what they
				// were told (or, after untoldAfterMs, untold).
				run_task: async (params, ctx) => {
					const told = new Promise(resolve => {
						answered = resolve;
					});
					ctx.progress(1, undefined, 'Task T1 waits for the person at the browser (input required)', QUESTION);
					const answer = await Promise.race([told,
					    ...(untoldAfterMs === null ? [] : [new Promise(resolve => setTimeout(resolve, untoldAfterMs, null))])]);
					return { content: [{ type: 'text', text: `Task T1 done: ${answer ?? 'nobody answered'}` }] };
				},
				answer_task: (params, ctx) => {
					answers.push({ ...params, client: ctx.request.client });
					answered(params.answer);
					return { content: [{ type: 'text', text: 'answered' }], structuredContent: { answered: true } };
				},
			},
		});
	});
	after(() => host?.stop());

	// A client that can ask its user, answering each question with reply().
	async function askingClient(reply) {
		const asked = [];
		const client = await connect(host, {
			name: 'asking-client', version: '2.0.0', capabilities: { elicitation: {} },
			onClient: c => c.setRequestHandler(ElicitRequestSchema, request => {
				asked.push(request.params);
				return reply(request.params);
			}),
		});
		return { client, asked };
	}

	it('a client that can ask its user gets elicitation/create; its answer reaches the task', async () => {
		answers = [];
		untoldAfterMs = null;	// no race with the answer's round trip
		const { client, asked } = await askingClient(() => ({ action: 'accept', content: { answer: 'Canada' } }));
		try {
			const result = await client.callTool({ name: 'run_task', arguments: { task: 'Order a mug' } }, undefined, opts());
			assert.equal(result.content[0].text, 'Task T1 done: Canada');
			assert.equal(asked.length, 1);
			assert.equal(asked[0].message, QUESTION.question);
			assert.deepEqual(asked[0].requestedSchema.required, ['answer']);
			assert.equal(asked[0].requestedSchema.properties.answer.type, 'string');
			assert.deepEqual(answers, [{ task_id: 'T1', question_id: 'q1', answer: 'Canada', client: 'asking-client 2.0.0' }]);
		} finally {
			await close(client);
		}
	});

	it('a declined question reaches nothing: the person answers in the browser', async () => {
		answers = [];
		untoldAfterMs = 500;
		const { client, asked } = await askingClient(() => ({ action: 'decline' }));
		try {
			const result = await client.callTool({ name: 'run_task', arguments: { task: 'Order a mug' } }, undefined, opts());
			assert.equal(result.content[0].text, 'Task T1 done: nobody answered');
			assert.equal(asked.length, 1);
			assert.deepEqual(answers, []);
		} finally {
			await close(client);
		}
	});

	it('a client without the capability is not asked', async () => {
		answers = [];
		untoldAfterMs = 500;
		const client = await connect(host);
		try {
			const result = await client.callTool({ name: 'run_task', arguments: { task: 'Order a mug' } }, undefined, opts());
			assert.equal(result.content[0].text, 'Task T1 done: nobody answered');
			assert.deepEqual(answers, []);
		} finally {
			await close(client);
		}
	});
});
