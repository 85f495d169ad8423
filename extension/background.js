/*
 * The service worker: connects to the Browser Bridge host, answers its
 * requests through the dispatcher, and tells the popup how things stand.
 */

import { HostConnection } from './src/connection.js';
import { RequestRunner } from './src/rpc.js';
import { Dispatcher } from './src/dispatcher.js';
import { RefTable } from './src/page-state/refs.js';
import { DebuggerPool } from './src/browser/debugger.js';
import { NetworkTracker } from './src/browser/network.js';
import { NetworkLog } from './src/browser/network-log.js';
import { HOST_NAME } from './src/status.js';
import { registerActions } from './src/actions/index.js';
import { ConsoleStore } from './src/actions/console.js';
import { evaluateEnabled } from './src/actions/content.js';
import { agentsNetworkEnabled } from './src/actions/network.js';
import { TaskManager } from './src/agents/task-manager.js';
import { Fence } from './src/agents/fence.js';
import { createProvider } from './src/agents/providers/index.js';
import { buildPrompt } from './src/agents/prompts.js';
import { ResourceNotifier } from './src/resource-events.js';
import { watchResources } from './src/browser/resource-watch.js';
import { PersonControl } from './src/control.js';
import { ClientApprovals, fromExtensionPage } from './src/client-approvals.js';
import { Recordings } from './src/recipes/record.js';
import { RecipeStore } from './src/recipes/store.js';
import { RecipeRunner } from './src/recipes/replay.js';
import { tabReader } from './src/recipes/page.js';
import { StepHealer } from './src/recipes/heal.js';

const version = chrome.runtime.getManifest().version;
const log = text => console.log(`[browser-bridge] ${text}`);

/* Ref numbers survive a service worker restart, so old refs never alias new elements. */
const REF_COUNTER_KEY = 'refCounter';
let saveTimer = null;
const refs = new RefTable(1, () => {
	if (saveTimer !== null)
		return;
	saveTimer = setTimeout(() => {
		saveTimer = null;
		chrome.storage.session.set({ [REF_COUNTER_KEY]: refs.next }).catch(() => {});
	}, 1000);
});
const savedCounter = chrome.storage.session.get(REF_COUNTER_KEY)
    .then(saved => refs.skipTo(saved?.[REF_COUNTER_KEY]))
    .catch(() => {});

/* The person's pause switch, the recent actions and the badge; an open popup hears of changes. */
const control = new PersonControl({
	local: chrome.storage.local,
	session: chrome.storage.session,
	action: chrome.action,
	browser: { tabs: chrome.tabs, tabGroups: chrome.tabGroups },
	onChange: state => chrome.runtime.sendMessage({ type: 'control', control: state }).catch(() => {}),
});

/* MCP clients waiting for the person's approval (#25): the badge counts them; an open popup or approval page hears. */
const approvals = new ClientApprovals({
	session: chrome.storage.session,
	onChange: pending => {
		control.setAwaiting(pending.length);
		chrome.runtime.sendMessage({ type: 'approvals', pending }).catch(() => {});
	},
});

/** Host requests that are no tool: the person's consent to a client. */
const hostMethods = {
	approve_client: (params, context) => approvals.ask(params, context.signal),
};

const debuggers = new DebuggerPool(log);
const dispatcher = new Dispatcher({
	refs,
	debuggers,
	control,
	network: new NetworkTracker(),
	networkLog: new NetworkLog(debuggers),
	storage: chrome.storage.local,
	version,
	log,
});
const consoleStore = new ConsoleStore();
/* Recipes: the calls recorded while a task runs or a client records, kept, and replayed with no model. */
const page = tabReader(refs);
dispatcher.recordings = new Recordings(page);
const recipes = new RecipeStore(chrome.storage.local);

/* The browser's fence around the tasks' tabs; its listeners come first, so no tab is born unseen. */
const fence = new Fence({ rules: chrome.declarativeNetRequest, tabs: chrome.tabs, windows: chrome.windows, log });
chrome.tabs.onCreated.addListener(tab => {
	fence.tabCreated(tab).catch(error => log(`fence: tab ${tab.id}: ${error?.message ?? error}`));
});
chrome.webNavigation.onCreatedNavigationTarget.addListener(details => fence.navigationTarget(details));
chrome.webNavigation.onErrorOccurred.addListener(details => {
	fence.navigationFailed(details).catch(error => log(`fence: tab ${details.tabId}: ${error?.message ?? error}`));
});

