/*
 * A small JSON Schema checker for tool arguments. Causes are written for
 * the model that sent the call: they name the argument by its path
 * ("options.button", "values[2]") and say in words what it must be.
 *
 * The subset is the one common function-calling formats accept (Gemini's
 * function declarations take an OpenAPI subset): one type name per
 * "type" (several are an "anyOf"), string enums, additionalProperties
 * only as true or false (converters for Gemini drop it), and no "const",
 * "examples", "oneOf", "allOf", "not" or "$ref".
 *
 * Over 600 lines on purpose: the checker of arguments and the checker of
 * the catalogue's schemas (schema_check) walk the same keywords side by
 * side, so a keyword is added to both in one file.
 */
#include "schema.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* A growing heap string. */
struct schema_text {
	char	*data;
	size_t	 length;
	size_t	 size;
};

static const char *schema_keywords[] = {
	"type", "properties", "required", "additionalProperties", "enum",
	"anyOf", "minimum", "maximum", "minLength", "maxLength", "items",
	"minItems", "maxItems", "description", "default", "title",
	NULL
};

static const char *schema_type_names[] = {
	"string", "integer", "number", "boolean", "array", "object", "null",
	NULL
};

static int	schema_validate_at(const json_t *, const json_t *,
		    const char *, char **);
static int	schema_check_at(const json_t *, const char *, char **);

/* Appends formatted text. */
static void __attribute__((format(PRINTF_FORMAT, 2, 3)))
schema_text_add(struct schema_text *text, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	size_t	 n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	n = strlen(s);
	if (text->length + n + 1 > text->size) {
		text->size = (text->length + n + 1) * 2;
		text->data = xrealloc(text->data, text->size);
	}
	memcpy(text->data + text->length, s, n + 1);
	text->length += n;
	free(s);
}

/* Returns the text built so far, never NULL; the caller frees it. */
static char *
schema_text_take(struct schema_text *text)
{
	if (text->data == NULL)
		return xstrdup("");
	return text->data;
}

/* Appends a JSON value in compact form. */
static void
schema_text_add_json(struct schema_text *text, const json_t *value)
{
	char	*s;

	s = json_dumps(value, JSON_COMPACT|JSON_ENCODE_ANY);
	schema_text_add(text, "%s", s != NULL ? s : "?");
	free(s);
}

/* Returns how a path is named in a cause: the arguments or one argument. */
static char *
schema_subject(const char *path)
{
	if (path == NULL)
		return xstrdup("arguments");
	return xasprintf("argument \"%s\"", path);
}

/* Returns the path of a property below path. */
static char *
schema_path_key(const char *path, const char *key)
{
	if (path == NULL)
		return xstrdup(key);
	return xasprintf("%s.%s", path, key);
}

/* Returns the path of an array item below path. */
static char *
schema_path_index(const char *path, size_t index)
{
	return xasprintf("%s[%zu]", path != NULL ? path : "", index);
}

/* Returns a type's name with its article ("an integer") or bare. */
static const char *
schema_type_words(const char *type, bool article)
{
	static const struct {
		const char	*name;
		const char	*words;
	} table[] = {
		{ "string", "a string" },
		{ "integer", "an integer" },
		{ "number", "a number" },
		{ "boolean", "a boolean" },
		{ "array", "an array" },
		{ "object", "an object" },
		{ "null", "null" },
	};
	size_t	i;

	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, type) != 0)
			continue;
		if (!article && strcmp(type, "null") != 0)
			return strchr(table[i].words, ' ') + 1;
		return table[i].words;
	}
	return type;
}

/* Appends a count with its noun, singular for one. */
static void
schema_text_add_count(struct schema_text *text, const json_t *count,
    const char *noun)
{
	json_int_t	n = json_integer_value(count);

	schema_text_add(text, "%lld %s%s", (long long)n, noun,
	    n == 1 ? "" : "s");
}

/* Appends a lower and upper bound, either of which may be missing. */
static void
schema_text_add_range(struct schema_text *text, const json_t *low,
    const json_t *high, const char *noun)
{
	if (low != NULL && high != NULL) {
		if (noun == NULL) {
			schema_text_add(text, " from ");
			schema_text_add_json(text, low);
			schema_text_add(text, " to ");
			schema_text_add_json(text, high);
		} else if (json_equal(low, high)) {
			schema_text_add(text, " of exactly ");
			schema_text_add_count(text, high, noun);
		} else {
			schema_text_add(text, " of ");
			schema_text_add_json(text, low);
			schema_text_add(text, " to ");
			schema_text_add_count(text, high, noun);
		}
	} else if (low != NULL) {
		if (noun == NULL) {
			schema_text_add(text, " >= ");
			schema_text_add_json(text, low);
		} else {
			schema_text_add(text, " of at least ");
			schema_text_add_count(text, low, noun);
		}
	} else if (high != NULL) {
		if (noun == NULL) {
			schema_text_add(text, " <= ");
			schema_text_add_json(text, high);
		} else {
			schema_text_add(text, " of at most ");
			schema_text_add_count(text, high, noun);
		}
	}
}

