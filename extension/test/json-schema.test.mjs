// Unit tests: the JSON Schema subset the agents check their models' actions
// and replies with (json-schema.js), anyOf above all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { schemaError } from '../src/json-schema.js';

test('one type name: the value has it, or the error names it', () => {
	assert.equal(schemaError({ type: 'integer' }, 3, 'n'), null);
	assert.equal(schemaError({ type: 'integer' }, 3.5, 'n'), 'n must be an integer');
	assert.equal(schemaError({ type: 'null' }, 0, 'n'), 'n must be null');
});

test('anyOf: a value fits when one branch does; the error names every type', () => {
	const value = { anyOf: [{ type: 'string' }, { type: 'boolean' }] };
	assert.equal(schemaError(value, 'Ada', 'args.value'), null);
	assert.equal(schemaError(value, true, 'args.value'), null);
	assert.equal(schemaError(value, 3, 'args.value'), 'args.value must be a string or a boolean');
	const nullable = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
	assert.equal(schemaError(nullable, null, 'answer'), null);
	assert.equal(schemaError(nullable, false, 'answer'), 'answer must be a string, an integer or null');
});

test('anyOf: the one branch of the value\'s type says what is wrong inside it', () => {
	const schema = { anyOf: [{ type: 'boolean' }, { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }] };
	assert.equal(schemaError(schema, { n: 0 }, 'args.v'), 'args.v.n must be at least 1');
	const fields = {
		type: 'object',
		properties: { fields: { type: 'array', items: { type: 'object', properties: { value: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } } } } },
	};
	assert.equal(schemaError(fields, { fields: [{ value: 'x' }, { value: [] }] }, 'args'), 'args.fields[1].value must be a string or a boolean');
});

const shared = JSON.parse(readFileSync(new URL('../../tests/schema-cases.json', import.meta.url), 'utf8'));

for (const { name, schema, valid, invalid } of shared.cases) {
	test(`shared case (tests/schema-cases.json, also run on host/schema.c): ${name}`, () => {
		for (const instance of valid)
			assert.equal(schemaError(schema, instance, 'args'), null, `${JSON.stringify(instance)} rejected`);
		for (const { instance, extension } of invalid)
			assert.equal(schemaError(schema, instance, 'args'), extension, `${JSON.stringify(instance)}`);
	});
}
