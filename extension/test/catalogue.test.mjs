// The catalogue (catalogue/*.json) and the extension's registered actions
// agree in both directions: every tool the extension answers has an
// action, and every action is a catalogue tool or a named internal method.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Dispatcher } from '../src/dispatcher.js';
import { registerActions } from '../src/actions/index.js';
import { ConsoleStore } from '../src/actions/console.js';
import { TaskManager } from '../src/agents/task-manager.js';

const CATALOGUE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'catalogue');

/** Methods the host calls that are not MCP tools. */
const INTERNAL_METHODS = ['read_resource'];

// The methods catalogue tools send to the extension.
function catalogueMethods() {
	const methods = [];
	for (const file of readdirSync(CATALOGUE).filter(name => name.endsWith('.json'))) {
		const tool = JSON.parse(readFileSync(join(CATALOGUE, file), 'utf8'));
		if (tool.answered_by === 'extension')
			methods.push(tool.method);
	}
	return methods.sort();
}

// The methods the service worker registers (the same function it calls).
function registeredMethods() {
	const dispatcher = new Dispatcher({});
	registerActions(dispatcher, { consoleStore: new ConsoleStore(), tasks: new TaskManager({ dispatcher }) });
	return dispatcher.methods;
}

test('every catalogue tool answered by the extension has an action', () => {
	const registered = new Set(registeredMethods());
	const missing = catalogueMethods().filter(method => !registered.has(method));
	assert.deepEqual(missing, [], `catalogue tools without an extension action: ${missing.join(', ')}`);
});

test('every action is a catalogue tool or a named internal method', () => {
	const known = new Set([...catalogueMethods(), ...INTERNAL_METHODS]);
	const extra = registeredMethods().filter(method => !known.has(method));
	assert.deepEqual(extra, [], `actions with no catalogue tool: ${extra.join(', ')}`);
});

test('the comparison sees the whole catalogue', () => {
	assert.ok(catalogueMethods().length >= 20, 'the catalogue directory was read');
	assert.ok(catalogueMethods().includes('run_task'));
});

test('the named internal methods are registered and are not tools', () => {
	const registered = new Set(registeredMethods());
	for (const method of INTERNAL_METHODS) {
		assert.ok(registered.has(method), `${method} is registered`);
		assert.ok(!catalogueMethods().includes(method), `${method} is not a catalogue tool`);
	}
});

test('traits are set only on tools the dispatcher runs in a tab, where it reads them', () => {
	const dispatcher = new Dispatcher({});
	registerActions(dispatcher, { consoleStore: new ConsoleStore(), tasks: new TaskManager({ dispatcher }) });
	const traits = new Map();
	for (const file of readdirSync(CATALOGUE).filter(name => name.endsWith('.json'))) {
		const tool = JSON.parse(readFileSync(join(CATALOGUE, file), 'utf8'));
		if (tool.traits === undefined)
			continue;
		traits.set(tool.name, tool.traits);
		assert.equal(dispatcher.registry.get(tool.method)?.scope ?? 'tab', 'tab', `${tool.name} has traits but no tab action`);
	}
	/* fill_form and drag_and_drop send the input click_element and type_value send, so they watch dialogs too. */
	for (const name of ['click_element', 'type_value', 'fill_form', 'drag_and_drop'])
		assert.equal(traits.get(name)?.watches_dialogs, true, `${name} watches dialogs`);
});
