/*
 * Fuzz target: the request guard. The input, split at NUL bytes, gives a
 * Host header, an Origin header and an Authorization header; each check
 * answers without crashing, and the bearer check agrees with a plain
 * reading of RFC 6750: "Bearer" in any case, spaces, the token, and
 * nothing after it but blanks.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http-guard.h"

#define FUZZ_TOKEN	"0123456789abcdef0123456789abcdef"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a header carries the token, read the plain way. */
static bool
fuzz_bearer_expected(const char *header)
{
	const char	*s = header;

	if (strncasecmp(s, "Bearer ", 7) != 0)
		return false;
	for (s += 7; *s == ' '; s++)
		;
	if (strncmp(s, FUZZ_TOKEN, strlen(FUZZ_TOKEN)) != 0)
		return false;
	for (s += strlen(FUZZ_TOKEN); *s == ' ' || *s == '\t'; s++)
		;
	return *s == '\0';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*text = malloc(size + 1), *field[3] = { "", "", "" };
	size_t		 i, n = 0;
	bool		 valid;

	memcpy(text, data, size);
	text[size] = '\0';
	field[n++] = text;
	for (i = 0; i < size && n < 3; i++) {
		if (text[i] == '\0')
			field[n++] = text + i + 1;
	}
	(void)http_guard_host_allowed(field[0]);
	(void)http_guard_origin_allowed(field[1],
	    "chrome-extension://abcdefghijklmnopabcdefghijklmnop");
	valid = http_guard_bearer_valid(field[2], FUZZ_TOKEN);
	if (valid != fuzz_bearer_expected(field[2]))
		abort();
	free(text);
	return 0;
}
