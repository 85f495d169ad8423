/*
 * The options page: the agents' model, limits and allowed domains (one
 * object under SETTINGS_KEY in chrome.storage.local), a Test connection
 * button, the evaluate_script switch and the agents' network switch.
 */

import { ROLES, SETTINGS_KEY, loadSettings, readDomains } from '../src/agents/settings.js';
import { testConnection } from '../src/agents/providers/index.js';
import { EVALUATE_OPTION_KEY } from '../src/actions/content.js';
import { AGENTS_NETWORK_OPTION_KEY } from '../src/actions/network.js';

/** What each provider's empty fields default to, shown as placeholders. */
const PLACEHOLDERS = {
	openai: { base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
	anthropic: { base_url: 'https://api.anthropic.com', model: 'claude-sonnet-4-5' },
	gemini: { base_url: 'https://generativelanguage.googleapis.com', model: 'gemini-2.5-flash' },
};

const LIMIT_FIELDS = ['max_steps', 'max_failures', 'token_budget', 'planner_interval'];
const form = document.getElementById('agents');
const agentsStatus = document.getElementById('agents-status');

/**
 * Fills a fieldset with the provider fields, each with its own label.
 * @param {string} prefix the fieldset's name: main or a role
 */
function addProviderFields(prefix) {
	const fieldset = document.getElementById(`provider-${prefix}`);
	const fields = document.getElementById('provider-fields').content.cloneNode(true);
	for (const label of fields.querySelectorAll('label'))
		label.htmlFor = `${prefix}-${label.dataset.for}`;
	for (const input of fields.querySelectorAll('[data-field]'))
		input.id = `${prefix}-${input.dataset.field}`;
	const kind = fields.querySelector('[data-field="kind"]');
	if (prefix !== 'main')
		kind.prepend(new Option('Same as the main model', ''));
	fieldset.append(fields);
	kind.addEventListener('change', () => {
		for (const shown of prefix === 'main' ? ['main', ...ROLES] : [prefix])
			showPlaceholders(shown);
	});
}

/** Shows the chosen provider's defaults as placeholders (a role without one: the main provider's). */
function showPlaceholders(prefix) {
	const kind = document.getElementById(`${prefix}-kind`).value || document.getElementById('main-kind').value;
	document.getElementById(`${prefix}-base_url`).placeholder = PLACEHOLDERS[kind].base_url;
	document.getElementById(`${prefix}-model`).placeholder = PLACEHOLDERS[kind].model;
}

/** The provider a fieldset describes, or null when its model is empty. */
function readProviderFields(prefix) {
	const value = field => document.getElementById(`${prefix}-${field}`).value.trim();
	if (value('model') === '')
		return null;
	return { kind: value('kind'), base_url: value('base_url'), api_key: value('api_key'), model: value('model') };
}

/** Shows a provider in its fieldset. */
function showProvider(prefix, provider) {
	document.getElementById(`${prefix}-kind`).value = provider?.kind ?? (prefix === 'main' ? 'openai' : '');
	document.getElementById(`${prefix}-base_url`).value = provider?.base_url ?? '';
	document.getElementById(`${prefix}-api_key`).value = provider?.api_key ?? '';
	document.getElementById(`${prefix}-model`).value = provider?.model ?? '';
	showPlaceholders(prefix);
}

/** The settings as the form shows them. */
function readForm() {
	const limits = {};
	for (const name of LIMIT_FIELDS)
		limits[name] = Number(document.getElementById(name).value);
	limits.timeout_ms = Number(document.getElementById('timeout_s').value) * 1000;
	return {
		provider: readProviderFields('main'),
		roles: Object.fromEntries(ROLES.map(role => [role, readProviderFields(role)])),
		limits,
		allowed_domains: readDomains(document.getElementById('allowed_domains').value.split('\n')),
		vision: document.getElementById('vision').checked,
		keep_tabs: document.getElementById('keep_tabs').checked,
	};
}

/** Shows stored settings in the form. */
function showSettings(settings) {
	showProvider('main', settings.provider);
	for (const role of ROLES)
		showProvider(role, settings.roles[role]);
	if (ROLES.some(role => settings.roles[role] !== null))
		document.getElementById('per-role').open = true;
	for (const name of LIMIT_FIELDS)
		document.getElementById(name).value = settings.limits[name];
	document.getElementById('timeout_s').value = Math.round(settings.limits.timeout_ms / 1000);
	document.getElementById('allowed_domains').value = settings.allowed_domains.join('\n');
	document.getElementById('vision').checked = settings.vision;
	document.getElementById('keep_tabs').checked = settings.keep_tabs;
}

/** Says how an action went. */
function say(text, isError = false) {
	agentsStatus.textContent = text;
	agentsStatus.classList.toggle('error', isError);
}

addProviderFields('main');
for (const role of ROLES)
	addProviderFields(role);
/* Save stays off until the saved settings are shown: saving earlier would
 * submit a half-filled form, or what was typed would be overwritten. */
loadSettings(chrome.storage.local).then(settings => {
	showSettings(settings);
	document.getElementById('save').disabled = false;
	form.dataset.ready = 'true';
});

form.addEventListener('submit', async event => {
	event.preventDefault();
	await chrome.storage.local.set({ [SETTINGS_KEY]: readForm() });
	const saved = await loadSettings(chrome.storage.local);
	showSettings(saved);
	say(saved.provider === null ? 'Saved. No model is set up yet: run_task needs one.' : `Saved. run_task will use ${saved.provider.model}.`);
});

document.getElementById('test').addEventListener('click', async () => {
	const provider = readProviderFields('main');
	if (provider === null) {
		say('Enter a model first (and a key, unless the server needs none).', true);
		return;
	}
	say(`Testing ${provider.model}…`);
	const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
	const result = await testConnection(provider, { fetch: fetch.bind(globalThis), sleep });
	say(result.message, !result.ok);
});

/**
 * Binds a checkbox to a boolean in chrome.storage.local (off unless true),
 * saying in its status line what it now allows.
 * @param {string} key the checkbox's id and the storage key
 * @param {string} statusId the status line's id
 * @param {[string, string]} words what the line says when on and off
 */
function bindSwitch(key, statusId, [on, off]) {
	const box = document.getElementById(key);
	const status = document.getElementById(statusId);
	chrome.storage.local.get(key).then(stored => {
		box.checked = stored[key] === true;
	});
	box.addEventListener('change', () => {
		chrome.storage.local.set({ [key]: box.checked }).then(() => {
			status.textContent = box.checked ? on : off;
		});
	});
}

bindSwitch(EVALUATE_OPTION_KEY, 'status', ['evaluate_script is allowed.', 'evaluate_script is off.']);
bindSwitch(AGENTS_NETWORK_OPTION_KEY, 'network-status',
    ['The agents may read the network requests of their tabs.', 'The agents have no network tools.']);
