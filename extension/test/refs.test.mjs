import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RefTable, STALE_MEMORY, normalizeRef } from '../src/page-state/refs.js';

test('the same element keeps its ref across states', () => {
	const refs = new RefTable();
	const first = refs.assign(1, 0, 'docA', 7);
	const again = refs.assign(1, 0, 'docA', 7);
	assert.equal(first, 'e1');
	assert.equal(again, 'e1');
	assert.equal(refs.assign(1, 0, 'docA', 8), 'e2');
});

test('elements of different documents never share a ref', () => {
	const refs = new RefTable();
	assert.notEqual(refs.assign(1, 0, 'docA', 1), refs.assign(1, 3, 'docB', 1));
});

test('resolve finds live refs in any spelling', () => {
	const refs = new RefTable();
	refs.assign(5, 2, 'docA', 9);
	for (const spelling of ['e1', 'E1', '[e1]', 'ref=e1', ' e1 ']) {
		const found = refs.resolve(spelling);
		assert.equal(found.status, 'ok', spelling);
		assert.deepEqual(found.entry, { ref: 'e1', tabId: 5, frameId: 2, documentId: 'docA', localId: 9 });
	}
});

test('a ref never handed out is unknown; a malformed one is not a ref', () => {
	const refs = new RefTable();
	refs.assign(1, 0, 'docA', 1);
	assert.deepEqual(refs.resolve('e99'), { status: 'unknown', ref: 'e99' });
	assert.deepEqual(refs.resolve(`e${refs.next}`), { status: 'unknown', ref: `e${refs.next}` },
	    'the first number not yet handed out is unknown, not stale');
	assert.equal(refs.resolve(`e${refs.next - 1}`).status, 'ok');
	assert.deepEqual(refs.resolve('button'), { status: 'unknown', ref: null });
	assert.equal(normalizeRef('e'), null);
	assert.equal(normalizeRef(12), null);
});

test('an expired ref is stale with its reason and is never handed out again', () => {
	const refs = new RefTable();
	const ref = refs.assign(1, 0, 'docA', 1);
	refs.expire(ref, 'it was removed from the page');
	assert.deepEqual(refs.resolve(ref), { status: 'stale', ref, reason: 'it was removed from the page' });
	/* The same element number in the same document gets a new ref. */
	assert.equal(refs.assign(1, 0, 'docA', 1), 'e2');
	assert.equal(refs.resolve(ref).status, 'stale');
});

test('refs of documents that are gone go stale, others stay', () => {
	const refs = new RefTable();
	const old = refs.assign(1, 0, 'docOld', 1);
	const frame = refs.assign(1, 4, 'docFrame', 1);
	const other = refs.assign(2, 0, 'docOtherTab', 1);
	assert.equal(refs.expireDocumentsExcept(1, new Set(['docFrame']), 'navigated'), 1);
	assert.equal(refs.resolve(old).status, 'stale');
	assert.equal(refs.resolve(frame).status, 'ok');
	assert.equal(refs.resolve(other).status, 'ok');
	refs.expireTab(2, 'closed');
	assert.equal(refs.resolve(other).reason, 'closed');
	refs.expireDocument('docFrame', 'reloaded');
	assert.equal(refs.resolve(frame).reason, 'reloaded');
	assert.equal(refs.size, 0);
});

test('numbers below the counter that are no longer remembered still count as stale', () => {
	const refs = new RefTable();
	refs.skipTo(50);
	assert.equal(refs.resolve('e10').status, 'stale');
	assert.equal(refs.assign(1, 0, 'd', 1), 'e50');
	refs.skipTo(3);
	assert.equal(refs.assign(1, 0, 'd', 2), 'e51');
});

test('the stale memory is bounded', () => {
	const refs = new RefTable();
	for (let i = 0; i < STALE_MEMORY + 5; i++)
		refs.expire(refs.assign(1, 0, 'd', i), 'gone');
	assert.equal(refs.stale.size, STALE_MEMORY);
});

test('onNewRef hears each new ref with the next number', () => {
	const seen = [];
	const refs = new RefTable(1, next => seen.push(next));
	refs.assign(1, 0, 'd', 1);
	refs.assign(1, 0, 'd', 1);
	refs.assign(1, 0, 'd', 2);
	assert.deepEqual(seen, [2, 3]);
});

test('an element that moved keeps its ref and the ref follows it to its tab and frame', () => {
	const refs = new RefTable();
	const ref = refs.assign(1, 0, 'docA', 8);
	assert.equal(refs.assign(2, 4, 'docA', 8), ref);
	assert.deepEqual(refs.resolve(ref).entry, { ref, tabId: 2, frameId: 4, documentId: 'docA', localId: 8 });
	assert.equal(refs.size, 1);
});

test('refs are read with up to 12 digits, leading zeros dropped; the stale memory forgets the oldest first', () => {
	assert.equal(normalizeRef(' [ ref = E007 ] '), 'e7');
	assert.equal(normalizeRef('e123456789012'), 'e123456789012');
	assert.equal(normalizeRef('e1234567890123'), null);
	assert.equal(normalizeRef('xe1'), null);
	assert.equal(normalizeRef('e1x'), null);
	assert.equal(normalizeRef(['e5']), null, 'only a string is a ref, not what reads as one');
	const refs = new RefTable();
	for (let i = 0; i <= STALE_MEMORY; i++)
		refs.expire(refs.assign(1, 0, 'd', i), `gone ${i}`);
	assert.equal(refs.stale.has('e1'), false, 'the oldest is forgotten');
	assert.equal(refs.stale.get('e2'), 'gone 1');
	assert.equal(refs.resolve('e1').reason, 'the page changed since that state was read');
});

test('expiring a ref nobody holds changes nothing; skipTo takes only a larger integer', () => {
	const refs = new RefTable();
	const ref = refs.assign(1, 0, 'd', 1);
	refs.expire('e99', 'gone');
	assert.deepEqual(refs.resolve('e99'), { status: 'unknown', ref: 'e99' });
	assert.equal(refs.resolve(ref).status, 'ok');
	refs.skipTo(2.5);
	refs.skipTo(2);
	assert.equal(refs.assign(1, 0, 'd', 2), 'e2');
	assert.equal(refs.expireDocumentsExcept(1, new Set(['d']), 'x'), 0);
	refs.expireDocument('other', 'x');
	refs.expireTab(7, 'x');
	assert.equal(refs.size, 2);
});
