/**
 * The recipe tools as dispatcher actions: start_recording and
 * stop_recording around a client's own calls, run_recipe, and
 * list_recipes, get_recipe and delete_recipe over the caller's recipes
 * (docs/recipes.md).
 * @module recipes/actions
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { taskReply } from '../agents/task-manager.js';
import { buildRecipe, NO_CALLER, Recordings } from './record.js';
import { describeStep } from './replay.js';
import { validateRecipe } from './schema.js';

/** How long a replay run as a task may take: run_recipe's own timeout (catalogue/run_recipe.json). */
const REPLAY_MS = 600000;

/** The stop reason of a replay that a step stopped. */
const STEP_FAILED = 'step_failed';

/**
 * A replay's progress as a task shows it (what TaskManager.adopt reads of
 * an AgentTask): a history entry per step begun, no model, no question.
 */
class ReplayProgress {
	/** @param {object} recipe */
	constructor(recipe) {
		this.recipe = recipe;
		this.history = [];
		this.stepsTaken = 0;
		this.limits = { max_steps: recipe.steps.length };
		this.usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, model_calls: 0 };
		this.question = null;
		this.paused = false;
		this.plan = `Replay recipe ${recipe.id} v${recipe.version}: ${recipe.steps.length} steps.`;
		this.nextGoal = '';
		this.verdict = null;
		this.onChange = () => {};
	}

	/**
	 * Step n (1-based) begins: the one before it worked.
	 * @param {number} n
	 */
	begin(n) {
		this.end('ok');
		const step = this.recipe.steps[n - 1];
		this.history.push({ step: n, tool: step.tool, label: (step.target ?? step.from_target)?.name, outcome: 'running', detail: '' });
		this.stepsTaken = n;
		this.onChange();
	}

	/**
	 * The step under way ends.
	 * @param {'ok'|'error'} outcome
	 * @param {string} [detail]
	 */
	end(outcome, detail = '') {
		const last = this.history.at(-1);
		if (last?.outcome === 'running')
			Object.assign(last, { outcome, detail });
	}

	/** A recipe holds no secret's value: there is nothing to conceal. */
	conceal(text) {
		return text;
	}

	/** @see conceal */
	concealAll(value) {
		return value;
	}

	/** No replay asks a question. */
	answer() {
		return false;
	}

	/** The person's pause switch (the popup) pauses a replay; the side panel's task pause has nothing to hold. */
	pause() {}

	/** @see pause */
	resume() {}
}

/**
 * A replay's summary: what it did, and how.
 * @param {object} recipe
 * @param {{tabId: number, url: string, steps: object[], healed: object[]}} replay
 * @param {object|null} healed the recipe's next version, when steps healed
 * @param {boolean} saved that version was saved
 * @returns {string}
 */
function replayText(recipe, replay, healed, saved) {
	const how = healed === null ? 'with no model' :
	    `healing ${replay.healed.length} step${replay.healed.length === 1 ? '' : 's'} with one model call each` +
	    (saved ? `; saved as version ${healed.version}` : '');
	const lines = (healed ?? recipe).steps.map((step, i) =>
	    `${i + 1}. ${describeStep(step)}: ${replay.healed.some(entry => entry.index === i) ? 'healed' : 'ok'}`);
	return `Recipe ${recipe.id} v${recipe.version} ("${recipe.name}") replayed ${replay.steps.length} steps in tab ${replay.tabId}, ` +
	    `${how}; the tab shows ${replay.url}.\n${lines.join('\n')}`;
}

/**
 * A recipe in one line: id, version, name, steps and parameters.
 * @param {object} recipe
 * @returns {string}
 */
function recipeLine(recipe) {
	const parameters = recipe.parameters.map(parameter => parameter.secret ? `${parameter.name} (secret)` : parameter.name);
	return `${recipe.id} v${recipe.version} "${recipe.name}": ${recipe.steps.length} steps from ${recipe.start_url}` +
	    (parameters.length > 0 ? `, parameters ${parameters.join(', ')}` : '');
}

