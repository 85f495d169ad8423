/**
 * The tasks the agents run: run_task starts one in a tab (one task per
 * tab, in a tab group labelled with the task), get_task / stop_task /
 * list_tasks follow it. A task drives its tab through the dispatcher as
 * the tab's holder, so its own actions never wait behind it, and it sees
 * exactly the catalogue tools the MCP clients see.
 * @module agents/tasks
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { getTab, resolveTab } from '../browser/tabs.js';
import { AgentTask, StopReason, timePhase } from './task-loop.js';
import { loadSettings, readDomains, roleModels, taskLimits } from './settings.js';
import { domainAllowed, domainRefusal, taskDomains } from './domains.js';
import { BLOCKED_ERROR } from './fence.js';
import { urlPolicy, urlRefusal } from '../url-policy.js';
import { networkActions } from '../actions/network.js';
import { agentTools } from './tools.js';
import { PAGE_TEXT_CHARS } from './prompts.js';
import { contentText } from '../content-math.js';
import { buildRecipe, NO_CALLER } from '../recipes/record.js';

/** Task tools that open a tab, with the arguments that make them do it. */
const OPENS_TAB = {
	manage_tabs: args => args.action === 'open',
	navigate_to: args => args.new_tab === true,
};

/**
 * How long a finished task is kept for get_task, list_tasks and the
 * protocol's tasks/get (the ttl the host reports), and how many finished
 * tasks are kept at most, oldest dropped first, so memory stays bounded.
 */
export const TASK_KEEP_MS = 60 * 60 * 1000;
const KEPT_TASKS = 50;

/** Random bytes in a task id: ids cannot be guessed. */
const TASK_ID_BYTES = 16;

/** Answer a waiting run_task this long before the host's deadline. */
const DEADLINE_MARGIN_MS = 1500;

/** How long the start_url may take to load before the task starts. */
const START_MS = 60000;

/** Longest task text shown in lists and tab group titles. */
const TITLE_CHARS = 40;

/** How many finished tasks the side panel keeps (chrome.storage.local), with their steps. */
export const HISTORY_MAX = 20;
/** Where they are kept. */
export const HISTORY_KEY = 'taskHistory';
/**
 * How long the side panel's notice of a change waits, so that a burst of
 * changes (a step's plan, actions and verdict) makes one notice, not one
 * list built and sent per event while the task runs.
 */
export const PANEL_NOTICE_MS = 50;
/** The caller of tasks the person starts in the side panel: no MCP client is it. */
export const PERSON = 'person';

/**
 * How a task's start calls navigate_to: as the task, within START_MS.
 * @param {import('../dispatcher.js').Owner} owner
 */
function startCall(owner) {
	return { signal: new AbortController().signal, deadline: Date.now() + START_MS, progress: () => {}, owner };
}

/**
 * Shortens a task for titles.
 * @param {string} text
 */
function shortTask(text) {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > TITLE_CHARS ? `${flat.slice(0, TITLE_CHARS - 1)}…` : flat;
}

/**
 * How a task is named where another caller meets it (TAB_BUSY) and in the
 * popup's recent actions: its id and its words, shortened.
 * @param {string} id
 * @param {string} words the task's words, with the secrets it typed masked (AgentTask.conceal)
 * @returns {string}
 */
function taskLabel(id, words) {
	return `task ${id} ("${shortTask(words)}")`;
}

/**
 * The title of a task's tab group.
 * @param {TaskRecord} record
 * @returns {string}
 */
function groupTitle(record) {
	return `Agent: ${shortTask(record.agent.conceal(record.task))}`;
}

/**
 * A new task id: 128 random bits, base64url.
 * @returns {string}
 */
function newTaskId() {
	const bytes = crypto.getRandomValues(new Uint8Array(TASK_ID_BYTES));
	return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The first http(s) URL a task's text names, without the punctuation
 * that ends its sentence; null when it names none.
 * @param {string} text
 * @returns {string|null}
 */
export function urlInTask(text) {
	for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"'`]+/gi)) {
		try {
			return new URL(match[0].replace(/[.,;:!?)\]}]+$/, '')).href;
		} catch {
			/* not a URL after all: look further */
		}
	}
	return null;
}

/**
 * Who asks for a task: the caller the host names in its request (one OAuth
 * client across its sessions, or one session of the owner key), and
 * whether the request came with the owner key, which sees every client's
 * tasks (docs/protocol.md, "Client approval").
 * @typedef {object} Viewer
 * @property {string} [caller]
 * @property {boolean} [ownerKey]
 */

/**
 * Whether a viewer may see a task: its own caller's, or any client's with
 * the owner key; the person's side-panel tasks are no client's.
 * @param {TaskRecord} record
 * @param {Viewer} viewer
 * @returns {boolean}
 */
function visibleTo(record, viewer) {
	if (record.caller === PERSON)
		return false;
	return viewer.ownerKey === true || (viewer.caller !== undefined && record.caller === viewer.caller);
}

/**
 * One line per step for the result text.
 * @param {import('./task-loop.js').Step} step
 */
export function describeStep(step) {
	const target = step.label !== undefined ? ` "${step.label}"` : '';
	return `${step.tool}${target}: ${step.outcome}${step.detail ? ` (${step.detail})` : ''}`;
}

/**
 * The text of a task's result or progress.
 * @param {TaskRecord} record
 * @returns {string}
 */
