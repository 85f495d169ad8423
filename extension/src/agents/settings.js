/**
 * The agents' settings: which model serves each role, the limits a task
 * runs under, where the agents may go. Kept in chrome.storage.local under
 * one key (the options page writes it); API keys never leave this
 * extension. A run_task call may tighten or override the limits, and
 * narrow the allowed domains (domains.taskDomains).
 * @module agents/settings
 */

import { BridgeError, ErrorCode } from '../errors.js';

/** The chrome.storage.local key of the agents' settings. */
export const SETTINGS_KEY = 'agents';

/** The roles that each may have a model of their own. */
export const ROLES = ['planner', 'navigator', 'validator'];

/** Limits when neither the settings nor the call give one. */
export const DEFAULT_LIMITS = Object.freeze({
	max_steps: 30,
	max_failures: 3,
	timeout_ms: 300000,
	token_budget: 300000,
	planner_interval: 5,
});

/** The bounds each limit must lie within. */
const LIMIT_BOUNDS = Object.freeze({
	max_steps: [1, 200],
	max_failures: [1, 20],
	timeout_ms: [1000, 3600000],
	token_budget: [1000, 10000000],
	planner_interval: [1, 20],
});

/**
 * @typedef {object} ProviderSettings
 * @property {'openai'|'anthropic'|'gemini'} kind
 * @property {string} [base_url]
 * @property {string} api_key
 * @property {string} model
 */

/**
 * @typedef {object} AgentSettings
 * @property {ProviderSettings|null} provider the model for every role without its own
 * @property {Record<string, ProviderSettings|null>} roles a model per role (optional; its kind may be missing)
 * @property {typeof DEFAULT_LIMITS} limits
 * @property {string[]} allowed_domains empty: anywhere; a ceiling a run_task call can only narrow
 * @property {boolean} vision send a viewport screenshot to the navigator
 * @property {boolean} keep_tabs keep the tabs a task opens when it ends (else they are closed)
 */

/**
 * Reads a provider entry, or null when it is missing or incomplete. A
 * role's entry may leave its kind out (the main provider's is meant).
 * @param {unknown} value
 * @param {boolean} [kindOptional]
 * @returns {ProviderSettings|null}
 */
function readProvider(value, kindOptional = false) {
	if (value === null || typeof value !== 'object')
		return null;
	const kind = kindOptional && (value.kind === undefined || value.kind === '') ? undefined : value.kind;
	if ((kind !== undefined && !['openai', 'anthropic', 'gemini'].includes(kind)) || (kind === undefined && !kindOptional) ||
	    typeof value.model !== 'string' || value.model === '')
		return null;
	return {
		kind,
		base_url: typeof value.base_url === 'string' && value.base_url !== '' ? value.base_url.replace(/\/+$/, '') : undefined,
		api_key: typeof value.api_key === 'string' ? value.api_key : '',
		model: value.model,
	};
}

/**
 * Normalises a list of domains: lower case, no scheme, path or port, no
 * leading "*." or dots; empty strings dropped.
 * @param {unknown} list
 * @returns {string[]}
 */
export function readDomains(list) {
	if (!Array.isArray(list))
		return [];
	const domains = [];
	for (const item of list) {
		if (typeof item !== 'string')
			continue;
		const domain = item.trim().toLowerCase()
		    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/[/:].*$/, '').replace(/^(\*\.)|^\.+|\.+$/g, '');
		if (domain !== '' && !domains.includes(domain))
			domains.push(domain);
	}
	return domains;
}

/**
 * Brings stored settings to their full shape: defaults where a field is
 * missing or out of bounds.
 * @param {unknown} stored
 * @returns {AgentSettings}
 */
export function normaliseSettings(stored) {
	const value = stored !== null && typeof stored === 'object' ? stored : {};
	const roles = {};
	for (const role of ROLES)
		roles[role] = readProvider(value.roles?.[role], true);
	const limits = { ...DEFAULT_LIMITS };
	for (const [name, [low, high]] of Object.entries(LIMIT_BOUNDS)) {
		const wanted = value.limits?.[name];
		if (Number.isInteger(wanted) && wanted >= low && wanted <= high)
			limits[name] = wanted;
	}
	return {
		provider: readProvider(value.provider),
		roles,
		limits,
		allowed_domains: readDomains(value.allowed_domains),
		vision: value.vision === true,
		keep_tabs: value.keep_tabs === true,
	};
}

/**
 * Loads the settings from storage.
 * @param {{get: (key: string) => Promise<object>}} storage chrome.storage.local or a stand-in
 * @returns {Promise<AgentSettings>}
 */
export async function loadSettings(storage) {
	const stored = await storage.get(SETTINGS_KEY);
	return normaliseSettings(stored?.[SETTINGS_KEY]);
}

/**
 * A role's own model completed from the main provider: the main kind when
 * the role names none, and, when the role calls the same kind of API at the
 * same address (its base URL empty or the main one), the main base URL and
 * key where its own are empty. The main key goes nowhere else.
 * @param {ProviderSettings} own the role's entry
 * @param {ProviderSettings|null} main
 * @returns {ProviderSettings|null} null when the role names no kind and there is no main provider
 */
export function roleProvider(own, main) {
	const kind = own.kind ?? main?.kind;
	if (kind === undefined)
		return null;
	if (main === null || kind !== main.kind || (own.base_url !== undefined && own.base_url !== main.base_url))
		return { ...own, kind };
	return { kind, base_url: main.base_url, api_key: own.api_key !== '' ? own.api_key : main.api_key, model: own.model };
}

/**
 * The model settings each role uses.
 * @param {AgentSettings} settings
 * @param {string} optionsUrl the options page, named in the error
 * @returns {Record<string, ProviderSettings>}
 * @throws {BridgeError} PROVIDER_NOT_CONFIGURED when a role has no model
 */
export function roleModels(settings, optionsUrl) {
	const models = {};
	for (const role of ROLES) {
		const own = settings.roles[role];
		const model = own === null ? settings.provider : roleProvider(own, settings.provider);
		if (model === null)
			throw new BridgeError(ErrorCode.PROVIDER_NOT_CONFIGURED,
			    `run_task needs a language model, and none is set up for the ${role}. ` +
			    `Open the Browser Bridge options page (${optionsUrl}), choose a provider, ` +
			    'enter its key and model, and press Test connection.');
		models[role] = model;
	}
	return models;
}

/**
 * The limits of one task: the call's own (brought within bounds), else
 * the settings'.
 * @param {AgentSettings} settings
 * @param {{max_steps?: number, timeout_ms?: number, max_failures?: number, token_budget?: number}} params
 * @returns {typeof DEFAULT_LIMITS}
 */
export function taskLimits(settings, params) {
	const limits = { ...settings.limits };
	for (const name of ['max_steps', 'timeout_ms', 'max_failures', 'token_budget']) {
		const [low, high] = LIMIT_BOUNDS[name];
		if (Number.isInteger(params[name]))
			limits[name] = Math.min(high, Math.max(low, params[name]));
	}
	return limits;
}