/**
 * A recipe's summary for list_recipes' structured result.
 * @param {object} recipe
 * @returns {object}
 */
function recipeSummary(recipe) {
	return {
		recipe_id: recipe.id, version: recipe.version, name: recipe.name, created: recipe.created, owner: recipe.owner,
		source: recipe.source, start_url: recipe.start_url, steps: recipe.steps.length,
		parameters: recipe.parameters.map(parameter => ({ ...parameter })),
	};
}

/**
 * The recipe run_recipe runs: a saved one of the caller's (recipe_id), or
 * one handed in (recipe), checked against the schema first.
 * @param {import('./store.js').RecipeStore} store
 * @param {{recipe_id?: string, recipe?: object}} params
 * @param {import('./store.js').RecipeViewer} viewer
 * @returns {Promise<object>}
 * @throws {BridgeError} INVALID_ARGUMENT for neither or both, an unknown id, or a recipe that breaks the schema
 */
async function recipeToRun(store, params, viewer) {
	if ((params.recipe_id === undefined) === (params.recipe === undefined))
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'Pass either recipe_id (a saved recipe, list_recipes) or recipe (a recipe\'s JSON).');
	if (params.recipe_id !== undefined)
		return store.get(params.recipe_id, viewer);
	const { ok, errors, recipe } = validateRecipe(params.recipe);
	if (!ok)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `The recipe does not follow the schema (docs/recipes.md): ${errors.join('; ')}.`);
	return recipe;
}

/**
 * The next version of a recipe whose replay healed steps: their new
 * locators in place of the old; null when none healed.
 * @param {object} recipe
 * @param {{index: number, key: string, target: object}[]} healed
 * @returns {object|null}
 */
function healedVersion(recipe, healed) {
	if (healed.length === 0)
		return null;
	const steps = structuredClone(recipe.steps);
	for (const { index, key, target } of healed)
		steps[index][key] = target;
	return { ...recipe, version: recipe.version + 1, created: new Date().toISOString(), steps };
}

/**
 * The recipe tools.
 * @param {object} deps
 * @param {import('./store.js').RecipeStore} deps.store
 * @param {import('./record.js').Recordings} deps.recordings
 * @param {import('./replay.js').RecipeRunner} deps.runner
 * @param {import('../agents/task-manager.js').TaskManager} deps.tasks follows a replay run as a task
 * @returns {Record<string, import('../dispatcher.js').ActionDefinition>}
 */
