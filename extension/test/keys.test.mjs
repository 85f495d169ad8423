import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
	KeySequenceError, characterEvents, editingCommands, keyPressEvents,
	parseKeyName, parseKeySequence, summarizeTokens,
} from '../src/keys.js';

const keys = tokens => tokens.map(t => (t.type === 'text' ? `text:${t.text}` : `key:${t.name}`));

test('plain text is one text token', () => {
	assert.deepEqual(parseKeySequence('hello world'), [{ type: 'text', text: 'hello world' }]);
	assert.deepEqual(parseKeySequence(''), []);
});

test('keys in braces split the text', () => {
	assert.deepEqual(keys(parseKeySequence('Hi{Enter}there{Tab}')),
	    ['text:Hi', 'key:Enter', 'text:there', 'key:Tab']);
});

test('{Enter} carries the carriage return Chrome needs to submit', () => {
	const [enter] = parseKeySequence('{Enter}');
	assert.equal(enter.key, 'Enter');
	assert.equal(enter.keyCode, 13);
	assert.equal(enter.text, '\r');
});

test('{Control+A} is a combination that types no text and selects all', () => {
	const [token] = parseKeySequence('{Control+A}');
	assert.deepEqual(token.modifiers, ['Control']);
	assert.equal(token.key, 'a');
	assert.equal(token.code, 'KeyA');
	assert.equal(token.text, undefined);
	assert.deepEqual(editingCommands(token), ['selectAll']);
});

test('doubled braces type literal braces', () => {
	assert.deepEqual(parseKeySequence('{{x}}'), [{ type: 'text', text: '{x}' }]);
	assert.deepEqual(keys(parseKeySequence('a{{{Enter}}}b')), ['text:a{', 'key:Enter', 'text:}b']);
	assert.deepEqual(parseKeySequence('{{Enter}}'), [{ type: 'text', text: '{Enter}' }]);
});

test('a lone opening brace is an error that explains the escape', () => {
	assert.throws(() => parseKeySequence('if (x) { y }'), error => {
		assert.ok(error instanceof KeySequenceError);
		assert.equal(error.position, 7);
		assert.match(error.message, /double it/);
		return true;
	});
	assert.throws(() => parseKeySequence('open {'), KeySequenceError);
});

test('a lone closing brace is an error', () => {
	assert.throws(() => parseKeySequence('a } b'), /closes no key/);
});

test('unknown key names are errors naming the key', () => {
	assert.throws(() => parseKeySequence('{Entr}'), /Unknown key "\{Entr\}"/);
	assert.throws(() => parseKeySequence('{A+B}'), /not a modifier/);
	assert.throws(() => parseKeySequence('{Control+}'), /empty part/);
});

test('key names are case-insensitive and have aliases', () => {
	assert.deepEqual(keys(parseKeySequence('{enter}{ESC}{ctrl+shift+t}{cmd+k}{Up}{del}')),
	    ['key:Enter', 'key:Escape', 'key:Control+Shift+T', 'key:Meta+K', 'key:ArrowUp', 'key:Delete']);
});

test('Shift with a letter gives the capital letter and its text', () => {
	const token = parseKeyName('Shift+a');
	assert.equal(token.key, 'A');
	assert.equal(token.text, 'A');
});

test('function keys and punctuation keys parse', () => {
	assert.equal(parseKeyName('F5').keyCode, 116);
	assert.equal(parseKeyName('Control+/').code, 'Slash');
	assert.equal(parseKeyName('Plus').text, '+');
});

test('keyPressEvents presses modifiers around the key, releasing in reverse', () => {
	const events = keyPressEvents(parseKeyName('Control+Shift+T'));
	assert.deepEqual(events.map(e => `${e.type}:${e.key}:${e.modifiers}`), [
		'rawKeyDown:Control:2', 'rawKeyDown:Shift:10', 'rawKeyDown:T:10', 'keyUp:T:10',
		'keyUp:Shift:2', 'keyUp:Control:0',
	]);
});

test('keyPressEvents sends keyDown with text for keys that type', () => {
	const [down, up] = keyPressEvents(parseKeyName('Enter'));
	assert.equal(down.type, 'keyDown');
	assert.equal(down.text, '\r');
	assert.equal(up.type, 'keyUp');
	assert.equal(up.text, undefined);
});

test('characterEvents maps US-layout characters and leaves others to insertText', () => {
	const [down] = characterEvents('A');
	assert.deepEqual([down.key, down.code, down.windowsVirtualKeyCode, down.text], ['A', 'KeyA', 65, 'A']);
	assert.equal(characterEvents('?')[0].code, 'Slash');
	assert.equal(characterEvents('{')[0].code, 'BracketLeft');
	assert.equal(characterEvents('é'), null);
	assert.equal(characterEvents('😀'), null);
	assert.equal(characterEvents('\n')[0].key, 'Enter');
});

test('summarizeTokens counts characters by code point and lists keys', () => {
	assert.deepEqual(summarizeTokens(parseKeySequence('a😀{Enter}b')), { characters: 3, keys: ['Enter'] });
});
