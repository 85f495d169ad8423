#!/usr/bin/env node
/*
 * Renders docs/tools.md from the tool catalogue: the catalogue/*.json files
 * named on the command line, in tools/list order (`make docs` passes the
 * Makefile's CATALOGUE list). Writes the Markdown to stdout.
 * Usage: node scripts/tools-doc.mjs catalogue/TOOL.json...
 */
import { readFileSync } from 'node:fs';

const DEFAULT_TIMEOUT_MS = 30000;	/* TOOL_DEFAULT_TIMEOUT_MS in host/tools.h */

/* Descriptions the docs give arguments that tools/list leaves bare to stay small. */
const COMMON_ARGUMENTS = {
	tab_id: 'Tab to act on. Default: the active tab.',
	ref: 'Element ref from `get_browser_state`.',
	include_state: 'Also return the page state after the action.',
};

const HEADER = `<!--
Generated from catalogue/*.json by scripts/tools-doc.mjs. Do not edit by
hand: change the catalogue, then run \`make docs\` (tests/docs.sh fails
while this file is out of date).
-->
# Tools

Browser Bridge serves these tools over MCP (\`tools/list\`, \`tools/call\`).

- Times are in milliseconds.
- Tabs are named by integer \`tab_id\`s. Without one, a tool acts on the
  active tab.
- Elements are named by \`ref\`, a short string such as \`e12\` handed out
  by \`get_browser_state\` (and \`get_dom_extra_elements\`). Refs go stale
  when the page changes: get the state again.
- Action tools take \`include_state: true\` to return the new page state
  with their result, saving a \`get_browser_state\` call.
- The host checks arguments against each input schema before the call
  reaches the browser; unknown arguments are rejected.
- Tasks and network records belong to the client that made them:
  \`list_tasks\`, \`get_task\`, \`answer_task\` and \`stop_task\` (and the
  protocol's \`tasks/*\`) see only the caller's own tasks, another's id
  answering \`TASK_NOT_FOUND\` like an unknown one; \`list_network_requests\`
  and \`get_network_request\` read only the tabs the caller acted in. A
  client with an OAuth key is one caller across its sessions; the owner key
  sees and acts on every client's; the person's side-panel tasks are no
  client's (see [agents.md](agents.md), "Who sees a task").
- A tool that fails returns a normal result with \`isError: true\` and one
  text item \`CODE: message\`. The code is stable (see [protocol.md](protocol.md)),
  for example \`ELEMENT_NOT_FOUND\`, \`STALE_REF\`, \`TAB_NOT_FOUND\`,
  \`NAVIGATION_FAILED\`, \`TIMEOUT\`, \`INVALID_ARGUMENT\`,
  \`EXTENSION_NOT_CONNECTED\` or \`EXTENSION_DISCONNECTED\`; the message
  says what to do next.
- While a \`run_task\` task drives a tab, tools that change that tab's page
  answer \`TAB_BUSY\` at once, naming the task (wait for it with
  \`get_task\`, stop it with \`stop_task\`, or use another tab); tools marked
  read-only still run there.
- Scope is the OAuth scope a client's key needs to see and call the tool
  (\`pages:read\`, \`pages:act\`, \`tasks\`, \`network\`, \`scripts\`; see
  [security.md](security.md), "Keys and scopes"). The owner key holds
  them all.
- Timeout is how long the host waits for the extension before it answers
  \`TIMEOUT\`.
- **What the model reads is the text.** Every tool answers with compact
  text made for a model (the page state is one line per element). Only the
  tools with a structured result listed below (\`run_task\`, \`get_task\`,
  \`host_status\`) declare an \`outputSchema\` and always send
  \`structuredContent\`: a program polls their ids and statuses. Every other
  tool has a structured form too (the state's elements with their boxes,
  the tab list...), but sends it only when the caller asks with
  \`"_meta": {"browser-bridge/structured": true}\` in the \`tools/call\`
  params: clients that hand \`structuredContent\` to the model would
  otherwise pay for the same page twice (the checkout page's state is 425
  bytes of text and about 1,300 of JSON; see [benchmarks.md](benchmarks.md)).
- Hints are the tool's MCP annotations (\`readOnlyHint\`, \`destructiveHint\`,
  \`idempotentHint\`, \`openWorldHint\`). tools/list carries only those that
  differ from the value MCP assumes when a hint is absent.
`;

