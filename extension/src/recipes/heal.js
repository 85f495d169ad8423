/**
 * Healing a replay (run_recipe heal: true): when a step's element is not
 * on the page, the navigator model is asked once, for that one step only,
 * which element of the page now does its job. Its answer gives the step a
 * new locator; the replay goes on from there.
 * @module recipes/heal
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { loadSettings, roleModels } from '../agents/settings.js';
import { describeTarget, targetOf } from './locator.js';
import { REF_KEYS } from './record.js';

/** Asks the navigator for one step's element. */
export class StepHealer {
	/**
	 * @param {object} deps
	 * @param {import('../dispatcher.js').Dispatcher} deps.dispatcher reads the page as the agents do
	 * @param {{get: Function}} deps.storage chrome.storage.local (the model settings)
	 * @param {(settings: object, deps: object) => {complete: Function}} deps.createProvider
	 * @param {(role: string, input: object) => object} deps.buildPrompt
	 * @param {string} deps.optionsUrl
	 * @param {typeof fetch} [deps.fetch]
	 * @param {(text: string) => void} [deps.log]
	 */
	constructor(deps) {
		this.deps = deps;
	}

	/**
	 * The element that now does a step's job, as the navigator picks it
	 * from the page's state: one model call.
	 * @param {object} recipe
	 * @param {object} step its locator key is target (or from_target)
	 * @param {number} index
	 * @param {number} tabId
	 * @param {import('../dispatcher.js').ActionContext} call how the replay reads the page
	 * @param {string[]} allowed the replay's domains
	 * @returns {Promise<{key: string, ref: string, target: import('./locator.js').Target}>}
	 * @throws {BridgeError} PROVIDER_NOT_CONFIGURED without a model; ELEMENT_NOT_FOUND when the navigator names no element
	 */
	async heal(recipe, step, index, tabId, call, allowed) {
		const key = step.target !== undefined ? 'target' : 'from_target';
		const argument = Object.entries(REF_KEYS).find(([, locator]) => locator === key)[0];
		const models = roleModels(await loadSettings(this.deps.storage), this.deps.optionsUrl);
		const navigator = this.deps.createProvider(models.navigator,
		    { fetch: this.deps.fetch ?? fetch.bind(globalThis), log: this.deps.log });
		const read = await this.deps.dispatcher.dispatch('get_browser_state', { tab_id: tabId, full_page: true }, call);
		const elements = read.structuredContent?.elements ?? [];
		const tool = this.deps.dispatcher.catalogueActions().find(entry => entry.name === step.tool);
		const prompt = this.deps.buildPrompt('navigator', {
			task: `Step ${index + 1} of recipe "${recipe.name}" is ${step.tool} on ${describeTarget(step[key])}, ` +
			    'which is no longer on the page. Do only this step: call it once, with the ref of the element of this page ' +
			    'that now does that job.',
			history: [], plan: '', state: read.content.map(part => part.text ?? '').join('\n'),
			url: read.structuredContent?.tab?.url ?? '', title: read.structuredContent?.tab?.title ?? '',
			allowed_domains: allowed, steps_left: 1, tools: tool === undefined ? [] : [tool],
		});
		const reply = await navigator.complete({ role: 'navigator', ...prompt, signal: call.signal });
		const ref = reply.output?.actions?.find(action => action.tool === step.tool)?.args?.[argument];
		const element = typeof ref === 'string' ? elements.find(candidate => candidate.ref === ref) : undefined;
		if (element === undefined)
			throw new BridgeError(ErrorCode.ELEMENT_NOT_FOUND, `the navigator named no element of the page for ${step.tool}`);
		return { key, ref: element.ref, target: targetOf(element, elements) };
	}
}
