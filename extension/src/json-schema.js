/**
 * Checks a value against a JSON schema of the subset the catalogue and the
 * agents' role outputs use: type (one or a list), enum, const, minimum,
 * maximum, minLength, maxLength, minItems, maxItems, items, properties,
 * required, additionalProperties. The host checks MCP calls with the same
 * subset (host/schema.c); the agents check their models' actions with this.
 * @module json-schema
 */

/**
 * Whether a value has a JSON type.
 * @param {unknown} value
 * @param {string} type
 */
function hasType(value, type) {
	switch (type) {
	case 'string': return typeof value === 'string';
	case 'integer': return Number.isInteger(value);
	case 'number': return typeof value === 'number' && Number.isFinite(value);
	case 'boolean': return typeof value === 'boolean';
	case 'null': return value === null;
	case 'array': return Array.isArray(value);
	case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
	default: return true;
	}
}

/**
 * Says what is wrong with a value, or null when it fits the schema.
 * @param {object} schema
 * @param {unknown} value
 * @param {string} path how messages name the value, e.g. "the reply" or "args"
 * @returns {string|null}
 */
export function schemaError(schema, value, path) {
	if (schema.enum !== undefined && !schema.enum.some(item => item === value))
		return `${path} must be one of ${schema.enum.map(item => JSON.stringify(item)).join(', ')}`;
	if (schema.const !== undefined && value !== schema.const)
		return `${path} must be ${JSON.stringify(schema.const)}`;
	if (schema.type !== undefined) {
		const types = Array.isArray(schema.type) ? schema.type : [schema.type];
		if (!types.some(type => hasType(value, type)))
			return `${path} must be ${types.map(type => /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`).join(' or ')}`;
	}
	if (typeof value === 'number') {
		if (schema.minimum !== undefined && value < schema.minimum)
			return `${path} must be at least ${schema.minimum}`;
		if (schema.maximum !== undefined && value > schema.maximum)
			return `${path} must be at most ${schema.maximum}`;
	}
	if (typeof value === 'string') {
		if (schema.minLength !== undefined && value.length < schema.minLength)
			return `${path} must have at least ${schema.minLength} characters`;
		if (schema.maxLength !== undefined && value.length > schema.maxLength)
			return `${path} must have at most ${schema.maxLength} characters`;
	}
	if (Array.isArray(value))
		return arrayError(schema, value, path);
	if (hasType(value, 'object') && (schema.properties !== undefined || schema.required !== undefined))
		return objectError(schema, value, path);
	return null;
}

/** The array part of schemaError. */
function arrayError(schema, value, path) {
	if (schema.minItems !== undefined && value.length < schema.minItems)
		return `${path} has ${value.length} items; at least ${schema.minItems} are needed`;
	if (schema.maxItems !== undefined && value.length > schema.maxItems)
		return `${path} has ${value.length} items; at most ${schema.maxItems} are allowed`;
	if (schema.items !== undefined) {
		for (let i = 0; i < value.length; i++) {
			const wrong = schemaError(schema.items, value[i], `${path}[${i}]`);
			if (wrong !== null)
				return wrong;
		}
	}
	return null;
}

/** The object part of schemaError. */
function objectError(schema, value, path) {
	for (const name of schema.required ?? [])
		if (!(name in value))
			return `${path}.${name} is missing`;
	for (const [name, item] of Object.entries(value)) {
		const property = schema.properties?.[name];
		if (property === undefined) {
			if (schema.additionalProperties === false)
				return `${path}.${name} is not allowed`;
			continue;
		}
		const wrong = schemaError(property, item, `${path}.${name}`);
		if (wrong !== null)
			return wrong;
	}
	return null;
}