export function describeTask(record) {
	const result = record.result;
	if (result === null && record.agent.question !== null)
		return `Task ${record.id} in tab ${record.tabId} waits for the person at the browser, who was asked: ` +
		    `"${record.agent.conceal(record.agent.question.text)}". They answer in the extension's side panel; the task goes on then. ` +
		    `Follow it with get_task {"task_id": "${record.id}"}.`;
	if (result === null) {
		const last = record.agent.history.at(-1);
		return `Task ${record.id} is running in tab ${record.tabId} (step ${record.agent.stepsTaken} of at most ${record.agent.limits.max_steps})` +
		    (last !== undefined ? `: ${describeStep(last)}` : '.') +
		    `\nFollow it with get_task {"task_id": "${record.id}"}; stop it with stop_task.`;
	}
	const lines = [];
	if (result.stop_reason === 'done') {
		const verdict = result.verdict !== null ? ` (validator: ${result.verdict.verdict}, ${result.verdict.reason})` : '';
		lines.push(`Task ${record.id} done in ${result.steps_taken} steps${verdict}: ${result.answer}`);
	} else
		lines.push(`Task ${record.id} stopped (${result.stop_reason}) after ${result.steps_taken} steps: ${result.message}`);
	const actions = result.steps.filter(step => step.tool !== 'planner');
	if (actions.length > 0)
		lines.push('Steps:', ...actions.map((step, i) => `${i + 1}. ${describeStep(step)}`));
	if (result.opened_tabs?.length > 0)
		lines.push(`Tabs it opened: ${result.opened_tabs.map(tab => `${tab.tab_id} (${tab.url}, ${tab.kept ? 'kept' : 'closed'})`).join(', ')}.`);
	lines.push(`Tokens: ${result.usage.input_tokens} in (${result.usage.cached_input_tokens ?? 0} of them cached), ` +
	    `${result.usage.output_tokens} out (${result.usage.model_calls} model calls).`);
	return lines.join('\n');
}

/**
 * @typedef {object} TaskRecord
 * @property {string} id
 * @property {string} task
 * @property {number} tabId
 * @property {number} started Date.now()
 * @property {number} updated Date.now() at the last step, plan or verdict
 * @property {string|undefined} caller who may see it: the caller that started it (Viewer), or PERSON
 * @property {string} startedBy "you" (the side panel), or the MCP client's name ("MCP client" when it gave none)
 * @property {boolean} stopped stop_task, tasks/cancel or the person ended it
 * @property {string} [stopReason] the stop reason a stop gives (cancelled, stopped_by_user)
 * @property {AgentTask} agent
 * @property {import('../dispatcher.js').Owner} owner who holds its tabs; its label masks what the task typed into secret fields
 * @property {Map<number, () => void>|null} openedHolds the holds on the tabs it opened, by tab (null once it ended)
 * @property {AbortController} controller
 * @property {Promise<void>} grouped resolves once the tab is in the task's group (groupId), or could not be
 * @property {Promise<object>} done resolves to the result
 * @property {object|null} result
 */

/** Runs and remembers tasks. */
export class TaskManager {
	/**
	 * @param {object} deps
	 * @param {import('../dispatcher.js').Dispatcher} deps.dispatcher
	 * @param {{get: Function}} deps.storage chrome.storage.local
	 * @param {(settings: object, deps: object) => {complete: Function}} deps.createProvider
	 * @param {(role: string, input: object) => object} deps.buildPrompt
	 * @param {object} deps.browser chrome.tabs and chrome.tabGroups (or stand-ins)
	 * @param {import('./fence.js').Fence} deps.fence the browser's fence around the tasks' tabs
	 * @param {string} deps.optionsUrl the options page, for "set up a model" errors
	 * @param {() => Promise<boolean>} deps.evaluateEnabled whether the user allowed evaluate_script
	 * @param {() => Promise<boolean>} [deps.networkEnabled] whether the person gave the agents the network tools
	 * @param {(text: string) => void} [deps.log]
	 * @param {typeof fetch} [deps.fetch]
	 * @param {() => void} [deps.onChange] a task started, moved, paused, resumed or ended (the side panel):
	 *   called once for the changes of PANEL_NOTICE_MS
	 * @param {import('../recipes/record.js').Recordings} [deps.recordings] records each task's calls, for its recipe
	 * @param {import('../recipes/store.js').RecipeStore} [deps.recipes] where a task that ended done keeps its recipe
	 * @param {(taskId: string) => ((phase: string, start: number, end: number) => void)|undefined} [deps.trace]
	 *   a debugging hook (docs/benchmarks.md): the sink a new task's phases are timed into, or undefined (off)
	 */
	constructor(deps) {
		this.deps = deps;
		/** @type {Map<string, TaskRecord>} */
		this.tasks = new Map();
		/** @type {Promise<object[]>|null} the kept tasks, read from storage once, then kept up to date here */
		this.history = null;
		this.noticeTimer = null;
		deps.fence?.onAdopt((taskId, tabId) => this.holdOpened(taskId, tabId));
	}

	/**
	 * Holds a tab a running task opened (or a page in one of its tabs
	 * opened) for the task, as its own tab is held, until the task ends.
	 * @param {string} taskId
	 * @param {number} tabId
	 */
	holdOpened(taskId, tabId) {
		const record = this.tasks.get(taskId);
		if (record === undefined || record.openedHolds === null || record.openedHolds.has(tabId))
			return;
		try {
			record.openedHolds.set(tabId, this.deps.dispatcher.hold(tabId, record.owner));
		} catch (error) {
			this.deps.log?.(`task ${taskId}: tab ${tabId} it opened is not held (${error?.message ?? error})`);
		}
	}

	/**
	 * A running task typed a new secret into a secret field: the names it
	 * goes by from now on (TAB_BUSY, the popup's recent actions, those
	 * already listed included, and its tab group's title) mask it wherever
	 * the task's words hold it (docs/security.md).
	 * @param {TaskRecord} record
	 */
	async secretTyped(record) {
		const before = record.owner.label;
		record.owner.label = taskLabel(record.id, record.agent.conceal(record.task));
		if (record.owner.label === before)
			return;
		this.deps.dispatcher.services.control?.relabel(before, record.owner.label);
		await record.grouped;
		if (record.groupId !== undefined)
			await this.deps.browser.tabGroups.update(record.groupId, { title: groupTitle(record) })
			    .catch(error => this.deps.log?.(`task ${record.id}: tab group not retitled (${error?.message ?? error})`));
	}

	/** Tells the side panel that something changed: once, PANEL_NOTICE_MS after the first change of a burst. */
	changed() {
		if (this.deps.onChange === undefined || this.noticeTimer !== null)
			return;
		this.noticeTimer = setTimeout(() => {
			this.noticeTimer = null;
			this.deps.onChange();
		}, PANEL_NOTICE_MS);
	}

