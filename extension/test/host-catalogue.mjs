// The tool catalogue as the host sends it in its welcome, for the tests of
// the agents' tools: tests/welcome-catalogue.mjs takes it from the built
// host and tests/extension-unit.sh names the file in
// BRIDGE_WELCOME_CATALOGUE. No test builds a catalogue of its own for the
// agents, so what the host leaves out (issue #32: the scopes) or adds
// reaches the tests exactly as it reaches the extension.

import { readFileSync } from 'node:fs';

import { Dispatcher } from '../src/dispatcher.js';
import { registerActions } from '../src/actions/index.js';
import { ConsoleStore } from '../src/actions/console.js';
import { networkActions } from '../src/actions/network.js';
import { TaskManager } from '../src/agents/task-manager.js';
import { agentTools } from '../src/agents/tools.js';

/**
 * Reads the welcome's catalogue from the file BRIDGE_WELCOME_CATALOGUE names.
 * @returns {object[]}
 */
function readWelcomeCatalogue() {
	const path = process.env.BRIDGE_WELCOME_CATALOGUE;
	if (!path)
		throw new Error('BRIDGE_WELCOME_CATALOGUE is not set: run these tests with `make check TESTS=tests/extension-unit.sh`, ' +
		    'which takes the catalogue from the built host');
	return JSON.parse(readFileSync(path, 'utf8'));
}

/** The welcome's `catalogue`, as the host sent it. */
export const WELCOME_CATALOGUE = Object.freeze(readWelcomeCatalogue());

/**
 * A dispatcher holding the host's welcome catalogue, with every action
 * registered as the service worker registers them.
 * @returns {Dispatcher}
 */
export function registeredDispatcher() {
	const dispatcher = new Dispatcher({ welcome: { catalogue: WELCOME_CATALOGUE } });
	/* The recipe tools only close over their store, recordings and runner: none is needed to register them. */
	registerActions(dispatcher, { consoleStore: new ConsoleStore(), tasks: new TaskManager({ dispatcher }), recipes: {} });
	return dispatcher;
}

/** The catalogue tools the extension answers, as the dispatcher hands them to the agents (catalogueActions). */
export const AGENT_CATALOGUE = Object.freeze(registeredDispatcher().catalogueActions());

/**
 * The tools the navigator is offered (agentTools over AGENT_CATALOGUE): by
 * default the owner key's, with scripts and the network tools off.
 * @param {{script?: boolean, network?: boolean, scopes?: string[]}} [allowed]
 * @returns {{name: string, description: string, input_schema: object}[]}
 */
export function navigatorTools(allowed = {}) {
	return agentTools(AGENT_CATALOGUE, { script: false, network: false, networkTools: Object.keys(networkActions), ...allowed });
}