/*
 * Returns what a schema accepts, in words: "one of "a", "b"", "an integer
 * >= 1", "a string or null". Without the article for use in parentheses.
 */
static char *
schema_expectation(const json_t *schema, bool article)
{
	struct schema_text	 text = { NULL, 0, 0 };
	const json_t		*type, *value, *item;
	const char		*name;
	char			*branch;
	size_t			 i, n;
	bool			 numeric = false, string = false, array = false;

	if ((value = json_object_get(schema, "anyOf")) != NULL) {
		n = json_array_size(value);
		json_array_foreach(value, i, item) {
			if (i != 0)
				schema_text_add(&text, i + 1 == n ? " or " : ", ");
			branch = schema_expectation(item, article);
			schema_text_add(&text, "%s", branch);
			free(branch);
		}
		return schema_text_take(&text);
	}
	if ((value = json_object_get(schema, "enum")) != NULL) {
		n = json_array_size(value);
		if (n == 1) {
			schema_text_add_json(&text, json_array_get(value, 0));
			return schema_text_take(&text);
		}
		schema_text_add(&text, "one of ");
		json_array_foreach(value, i, item) {
			if (i != 0)
				schema_text_add(&text, ", ");
			schema_text_add_json(&text, item);
		}
		return schema_text_take(&text);
	}

	type = json_object_get(schema, "type");
	if (json_is_string(type)) {
		name = json_string_value(type);
		schema_text_add(&text, "%s", schema_type_words(name, article));
		numeric = strcmp(name, "integer") == 0 ||
		    strcmp(name, "number") == 0;
		string = strcmp(name, "string") == 0;
		array = strcmp(name, "array") == 0;
	} else {
		schema_text_add(&text, article ? "a value" : "value");
		numeric = true;
	}

	if (numeric) {
		schema_text_add_range(&text, json_object_get(schema, "minimum"),
		    json_object_get(schema, "maximum"), NULL);
	}
	if (string) {
		schema_text_add_range(&text, json_object_get(schema, "minLength"),
		    json_object_get(schema, "maxLength"), "character");
	}
	if (array) {
		schema_text_add_range(&text, json_object_get(schema, "minItems"),
		    json_object_get(schema, "maxItems"), "item");
	}
	return schema_text_take(&text);
}

/* Sets cause to "<subject> must be <expectation>" and returns -1. */
static int
schema_fail_expect(const json_t *schema, const char *path, char **cause)
{
	char	*subject, *expect;

	subject = schema_subject(path);
	expect = schema_expectation(schema, true);
	*cause = xasprintf("%s must be %s", subject, expect);
	free(expect);
	free(subject);
	return -1;
}

/* Returns whether instance has the named JSON Schema type. */
static bool
schema_type_matches(const char *type, const json_t *instance)
{
	if (strcmp(type, "string") == 0)
		return json_is_string(instance);
	if (strcmp(type, "integer") == 0)
		return json_is_integer(instance);
	if (strcmp(type, "number") == 0)
		return json_is_number(instance);
	if (strcmp(type, "boolean") == 0)
		return json_is_boolean(instance);
	if (strcmp(type, "array") == 0)
		return json_is_array(instance);
	if (strcmp(type, "object") == 0)
		return json_is_object(instance);
	if (strcmp(type, "null") == 0)
		return json_is_null(instance);
	return false;
}

/* Returns whether instance matches the schema's "type", if any. */
static bool
schema_type_ok(const json_t *schema, const json_t *instance)
{
	const json_t	*type;

	type = json_object_get(schema, "type");
	return type == NULL ||
	    schema_type_matches(json_string_value(type), instance);
}

/*
 * Validates instance against the branches of an "anyOf": valid when one
 * fits. Otherwise the cause is the one branch of the instance's type has
 * (it says more, such as which key is wrong), or else what they accept.
 */
