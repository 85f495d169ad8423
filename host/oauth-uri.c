/* Loopback http URIs: parsing, and comparing them without the port. */
#include "oauth-uri.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>


/* The loopback names a URI may use, as written in it. */
static const char *const oauth_uri_hosts[] = {
	"127.0.0.1",
	"[::1]",
	"localhost",
};

/*
 * Says whether a URI holds only printable ASCII, none of it a space nor
 * a control character written as %XX (%0d, %0A, %00, %7f...): what goes
 * into a Location header and the person's address bar must be one line.
 */
static bool
oauth_uri_printable(const char *uri)
{
	const char	*p;
	unsigned	 value;

	for (p = uri; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return false;
		if (*p == '%' && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2]) &&
		    sscanf(p + 1, "%2x", &value) == 1 &&
		    (value < 0x20 || value == 0x7f))
			return false;
	}
	return true;
}

/*
 * Parses "http://HOST[:PORT][/PATH][?QUERY]" with a loopback HOST; -1 for
 * anything else (another scheme or host, user info, a fragment, a bad
 * port, a space or a control character, raw or %-encoded).
 */
int
oauth_uri_loopback(const char *uri, struct oauth_uri *parsed)
{
	const char	*p;
	size_t		 i, len, digits;
	long		 port = 0;

	if (uri == NULL || strncasecmp(uri, "http://", 7) != 0 ||
	    strchr(uri, '#') != NULL || !oauth_uri_printable(uri))
		return -1;
	p = uri + 7;
	for (i = 0; i < sizeof oauth_uri_hosts / sizeof *oauth_uri_hosts;
	    i++) {
		len = strlen(oauth_uri_hosts[i]);
		if (strncasecmp(p, oauth_uri_hosts[i], len) == 0 &&
		    strchr(":/?", p[len]) != NULL)
			break;
	}
	if (i == sizeof oauth_uri_hosts / sizeof *oauth_uri_hosts)
		return -1;
	(void)snprintf(parsed->host, sizeof parsed->host, "%s",
	    oauth_uri_hosts[i]);
	p += len;
	parsed->port = -1;
	if (*p == ':') {
		/* Past six digits the port is wrong anyway: stop adding. */
		for (digits = 0, p++; p[digits] >= '0' && p[digits] <= '9';
		    digits++) {
			if (digits < 6)
				port = port * 10 + (p[digits] - '0');
		}
		if (digits == 0 || digits > 5 || port == 0 || port > 65535)
			return -1;
		parsed->port = (int)port;
		p += digits;
	}
	if (*p != '\0' && *p != '/' && *p != '?')
		return -1;
	parsed->rest = p;
	return 0;
}

/*
 * Says whether two loopback URIs are the same but for their ports: a
 * native app registers one and listens on any port (RFC 8252 7.3).
 */
bool
oauth_uri_same_but_port(const char *a, const char *b)
{
	struct oauth_uri	pa, pb;

	return oauth_uri_loopback(a, &pa) == 0 &&
	    oauth_uri_loopback(b, &pb) == 0 &&
	    strcmp(pa.host, pb.host) == 0 && strcmp(pa.rest, pb.rest) == 0;
}

/* Writes "HOST:PORT" (or "HOST" without one) of a parsed URI. */
void
oauth_uri_authority(const struct oauth_uri *parsed, char *out, size_t size)
{
	if (parsed->port == -1)
		(void)snprintf(out, size, "%s", parsed->host);
	else
		(void)snprintf(out, size, "%s:%d", parsed->host,
		    parsed->port);
}
