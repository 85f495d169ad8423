/**
 * Checks a value against a JSON schema of the subset the catalogue and the
 * agents' role outputs use: type (one name), anyOf, enum, minimum,
 * maximum, minLength, maxLength, minItems, maxItems, items, properties,
 * required, additionalProperties. The host checks MCP calls with the same
 * subset (host/schema.c); the agents check their models' actions with this.
 * @module json-schema
 */

/**
 * Whether a value has a JSON type; nothing has an unknown or missing one.
 * @param {unknown} value
 * @param {string|undefined} type
 */
function hasType(value, type) {
	switch (type) {
	case 'string': return typeof value === 'string';
	case 'integer': return Number.isInteger(value);
	case 'number': return Number.isFinite(value);
	case 'boolean': return typeof value === 'boolean';
	case 'null': return value === null;
	case 'array': return Array.isArray(value);
	case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
	default: return false;
	}
}

/**
 * A type's name with its article: "an integer", "a string", "null".
 * @param {string} type
 */
function typeWords(type) {
	return type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * What an anyOf's value fails, when no branch fits: the one branch of the
 * value's type says more (which key is wrong), else the types they take.
 * @param {object[]} branches
 * @param {unknown} value
 * @param {string} path
 * @returns {string|null}
 */
function anyOfError(branches, value, path) {
	const errors = branches.map(branch => schemaError(branch, value, path));
	if (errors.includes(null))
		return null;
	const typed = branches.map((branch, i) => [branch, errors[i]])
	    .filter(([branch]) => hasType(value, branch.type));
	if (typed.length === 1)
		return typed[0][1];
	const types = branches.map(branch => branch.type === undefined ? 'a value' : typeWords(branch.type));
	return `${path} must be ${types.slice(0, -1).join(', ')}${types.length > 1 ? ' or ' : ''}${types.at(-1)}`;
}

/**
 * Says what is wrong with a value, or null when it fits the schema.
 * @param {object} schema
 * @param {unknown} value
 * @param {string} path how messages name the value, e.g. "the reply" or "args"
 * @returns {string|null}
 */
export function schemaError(schema, value, path) {
	if (schema.anyOf !== undefined) {
		const wrong = anyOfError(schema.anyOf, value, path);
		if (wrong !== null)
			return wrong;
	}
	if (schema.enum !== undefined && !schema.enum.some(item => item === value))
		return `${path} must be one of ${schema.enum.map(item => JSON.stringify(item)).join(', ')}`;
	if (schema.type !== undefined && !hasType(value, schema.type))
		return `${path} must be ${typeWords(schema.type)}`;
	if (typeof value === 'number') {
		if (schema.minimum !== undefined && value < schema.minimum)
			return `${path} must be at least ${schema.minimum}`;
		if (schema.maximum !== undefined && value > schema.maximum)
			return `${path} must be at most ${schema.maximum}`;
	}
	if (typeof value === 'string') {
		const length = [...value].length;
		if (schema.minLength !== undefined && length < schema.minLength)
			return `${path} must have at least ${schema.minLength} characters`;
		if (schema.maxLength !== undefined && length > schema.maxLength)
			return `${path} must have at most ${schema.maxLength} characters`;
	}
	if (Array.isArray(value))
		return arrayError(schema, value, path);
	if (hasType(value, 'object'))
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

/**
 * The object part of schemaError, in the host's order: a key the schema
 * does not know (a misspelt required one is named as that), a missing
 * key, then each property in the schema's order. Only own keys count, so
 * "constructor" or "__proto__" is a key like any other.
 */
function objectError(schema, value, path) {
	const properties = schema.properties ?? {};
	if (schema.additionalProperties === false) {
		const unknown = Object.keys(value).find(name => !Object.hasOwn(properties, name));
		if (unknown !== undefined)
			return `${path}.${unknown} is not allowed`;
	}
	const missing = (schema.required ?? []).find(name => !Object.hasOwn(value, name));
	if (missing !== undefined)
		return `${path}.${missing} is missing`;
	for (const [name, property] of Object.entries(properties)) {
		const wrong = Object.hasOwn(value, name) ? schemaError(property, value[name], `${path}.${name}`) : null;
		if (wrong !== null)
			return wrong;
	}
	return null;
}
