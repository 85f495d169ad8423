// Unit tests: select_option's option matching and wording, press_keys'
// parsing and wording, the keys with which typing replaces a field.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeOptions, matchOptions } from '../src/select-options.js';
import { describePressed, parsePressKeys } from '../src/actions/interact.js';
import { replacementKeys } from '../src/actions/input.js';
import { parseKeySequence } from '../src/keys.js';
import { BridgeError } from '../src/errors.js';

const OPTIONS = [
	{ value: '', label: 'Choose…' },
	{ value: 'us', label: 'United States' },
	{ value: 'ca', label: 'Canada' },
	{ value: 'mx', label: 'Mexico', disabled: true },
	{ value: 'Canada', label: 'Kanada (DE)' },
];

test('matchOptions prefers an exact value over a label', () => {
	assert.deepEqual(matchOptions(OPTIONS, ['Canada']).indexes, [4]);
	assert.deepEqual(matchOptions(OPTIONS, ['ca']).indexes, [2]);
});

test('matchOptions matches labels trimmed and case-insensitively', () => {
	assert.deepEqual(matchOptions(OPTIONS, [' united states ']).indexes, [1]);
	assert.deepEqual(matchOptions(OPTIONS, ['US']).indexes, [1]);
});

test('matchOptions reports missing and disabled options and drops duplicates', () => {
	const m = matchOptions(OPTIONS, ['Peru', 'mx', 'us', 'United States']);
	assert.deepEqual(m, { indexes: [1], missing: ['Peru'], disabled: ['mx'] });
});

test('describeOptions names values that differ from labels and cuts long lists', () => {
	assert.equal(describeOptions([{ value: 'a', label: 'a' }, { value: 'ca', label: 'Canada' }]),
	    '"a", "Canada" (value "ca")');
	const many = Array.from({ length: 25 }, (_, i) => ({ value: `${i}`, label: `${i}` }));
	const text = describeOptions(many, 20);
	assert.match(text, /"19", and 5 more$/);
	assert.doesNotMatch(text, /"20"/);
	assert.equal(describeOptions([]), 'it has no options');
});

test('parsePressKeys refuses bad and empty sequences with INVALID_ARGUMENT', () => {
	for (const keys of ['{Nope}', '', 'a}b']) {
		assert.throws(() => parsePressKeys(keys), error => error instanceof BridgeError &&
		    error.code === 'INVALID_ARGUMENT' && /^No key was pressed/.test(error.message), keys);
	}
});

test('describePressed lists keys in braces and quotes text', () => {
	assert.equal(describePressed(parsePressKeys('{Control+a}{Backspace}')), '{Control+A} {Backspace}');
	assert.equal(describePressed(parsePressKeys('hi{Enter}')), '"hi" {Enter}');
});

test('replacementKeys: typed text replaces the selection; a leading key, no text or DOM events need more', () => {
	const names = keys => keys.map(k => [...k.modifiers, k.key].join('+'));
	const field = { kind: 'text', empty: false };
	assert.deepEqual(names(replacementKeys(field, parseKeySequence('3'), false)), []);
	assert.deepEqual(names(replacementKeys(field, parseKeySequence('{Tab}3'), false)), ['Backspace']);
	assert.deepEqual(names(replacementKeys(field, parseKeySequence(''), false)), ['Backspace']);
	assert.deepEqual(names(replacementKeys(field, [{ type: 'text', text: '' }], false)), ['Backspace']);
	assert.deepEqual(names(replacementKeys(field, parseKeySequence('3'), true)), ['Control+a']);
	assert.deepEqual(names(replacementKeys({ kind: 'keys', empty: false }, parseKeySequence('{Enter}'), false)), ['Control+a', 'Backspace']);
	assert.deepEqual(replacementKeys({ kind: 'text', empty: true }, parseKeySequence('{Tab}'), true), []);
});
