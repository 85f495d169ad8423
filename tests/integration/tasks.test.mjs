// MCP tasks over the extension's task store: the 1.x SDK's experimental
// tasks client (2025-11-25: params.task, tasks/get, tasks/result,
// tasks/list, tasks/cancel) and raw 2026-07-28 requests with the tasks
// extension, both against the same store that get_task and stop_task read.
// The fake extension keeps tasks the way the real one does (random ids, the
// created/updated times, stop_task's "stopped"); the test ends them.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { ExtensionError, startHost } from './fake-extension.mjs';
import { authHeaders, close, connect, opts, raw } from './mcp-client.mjs';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

// A task store shaped like extension/src/agents/task-manager.js.
function taskStore() {
	const tasks = new Map();
	const describe = record => ({
		content: [{ type: 'text', text: record.finished ? `Task ${record.id} ${record.stop_reason}: ${record.answer}` : `Task ${record.id} is running.\nFollow it with get_task.` }],
		structuredContent: {
			task_id: record.id, status: record.finished ? 'finished' : record.question ? 'input_required' : 'running',
			...(record.finished ? { stop_reason: record.stop_reason, answer: record.answer } : {}),
			...(!record.finished && record.question ? { question: record.question, question_id: 'q1' } : {}),
			steps: [], created_at: record.created, updated_at: new Date().toISOString(), keep_ms: 3600000,
		},
	});
	const find = id => {
		const record = tasks.get(id);
		if (record === undefined)
			throw new ExtensionError('TASK_NOT_FOUND', `There is no task "${id}". Call list_tasks to see the tasks.`);
		return record;
	};
	const end = (record, stop_reason, answer) => {
		record.finished = true;
		record.stop_reason = stop_reason;
		record.answer = answer;
		for (const wake of record.waiters.splice(0))
			wake();
	};
	return {
		tasks,
		finish: (id, answer) => end(find(id), 'done', answer),
		/* The agents ask the person (ask_user); the person stops a task in the side panel. */
		ask: (id, question) => {
			find(id).question = question;
		},
		stopByPerson: id => end(find(id), 'stopped_by_user', null),
		/* The person closes the task's tab. */
		closeTabByPerson: id => end(find(id), 'tab_closed', null),
		handlers: {
			run_task: params => {
				const record = { id: randomBytes(16).toString('base64url'), task: params.task, wait: params.wait,
				    created: new Date().toISOString(), finished: false, waiters: [] };
				tasks.set(record.id, record);
				return describe(record);
			},
			/* A replay run as a task (#36) is followed by the same task tools. */
			run_recipe: params => {
				const record = { id: randomBytes(16).toString('base64url'), task: `Replay recipe ${params.recipe_id}`, wait: params.wait,
				    created: new Date().toISOString(), finished: false, waiters: [] };
				tasks.set(record.id, record);
				return describe(record);
			},
			get_task: async params => {
				const record = find(params.task_id);
				if (!record.finished && params.wait_ms > 0)
					await new Promise(resolve => record.waiters.push(resolve));
				return describe(record);
			},
			answer_task: params => {
				const record = find(params.task_id);
				const answered = !record.finished && record.question !== undefined && params.answer !== undefined &&
				    params.question_id === 'q1';
				if (answered) {
					record.answers = [...(record.answers ?? []), params.answer];
					delete record.question;
				}
				const reply = describe(record);
				reply.structuredContent.answered = answered;
				return reply;
			},
			stop_task: params => {
				const record = find(params.task_id);
				const stopped = !record.finished;
				if (stopped)
					end(record, 'cancelled', null);
				const reply = describe(record);
				reply.structuredContent.stopped = stopped;
				return reply;
			},
			list_tasks: () => ({
				content: [{ type: 'text', text: `${tasks.size} tasks` }],
				structuredContent: { tasks: [...tasks.values()].reverse().map(record => describe(record).structuredContent) },
			}),
		},
	};
}

