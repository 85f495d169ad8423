// Unit tests: the agents' settings, and the model each role ends up with.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DEFAULT_LIMITS, ROLES, SETTINGS_KEY, loadSettings, normaliseSettings, readDomains, roleModels, taskLimits } from '../src/agents/settings.js';

const OPTIONS_URL = 'chrome-extension://x/options/options.html';

/* Settings as the options page saves them: a role whose fields were left empty has '' in them. */
function saved(main, navigator) {
	const empty = { kind: '', base_url: '', api_key: '', model: '' };
	return normaliseSettings({
		provider: main,
		roles: { planner: empty, navigator: { ...empty, ...navigator }, validator: empty },
	});
}

test('a role with only a model uses the main provider\'s kind, base URL and key', () => {
	const main = { kind: 'anthropic', base_url: 'https://proxy.example/v1', api_key: 'main-key', model: 'big' };
	const models = roleModels(saved(main, { model: 'small' }), OPTIONS_URL);
	assert.deepEqual(models.navigator, { kind: 'anthropic', base_url: 'https://proxy.example/v1', api_key: 'main-key', model: 'small' });
	assert.deepEqual(models.planner, { ...main });
});

test('a role of the main kind at the main address takes the main key where its own is empty', () => {
	const main = { kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', api_key: 'main-key', model: 'big' };
	const sameKind = roleModels(saved(main, { kind: 'openai', model: 'small' }), OPTIONS_URL).navigator;
	assert.deepEqual(sameKind, { kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', api_key: 'main-key', model: 'small' });
	const sameAddress = roleModels(saved(main, { kind: 'openai', base_url: 'http://127.0.0.1:11434/v1/', model: 'small' }), OPTIONS_URL).navigator;
	assert.equal(sameAddress.api_key, 'main-key');
	const ownKey = roleModels(saved(main, { model: 'small', api_key: 'own-key' }), OPTIONS_URL).navigator;
	assert.equal(ownKey.api_key, 'own-key');
});

test('the main key goes to no other provider or address', () => {
	const main = { kind: 'openai', base_url: '', api_key: 'main-key', model: 'big' };
	const otherKind = roleModels(saved(main, { kind: 'gemini', model: 'flash' }), OPTIONS_URL).navigator;
	assert.deepEqual(otherKind, { kind: 'gemini', base_url: undefined, api_key: '', model: 'flash' });
	const otherAddress = roleModels(saved(main, { base_url: 'http://elsewhere.example/v1', model: 'small' }), OPTIONS_URL).navigator;
	assert.deepEqual(otherAddress, { kind: 'openai', base_url: 'http://elsewhere.example/v1', api_key: '', model: 'small' });
});

test('a role with only a model and no main provider is not set up', () => {
	const onlyModels = normaliseSettings({ roles: { planner: { model: 'a' }, navigator: { model: 'b' }, validator: { model: 'c' } } });
	assert.deepEqual(onlyModels.roles.planner, { kind: undefined, base_url: undefined, api_key: '', model: 'a' });
	assert.throws(() => roleModels(onlyModels, OPTIONS_URL),
	    error => error.code === 'PROVIDER_NOT_CONFIGURED' && /none is set up for the planner/.test(error.message));
});

test('domains are read as bare lower-case host names, once each', () => {
	assert.deepEqual(readDomains([' HTTPS://Shop.Example.com:8080/path ', '*.a.test', '..b.test..', 'c.test/x', 'c.test', 'git+ssh://d.test', '', '  ', 7, null]),
	    ['shop.example.com', 'a.test', 'b.test', 'c.test', 'd.test']);
	assert.deepEqual(readDomains('example.com'), [], 'not a list: anywhere');
	assert.deepEqual(readDomains(undefined), []);
});

test('stored settings get defaults for what is missing, of the wrong type or out of bounds', async () => {
	assert.deepEqual(normaliseSettings(null), {
		provider: null, roles: { planner: null, navigator: null, validator: null }, limits: { ...DEFAULT_LIMITS },
		allowed_domains: [], vision: false, keep_tabs: false,
	});
	assert.deepEqual(ROLES, ['planner', 'navigator', 'validator']);
	assert.deepEqual(DEFAULT_LIMITS, { max_steps: 30, max_failures: 3, timeout_ms: 300000, token_budget: 300000, planner_interval: 5 });
	const limits = { max_steps: 200, max_failures: 0, timeout_ms: 999, token_budget: 10000000, planner_interval: 1.5 };
	const read = normaliseSettings({ limits, vision: 'yes', keep_tabs: true, allowed_domains: ['A.test'] });
	assert.deepEqual(read.limits, { ...DEFAULT_LIMITS, max_steps: 200, token_budget: 10000000 });
	assert.equal(read.vision, false);
	assert.equal(read.keep_tabs, true);
	assert.deepEqual(read.allowed_domains, ['a.test']);
	assert.deepEqual(normaliseSettings({ limits: { max_steps: 1, max_failures: 20, timeout_ms: 3600000, token_budget: 1000, planner_interval: 20 } }).limits,
	    { max_steps: 1, max_failures: 20, timeout_ms: 3600000, token_budget: 1000, planner_interval: 20 });
	assert.deepEqual(normaliseSettings({ limits: { max_steps: 201, max_failures: 21, timeout_ms: 3600001, token_budget: 999, planner_interval: 0 } }).limits,
	    { ...DEFAULT_LIMITS });
	const storage = { get: async key => ({ [key]: { vision: true } }) };
	assert.equal(SETTINGS_KEY, 'agents');
	assert.equal((await loadSettings(storage)).vision, true);
	assert.equal((await loadSettings({ get: async () => ({}) })).vision, false);
});

test('a provider entry is kept only when whole: a known kind and a model; its base URL loses trailing slashes', () => {
	const provider = value => normaliseSettings({ provider: value }).provider;
	assert.deepEqual(provider({ kind: 'gemini', model: 'm', base_url: 'https://g.example/v1//', api_key: 'k' }),
	    { kind: 'gemini', base_url: 'https://g.example/v1', api_key: 'k', model: 'm' });
	assert.deepEqual(provider({ kind: 'anthropic', model: 'm', base_url: '', api_key: 5 }), { kind: 'anthropic', base_url: undefined, api_key: '', model: 'm' });
	for (const bad of [{ kind: 'other', model: 'm' }, { model: 'm' }, { kind: '', model: 'm' }, { kind: 'openai', model: '' }, { kind: 'openai', model: 3 }, 'openai', null])
		assert.equal(provider(bad), null, JSON.stringify(bad));
	const role = value => normaliseSettings({ roles: { navigator: value } }).roles.navigator;
	assert.equal(role({ kind: 'other', model: 'm' }), null, 'a role may leave its kind out, not name an unknown one');
	assert.deepEqual(role({ kind: '', model: 'm' }), { kind: undefined, base_url: undefined, api_key: '', model: 'm' });
});

test('a task\'s own limits are brought within bounds; the rest are the settings\'', () => {
	const settings = normaliseSettings({ limits: { max_steps: 10, planner_interval: 5 } });
	assert.deepEqual(taskLimits(settings, {}), { ...DEFAULT_LIMITS, max_steps: 10, planner_interval: 5 });
	assert.deepEqual(taskLimits(settings, { max_steps: 500, timeout_ms: 1, max_failures: 2, token_budget: 2.5, planner_interval: 1 }),
	    { ...DEFAULT_LIMITS, max_steps: 200, timeout_ms: 1000, max_failures: 2, planner_interval: 5 });
	assert.deepEqual(taskLimits(settings, { max_steps: 0, timeout_ms: 1e9, max_failures: 99, token_budget: 1 }),
	    { max_steps: 1, timeout_ms: 3600000, max_failures: 20, token_budget: 1000, planner_interval: 5 });
	assert.deepEqual(settings.limits, { ...DEFAULT_LIMITS, max_steps: 10, planner_interval: 5 }, 'the settings are not changed');
});

test('a role without a model says which role and where to set it up', () => {
	assert.throws(() => roleModels(normaliseSettings({}), OPTIONS_URL), {
		code: 'PROVIDER_NOT_CONFIGURED',
		message: `run_task needs a language model, and none is set up for the planner. Open the Browser Bridge options page (${OPTIONS_URL}), ` +
		    'choose a provider, enter its key and model, and press Test connection.',
	});
});

test('roles with a kind of their own need no main provider', () => {
	const own = { kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', api_key: '', model: 'small' };
	const models = roleModels(normaliseSettings({ roles: { planner: own, navigator: own, validator: { ...own, kind: 'gemini' } } }), OPTIONS_URL);
	assert.deepEqual(models.planner, own);
	assert.deepEqual(models.validator, { ...own, kind: 'gemini' });
});

test('storage that holds nothing gives the defaults', async () => {
	assert.deepEqual(await loadSettings({ get: async () => undefined }), normaliseSettings(undefined));
});