export function recipeActions({ store, recordings, runner, tasks }) {
	/**
	 * Starts a replay as a task (run_recipe wait: false, and so the
	 * protocol's tasks): it answers once the tab is entered, and
	 * get_task, stop_task and tasks/* follow it (TaskManager.adopt).
	 * @param {object} recipe
	 * @param {object} options run's
	 * @param {import('../dispatcher.js').ActionContext} context
	 * @param {(replay: object) => Promise<{text: string}>} finish what the replay's end makes of it
	 * @returns {Promise<import('../agents/task-manager.js').TaskRecord>}
	 * @throws {BridgeError} what stops the replay before its first step (parameters, scopes, the fence, the tab)
	 */
	async function replayAsTask(recipe, options, context, finish) {
		const controller = new AbortController();
		const progress = new ReplayProgress(recipe);
		let entered;
		const tab = new Promise(resolve => {
			entered = resolve;
		});
		const running = runner.run(recipe, { ...options, entered }, {
			...context, signal: controller.signal, deadline: Date.now() + REPLAY_MS, progress: n => progress.begin(n),
		});
		const tabId = await Promise.race([tab, running]);
		const done = running.then(async replay => {
			progress.end('ok');
			progress.usage.model_calls = replay.healed.length;
			return { stop_reason: 'done', answer: (await finish(replay)).text, message: `Done in ${replay.steps.length} steps.` };
		}, error => {
			progress.end('error', error?.message ?? String(error));
			return { stop_reason: controller.signal.aborted ? 'cancelled' : STEP_FAILED, answer: null,
			    message: `${error?.code ?? ErrorCode.INTERNAL}: ${error?.message ?? error}` };
		});
		return tasks.adopt({ task: `Replay recipe ${recipe.id} ("${recipe.name}")`, tabId, agent: progress, controller, done }, context);
	}

	return {
		start_recording: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const restarted = recordings.stop(Recordings.keyOf(context)) !== undefined;
				recordings.start(Recordings.keyOf(context));
				return { content: [{ type: 'text', text: `${restarted ? 'The recording under way was dropped; a new one started. ' : ''}` +
				    'Recording: your calls that act in a page (in the tab of the first one) are kept from now on, each as it works. ' +
				    'Call stop_recording with a name to save them as a recipe.' }],
				structuredContent: { recording: true, restarted } };
			},
		},
		stop_recording: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const recorder = recordings.stop(Recordings.keyOf(context));
				if (recorder === undefined)
					throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'No recording is under way: call start_recording first.');
				const recipe = params.discard === true ? null :
				    buildRecipe(recorder.calls, { name: params.name, owner: context.caller ?? NO_CALLER, source: { kind: 'recording' } });
				if (recipe === null)
					return { content: [{ type: 'text', text: params.discard === true ? 'The recording was dropped.' :
					    'Nothing was recorded (no call acted in a page since start_recording), so no recipe was saved.' }],
					structuredContent: { saved: false } };
				await store.save(recipe);
				const dropped = recorder.dropped > 0 ? ` The ${recorder.dropped} calls past the first ${recipe.steps.length} were left out.` : '';
				return { content: [{ type: 'text', text: `Saved recipe ${recipeLine(recipe)}.${dropped}\n` +
				    `${recipe.steps.map((step, i) => `${i + 1}. ${describeStep(step)}`).join('\n')}\n` +
				    `Replay it with run_recipe {"recipe_id": "${recipe.id}"}.` }],
				structuredContent: { saved: true, recipe_id: recipe.id, recipe } };
			},
		},
		list_recipes: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const recipes = await store.list(context);
				return { content: [{ type: 'text', text: [`${recipes.length} recipe${recipes.length === 1 ? '' : 's'}${recipes.length > 0 ? ':' : '.'}`,
				    ...recipes.map(recipeLine)].join('\n') }],
				structuredContent: { recipes: recipes.map(recipeSummary) } };
			},
		},
		get_recipe: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const recipe = await store.get(params.recipe_id, context);
				return { content: [{ type: 'text', text: JSON.stringify(recipe, null, 1) }], structuredContent: { recipe } };
			},
		},
		delete_recipe: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const recipe = await store.delete(params.recipe_id, context);
				return { content: [{ type: 'text', text: `Deleted recipe ${recipeLine(recipe)}.` }],
				    structuredContent: { deleted: true, recipe_id: recipe.id } };
			},
		},
		run_recipe: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const recipe = await recipeToRun(store, params, context);
				const options = { parameters: params.parameters, tabId: params.tab_id, heal: params.heal === true };
				/* A saved recipe that healed and then replayed to its end is kept as its next version. */
				const finish = async replay => {
					const healed = healedVersion(recipe, replay.healed);
					if (healed !== null && params.recipe_id !== undefined)
						await store.save(healed);
					return { healed, text: replayText(recipe, replay, healed, params.recipe_id !== undefined) };
				};
				if (params.wait === false)
					return taskReply(await replayAsTask(recipe, options, context, finish));
				const replay = await runner.run(recipe, options, context);
				const { healed, text } = await finish(replay);
				return {
					content: [{ type: 'text', text }],
					structuredContent: { recipe_id: recipe.id, version: healed?.version ?? recipe.version, status: 'done', tab_id: replay.tabId,
					    url: replay.url, steps: replay.steps, model_calls: replay.healed.length,
					    ...(healed !== null ? { healed_steps: replay.healed.map(entry => entry.index + 1), recipe: healed } : {}) },
				};
			},
		},
	};
}