	/**
	 * The running task in a tab, if any.
	 * @param {number} tabId
	 * @returns {TaskRecord|undefined}
	 */
	runningIn(tabId) {
		for (const record of this.tasks.values())
			if (record.result === null && record.tabId === tabId)
				return record;
		return undefined;
	}

	/**
	 * The catalogue tools the navigator may use, of those the extension
	 * answers (agentTools: evaluate_script and the network tools only when
	 * the person allowed them; only those of the scopes of an OAuth client's key).
	 * @param {string[]} [scopes] the key's scopes (absent: the owner key or the person, every scope)
	 * @returns {Promise<{name: string, description: string, input_schema: object}[]>}
	 */
	async modelTools(scopes) {
		const allowed = { script: await this.deps.evaluateEnabled(), network: await (this.deps.networkEnabled?.() ?? false),
			networkTools: Object.keys(networkActions), scopes };
		return agentTools(this.deps.dispatcher.catalogueActions(), allowed);
	}

	/**
	 * Starts a task (run_task).
	 * @param {object} params run_task's arguments
	 * @param {(record: TaskRecord, event: object) => void} [onEvent] each plan, action and verdict
	 * @param {{byPerson?: boolean, client?: string, caller?: string, scopes?: string[]}} [options] byPerson: started
	 *   in the side panel, visible to no MCP client; client: the MCP client that started it, by the name it gave;
	 *   caller: who started it as the host names it (Viewer), who alone sees it besides the owner key;
	 *   scopes: those of the OAuth client's key (absent: every scope), which its agents keep to
	 * @returns {Promise<TaskRecord>}
	 * @throws {BridgeError} INVALID_ARGUMENT when the key lacks pages:read: the agents cannot see a page
	 */
	async start(params, onEvent = () => {}, { byPerson = false, client, caller, scopes } = {}) {
		if (scopes !== undefined && !scopes.includes('pages:read'))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'This client\'s key lacks the scope pages:read, ' +
			    'which the agents need to see a page, so the task did not start. Authorize the client again ' +
			    'and leave "Read pages" ticked in the Browser Bridge popup.');
		const id = newTaskId();
		const trace = this.deps.trace?.(id);
		const timed = (phase, work) => timePhase(trace, phase, work);
		params = await timed('start: page', () => this.startingPage(params, byPerson));
		const settings = await timed('start: settings', () => loadSettings(this.deps.storage));
		const models = roleModels(settings, this.deps.optionsUrl);
		const allowedDomains = taskDomains(settings.allowed_domains, readDomains(params.allowed_domains), this.deps.optionsUrl);
		if (params.start_url !== undefined && !domainAllowed(params.start_url, allowedDomains))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, domainRefusal(params.start_url, allowedDomains));
		const tab = params.start_url !== undefined ? null : await resolveTab(params);
		/* Held by a task (its own tab or one it opened) or a replay: refused before anything is set up for this one. */
		const holder = tab !== null ? this.deps.dispatcher.holds.get(tab.id) : undefined;
		if (holder !== undefined)
			throw new BridgeError(ErrorCode.TAB_BUSY,
			    `Tab ${tab.id} is being driven by ${holder.label}. ` +
			    `Wait for it with get_task, stop it with stop_task, or pass another tab_id or a start_url.`);
		const owner = { kind: 'task', id, label: taskLabel(id, params.task) };
		/*
		 * A start_url tab opens blank when a fence is up or goes up, so that
		 * its first request meets the right rules (its task's, not the
		 * newborn tabs'); it opens while the tools are read. Otherwise it
		 * opens at start_url (openAtStartUrl).
		 */
		const blank = tab === null && (allowedDomains.length > 0 || this.deps.fence.active);
		const opening = !blank ? null :
		    timed('start: blank tab', () => this.deps.browser.tabs.create({ url: 'about:blank', active: true }));
		/* Its failure is the start's, thrown below: not one more, unhandled, while the tools are read. */
		opening?.catch(() => {});
		let tools;
		try {
			tools = await timed('start: tools', () => this.modelTools(scopes));
		} catch (error) {
			const opened = await opening?.catch(() => null);
			if (opened)
				await this.deps.browser.tabs.remove(opened.id).catch(() => {});
			throw error;
		}
		const { tabId, release } = tab === null && !blank ?
		    await timed('start: start_url', () => this.openAtStartUrl(id, params.start_url, owner)) :
		    await this.enterTab(id, tab?.id ?? (await opening).id, { startUrl: params.start_url, blank, allowedDomains, owner, timed });
		/* The calls that work are recorded: a task that ends done leaves a recipe (recipes/record.js). */
		this.deps.recordings?.start(owner);
		const providerDeps = { fetch: this.deps.fetch ?? fetch.bind(globalThis), sleep: this.deps.sleep, log: this.deps.log };
		const agent = new AgentTask({
			task: params.task,
			models: Object.fromEntries(Object.entries(models).map(([role, model]) => [role, this.deps.createProvider(model, providerDeps)])),
			buildPrompt: this.deps.buildPrompt,
			browser: this.tabBrowser(tabId, owner, id),
			tools,
			limits: taskLimits(settings, params),
			allowedDomains,
			vision: settings.vision,
			trace,
			onEvent: event => {
				record.updated = Date.now();
				onEvent(record, event);
				this.changed();
			},
			onSecret: () => this.secretTyped(record)
			    .catch(error => this.deps.log?.(`task ${id}: not renamed (${error?.message ?? error})`)),
		});
		const started = Date.now();
		const record = {
			id, task: params.task, tabId, started, updated: started, caller: byPerson ? PERSON : caller, stopped: false,
			startedBy: byPerson ? 'you' : client ?? 'MCP client', agent, owner, openedHolds: new Map(),
			controller: new AbortController(), result: null,
		};
		this.tasks.set(id, record);
		/* The group is a cue for the person: it forms while the task reads the page and asks its model. */
		record.grouped = timed('alongside: tab group', () => this.groupTab(record));
		record.done = agent.run(record.controller.signal).then(async result => {
			await record.grouped;
			const openedTabs = await timed('end: fence and tabs', () => this.closeOpened(id, settings.keep_tabs));
			record.updated = Date.now();
			/* Once stopped, a task stays stopped, even if its last step finished it. */
			const stopReason = record.stopped ? record.stopReason : result.stop_reason;
			const recipeId = await this.keepRecipe(record, owner, stopReason, allowedDomains);
			record.result = { task_id: id, status: 'finished', tab_id: tabId, ...result, stop_reason: stopReason, opened_tabs: openedTabs,
				...(recipeId !== undefined ? { recipe_id: recipeId } : {}) };
			return record.result;
		}).finally(() => {
			this.deps.recordings?.stop(owner);
			release();
			/* The tabs it opened, kept ones included, are the person's again. */
			record.openedHolds.forEach(releaseOpened => releaseOpened());
			record.openedHolds = null;
			this.retire(record);
		});
		this.changed();
		return record;
	}

	/**
	 * Files an ended task among the kept ones (dropping the oldest past the
	 * limit); the panel hears once it is there.
	 * @param {TaskRecord} record
	 */
	retire(record) {
		this.forgetOld();
		this.keep(record)
		    .catch(error => this.deps.log?.(`task ${record.id}: not kept (${error?.message ?? error})`))
		    .finally(() => this.changed());
	}

	/**
	 * Follows work that is not the agents' as a task (run_recipe run as an
	 * MCP task, recipes/actions.js), so that get_task, stop_task,
	 * list_tasks, the protocol's tasks/* and the side panel see it as one:
	 * stopping it aborts its controller, and it ends as its done settles.
	 * @param {object} work
	 * @param {string} work.task what it does, in words
	 * @param {number} work.tabId
	 * @param {object} work.agent its progress as an AgentTask shows it (history, stepsTaken, limits, usage, question...);
	 *   its onChange is set here, to be called when it moves
	 * @param {AbortController} work.controller
	 * @param {Promise<{stop_reason: string, answer: string|null, message: string}>} work.done its end; never rejects
	 * @param {{client?: string, caller?: string}} who the MCP client that started it, by its name and as the host names it
	 * @returns {TaskRecord}
	 */
	adopt({ task, tabId, agent, controller, done }, { client, caller }) {
		const id = newTaskId();
		const started = Date.now();
		const record = { id, task, tabId, started, updated: started, caller, stopped: false, startedBy: client ?? 'MCP client',
			agent, owner: { kind: 'task', id, label: taskLabel(id, task) }, openedHolds: null, controller, result: null };
		agent.onChange = () => {
			record.updated = Date.now();
			this.changed();
		};
		this.tasks.set(id, record);
		record.done = done.then(result => {
			record.updated = Date.now();
			record.result = { task_id: id, status: 'finished', tab_id: tabId, verdict: null, steps: agent.history.map(step => ({ ...step })),
				steps_taken: agent.stepsTaken, usage: { ...agent.usage }, duration_ms: record.updated - started, opened_tabs: [], ...result,
				stop_reason: record.stopped ? record.stopReason : result.stop_reason };
			return record.result;
		}).finally(() => this.retire(record));
		this.changed();
		return record;
	}

	/**
	 * Ends a task's recording; a task that ended done (its answer
	 * accepted) leaves its recipe, named after the task with what it typed
	 * into secret fields concealed, and its secrets never kept.
	 * @param {TaskRecord} record
	 * @param {import('../dispatcher.js').Owner} owner
	 * @param {string} stopReason
	 * @param {string[]} allowedDomains the task's
	 * @returns {Promise<string|undefined>} the recipe's id; undefined when none was kept
	 */
	async keepRecipe(record, owner, stopReason, allowedDomains) {
		const recorder = this.deps.recordings?.stop(owner);
		if (recorder === undefined || this.deps.recipes === undefined || stopReason !== StopReason.DONE)
			return undefined;
		const recipe = buildRecipe(recorder.calls, { name: record.task, owner: record.caller ?? NO_CALLER,
			source: { kind: 'task', task_id: record.id }, allowedDomains });
		if (recipe === null)
			return undefined;
		try {
			return (await this.deps.recipes.save(record.agent.concealAll(recipe))).id;
		} catch (error) {
			this.deps.log?.(`task ${record.id}: its recipe was not kept (${error?.message ?? error})`);
			return undefined;
		}
	}

	/**
	 * Puts a task's tab inside its fence and holds it for the task; a
	 * start_url tab opened blank then loads start_url. A start that fails
	 * here closes a blank tab it opened.
	 * @param {string} id the task
	 * @param {number} tabId
	 * @param {{startUrl?: string, blank: boolean, allowedDomains: string[], owner: import('../dispatcher.js').Owner,
	 *   timed: (phase: string, work: () => Promise<any>) => Promise<any>}} how
	 * @returns {Promise<{tabId: number, release: () => void}>}
	 * @throws {BridgeError} INVALID_ARGUMENT when the browser refused the fence or blocked start_url
	 */
	async enterTab(id, tabId, { startUrl, blank, allowedDomains, owner, timed }) {
		try {
			await timed('start: fence', () => this.deps.fence.enclose(id, tabId, allowedDomains));
		} catch (error) {
			if (blank)
				await this.deps.browser.tabs.remove(tabId).catch(() => {});
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
			    `The browser refused to fence the task to ${allowedDomains.join(', ')} (${error?.message ?? error}), ` +
			    'so it did not start. Check that each allowed domain is a host name.');
		}
		const release = this.deps.dispatcher.hold(tabId, owner);
		if (startUrl === undefined)
			return { tabId, release };
		try {
			await timed('start: start_url', () => this.deps.dispatcher.dispatch('navigate_to', { tab_id: tabId, url: startUrl }, startCall(owner)));
			return { tabId, release };
		} catch (error) {
			const blocked = this.deps.fence.blocked(id);
			release();
			await this.deps.fence.end(id);
			await this.deps.browser.tabs.remove(tabId).catch(() => {});
			if (blocked.length > 0)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `The browser blocked start_url on its way: ${domainRefusal(blocked[0].url, allowedDomains)}`);
			throw error;
		}
	}

	/**
	 * Opens an unfenced task's tab at start_url the way navigate_to's
	 * new_tab does (no blank tab first: nothing to fence), held for the
	 * task and its tabs kept track of from the moment it exists; a first
	 * page the newborn-tab rule stopped (a fenced task started meanwhile)
	 * is loaded again, once. A start that fails closes the tab.
	 * @param {string} id the task
	 * @param {string} startUrl
	 * @param {import('../dispatcher.js').Owner} owner
	 * @returns {Promise<{tabId: number, release: () => void}>}
	 */
	async openAtStartUrl(id, startUrl, owner) {
		let tabId;
		let release = () => {};
		let tracked = Promise.resolve();
		const opened = opening => {
			tabId = opening;
			release = this.deps.dispatcher.hold(opening, owner);
			tracked = this.deps.fence.enclose(id, opening, []);
			/* Its failure is the start's, thrown below once the page has loaded. */
			tracked.catch(() => {});
		};
		try {
			try {
				await this.deps.dispatcher.dispatch('navigate_to', { url: startUrl, new_tab: true }, { ...startCall(owner), opened });
			} catch (error) {
				/*
				 * A fenced task that started meanwhile put up the rule for
				 * newborn tabs as this one was born, and it stopped the first
				 * page: load it again once the tab is the task's, outside that rule.
				 */
				if (tabId === undefined || !String(error?.message).includes(BLOCKED_ERROR))
					throw error;
				await tracked;
				this.deps.fence.blocked(id);
				await this.deps.dispatcher.dispatch('navigate_to', { tab_id: tabId, url: startUrl }, startCall(owner));
			}
			await tracked;
			return { tabId, release };
		} catch (error) {
			release();
			if (tabId !== undefined) {
				/* Once enclose is through, so that ending finds (and takes down) what it set up. */
				await tracked.catch(() => {});
				await this.deps.fence.end(id);
				await this.deps.browser.tabs.remove(tabId).catch(() => {});
			}
			throw error;
		}
	}

	/**
	 * Takes down a finished task's fence and closes the tabs it opened,
	 * unless the person keeps them (the options page's keep_tabs).
	 * @param {string} id
	 * @param {boolean} keep
	 * @returns {Promise<{tab_id: number, url: string, kept: boolean}[]>} the tabs it opened
	 */
	async closeOpened(id, keep) {
		const tabs = this.deps.browser.tabs;
		const opened = await this.deps.fence.end(id);
		return Promise.all(opened.map(async ({ tab_id: tabId, url, open }) => {
			const now = open ? await tabs.get(tabId).catch(() => null) : null;
			if (now !== null && !keep)
				await tabs.remove(tabId).catch(error => this.deps.log?.(`task ${id}: tab ${tabId} not closed (${error?.message ?? error})`));
			return { tab_id: tabId, url: now?.url || url, kept: now !== null && keep };
		}));
	}

	/**
	 * Where a task starts: a task for the tab in front while it shows a
	 * page the tools may not use (chrome://newtab, an extension's page)
	 * starts in a new tab at the URL its text names; one that names none,
	 * or one for such a tab by tab_id, is refused, saying why and what to do.
	 * @param {object} params run_task's arguments
	 * @param {boolean} byPerson started in the side panel
	 * @returns {Promise<object>} params, with start_url when it starts in a new tab
	 * @throws {BridgeError} URL_NOT_ALLOWED
	 */
	async startingPage(params, byPerson) {
		if (params.start_url !== undefined)
			return params;
		const tab = await resolveTab(params);
		const refusal = urlRefusal(tab.url || tab.pendingUrl || '', urlPolicy(this.deps.dispatcher.services.welcome));
		if (refusal === null)
			return params;
		const named = params.tab_id === undefined ? urlInTask(String(params.task ?? '')) : null;
		if (named !== null)
			return { ...params, start_url: named };
		const advice = byPerson ?
		    'Open a web page in that tab, or name the page to start on in the task (as https://example.com/): the task then starts there in a new tab.' :
		    'Pass start_url (the task starts there in a new tab), name the page in the task (as https://example.com/) without tab_id, or pass the tab_id of a tab that shows a web page.';
		throw new BridgeError(ErrorCode.URL_NOT_ALLOWED, `The task cannot run in tab ${tab.id}: ${refusal} ${advice}`);
	}

	/**
	 * Keeps a finished task, with its steps, among the last HISTORY_MAX
	 * the side panel shows (chrome.storage.local: they outlive the
	 * service worker and the browser).
	 * @param {TaskRecord} record
	 */
	async keep(record) {
		const entry = panelTask(record);
		await this.rewriteHistory(history => [entry, ...history.filter(kept => kept.id !== record.id)].slice(0, HISTORY_MAX));
	}

	/**
	 * Changes the kept tasks in storage, then here; changes run in the
	 * order made, and one that fails (storage full, a read refused) leaves
	 * the next to start from storage again.
	 * @param {(history: object[]) => object[]} change
	 */
	async rewriteHistory(change) {
		await this.rememberHistory(this.kept().catch(() => this.readHistory()).then(async history => {
			const changed = change(history);
			await this.deps.storage.set({ [HISTORY_KEY]: changed });
			return changed;
		}));
	}

	/**
	 * The finished tasks kept for the side panel, newest first: read from
	 * storage the first time, then from memory (only this worker writes them).
	 * @returns {Promise<object[]>}
	 */
	kept() {
		return this.history ?? this.rememberHistory(this.readHistory());
	}

	/** @returns {Promise<object[]>} the kept tasks as storage has them */
	async readHistory() {
		const stored = await this.deps.storage.get(HISTORY_KEY);
		return Array.isArray(stored?.[HISTORY_KEY]) ? stored[HISTORY_KEY] : [];
	}

	/**
	 * Makes a read or change of the kept tasks the one later reads start
	 * from; one that fails is forgotten, so the next read asks storage again.
	 * @param {Promise<object[]>} history
	 * @returns {Promise<object[]>} history
	 */
	rememberHistory(history) {
		this.history = history;
		history.catch(() => {
			if (this.history === history)
				this.history = null;
		});
		return history;
	}

	/**
	 * What the side panel shows: the tasks running now, then the kept
	 * ones, newest first, whoever started them.
	 * @returns {Promise<object[]>}
	 */
	async panelTasks() {
		const kept = await this.kept();
		const running = [...this.tasks.values()].filter(record => record.result === null).reverse().map(panelTask);
		return [...running, ...kept.filter(entry => !running.some(task => task.id === entry.id))];
	}

	/**
	 * Drops a kept task from the side panel's list.
	 * @param {string} id
	 */
	async forget(id) {
		await this.rewriteHistory(history => history.filter(entry => entry.id !== id));
		this.changed();
	}

	/**
	 * The person's hand on a running task, whoever started it: pause,
	 * resume, answer its question, or stop (stop_reason stopped_by_user).
	 * @param {string} id
	 * @param {'pause'|'resume'|'answer'|'stop'} what
	 * @param {string} [text] the answer
	 * @throws {BridgeError} TASK_NOT_FOUND when no such task is running; INVALID_ARGUMENT for an answer nobody asked for
	 */
	async control(id, what, text = '') {
		const record = this.tasks.get(id);
		if (record === undefined || record.result !== null)
			throw new BridgeError(ErrorCode.TASK_NOT_FOUND, `Task ${id} is not running.`);
		if (what === 'pause')
			record.agent.pause();
		else if (what === 'resume')
			record.agent.resume();
		else if (what === 'answer') {
			if (!record.agent.answer(text.trim() === '' ? 'done' : text))
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `Task ${id} is not waiting for an answer.`);
		} else
			await this.end(record, 'the person stopped it in the side panel', 'stopped_by_user');
		this.changed();
	}

	/**
	 * Drops finished tasks older than TASK_KEEP_MS, and the oldest beyond
	 * KEPT_TASKS.
	 */
	forgetOld() {
		const now = Date.now();
		const finished = [...this.tasks.values()].filter(record => record.result !== null);
		finished.forEach((record, i) => {
			if (now - record.updated > TASK_KEEP_MS || i < finished.length - KEPT_TASKS)
				this.tasks.delete(record.id);
		});
	}

	/**
	 * Puts the task's tab in a group labelled with the task. Groups are a
	 * cue for the person; a browser without them runs the task anyway.
	 * @param {TaskRecord} record
	 */
	async groupTab(record) {
		const { tabs, tabGroups } = this.deps.browser;
		try {
			record.groupId = await tabs.group({ tabIds: [record.tabId] });
			await tabGroups.update(record.groupId, { title: groupTitle(record), color: 'blue' });
		} catch (error) {
			this.deps.log?.(`task ${record.id}: no tab group (${error?.message ?? error})`);
		}
	}

	/**
	 * The browser as a task sees it: its tab, through the dispatcher, as
	 * the tab's holder, inside the task's fence.
	 * @param {number} tabId
	 * @param {object} owner
	 * @param {string} taskId
	 * @returns {import('./task-loop.js').TaskBrowser}
	 */
	tabBrowser(tabId, owner, taskId) {
		const dispatcher = this.deps.dispatcher;
		/* Each state the task reads comes with the page's text, read in the same pass. */
		const call = signal => ({ signal, deadline: Date.now() + 60000, progress: () => {}, owner, pageText: true });
		const run = (method, params, signal) => dispatcher.dispatch(method, params, call(signal));
		const text = result => (result.content ?? []).filter(part => part.type === 'text').map(part => part.text).join('\n');
		const stateable = new Set(dispatcher.catalogueActions().filter(tool => tool.input_schema?.properties?.include_state !== undefined)
		    .map(tool => tool.name));
		/*
		 * The page as the loop sees it, from get_browser_state's or an
		 * action's include_state; with the text read in the same pass cut
		 * as get_page_content cuts it (without, the loop reads it when it
		 * needs it).
		 */
		const view = (stateText, structured, pageText) => ({
			state: stateText,
			url: structured?.tab?.url ?? '',
			title: structured?.tab?.title ?? '',
			labels: new Map((structured?.elements ?? []).map(element => [element.ref, element.name ?? ''])),
			secrets: new Set((structured?.elements ?? []).filter(element => element.secret === true).map(element => element.ref)),
			...(typeof pageText === 'string' ? { page_text: contentText(pageText, '', PAGE_TEXT_CHARS).text } : {}),
		});
		return {
			read: async signal => {
				const state = await run('get_browser_state', { tab_id: tabId }, signal);
				return view(text(state), state.structuredContent, state.pageText);
			},
			pageText: async signal => {
				try {
					return text(await run('get_page_content', { tab_id: tabId, format: 'text', max_chars: PAGE_TEXT_CHARS }, signal));
				} catch (error) {
					signal.throwIfAborted();
					return `(the page's text could not be read: ${error?.message ?? error})`;
				}
			},
			act: async (tool, args, signal) => {
				const params = { ...args };
				if (params.tab_id === undefined && typeof params.ref !== 'string' && tool !== 'manage_tabs')
					params.tab_id = tabId;
				/* An action that can report the page afterwards does, in the same call: the step's one read. */
				if (stateable.has(tool))
					params.include_state = true;
				/* A tab the task opens is fenced from birth and becomes the task's. */
				const opens = OPENS_TAB[tool]?.(args) === true;
				const settle = opens ? this.deps.fence.expectOpen(taskId) : undefined;
				let result;
				try {
					/* Held from birth, before its page loads: the fence adopts it once the action ends. */
					result = await dispatcher.dispatch(tool, params, { ...call(signal), opened: opening => this.holdOpened(taskId, opening) });
				} finally {
					settle?.(openedTab(result), result?.structuredContent?.url ?? args.url ?? '');
				}
				if (opens)
					await this.joinGroup(tabId, result);
				const state = params.include_state === true ? result.structuredContent?.state : undefined;
				const secrets = { secretRefs: result.structuredContent?.secret_refs ?? [],
					secretFocus: result.structuredContent?.secret === true };
				/* The page the action reported has the tab's URL; without it, the tab is asked. */
				if (state?.tab?.id !== tabId)
					return { text: text(result), url: (await getTab(tabId).catch(() => null))?.url, ...secrets };
				const parts = result.content.filter(part => part.type === 'text');
				return { text: parts.slice(0, -1).map(part => part.text).join('\n'), url: state.tab.url,
				    view: view(parts.at(-1).text, state, result.pageText), ...secrets };
			},
			back: signal => run('navigate_history', { tab_id: tabId, action: 'back' }, signal).then(() => {}),
			blocked: () => this.deps.fence.blocked(taskId)
			    .map(entry => ({ url: entry.url, here: entry.tab_id === tabId && entry.frame_id === 0 })),
			screenshot: async signal => {
				const shot = await run('take_screenshot', { tab_id: tabId }, signal);
				const image = shot.content.find(part => part.type === 'image');
				return { media_type: image.mimeType, data: image.data };
			},
		};
	}

	/**
	 * Adds a tab the task opened to the task's group.
	 * @param {number} taskTab
	 * @param {object} result manage_tabs' result
	 */
	async joinGroup(taskTab, result) {
		const record = this.runningIn(taskTab);
		await record?.grouped;
		const opened = openedTab(result);
		if (record?.groupId === undefined || opened === undefined)
			return;
		await this.deps.browser.tabs.group({ groupId: record.groupId, tabIds: [opened] }).catch(() => {});
	}

	/**
	 * An MCP client's answer to the question a task of its own asks
	 * (answer_task, or tasks/update with the input request's key); the
	 * person's answer in the side panel may have come first.
	 * @param {string} id
	 * @param {string} text
	 * @param {string} [questionId] the question answered; another one (a later question) is not answered with it
	 * @param {string|undefined} client the client's name
	 * @param {Viewer} viewer who answers
	 * @returns {Promise<{record: TaskRecord, answered: boolean}>}
	 */
	async answer(id, text, questionId, client, viewer) {
		const record = await this.get(id, viewer);
		const question = record.result === null ? record.agent.question : null;
		const answered = question !== null && (questionId === undefined || questionId === question.id) &&
		    record.agent.answer(text, `The MCP client${client !== undefined ? ` ${client}` : ''}`);
		if (answered)
			this.changed();
		return { record, answered };
	}

	/**
	 * A task by id, if the viewer may see it (visibleTo).
	 * @param {string} id
	 * @param {Viewer} viewer
	 * @returns {Promise<TaskRecord>}
	 * @throws {BridgeError} TASK_NOT_FOUND for an unknown id, or one the viewer may not see (the same words)
	 */
	async get(id, viewer) {
		this.forgetOld();
		const record = this.tasks.get(id);
		if (record === undefined || !visibleTo(record, viewer))
			throw new BridgeError(ErrorCode.TASK_NOT_FOUND,
			    `There is no task "${id}" (finished tasks are kept for an hour, at most ${KEPT_TASKS} of them). ` +
			    'Call list_tasks to see the tasks.');
		return record;
	}

	/**
	 * Stops a task and waits for it to end.
	 * @param {string} id
	 * @param {string} why
	 * @param {Viewer} viewer who stops it
	 * @returns {Promise<boolean>} whether this call stopped it (false: it had finished)
	 */
	async stop(id, why, viewer) {
		return this.end(await this.get(id, viewer), why, 'cancelled');
	}

	/**
	 * Stops every running task of one caller (a client the person revoked).
	 * @param {string} caller
	 * @param {string} why the message the results give
	 * @returns {Promise<number>} how many were running
	 */
	async stopCaller(caller, why) {
		const theirs = (await this.list({ caller })).filter(record => record.result === null && !record.stopped);
		const stopped = await Promise.all(theirs.map(record => this.end(record, why, 'cancelled')));
		return stopped.filter(Boolean).length;
	}

	/**
	 * The browser closed a tab (the person's close button; no other
	 * client may close a task's tab): a task running in it ends at once
	 * with stop reason tab_closed, and its result says so.
	 * @param {number} tabId
	 * @returns {Promise<boolean>} whether a task was running there
	 */
	async tabClosed(tabId) {
		const record = this.runningIn(tabId);
		if (record === undefined)
			return false;
		return this.end(record, `tab ${tabId}, where the task ran, was closed`, StopReason.TAB_CLOSED);
	}

	/**
	 * Ends a task and waits for it.
	 * @param {TaskRecord} record
	 * @param {string} why the message the result gives
	 * @param {string} reason its stop reason
	 * @returns {Promise<boolean>} whether this call stopped it (false: it had finished)
	 */
	async end(record, why, reason) {
		const running = record.result === null && !record.stopped;
		if (running) {
			record.stopped = true;
			record.stopReason = reason;
			record.controller.abort(new Error(why));
		}
		await record.done;
		return running;
	}

	/**
	 * @param {Viewer} viewer
	 * @returns {Promise<TaskRecord[]>} the tasks the viewer may see, newest first
	 */
	async list(viewer) {
		this.forgetOld();
		return [...this.tasks.values()].filter(record => visibleTo(record, viewer)).reverse();
	}
}

