// Unit tests: the agents' settings, and the model each role ends up with.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { normaliseSettings, roleModels } from '../src/agents/settings.js';

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
