/**
 * The recipes kept in chrome.storage.local (they outlive the service
 * worker and the browser), at most RECIPES_PER_OWNER per owner, the
 * oldest dropped first. A recipe belongs to the caller that made it; the
 * owner key and the person at the browser see every recipe.
 * @module recipes/store
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { validateRecipe } from './schema.js';

/** Where the recipes are kept. */
export const RECIPES_KEY = 'recipes';

/** How many recipes one owner keeps. */
export const RECIPES_PER_OWNER = 100;

/**
 * Who asks for a recipe: an MCP caller as the host names it, with or
 * without the owner key, or the person (the side panel).
 * @typedef {object} RecipeViewer
 * @property {string} [caller]
 * @property {boolean} [ownerKey]
 * @property {boolean} [person]
 */

/**
 * Whether a viewer may see, run and delete a recipe.
 * @param {{owner: string}} recipe
 * @param {RecipeViewer} viewer
 * @returns {boolean}
 */
export function recipeVisibleTo(recipe, viewer) {
	return viewer.person === true || viewer.ownerKey === true || (viewer.caller !== undefined && recipe.owner === viewer.caller);
}

/** The kept recipes, newest first. */
export class RecipeStore {
	/** @param {{get: Function, set: Function}} storage chrome.storage.local */
	constructor(storage) {
		this.storage = storage;
		/** Changes run one after another, each on what the one before wrote. */
		this.writing = Promise.resolve();
	}

	/** @returns {Promise<object[]>} every kept recipe, newest first */
	async all() {
		const stored = await this.storage.get(RECIPES_KEY);
		return Array.isArray(stored?.[RECIPES_KEY]) ? stored[RECIPES_KEY] : [];
	}

	/**
	 * Changes the kept recipes, after the changes before it.
	 * @template T
	 * @param {(recipes: object[]) => {recipes: object[], value: T}} change
	 * @returns {Promise<T>}
	 */
	change(change) {
		const done = this.writing.then(async () => {
			const { recipes, value } = change(await this.all());
			await this.storage.set({ [RECIPES_KEY]: recipes });
			return value;
		});
		this.writing = done.catch(() => {});
		return done;
	}

	/**
	 * Keeps a recipe, in place of an older version of it, as the newest;
	 * its owner's oldest beyond RECIPES_PER_OWNER are dropped.
	 * @param {object} recipe
	 * @returns {Promise<object>} the recipe
	 * @throws {BridgeError} INVALID_ARGUMENT, saying why, for a recipe that breaks the schema (schema.js)
	 */
	save(recipe) {
		const { ok, errors } = validateRecipe(recipe);
		if (!ok)
			return Promise.reject(new BridgeError(ErrorCode.INVALID_ARGUMENT, `The recipe was not saved: ${errors.join('; ')}.`));
		return this.change(recipes => {
			const kept = [recipe, ...recipes.filter(other => other.id !== recipe.id)];
			let mine = 0;
			return { recipes: kept.filter(other => other.owner !== recipe.owner || ++mine <= RECIPES_PER_OWNER), value: recipe };
		});
	}

	/**
	 * @param {RecipeViewer} viewer
	 * @returns {Promise<object[]>} the recipes the viewer may see, newest first
	 */
	async list(viewer) {
		return (await this.all()).filter(recipe => recipeVisibleTo(recipe, viewer));
	}

	/**
	 * A recipe by id, if the viewer may see it.
	 * @param {string} id
	 * @param {RecipeViewer} viewer
	 * @returns {Promise<object>}
	 * @throws {BridgeError} INVALID_ARGUMENT for an unknown id, or one the viewer may not see (the same words)
	 */
	async get(id, viewer) {
		const recipe = (await this.all()).find(other => other.id === id);
		if (recipe === undefined || !recipeVisibleTo(recipe, viewer))
			throw notFound(id);
		return recipe;
	}

	/**
	 * Deletes a recipe the viewer may see.
	 * @param {string} id
	 * @param {RecipeViewer} viewer
	 * @returns {Promise<object>} the deleted recipe
	 * @throws {BridgeError} INVALID_ARGUMENT as get does
	 */
	delete(id, viewer) {
		return this.change(recipes => {
			const recipe = recipes.find(other => other.id === id);
			if (recipe === undefined || !recipeVisibleTo(recipe, viewer))
				throw notFound(id);
			return { recipes: recipes.filter(other => other !== recipe), value: recipe };
		});
	}
}

/**
 * The error for a recipe the caller cannot have.
 * @param {string} id
 * @returns {BridgeError}
 */
function notFound(id) {
	return new BridgeError(ErrorCode.INVALID_ARGUMENT,
	    `There is no recipe "${String(id).slice(0, 80)}" of yours. Call list_recipes to see your recipes.`);
}