// One raw 2026-07-28 request; the client declares the tasks extension
// unless told otherwise.
async function modern(host, method, params = {}, { declare = true, name } = {}) {
	const routed = name ?? params.taskId ?? params.name;
	const response = await raw(host, {
		method: 'POST',
		headers: {
			'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
			'MCP-Protocol-Version': MODERN, 'Mcp-Method': method,
			...(routed !== undefined ? { 'Mcp-Name': routed } : {}),
			...authHeaders(host),
		},
		body: { jsonrpc: '2.0', id: 5, method, params: { ...params, _meta: {
			'io.modelcontextprotocol/protocolVersion': MODERN,
			'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS]: {} } } : {},
		} } },
	});
	return response;
}

describe('MCP tasks', () => {
	let host;
	let store;
	before(async () => {
		store = taskStore();
		host = await startHost({ handlers: store.handlers });
	});
	after(() => host?.stop());

	it('2025-11-25: run_task advertises task support and the server the tasks capability', async () => {
		const client = await connect(host);
		try {
			assert.deepEqual(client.getServerCapabilities().tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
			const { tools } = await client.listTools(undefined, opts());
			const byName = Object.fromEntries(tools.map(tool => [tool.name, tool]));
			assert.deepEqual(byName.run_task.execution, { taskSupport: 'optional' });
			assert.deepEqual(byName.run_recipe.execution, { taskSupport: 'optional' });
			assert.equal(byName.navigate_to.execution, undefined, 'other tools do not run as tasks');
		} finally {
			await close(client);
		}
	});

	it('2025-11-25: the SDK creates a task, polls it and gets the result; get_task sees the same task', async () => {
		const client = await connect(host);
		try {
			await client.listTools(undefined, opts());
			const seen = [];
			const stream = client.experimental.tasks.callToolStream({ name: 'run_task', arguments: { task: 'find the order number' } },
			    undefined, opts());
			let result = null;
			for await (const message of stream) {
				seen.push(message.type);
				if (message.type === 'taskCreated') {
					const id = message.task.taskId;
					assert.match(id, /^[A-Za-z0-9_-]{22}$/);
					assert.equal(message.task.status, 'working');
					assert.equal(message.task.ttl, 3600000);
					assert.equal(message.task.pollInterval, 1000);
					assert.equal(store.tasks.get(id).wait, false, 'the extension ran it detached');
					const viaTool = await client.callTool({ name: 'get_task', arguments: { task_id: id } }, undefined, opts());
					assert.equal(viaTool.structuredContent.status, 'running');
					setTimeout(() => store.finish(id, 'Order #4711'), 300);
				}
				if (message.type === 'result')
					result = message.result;
				if (message.type === 'error')
					throw message.error;
			}
			assert.equal(seen[0], 'taskCreated');
			assert.equal(seen.at(-1), 'result');
			assert.equal(result.structuredContent.answer, 'Order #4711');
			assert.match(result.content[0].text, /done: Order #4711/);
			assert.equal(result._meta['io.modelcontextprotocol/related-task'].taskId, result.structuredContent.task_id);
		} finally {
			await close(client);
		}
	});

	it('2025-11-25: run_recipe runs as a task too: created detached (wait false), its result from get_task', async () => {
		const client = await connect(host);
		try {
			const created = await client.request({ method: 'tools/call', params: { name: 'run_recipe',
				arguments: { recipe_id: 'rcp_order', parameters: { full_name: 'Ada' } }, task: {} } }, CreateTaskResultSchema, opts());
			const id = created.task.taskId;
			assert.equal(created.task.status, 'working');
			assert.equal(store.tasks.get(id).wait, false, 'the extension ran it detached');
			const waiting = client.experimental.tasks.getTaskResult(id, CallToolResultSchema, opts());
			store.finish(id, 'Recipe rcp_order replayed 5 steps');
			assert.equal((await waiting).structuredContent.answer, 'Recipe rcp_order replayed 5 steps');
		} finally {
			await close(client);
		}
	});

	it('2025-11-25: tasks/result waits for the end; tasks/list lists; tasks/cancel cancels once', async () => {
		const client = await connect(host);
		try {
			const created = await client.request({ method: 'tools/call', params: { name: 'run_task', arguments: { task: 'wait for me' }, task: { ttl: 5000 } } },
			    CreateTaskResultSchema, opts());
			const id = created.task.taskId;
			assert.match(created._meta['io.modelcontextprotocol/model-immediate-response'], /is running/);

			const waiting = client.experimental.tasks.getTaskResult(id, CallToolResultSchema, opts());
			await new Promise(resolve => setTimeout(resolve, 200));
			const listed = await client.experimental.tasks.listTasks(undefined, opts());
			assert.ok(listed.tasks.some(task => task.taskId === id && task.status === 'working'), JSON.stringify(listed));
			store.finish(id, 'waited');
			const result = await waiting;
			assert.equal(result.structuredContent.answer, 'waited');
			assert.equal((await client.experimental.tasks.getTask(id, opts())).status, 'completed');

			await assert.rejects(client.experimental.tasks.cancelTask(id, opts()), error => error.code === -32602 && /already finished/.test(error.message));

			const second = await client.request({ method: 'tools/call', params: { name: 'run_task', arguments: { task: 'cancel me' }, task: {} } },
			    CreateTaskResultSchema, opts());
			const cancelled = await client.experimental.tasks.cancelTask(second.task.taskId, opts());
			assert.equal(cancelled.status, 'cancelled');
			assert.equal((await client.experimental.tasks.getTask(second.task.taskId, opts())).status, 'cancelled');
			const viaTool = await client.callTool({ name: 'get_task', arguments: { task_id: second.task.taskId } }, undefined, opts());
			assert.equal(viaTool.structuredContent.stop_reason, 'cancelled', 'the tools see the same store');

			await assert.rejects(client.experimental.tasks.getTask('no-such-task', opts()), error => error.code === -32602 && /Failed to retrieve task/.test(error.message));
			await assert.rejects(client.experimental.tasks.listTasks('x', opts()), error => error.code === -32602);
		} finally {
			await close(client);
		}
	});

	it('2025-11-25: params.task on a tool that cannot run as a task is refused with -32601', async () => {
		const client = await connect(host);
		try {
			await assert.rejects(client.request({ method: 'tools/call', params: { name: 'navigate_to', arguments: { url: 'https://example.com/' }, task: {} } },
			    CallToolResultSchema, opts()),
			error => error.code === -32601 && /does not run as a task/.test(error.message));
		} finally {
			await close(client);
		}
	});

	it('2026-07-28: server/discover names the extension; run_task answers with a task; tasks/get inlines the result', async () => {
		const discovered = await modern(host, 'server/discover');
		assert.deepEqual(discovered.json.result.capabilities.extensions, { [TASKS]: {} });

		const created = await modern(host, 'tools/call', { name: 'run_task', arguments: { task: 'modern task' } });
		assert.equal(created.status, 200, created.text);
		const task = created.json.result;
		assert.equal(task.resultType, 'task');
		assert.equal(task.status, 'working');
		assert.equal(task.ttlMs, 3600000);
		assert.equal(task.pollIntervalMs, 1000);
		assert.ok(!Number.isNaN(Date.parse(task.createdAt)) && !Number.isNaN(Date.parse(task.lastUpdatedAt)));

		const working = await modern(host, 'tasks/get', { taskId: task.taskId });
		assert.equal(working.json.result.resultType, 'complete');
		assert.equal(working.json.result.status, 'working');
		assert.equal(working.json.result.result, undefined);

		store.finish(task.taskId, 'modern answer');
		const done = (await modern(host, 'tasks/get', { taskId: task.taskId })).json.result;
		assert.equal(done.status, 'completed');
		assert.equal(done.result.structuredContent.answer, 'modern answer');

		assert.deepEqual((await modern(host, 'tasks/update', { taskId: task.taskId, inputResponses: {} })).json.result.resultType, 'complete');
		const cancelAck = (await modern(host, 'tasks/cancel', { taskId: task.taskId })).json.result;
		assert.equal(cancelAck.resultType, 'complete');
	});

	it('a task waiting for the person is input_required with an input request; tasks/update answers it; one the person stopped is cancelled', async () => {
		const created = (await modern(host, 'tools/call', { name: 'run_task', arguments: { task: 'needs a login' } })).json.result;
		store.ask(created.taskId, 'Which country?');
		const waiting = (await modern(host, 'tasks/get', { taskId: created.taskId })).json.result;
		assert.equal(waiting.status, 'input_required');
		assert.deepEqual(waiting.inputRequests, { q1: { method: 'elicitation/create', params: {
			message: 'Which country?',
			requestedSchema: { type: 'object', properties: { answer: { type: 'string', title: 'Answer',
			    description: 'What to tell the browser\'s agents (or "done" once you did it in the browser).' } }, required: ['answer'] },
		} } });
		const declined = await modern(host, 'tasks/update', { taskId: created.taskId, inputResponses: { q1: { action: 'decline' } } });
		assert.equal(declined.json.result.resultType, 'complete');
		assert.equal(store.tasks.get(created.taskId).answers, undefined, 'a declined request answers nothing');
		const malformed = await modern(host, 'tasks/update', { taskId: created.taskId, inputResponses: { q1: { action: 'accept', content: {} } } });
		assert.equal(malformed.json.error.code, -32602);
		const accepted = await modern(host, 'tasks/update', { taskId: created.taskId,
		    inputResponses: { q1: { action: 'accept', content: { answer: 'Canada' } } } });
		assert.equal(accepted.json.result.resultType, 'complete');
		assert.deepEqual(store.tasks.get(created.taskId).answers, ['Canada']);
		assert.equal((await modern(host, 'tasks/get', { taskId: created.taskId })).json.result.status, 'working');
		store.stopByPerson(created.taskId);
		const stopped = (await modern(host, 'tasks/get', { taskId: created.taskId })).json.result;
		assert.equal(stopped.status, 'cancelled');
	});

	it('a task whose tab the person closed is cancelled', async () => {
		const created = (await modern(host, 'tools/call', { name: 'run_task', arguments: { task: 'in a tab the person closes' } })).json.result;
		assert.equal((await modern(host, 'tasks/get', { taskId: created.taskId })).json.result.status, 'working');
		store.closeTabByPerson(created.taskId);
		assert.equal((await modern(host, 'tasks/get', { taskId: created.taskId })).json.result.status, 'cancelled');
	});

	it('2026-07-28: without the extension, run_task runs to the end and the task methods answer -32021', async () => {
		const plain = await modern(host, 'tools/call', { name: 'run_task', arguments: { task: 'plain' } }, { declare: false });
		assert.equal(plain.json.result.resultType, 'complete');
		assert.equal(plain.json.result.structuredContent.task_id !== undefined, true);
		assert.equal(store.tasks.get(plain.json.result.structuredContent.task_id).wait, undefined, 'the call was passed on unchanged');

		const refused = await modern(host, 'tasks/get', { taskId: plain.json.result.structuredContent.task_id }, { declare: false });
		assert.equal(refused.json.error.code, -32021);
		assert.deepEqual(refused.json.error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });

		const unknown = await modern(host, 'tasks/get', { taskId: 'nope' });
		assert.equal(unknown.json.error.code, -32602);
		const mismatch = await modern(host, 'tasks/get', { taskId: 'nope' }, { name: 'other' });
		assert.equal(mismatch.status, 400, 'Mcp-Name must be the task id');
		assert.equal(mismatch.json.error.code, -32020);
		const legacyOnly = await modern(host, 'tasks/list');
		assert.equal(legacyOnly.json.error.code, -32601, 'tasks/list is not part of the 2026-07-28 extension');
	});
});
