// End-to-end: type_value and fill_form replace what a field already holds
// (text, number, email, textarea, contenteditable, and inputs bound the way
// React, Vue and Angular bind them), key by key too; append: true adds to it.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge } from './harness.mjs';

/* Each field of prefilled.html: its role and name in the state, and how to read it. */
const FIELDS = {
	name: ['textbox', 'Name', 'document.getElementById("name").value'],
	quantity: ['textbox', 'Quantity', 'document.getElementById("quantity").value'],
	email: ['textbox', 'Email', 'document.getElementById("email").value'],
	comment: ['textarea', 'Comment', 'document.getElementById("comment").value'],
	notes: ['editable', 'Notes', 'document.getElementById("notes").innerText.trim()'],
};

/* What the three framework-like inputs hold: their model and what they show. */
const FRAMEWORKS = `({
	react: [window.__react.state, document.getElementById("react").value, document.getElementById("react-echo").textContent],
	vue: [window.__vue.model, document.getElementById("vue").value, document.getElementById("vue-echo").textContent],
	angular: [window.__angular.model, document.getElementById("angular").value, document.getElementById("angular-echo").textContent],
})`;

describe('typing replaces', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	for (const perKey of [false, true]) {
		test(`type_value${perKey ? ' with per_key' : ''} replaces text, number, email, textarea and contenteditable values`, async () => {
			const { url } = await b.open('prefilled.html');
			const s = await b.state();
			const wanted = { name: 'Ada', quantity: '3', email: 'ada@example.com', comment: 'New comment', notes: 'New notes' };
			for (const [field, [role, name, read]] of Object.entries(FIELDS)) {
				const typed = await b.ok('type_value', { ref: s.ref(role, name), text: wanted[field], per_key: perKey });
				assert.equal(await b.evaluate(url, read), wanted[field], `${field} holds only the new text`);
				assert.match(typed.text, /^Typed \d+ characters? into e\d+ \(.*\)\. Its value is now "/);
			}
		});

		test(`type_value${perKey ? ' with per_key' : ''} replaces the value of React-, Vue- and Angular-like controlled inputs`, async () => {
			const { url } = await b.open('prefilled.html');
			const s = await b.state();
			for (const name of ['React-like', 'Vue-like', 'Angular-like'])
				await b.ok('type_value', { ref: s.ref('textbox', name), text: 'Grace', per_key: perKey });
			assert.deepEqual(await b.evaluate(url, FRAMEWORKS), {
				react: ['Grace', 'Grace', 'React-like says: Grace'],
				vue: ['Grace', 'Grace', 'Vue-like says: Grace'],
				angular: ['Grace', 'Grace', 'Angular-like says: Grace'],
			});
		});
	}

	test('an empty text empties the field', async () => {
		const { url } = await b.open('prefilled.html');
		const s = await b.state();
		await b.ok('type_value', { ref: s.ref('textbox', 'Name'), text: '' });
		await b.ok('type_value', { ref: s.ref('textbox', 'React-like'), text: '' });
		assert.equal(await b.evaluate(url, FIELDS.name[2]), '');
		assert.deepEqual((await b.evaluate(url, FRAMEWORKS)).react, ['', '', 'React-like says: ']);
	});

	test('append: true adds at the end, in a number field too', async () => {
		const { url } = await b.open('prefilled.html');
		const s = await b.state();
		const wanted = { name: 'Old name and more', quantity: '13', comment: 'Old comment and more', notes: 'Old notes and more' };
		for (const [field, value] of Object.entries(wanted)) {
			const [role, name, read] = FIELDS[field];
			const typed = await b.ok('type_value', { ref: s.ref(role, name), text: field === 'quantity' ? '3' : ' and more', append: true });
			assert.equal(await b.evaluate(url, read), value, `${field} kept its text`);
			assert.match(typed.text, / after its text\. Its value is now /);
		}
		await b.ok('type_value', { ref: s.ref('textbox', 'React-like'), text: '!', append: true });
		assert.deepEqual((await b.evaluate(url, FRAMEWORKS)).react, ['Old react!', 'Old react!', 'React-like says: Old react!']);
	});

	test('fill_form replaces every kind of field', async () => {
		const { url } = await b.open('prefilled.html');
		const s = await b.state();
		await b.ok('fill_form', { fields: [
			{ ref: s.ref('textbox', 'Name'), value: 'Ada' },
			{ ref: s.ref('textbox', 'Quantity'), value: '3' },
			{ ref: s.ref('textarea', 'Comment'), value: 'New comment' },
			{ ref: s.ref('editable', 'Notes'), value: 'New notes' },
			{ ref: s.ref('textbox', 'React-like'), value: 'Grace' },
			{ ref: s.ref('textbox', 'Vue-like'), value: 'Grace' },
			{ ref: s.ref('textbox', 'Angular-like'), value: 'Grace' },
		] });
		for (const [field, value] of Object.entries({ name: 'Ada', quantity: '3', comment: 'New comment', notes: 'New notes' }))
			assert.equal(await b.evaluate(url, FIELDS[field][2]), value, field);
		assert.deepEqual(await b.evaluate(url, FRAMEWORKS), {
			react: ['Grace', 'Grace', 'React-like says: Grace'],
			vue: ['Grace', 'Grace', 'Vue-like says: Grace'],
			angular: ['Grace', 'Grace', 'Angular-like says: Grace'],
		});
	});
});