static int
schema_validate_any_of(const json_t *schema, const json_t *branches,
    const json_t *instance, const char *path, char **cause)
{
	const json_t	*branch, *typed = NULL;
	char		*why;
	size_t		 i, matching = 0;

	json_array_foreach(branches, i, branch) {
		if (schema_validate_at(branch, instance, path, &why) == 0)
			return 0;
		free(why);
		if (json_object_get(branch, "type") != NULL &&
		    schema_type_ok(branch, instance)) {
			typed = branch;
			matching++;
		}
	}
	if (matching == 1)
		return schema_validate_at(typed, instance, path, cause);
	return schema_fail_expect(schema, path, cause);
}

/* Compares two JSON numbers: <0, 0 or >0. */
static int
schema_number_compare(const json_t *a, const json_t *b)
{
	double	x, y;

	if (json_is_integer(a) && json_is_integer(b)) {
		if (json_integer_value(a) < json_integer_value(b))
			return -1;
		return json_integer_value(a) > json_integer_value(b);
	}
	x = json_number_value(a);
	y = json_number_value(b);
	if (x < y)
		return -1;
	return x > y;
}

/* Returns the number of UTF-8 code points in a string. */
static size_t
schema_utf8_length(const char *s, size_t bytes)
{
	size_t	i, n = 0;

	for (i = 0; i < bytes; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	}
	return n;
}

/* Returns whether a size is outside the schema's low and high keywords. */
static bool
schema_size_outside(const json_t *schema, const char *low, const char *high,
    size_t size)
{
	const json_t	*value;

	value = json_object_get(schema, low);
	if (json_is_integer(value) && (json_int_t)size < json_integer_value(value))
		return true;
	value = json_object_get(schema, high);
	if (json_is_integer(value) && (json_int_t)size > json_integer_value(value))
		return true;
	return false;
}

/* Returns the property names of a schema as "a", "b", "c". */
static char *
schema_property_list(const json_t *properties)
{
	struct schema_text	 text = { NULL, 0, 0 };
	const char		*key;
	json_t			*value;
	bool			 first = true;

	json_object_foreach((json_t *)properties, key, value) {
		schema_text_add(&text, "%s\"%s\"", first ? "" : ", ", key);
		first = false;
	}
	return schema_text_take(&text);
}

/* Validates an object's keys: unknown ones, missing ones, then each value. */
static int
schema_validate_object(const json_t *schema, const json_t *instance,
    const char *path, char **cause)
{
	const json_t	*properties, *additional, *required, *item, *sub;
	const char	*key;
	json_t		*value;
	char		*child, *allowed, *expect;
	size_t		 i;
	int		 error;

	properties = json_object_get(schema, "properties");
	additional = json_object_get(schema, "additionalProperties");

	json_object_foreach((json_t *)instance, key, value) {
		if (json_object_get(properties, key) != NULL)
			continue;
		if (additional == NULL || json_is_true(additional))
			continue;
		child = schema_path_key(path, key);
		if (json_object_size(properties) == 0) {
			if (path == NULL) {
				*cause = xasprintf("unknown argument \"%s\"; "
				    "this tool takes no arguments", child);
			} else {
				*cause = xasprintf("unknown argument \"%s\"; "
				    "\"%s\" takes no keys", child, path);
			}
		} else {
			allowed = schema_property_list(properties);
			*cause = xasprintf("unknown argument \"%s\"; allowed: %s",
			    child, allowed);
			free(allowed);
		}
		free(child);
		return -1;
	}

	required = json_object_get(schema, "required");
	json_array_foreach(required, i, item) {
		key = json_string_value(item);
		if (key == NULL || json_object_get(instance, key) != NULL)
			continue;
		child = schema_path_key(path, key);
		sub = json_object_get(properties, key);
		if (sub != NULL) {
			expect = schema_expectation(sub, false);
			*cause = xasprintf("missing required argument \"%s\" (%s)",
			    child, expect);
			free(expect);
		} else
			*cause = xasprintf("missing required argument \"%s\"",
			    child);
		free(child);
		return -1;
	}

	json_object_foreach((json_t *)properties, key, value) {
		if ((item = json_object_get(instance, key)) == NULL)
			continue;
		child = schema_path_key(path, key);
		error = schema_validate_at(value, item, child, cause);
		free(child);
		if (error != 0)
			return -1;
	}
	return 0;
}

