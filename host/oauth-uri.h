/*
 * Loopback http URIs, the only redirect URIs and resources the host's
 * OAuth server takes (RFC 8252 7.3: native apps listen on loopback, on a
 * port of their choosing).
 */
#ifndef OAUTH_URI_H
#define OAUTH_URI_H

#include <stdbool.h>
#include <stddef.h>

struct oauth_uri {
	char		 host[16];	/* "127.0.0.1", "[::1]" or "localhost" */
	int		 port;		/* -1: none given (80) */
	const char	*rest;		/* path and query, in the parsed text */
};

int	 oauth_uri_loopback(const char *uri, struct oauth_uri *parsed);
bool	 oauth_uri_same_but_port(const char *a, const char *b);
void	 oauth_uri_authority(const struct oauth_uri *parsed, char *out,
	    size_t size);

#endif
