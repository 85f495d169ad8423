/**
 * The recipe tools as dispatcher actions: start_recording and
 * stop_recording around a client's own calls, run_recipe, and
 * list_recipes, get_recipe and delete_recipe over the caller's recipes
 * (docs/recipes.md).
 * @module recipes/actions
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { buildRecipe, NO_CALLER, Recordings } from './record.js';
import { describeStep } from './replay.js';
import { validateRecipe } from './schema.js';

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
 * @returns {Record<string, import('../dispatcher.js').ActionDefinition>}
 */
export function recipeActions({ store, recordings, runner }) {
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
				const replay = await runner.run(recipe, { parameters: params.parameters, tabId: params.tab_id, heal: params.heal === true },
				    context);
				const healed = healedVersion(recipe, replay.healed);
				/* A saved recipe that healed and then replayed to its end is kept as its next version. */
				if (healed !== null && params.recipe_id !== undefined)
					await store.save(healed);
				const steps = (healed ?? recipe).steps;
				const lines = steps.map((step, i) =>
				    `${i + 1}. ${describeStep(step)}: ${replay.healed.some(entry => entry.index === i) ? 'healed' : 'ok'}`);
				const how = healed === null ? 'with no model' :
				    `healing ${replay.healed.length} step${replay.healed.length === 1 ? '' : 's'} with one model call each` +
				    (params.recipe_id !== undefined ? `; saved as version ${healed.version}` : '');
				return {
					content: [{ type: 'text', text: `Recipe ${recipe.id} v${recipe.version} ("${recipe.name}") replayed ` +
					    `${replay.steps.length} steps in tab ${replay.tabId}, ${how}; the tab shows ${replay.url}.\n${lines.join('\n')}` }],
					structuredContent: { recipe_id: recipe.id, version: healed?.version ?? recipe.version, status: 'done', tab_id: replay.tabId,
					    url: replay.url, steps: replay.steps, model_calls: replay.healed.length,
					    ...(healed !== null ? { healed_steps: replay.healed.map(entry => entry.index + 1), recipe: healed } : {}) },
				};
			},
		},
	};
}