/** @param {string} text @returns {string} text safe in a table cell */
function cell(text) {
	return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** @param {unknown} value @returns {string} JSON the way the host's jansson writes it */
function json(value) {
	if (value === null || typeof value !== 'object')
		return JSON.stringify(value);
	if (Array.isArray(value))
		return `[${value.map(json).join(', ')}]`;
	return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${json(item)}`).join(', ')}}`;
}

/** @param {unknown} value @returns {string} inline code: strings bare, others as compact JSON */
function code(value) {
	return '`' + (typeof value === 'string' ? cell(value) : JSON.stringify(value)) + '`';
}

/** @param {object} schema @returns {string} the Type column */
function type(schema) {
	if ('enum' in schema)
		return schema.enum.map(code).join(', ');
	if ('anyOf' in schema)
		return schema.anyOf.map(type).join(' or ');
	let text = schema.type ?? 'any';
	if (schema.items !== undefined)
		text += ' of ' + type(schema.items);
	const low = schema.minimum, high = schema.maximum;
	if (low !== undefined && high !== undefined)
		text += `, ${JSON.stringify(low)} to ${JSON.stringify(high)}`;
	else if (low !== undefined)
		text += `, >= ${JSON.stringify(low)}`;
	else if (high !== undefined)
		text += `, <= ${JSON.stringify(high)}`;
	if (schema.minItems !== undefined)
		text += `, at least ${JSON.stringify(schema.minItems)}`;
	return text;
}

/** @returns {string[]} one table row per property, nested objects as dotted names */
function rows(schema, prefix) {
	const required = schema.required ?? [];
	const lines = [];
	for (const [key, property] of Object.entries(schema.properties ?? {})) {
		const name = prefix === undefined ? key : `${prefix}.${key}`;
		let description = property.description ??
		    (prefix === undefined ? COMMON_ARGUMENTS[key] : undefined);
		let text = description !== undefined ? cell(description) : '';
		if ('default' in property)
			text += `${description !== undefined ? ' ' : ''}Default: ${code(property.default)}.`;
		lines.push(`| \`${name}\` | ${type(property)} | ${required.includes(key) ? 'yes' : 'no'} | ${text} |`);
		if (property.properties !== undefined)
			lines.push(...rows(property, name));
	}
	return lines;
}

/** @returns {string} the sentence naming the tool's timeout, answerer and hints */
function facts(tool) {
	const margin = tool.timeout_ms ?? 0;
	let text = tool.timeout_argument !== undefined ?
	    `Timeout: the \`${tool.timeout_argument}\` argument + ${margin} ms (${DEFAULT_TIMEOUT_MS + margin} ms without it).` :
	    `Timeout: ${tool.timeout_ms ?? DEFAULT_TIMEOUT_MS} ms.`;
	text += tool.answered_by === 'host' ? ' Answered by the host.' : ` Extension method \`${tool.method}\`.`;
	text += ` Scope: \`${tool.scope}\`.`;
	const hints = tool.annotations;
	const words = hints.readOnlyHint ? ['read-only'] :
	    [hints.destructiveHint ? 'destructive' : 'not destructive',
	     hints.idempotentHint ? 'idempotent' : 'not idempotent'];
	words.push(hints.openWorldHint ? 'open world' : 'closed world');
	text += ` Hints: ${words.join(', ')}.`;
	if (tool.task_support === 'optional')
		text += ' May run as an MCP task (`execution.taskSupport: optional`; see docs/clients.md, Tasks).';
	return text;
}

/** @returns {string} one tool's section */
function section(tool) {
	const lines = ['', `## \`${tool.name}\`: ${tool.title}`, '', tool.description, ''];
	if (Object.keys(tool.input_schema.properties ?? {}).length === 0)
		lines.push('No arguments.');
	else
		lines.push('| Argument | Type | Required | Description |', '| --- | --- | --- | --- |', ...rows(tool.input_schema));
	if (tool.output_schema !== undefined) {
		const fields = Object.entries(tool.output_schema.properties ?? {})
		    .map(([key, property]) => `\`${key}\` (${type(property)})`);
		lines.push('', `Structured result (\`structuredContent\`): ${fields.join(', ')}.`);
	}
	lines.push('', facts(tool));
	const call = json({ name: tool.name, arguments: tool.example.call });
	lines.push('', 'Example call (`tools/call` params):', '', '```json', call, '```', '',
	    'Reply text:', '', '```text', tool.example.reply, '```');
	return lines.join('\n') + '\n';
}

const files = process.argv.slice(2);
if (files.length === 0) {
	console.error('usage: node scripts/tools-doc.mjs catalogue/TOOL.json...');
	process.exit(2);
}
process.stdout.write(HEADER + files.map(file => section(JSON.parse(readFileSync(file, 'utf8')))).join(''));