/* Validates instance, found at path (NULL for the arguments themselves). */
static int
schema_validate_at(const json_t *schema, const json_t *instance,
    const char *path, char **cause)
{
	const json_t	*value, *item, *items;
	char		*child;
	size_t		 i;
	bool		 found;
	int		 error;

	if ((value = json_object_get(schema, "anyOf")) != NULL &&
	    schema_validate_any_of(schema, value, instance, path, cause) != 0)
		return -1;
	if ((value = json_object_get(schema, "enum")) != NULL) {
		found = false;
		json_array_foreach(value, i, item) {
			if (json_equal(item, instance)) {
				found = true;
				break;
			}
		}
		if (!found)
			return schema_fail_expect(schema, path, cause);
	}
	if (!schema_type_ok(schema, instance))
		return schema_fail_expect(schema, path, cause);

	if (json_is_number(instance)) {
		value = json_object_get(schema, "minimum");
		if (json_is_number(value) &&
		    schema_number_compare(instance, value) < 0)
			return schema_fail_expect(schema, path, cause);
		value = json_object_get(schema, "maximum");
		if (json_is_number(value) &&
		    schema_number_compare(instance, value) > 0)
			return schema_fail_expect(schema, path, cause);
	}

	if (json_is_string(instance) && schema_size_outside(schema,
	    "minLength", "maxLength", schema_utf8_length(
	    json_string_value(instance), json_string_length(instance))))
		return schema_fail_expect(schema, path, cause);

	if (json_is_array(instance)) {
		if (schema_size_outside(schema, "minItems", "maxItems",
		    json_array_size(instance)))
			return schema_fail_expect(schema, path, cause);
		items = json_object_get(schema, "items");
		if (json_is_object(items)) {
			json_array_foreach(instance, i, item) {
				child = schema_path_index(path, i);
				error = schema_validate_at(items, item, child,
				    cause);
				free(child);
				if (error != 0)
					return -1;
			}
		}
	}

	if (json_is_object(instance))
		return schema_validate_object(schema, instance, path, cause);
	return 0;
}

/* Checks instance against schema; on failure cause says what to fix. */
int
schema_validate(const json_t *schema, const json_t *instance, char **cause)
{
	if (!json_is_object(schema)) {
		*cause = xstrdup("schema is not an object");
		return -1;
	}
	if (instance == NULL) {
		*cause = xstrdup("arguments are missing");
		return -1;
	}
	return schema_validate_at(schema, instance, NULL, cause);
}

/* Sets cause to a problem with the schema at path and returns -1. */
static int __attribute__((format(PRINTF_FORMAT, 3, 4)))
schema_check_fail(const char *path, char **cause, const char *fmt, ...)
{
	va_list	 ap;
	char	*what;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	if (path == NULL)
		*cause = xasprintf("schema: %s", what);
	else
		*cause = xasprintf("schema at \"%s\": %s", path, what);
	free(what);
	return -1;
}

/* Returns whether name is in a NULL-terminated list. */
static bool
schema_in_list(const char **list, const char *name)
{
	size_t	i;

	for (i = 0; list[i] != NULL; i++) {
		if (strcmp(list[i], name) == 0)
			return true;
	}
	return false;
}

/* Checks the "type" keyword: one type name. */
static int
schema_check_type(const json_t *type, const char *path, char **cause)
{
	if (json_is_array(type))
		return schema_check_fail(path, cause, "\"type\" must be one "
		    "type name: write several as \"anyOf\" (function-calling "
		    "formats such as Gemini's take no type lists)");
	if (!json_is_string(type))
		return schema_check_fail(path, cause,
		    "\"type\" must be a type name");
	if (!schema_in_list(schema_type_names, json_string_value(type)))
		return schema_check_fail(path, cause,
		    "unknown type \"%s\"", json_string_value(type));
	return 0;
}

/* Checks the "anyOf" keyword: a non-empty list of schemas. */
static int
schema_check_any_of(const json_t *branches, const char *path, char **cause)
{
	const json_t	*branch;
	size_t		 i;

	if (!json_is_array(branches) || json_array_size(branches) == 0)
		return schema_check_fail(path, cause,
		    "\"anyOf\" must be a non-empty list of schemas");
	json_array_foreach(branches, i, branch) {
		if (schema_check_at(branch, path, cause) != 0)
			return -1;
	}
	return 0;
}

/* Checks that a keyword, if present, is an integer >= 0. */
static int
schema_check_count(const json_t *schema, const char *keyword,
    const char *path, char **cause)
{
	const json_t	*value = json_object_get(schema, keyword);

	if (value == NULL)
		return 0;
	if (!json_is_integer(value) || json_integer_value(value) < 0)
		return schema_check_fail(path, cause,
		    "\"%s\" must be an integer >= 0", keyword);
	return 0;
}

