/*
 * What the host publishes about its OAuth side: the protected resource's
 * metadata (RFC 9728), the authorization server's (RFC 8414), and the
 * WWW-Authenticate challenges that point at them. The resource is this
 * host's MCP endpoint, http://127.0.0.1:PORT/mcp; the issuer
 * http://127.0.0.1:PORT.
 */
#ifndef OAUTH_METADATA_H
#define OAUTH_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

json_t	*oauth_metadata_resource(uint16_t port, const char *host);
json_t	*oauth_metadata_server(uint16_t port);
char	*oauth_metadata_challenge(uint16_t port, const char *error,
	    unsigned scopes);
char	*oauth_metadata_resource_url(uint16_t port);
bool	 oauth_metadata_resource_ours(const char *resource, uint16_t port);

#endif