/**
 * The tab a tool's result says it opened (manage_tabs open, navigate_to new_tab).
 * @param {object|undefined} result
 * @returns {number|undefined}
 */
function openedTab(result) {
	return result?.structuredContent?.tab?.id ?? result?.structuredContent?.tab_id;
}

/**
 * A task as the side panel shows it (and keeps it), with what it typed
 * into secret fields concealed (task-loop.js, conceal).
 * @param {TaskRecord} record
 * @returns {object}
 */
function panelTask(record) {
	const agent = record.agent;
	const result = record.result;
	return agent.concealAll({
		id: record.id, task: record.task, tab_id: record.tabId, started_by: record.startedBy,
		started: record.started, updated: record.updated,
		status: result !== null ? 'finished' : agent.paused ? 'paused' : agent.question !== null ? 'waiting' : 'running',
		question: result === null ? agent.question?.text ?? null : null,
		plan: agent.plan, next_goal: agent.nextGoal,
		steps: agent.history,
		verdict: agent.verdict, usage: agent.usage,
		stop_reason: result?.stop_reason ?? null, answer: result?.answer ?? null, message: result?.message ?? null,
	});
}

/**
 * A task's result or progress as an MCP tool result.
 * @param {TaskRecord} record
 */
export function taskReply(record, extra = {}) {
	const waiting = record.result === null && record.agent.question !== null;
	const structured = record.result ?? {
		task_id: record.id, status: waiting ? 'input_required' : 'running', tab_id: record.tabId,
		...(waiting ? { question: record.agent.conceal(record.agent.question.text), question_id: record.agent.question.id } : {}),
		steps: record.agent.history.map(step => ({ ...step })), steps_taken: record.agent.stepsTaken,
		usage: { ...record.agent.usage },
	};
	return {
		content: [{ type: 'text', text: describeTask(record) }],
		structuredContent: {
			...structured, ...extra,
			created_at: new Date(record.started).toISOString(),
			updated_at: new Date(record.updated).toISOString(),
			keep_ms: TASK_KEEP_MS,
		},
	};
}

