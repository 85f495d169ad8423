// Unit tests: wait_for's condition parsing, URL matching and wording.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeCondition, urlMatcher, waitCondition } from '../src/wait-conditions.js';

const invalid = (fn, pattern) => assert.throws(fn, e => e.code === 'INVALID_ARGUMENT' && pattern.test(e.message));

test('waitCondition takes exactly one condition', () => {
	assert.deepEqual(waitCondition({ text: 'Done', timeout_ms: 10 }), { kind: 'text', value: 'Done' });
	assert.deepEqual(waitCondition({ selector: '#a' }), { kind: 'selector', value: '#a', state: 'visible' });
	assert.deepEqual(waitCondition({ ref: 'e4', state: 'detached', tab_id: 1 }), { kind: 'ref', value: 'e4', state: 'detached' });
	assert.deepEqual(waitCondition({ delay_ms: 0 }), { kind: 'delay_ms', value: 0 });
	invalid(() => waitCondition({}), /needs one condition/);
	invalid(() => waitCondition({ network_idle: false }), /needs one condition/);
	invalid(() => waitCondition({ text: 'a', selector: 'b' }), /not text and selector/);
	invalid(() => waitCondition({ url: 'x', state: 'visible' }), /state goes with selector or ref/);
	invalid(() => waitCondition({ text: '' }), /text is empty/);
});

test('urlMatcher: substrings, and /regex/ with flags', () => {
	assert.equal(urlMatcher('/done')('https://a.test/done?x'), true);
	assert.equal(urlMatcher('/done')('https://a.test/'), false);
	assert.equal(urlMatcher('/step-\\d+$/')('https://a.test/step-12'), true);
	assert.equal(urlMatcher('/step-\\d+$/')('https://a.test/step-12/x'), false);
	assert.equal(urlMatcher('/CHECKOUT/i')('https://a.test/checkout'), true);
	/* a g flag would make test() stateful: it is dropped */
	const g = urlMatcher('/a/g');
	assert.equal(g('a'), true);
	assert.equal(g('a'), true);
	invalid(() => urlMatcher('/(/'), /not a valid regular expression/);
});

test('describeCondition names what is awaited', () => {
	assert.equal(describeCondition(waitCondition({ text_gone: 'Loading' })), 'the text "Loading" to disappear');
	assert.equal(describeCondition(waitCondition({ selector: '.x', state: 'hidden' })), '".x" to be hidden');
	assert.equal(describeCondition(waitCondition({ url: '/a/' })), 'the URL to match "/a/"');
	assert.equal(describeCondition(waitCondition({ network_idle: true })), 'the network to be idle');
});