/* Checks the object keywords: properties, required, additionalProperties. */
static int
schema_check_object(const json_t *schema, const char *path, char **cause)
{
	const json_t	*properties, *required, *additional, *item;
	const char	*key;
	json_t		*value;
	char		*child;
	size_t		 i;
	int		 error;

	properties = json_object_get(schema, "properties");
	if (properties != NULL) {
		if (!json_is_object(properties))
			return schema_check_fail(path, cause,
			    "\"properties\" must be an object");
		json_object_foreach((json_t *)properties, key, value) {
			child = schema_path_key(path, key);
			error = schema_check_at(value, child, cause);
			free(child);
			if (error != 0)
				return -1;
		}
	}

	required = json_object_get(schema, "required");
	if (required != NULL) {
		if (!json_is_array(required))
			return schema_check_fail(path, cause,
			    "\"required\" must be a list of names");
		json_array_foreach(required, i, item) {
			if (!json_is_string(item))
				return schema_check_fail(path, cause,
				    "\"required\" must be a list of names");
			if (json_object_get(properties,
			    json_string_value(item)) == NULL)
				return schema_check_fail(path, cause,
				    "required \"%s\" is not in \"properties\"",
				    json_string_value(item));
		}
	}

	additional = json_object_get(schema, "additionalProperties");
	if (additional != NULL && !json_is_boolean(additional))
		return schema_check_fail(path, cause,
		    "\"additionalProperties\" must be true or false");
	return 0;
}

/* Checks one schema found at path. */
static int
schema_check_at(const json_t *schema, const char *path, char **cause)
{
	const json_t	*value, *low, *high;
	const char	*key;
	json_t		*item;
	char		*child, *why;
	size_t		 i;

	if (!json_is_object(schema))
		return schema_check_fail(path, cause, "not an object");
	json_object_foreach((json_t *)schema, key, item) {
		if (!schema_in_list(schema_keywords, key))
			return schema_check_fail(path, cause,
			    "unknown keyword \"%s\"", key);
	}

	if ((value = json_object_get(schema, "type")) != NULL &&
	    schema_check_type(value, path, cause) != 0)
		return -1;
	if ((value = json_object_get(schema, "anyOf")) != NULL &&
	    schema_check_any_of(value, path, cause) != 0)
		return -1;

	value = json_object_get(schema, "enum");
	if (value != NULL &&
	    (!json_is_array(value) || json_array_size(value) == 0))
		return schema_check_fail(path, cause,
		    "\"enum\" must be a non-empty list");
	json_array_foreach(value, i, item) {
		if (!json_is_string(item))
			return schema_check_fail(path, cause,
			    "\"enum\" must list strings");
	}

	low = json_object_get(schema, "minimum");
	high = json_object_get(schema, "maximum");
	if (low != NULL && !json_is_number(low))
		return schema_check_fail(path, cause,
		    "\"minimum\" must be a number");
	if (high != NULL && !json_is_number(high))
		return schema_check_fail(path, cause,
		    "\"maximum\" must be a number");
	if (low != NULL && high != NULL && schema_number_compare(low, high) > 0)
		return schema_check_fail(path, cause,
		    "\"minimum\" is above \"maximum\"");

	if (schema_check_count(schema, "minLength", path, cause) != 0 ||
	    schema_check_count(schema, "maxLength", path, cause) != 0 ||
	    schema_check_count(schema, "minItems", path, cause) != 0 ||
	    schema_check_count(schema, "maxItems", path, cause) != 0)
		return -1;

	for (i = 0; i < 2; i++) {
		key = i == 0 ? "description" : "title";
		value = json_object_get(schema, key);
		if (value != NULL && !json_is_string(value))
			return schema_check_fail(path, cause,
			    "\"%s\" must be a string", key);
	}
	value = json_object_get(schema, "items");
	if (value != NULL) {
		child = xasprintf("%s[]", path != NULL ? path : "");
		if (schema_check_at(value, child, cause) != 0) {
			free(child);
			return -1;
		}
		free(child);
	}

	if (schema_check_object(schema, path, cause) != 0)
		return -1;

	value = json_object_get(schema, "default");
	if (value != NULL && schema_validate_at(schema, value, path, &why) != 0) {
		schema_check_fail(path, cause, "\"default\" does not fit: %s",
		    why);
		free(why);
		return -1;
	}
	return 0;
}

/* Checks that a schema uses only the supported keywords, correctly. */
int
schema_check(const json_t *schema, char **cause)
{
	return schema_check_at(schema, NULL, cause);
}