const tasks = new TaskManager({
	dispatcher,
	storage: chrome.storage.local,
	createProvider,
	buildPrompt,
	browser: { tabs: chrome.tabs, tabGroups: chrome.tabGroups },
	fence,
	recordings: dispatcher.recordings,
	recipes,
	optionsUrl: chrome.runtime.getURL('options/options.html'),
	evaluateEnabled: () => evaluateEnabled(dispatcher.services),
	networkEnabled: () => agentsNetworkEnabled(chrome.storage.local),
	log,
	/* A debugging hook, off unless a debugger sets globalThis.agentsTrace to an array (docs/benchmarks.md). */
	trace: task => Array.isArray(globalThis.agentsTrace) ?
	    (phase, start, end) => globalThis.agentsTrace.push({ task, phase, start, end }) : undefined,
	onChange: () => {
		tasks.panelTasks().then(list => chrome.runtime.sendMessage({ type: 'tasks', tasks: list })).catch(() => {});
	},
});
const healer = new StepHealer({ dispatcher, storage: chrome.storage.local, createProvider, buildPrompt, log,
	optionsUrl: chrome.runtime.getURL('options/options.html') });
const recipeRunner = new RecipeRunner({ dispatcher, tasks, fence, storage: chrome.storage.local, browser: { tabs: chrome.tabs }, page,
	healer, optionsUrl: chrome.runtime.getURL('options/options.html') });
registerActions(dispatcher, { consoleStore, tasks, recipes: { store: recipes, recordings: dispatcher.recordings, runner: recipeRunner,
	tasks } });

chrome.tabs.onRemoved.addListener(tabId => {
	tasks.tabClosed(tabId).catch(error => log(`tasks: tab ${tabId} closed: ${error?.message ?? error}`));
	fence.tabRemoved(tabId);
	consoleStore.forget(tabId);
	dispatcher.forgetTab(tabId);
	refs.expireTab(tabId, `its tab (${tabId}) was closed`);
});

let runner = null;

/** Tells an open popup and the badge that the status changed. */
function broadcast(status) {
	control.setConnection(status.state);
	chrome.runtime.sendMessage({ type: 'status', status }).catch(() => {});
}

const connection = new HostConnection({
	name: HOST_NAME,
	version,
	capabilities: ['page-state', 'refs', 'cdp-input'],
	log,
	onStatus: broadcast,
	onConnected: welcome => {
		/* What the host allows (evaluate_script) and its tool catalogue (the agents' tools). */
		dispatcher.services.welcome = welcome;
		/* The host's own answers: which files upload_file may send. */
		dispatcher.services.host = { call: (method, params) => runner.call(method, params) };
		runner = new RequestRunner({
			send: message => connection.send(message),
			dispatch: async (method, params, context) => {
				if (Object.hasOwn(hostMethods, method))
					return hostMethods[method](params, context);
				await savedCounter;
				return dispatcher.dispatch(method, params, context);
			},
			log,
		});
	},
	onMessage: message => runner?.handle(message),
	onDisconnected: () => {
		runner?.close();
		runner = null;
	},
});

/*
 * What the side panel asks for: each request answers with the task list
 * as it stands after it ({tasks}), or {error} in words.
 */
const panelRequests = {
	panelTasks: async () => {},
	startTask: message => tasks.start({ task: String(message.task ?? '') }, () => {}, { byPerson: true }),
	taskControl: message => tasks.control(message.id, message.what, String(message.text ?? '')),
	/* In the task's own tab while it is open, else in the tab in front. */
	rerunTask: async message => {
		const kept = (await tasks.panelTasks()).find(task => task.id === message.id);
		if (kept === undefined)
			throw new Error('That task is no longer kept.');
		const open = await chrome.tabs.get(kept.tab_id).then(() => true, () => false);
		await tasks.start({ task: kept.task, ...(open ? { tab_id: kept.tab_id } : {}) }, () => {}, { byPerson: true });
	},
	forgetTask: message => tasks.forget(message.id),
};

/** The person at the browser, as the recipe store knows them: they see, run and delete every recipe. */
const PERSON_VIEWER = { person: true };
/** How long a replay the person starts may take. */
const RECIPE_PANEL_RUN_MS = 600000;

/*
 * The side panel's recipes: each request answers with every recipe as it
 * stands after it ({recipes}, newest first) and what happened ({notice}),
 * or {error} in words.
 */
