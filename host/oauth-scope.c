/* OAuth scope names and their bits: parsing and printing. */
#include "oauth-scope.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* The scopes, in the order every list of them shows. */
static const struct {
	const char	*name;
	unsigned	 bit;
} oauth_scopes[] = {
	{ "pages:read", OAUTH_SCOPE_PAGES_READ },
	{ "pages:act", OAUTH_SCOPE_PAGES_ACT },
	{ "tasks", OAUTH_SCOPE_TASKS },
	{ "network", OAUTH_SCOPE_NETWORK },
	{ "scripts", OAUTH_SCOPE_SCRIPTS },
};

#define OAUTH_SCOPE_COUNT	(sizeof oauth_scopes / sizeof oauth_scopes[0])
/* The longest scope name: one of a space-separated list is refused past it. */
#define OAUTH_SCOPE_NAME_MAX	32

/* Returns the bit of a scope name, or 0 for a name that is none. */
unsigned
oauth_scope_bit(const char *name)
{
	size_t	i;

	for (i = 0; i < OAUTH_SCOPE_COUNT; i++) {
		if (strcmp(name, oauth_scopes[i].name) == 0)
			return oauth_scopes[i].bit;
	}
	return 0;
}

/* Returns the name of one scope's bit, or NULL for a value that is none. */
const char *
oauth_scope_name(unsigned bit)
{
	size_t	i;

	for (i = 0; i < OAUTH_SCOPE_COUNT; i++) {
		if (oauth_scopes[i].bit == bit)
			return oauth_scopes[i].name;
	}
	return NULL;
}

/*
 * Parses a space-separated scope list (RFC 6749 3.3) into bits; -1 with
 * *cause naming the first unknown scope.
 */
int
oauth_scope_parse(const char *text, unsigned *scopes, char **cause)
{
	char		 name[OAUTH_SCOPE_NAME_MAX + 1];
	size_t		 len;
	unsigned	 bit;

	*scopes = 0;
	while (*text != '\0') {
		if (*text == ' ') {
			text++;
			continue;
		}
		len = strcspn(text, " ");
		bit = 0;
		if (len <= OAUTH_SCOPE_NAME_MAX) {
			memcpy(name, text, len);
			name[len] = '\0';
			bit = oauth_scope_bit(name);
		}
		if (bit == 0) {
			*cause = xasprintf("unknown scope \"%.*s\": the scopes "
			    "are pages:read, pages:act, tasks, network and "
			    "scripts", (int)(len > 64 ? 64 : len), text);
			return -1;
		}
		*scopes |= bit;
		text += len;
	}
	return 0;
}

/* Returns the scopes as a space-separated list ("" for none). */
char *
oauth_scope_format(unsigned scopes)
{
	char	*text = xstrdup(""), *next;
	size_t	 i;

	for (i = 0; i < OAUTH_SCOPE_COUNT; i++) {
		if ((scopes & oauth_scopes[i].bit) == 0)
			continue;
		next = xasprintf("%s%s%s", text, *text != '\0' ? " " : "",
		    oauth_scopes[i].name);
		free(text);
		text = next;
	}
	return text;
}

/* Returns the scopes as a JSON array of names. */
json_t *
oauth_scope_array(unsigned scopes)
{
	json_t	*array = json_array();
	size_t	 i;

	for (i = 0; i < OAUTH_SCOPE_COUNT; i++) {
		if ((scopes & oauth_scopes[i].bit) != 0)
			json_array_append_new(array,
			    json_string(oauth_scopes[i].name));
	}
	return array;
}

/* Reads an array of scope names; -1 when it is not one or names another. */
int
oauth_scope_from_array(const json_t *array, unsigned *scopes)
{
	const json_t	*item;
	size_t		 i;
	unsigned	 bit;

	*scopes = 0;
	if (!json_is_array(array))
		return -1;
	json_array_foreach(array, i, item) {
		if (!json_is_string(item) ||
		    (bit = oauth_scope_bit(json_string_value(item))) == 0)
			return -1;
		*scopes |= bit;
	}
	return 0;
}
