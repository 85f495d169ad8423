/* Header checks every HTTP request passes before its body is read. */
#include "http-guard.h"

#include <string.h>
#include <strings.h>

#include "token.h"

/* The names a request to the loopback listener may carry in Host. */
static const char *const http_guard_loopback_names[] = {
	"localhost",
	"127.0.0.1",
	"[::1]",
};

#define HTTP_GUARD_MAX_PORT_DIGITS	5

/*
 * Says whether s is exactly a loopback name, optionally followed by a colon
 * and a port of 1 to 5 digits.
 */
static bool
http_guard_loopback_authority(const char *s)
{
	const char	*name;
	size_t		 i, len, digits;

	for (i = 0; i < sizeof http_guard_loopback_names /
	    sizeof http_guard_loopback_names[0]; i++) {
		name = http_guard_loopback_names[i];
		len = strlen(name);
		if (strncasecmp(s, name, len) != 0)
			continue;
		s += len;
		if (*s == '\0')
			return true;
		if (*s++ != ':')
			return false;
		for (digits = 0; s[digits] >= '0' && s[digits] <= '9'; digits++)
			/* nothing */;
		return digits >= 1 && digits <= HTTP_GUARD_MAX_PORT_DIGITS &&
		    s[digits] == '\0';
	}
	return false;
}

/* Says whether a Host header names loopback (the DNS-rebinding defence). */
bool
http_guard_host_allowed(const char *host)
{
	if (host == NULL)
		return false;
	return http_guard_loopback_authority(host);
}

/*
 * Says whether an Origin header is absent, a loopback web origin, or the
 * extension's own origin.
 */
bool
http_guard_origin_allowed(const char *origin, const char *extension_origin)
{
	size_t	origin_len, extension_len;

	if (origin == NULL)
		return true;
	if (strncasecmp(origin, "http://", 7) == 0)
		return http_guard_loopback_authority(origin + 7);
	if (strncasecmp(origin, "https://", 8) == 0)
		return http_guard_loopback_authority(origin + 8);

	/* Chrome passes "chrome-extension://ID/"; Origin has no slash. */
	if (extension_origin == NULL)
		return false;
	origin_len = strlen(origin);
	if (origin_len > 0 && origin[origin_len - 1] == '/')
		origin_len--;
	extension_len = strlen(extension_origin);
	if (extension_len > 0 && extension_origin[extension_len - 1] == '/')
		extension_len--;
	return extension_len > 0 && origin_len == extension_len &&
	    memcmp(origin, extension_origin, extension_len) == 0;
}

/*
 * Returns the credential an Authorization header carries after "Bearer"
 * (*len its length, without trailing blanks), or NULL when it has none.
 */
const char *
http_guard_bearer(const char *authorization, size_t *len)
{
	const char	*given;

	if (authorization == NULL ||
	    strncasecmp(authorization, "Bearer", 6) != 0 ||
	    authorization[6] != ' ')
		return NULL;
	given = authorization + 6;
	while (*given == ' ')
		given++;
	*len = strlen(given);
	while (*len > 0 && (given[*len - 1] == ' ' || given[*len - 1] == '\t'))
		(*len)--;
	return *len > 0 ? given : NULL;
}

/*
 * Says whether an Authorization header carries "Bearer" and the token. An
 * empty token matches nothing.
 */
bool
http_guard_bearer_valid(const char *authorization, const char *token)
{
	const char	*given;
	size_t		 given_len;

	if (token == NULL || *token == '\0' ||
	    (given = http_guard_bearer(authorization, &given_len)) == NULL)
		return false;
	return token_equal(token, given, given_len);
}