const recipeRequests = {
	panelRecipes: async () => '',
	deleteRecipe: async message => `Deleted recipe "${(await recipes.delete(String(message.id ?? ''), PERSON_VIEWER)).name}".`,
	/* In a new tab, as the person's own run: every scope, the person's allowed domains as the ceiling. */
	runRecipe: async message => {
		const recipe = await recipes.get(String(message.id ?? ''), PERSON_VIEWER);
		const parameters = Object.fromEntries(Object.entries(message.parameters ?? {}).map(([name, value]) => [name, String(value)]));
		const replay = await recipeRunner.run(recipe, { parameters }, { signal: new AbortController().signal,
			deadline: Date.now() + RECIPE_PANEL_RUN_MS, progress: () => {}, client: 'the side panel' });
		return `Replayed "${recipe.name}": ${replay.steps.length} steps in tab ${replay.tabId}, with no model; the tab shows ${replay.url}.`;
	},
};

/**
 * What only the extension's own pages (popup, approval page) may ask: the
 * clients waiting for approval, the decision, the approved clients and
 * their revocation. A content script's messages come from the page's URL,
 * so nothing a web page does reaches these. Each answers {result} or {error}.
 */
const pageRequests = {
	getApprovals: async () => approvals.pending(),
	decideClient: async message => approvals.decide(String(message.request_id ?? ''),
	    { approved: message.approved === true, scopes: message.scopes }),
	/* The popup's Deny all: one client's waiting requests, or every client's (client_id null). */
	denyClients: async message => approvals.denyAll(message.client_id === null ? null : String(message.client_id ?? '')),
	listClients: () => hostCall('list_clients'),
	/* The host ends the client's sessions and calls; its running tasks stop here. */
	revokeClient: async message => {
		const result = await hostCall('revoke_client', { client_id: String(message.client_id ?? '') });
		if (typeof result?.caller === 'string')
			await tasks.stopCaller(result.caller, 'The person revoked the client that started this task.');
		return result;
	},
};

/**
 * Asks the host, or says it is not connected.
 * @param {string} method
 * @param {object} [params]
 */
function hostCall(method, params = {}) {
	if (runner === null)
		return Promise.reject(new Error('Not connected to the host: click Reconnect, then try again.'));
	return runner.call(method, params);
}

/*
 * A content script (the console relay) may only report console entries;
 * everything else (decisions, tasks, pause, reconnect, status) is taken
 * from the extension's own pages alone, so a page that took over its
 * renderer cannot start or steer the agents through our content script.
 */
chrome.runtime.onMessage.addListener((message, sender, reply) => {
	if (sender.id !== chrome.runtime.id)
		return false;
	if (message?.type === 'console') {
		if (sender.tab?.id !== undefined)
			consoleStore.add(sender.tab.id, sender.frameId ?? 0, message.entry);
		return false;
	}
	if (!fromExtensionPage(sender, chrome.runtime.getURL(''))) {
		log(`${String(message?.type).slice(0, 40)} from ${String(sender.url).slice(0, 100)} refused: only the extension's pages may ask`);
		return false;
	}
	if (Object.hasOwn(pageRequests, message?.type)) {
		pageRequests[message.type](message).then(result => reply({ result }), error => reply({ error: error?.message ?? String(error) }));
		return true;
	}
	if (Object.hasOwn(recipeRequests, message?.type)) {
		recipeRequests[message.type](message)
		    .then(async notice => reply({ recipes: await recipes.list(PERSON_VIEWER), notice }), error => reply({ error: error?.message ?? String(error) }));
		return true;
	}
	if (Object.hasOwn(panelRequests, message?.type)) {
		panelRequests[message.type](message)
		    .then(async () => reply({ tasks: await tasks.panelTasks() }), error => reply({ error: error?.message ?? String(error) }));
		return true;
	}
	if (message?.type === 'getStatus') {
		reply(connection.status);
		return false;
	}
	if (message?.type === 'getControl') {
		control.ready.then(() => reply(control.snapshot()));
		return true;
	}
	if (message?.type === 'setPaused') {
		control.setPaused(message.paused === true).then(() => reply(control.snapshot()), error => reply({ error: error.message }));
		return true;
	}
	if (message?.type === 'reconnect') {
		connection.reconnectNow();
		reply(connection.status);
		return false;
	}
	if (message?.type === 'hostStatus') {
		hostCall('status').then(result => reply({ result }), error => reply({ error: error.message }));
		return true;
	}
	return false;
});

/* Subscribed MCP clients hear when the tabs or the active page change. */
const resourceNotifier = new ResourceNotifier({ send: message => connection.send(message) });
watchResources(resourceNotifier);

connection.connect();
