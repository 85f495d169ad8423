/*
 * Fuzz target: what the OAuth side reads from strangers. The input, split
 * at NUL bytes, gives two URIs, a scope list and a registration request.
 * A loopback URI parses only into a loopback host, a port in range and a
 * rest that ends it, and is the same as itself but for the port; a scope
 * list that parses prints back to the same scopes; a registration either
 * fails or registers loopback redirect URIs only, under a name that shows
 * no control or format character.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "oauth-name.h"
#include "oauth-register.h"
#include "oauth-scope.h"
#include "oauth-store.h"
#include "oauth-uri.h"

#define FUZZ_FIELDS	4

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks what a URI parses to, if it parses. */
static void
fuzz_uri(const char *uri, const char *other)
{
	struct oauth_uri	parsed;

	if (oauth_uri_loopback(uri, &parsed) != 0)
		return;
	if (strcmp(parsed.host, "127.0.0.1") != 0 &&
	    strcmp(parsed.host, "[::1]") != 0 &&
	    strcmp(parsed.host, "localhost") != 0)
		abort();
	if (parsed.port != -1 && (parsed.port < 1 || parsed.port > 65535))
		abort();
	if (strlen(parsed.rest) > strlen(uri) ||
	    strcmp(uri + strlen(uri) - strlen(parsed.rest), parsed.rest) != 0)
		abort();
	if (!oauth_uri_same_but_port(uri, uri))
		abort();
	(void)oauth_uri_same_but_port(uri, other);
}

/* Checks that a scope list that parses prints back to the same scopes. */
static void
fuzz_scope(const char *text)
{
	unsigned	 scopes, again;
	char		*cause = NULL, *printed;

	if (oauth_scope_parse(text, &scopes, &cause) != 0) {
		free(cause);
		return;
	}
	printed = oauth_scope_format(scopes);
	if (oauth_scope_parse(printed, &again, &cause) != 0 || again != scopes)
		abort();
	free(printed);
}

/*
 * Checks that a name as shown holds no control character (C0, DEL, C1)
 * nor bidirectional override or isolate, and at most
 * OAUTH_NAME_SHOWN_MAX characters.
 */
static void
fuzz_shown_name(const char *name)
{
	char		*shown = oauth_name_shown(name);
	const unsigned char *p;
	size_t		 chars = 0;

	for (p = (const unsigned char *)shown; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 &&
		    p[1] <= 0x9f) || (p[0] == 0xe2 && p[1] == 0x80 &&
		    p[2] >= 0xaa && p[2] <= 0xae) || (p[0] == 0xe2 &&
		    p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))
			abort();
		if ((*p & 0xc0) != 0x80)
			chars++;
	}
	if (chars > OAUTH_NAME_SHOWN_MAX)
		abort();
	free(shown);
}

/* Checks a registration: refused, or loopback URIs, a name shown safely. */
static void
fuzz_register(const char *text)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_uri	 parsed;
	json_t			*request, *reply, *uri;
	size_t			 i;
	int			 status;

	request = json_loads(text, 0, NULL);
	reply = oauth_register(store, request, 0, &status);
	if (status == 201) {
		json_array_foreach(json_object_get(reply, "redirect_uris"), i,
		    uri) {
			if (oauth_uri_loopback(json_string_value(uri),
			    &parsed) != 0)
				abort();
		}
		fuzz_shown_name(json_string_value(json_object_get(reply,
		    "client_name")));
	} else if (status != 400)
		abort();
	json_decref(reply);
	json_decref(request);
	oauth_store_free(store);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*copy = malloc(size + 1), *field[FUZZ_FIELDS];
	size_t		 i, n = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	field[n++] = copy;
	for (i = 0; i < size && n < FUZZ_FIELDS; i++) {
		if (copy[i] == '\0')
			field[n++] = copy + i + 1;
	}
	while (n < FUZZ_FIELDS)
		field[n++] = copy + size;
	fuzz_uri(field[0], field[1]);
	fuzz_scope(field[2]);
	fuzz_register(field[3]);
	free(copy);
	return 0;
}
