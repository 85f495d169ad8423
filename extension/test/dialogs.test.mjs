// The wording of dialog reports and answers (actions/dialogs.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeDialog, dialogResult, dialogAdvice } from '../src/actions/dialogs.js';

test('describeDialog names the kind and quotes the message', () => {
	assert.equal(describeDialog({ type: 'alert', message: 'Saved "x"' }), 'the alert "Saved \\"x\\""');
	assert.equal(describeDialog({ type: 'confirm', message: 'Delete?' }), 'the confirm "Delete?"');
	assert.equal(describeDialog({ type: 'beforeunload', message: '' }), 'the beforeunload dialog (leave the page?)');
});

test('dialogResult reports the dialog in text and structuredContent, with what to call', () => {
	const dialog = { type: 'prompt', message: 'Your name?', default_prompt: 'Anonymous' };
	const r = dialogResult('click_element', dialog);
	assert.match(r.content[0].text, /^click_element stopped: the page opened the prompt "Your name\?" and waits/);
	assert.match(r.content[0].text, /prompt_text/);
	assert.deepEqual(r.structuredContent, { dialog });
	assert.doesNotMatch(dialogAdvice({ type: 'alert' }), /prompt_text/);
});
