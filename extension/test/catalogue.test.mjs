// The catalogue the host sends in its welcome and the extension's
// registered actions agree in both directions: every tool the extension
// answers has an action, and every action is a catalogue tool or a named
// internal method. Each tool names the OAuth scope its agents filter on.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SCOPES } from '../src/client-approvals.js';
import { WELCOME_CATALOGUE, navigatorTools, registeredDispatcher } from './host-catalogue.mjs';

/** Methods the host calls that are not MCP tools. */
const INTERNAL_METHODS = ['read_resource'];

// The methods catalogue tools send to the extension (the host answers the tools without one).
function catalogueMethods() {
	return WELCOME_CATALOGUE.filter(tool => tool.method !== undefined).map(tool => tool.method).sort();
}

// The methods the service worker registers (the same function it calls).
function registeredMethods() {
	return registeredDispatcher().methods;
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
	assert.ok(catalogueMethods().length >= 20, 'the welcome\'s catalogue was read');
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
	const dispatcher = registeredDispatcher();
	const traits = new Map();
	for (const tool of WELCOME_CATALOGUE.filter(entry => entry.traits !== undefined)) {
		traits.set(tool.name, tool.traits);
		assert.equal(dispatcher.registry.get(tool.method)?.scope ?? 'tab', 'tab', `${tool.name} has traits but no tab action`);
	}
	/* fill_form and drag_and_drop send the input click_element and type_value send, so they watch dialogs too. */
	for (const name of ['click_element', 'type_value', 'fill_form', 'drag_and_drop'])
		assert.equal(traits.get(name)?.watches_dialogs, true, `${name} watches dialogs`);
});

// Issue #32: the welcome carried no scope, so an OAuth client's agents kept no tool.
test('every tool names a scope the approval page offers, and a key holding every scope gives the agents the owner key\'s tools', () => {
	const known = SCOPES.map(scope => scope.name);
	for (const tool of WELCOME_CATALOGUE)
		assert.ok(known.includes(tool.scope), `${tool.name}: scope ${tool.scope}`);
	const names = allowed => navigatorTools(allowed).map(tool => tool.name);
	for (const allowed of [{}, { script: true, network: true }])
		assert.deepEqual(names({ ...allowed, scopes: known }), names(allowed));
	assert.ok(names({}).includes('click_element'), names({}).join(' '));
});
