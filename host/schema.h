/*
 * The subset of JSON Schema the tool catalogue uses, checked before a call
 * is forwarded: type (one name or a list), properties, required,
 * additionalProperties (false or a schema), enum, const, minimum, maximum,
 * minLength, maxLength, pattern-free strings, items, minItems, maxItems.
 * "description", "default", "title" and "examples" are documentation only.
 */
#ifndef SCHEMA_H
#define SCHEMA_H

#include <jansson.h>

int	schema_validate(const json_t *schema, const json_t *instance,
	    char **cause);
int	schema_check(const json_t *schema, char **cause);

#endif