/**
 * Waits for a task to end, at most ms; resolves either way.
 * @param {TaskRecord} record
 * @param {number} ms
 * @param {AbortSignal} signal
 */
function waitFor(record, ms, signal) {
	return new Promise(resolve => {
		const timer = setTimeout(done, Math.max(0, ms));
		signal.addEventListener('abort', done, { once: true });
		record.done.then(done, done);
		function done() {
			clearTimeout(timer);
			signal.removeEventListener('abort', done);
			resolve();
		}
	});
}

/**
 * The MCP task tools as dispatcher actions.
 * @param {TaskManager} manager
 * @returns {Record<string, import('../dispatcher.js').ActionDefinition>}
 */
export function taskActions(manager) {
	return {
		run_task: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				let waiting = params.wait !== false;
				let sent = 0;
				const record = await manager.start(params, (task, event) => {
					if (!waiting)
						return;
					/* A question also goes to the caller's own user, if its client can ask (elicitation). */
					const input = event.type === 'question' ?
					    { task_id: task.id, question_id: task.agent.question.id, question: event.question } : undefined;
					context.progress(++sent, undefined, describeEvent(task, event), input);
				}, { client: context.client, caller: context.caller, scopes: context.scopes });
				if (!waiting)
					return taskReply(record);
				const stop = () => record.controller.abort(context.signal.reason ?? new Error('the caller cancelled run_task'));
				context.signal.addEventListener('abort', stop, { once: true });
				try {
					await waitFor(record, context.deadline - Date.now() - DEADLINE_MARGIN_MS, new AbortController().signal);
				} finally {
					context.signal.removeEventListener('abort', stop);
					waiting = false;
				}
				if (context.signal.aborted)
					await record.done;
				return taskReply(record);
			},
		},
		get_task: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const record = await manager.get(params.task_id, context);
				if (record.result === null && params.wait_ms > 0)
					await waitFor(record, Math.min(params.wait_ms, context.deadline - Date.now() - DEADLINE_MARGIN_MS), context.signal);
				return taskReply(record);
			},
		},
		answer_task: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				/* tasks/update with a declined input request brings no answer: only report the task. */
				const { record, answered } = typeof params.answer === 'string' ?
				    await manager.answer(params.task_id, params.answer, params.question_id, context.client, context) :
				    { record: await manager.get(params.task_id, context), answered: false };
				const reply = taskReply(record, { answered });
				if (!answered)
					reply.content[0].text = `Nothing was waiting for that answer (the person may have answered first). ${reply.content[0].text}`;
				return reply;
			},
		},
		stop_task: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const stopped = await manager.stop(params.task_id, 'stop_task was called', context);
				return taskReply(await manager.get(params.task_id, context), { stopped });
			},
		},
		list_tasks: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const records = await manager.list(context);
				const lines = [`${records.length} task${records.length === 1 ? '' : 's'}${records.length > 0 ? ':' : '.'}`];
				for (const record of records) {
					const status = record.result === null ? `running, step ${record.agent.stepsTaken}` : `${record.result.stop_reason} after ${record.result.steps_taken} steps`;
					lines.push(`${record.id} in tab ${record.tabId}, ${status}: "${shortTask(record.agent.conceal(record.task))}"`);
				}
				return {
					content: [{ type: 'text', text: lines.join('\n') }],
					structuredContent: {
						tasks: records.map(record => ({
							task_id: record.id, task: record.agent.conceal(record.task), tab_id: record.tabId,
							status: record.result === null ? 'running' : 'finished',
							stop_reason: record.result?.stop_reason, steps_taken: record.agent.stepsTaken,
							created_at: new Date(record.started).toISOString(),
							updated_at: new Date(record.updated).toISOString(),
							keep_ms: TASK_KEEP_MS,
						})),
					},
				};
			},
		},
	};
}

/**
 * A progress message for one of the loop's events.
 * @param {TaskRecord} record
 * @param {object} event
 */
function describeEvent(record, event) {
	switch (event.type) {
	case 'plan':
		return `Task ${record.id} plan: ${event.plan} Next: ${event.next_goal}`;
	case 'verdict':
		return `Task ${record.id} validator ${event.verdict === 'accept' ? 'accepted' : 'rejected'} "${event.answer}": ${event.reason}`;
	case 'question':
		return `Task ${record.id} waits for the person at the browser (input required): "${event.question}". They answer in the extension's side panel.`;
	case 'paused':
		return `Task ${record.id} was paused by the person at the browser.`;
	case 'resumed':
		return `Task ${record.id} was resumed by the person at the browser.`;
	default:
		return `Task ${record.id} step ${event.step}: ${describeStep(event)}`;
	}
}
