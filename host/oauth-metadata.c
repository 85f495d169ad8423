/* The OAuth metadata documents and challenges the host publishes. */
#include "oauth-metadata.h"

#include <stdlib.h>
#include <string.h>

#include "oauth-scope.h"
#include "oauth-uri.h"
#include "xmalloc.h"

/* Returns this host's MCP URL, the resource its tokens are bound to. */
char *
oauth_metadata_resource_url(uint16_t port)
{
	return xasprintf("http://127.0.0.1:%u/mcp", port);
}

/*
 * Says whether a resource indicator (RFC 8707) names this host's MCP
 * endpoint, by any loopback name a client may have been given.
 */
bool
oauth_metadata_resource_ours(const char *resource, uint16_t port)
{
	struct oauth_uri	parsed;

	return oauth_uri_loopback(resource, &parsed) == 0 &&
	    parsed.port == port && (strcmp(parsed.rest, "/mcp") == 0 ||
	    strcmp(parsed.rest, "/mcp/") == 0);
}

/*
 * The protected resource metadata (RFC 9728). Its resource is the MCP URL
 * as the client named it (host: the request's Host, already checked to be
 * loopback), since clients compare the two.
 */
json_t *
oauth_metadata_resource(uint16_t port, const char *host)
{
	char	*resource = xasprintf("http://%s/mcp", host);
	char	*issuer = xasprintf("http://127.0.0.1:%u", port);
	json_t	*document;

	document = json_pack("{s:s,s:[s],s:o,s:[s],s:s}", "resource",
	    resource, "authorization_servers", issuer, "scopes_supported",
	    oauth_scope_array(OAUTH_SCOPE_ALL), "bearer_methods_supported",
	    "header", "resource_name", "Browser Bridge");
	free(resource);
	free(issuer);
	return document;
}

/* The authorization server metadata (RFC 8414). */
json_t *
oauth_metadata_server(uint16_t port)
{
	char	*issuer = xasprintf("http://127.0.0.1:%u", port);
	char	*authorize = xasprintf("%s/authorize", issuer);
	char	*token = xasprintf("%s/token", issuer);
	char	*reg = xasprintf("%s/register", issuer);
	char	*revoke = xasprintf("%s/revoke", issuer);
	json_t	*document;

	document = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:[s],s:[s],s:[ss],"
	    "s:[s],s:[s],s:[s],s:b,s:b}",
	    "issuer", issuer,
	    "authorization_endpoint", authorize,
	    "token_endpoint", token,
	    "registration_endpoint", reg,
	    "revocation_endpoint", revoke,
	    "scopes_supported", oauth_scope_array(OAUTH_SCOPE_ALL),
	    "response_types_supported", "code",
	    "response_modes_supported", "query",
	    "grant_types_supported", "authorization_code", "refresh_token",
	    "token_endpoint_auth_methods_supported", "none",
	    "revocation_endpoint_auth_methods_supported", "none",
	    "code_challenge_methods_supported", "S256",
	    "authorization_response_iss_parameter_supported", 1,
	    "client_id_metadata_document_supported", 0);
	free(issuer);
	free(authorize);
	free(token);
	free(reg);
	free(revoke);
	return document;
}

/*
 * Returns a WWW-Authenticate value (RFC 6750 3, MCP authorization): the
 * error when there is one (invalid_token, insufficient_scope), the scopes
 * to ask for, and where the resource metadata is.
 */
char *
oauth_metadata_challenge(uint16_t port, const char *error, unsigned scopes)
{
	char	*names = oauth_scope_format(scopes), *value;

	value = xasprintf("Bearer %s%s%sresource_metadata=\"http://127.0.0.1:"
	    "%u/.well-known/oauth-protected-resource/mcp\", scope=\"%s\"",
	    error != NULL ? "error=\"" : "", error != NULL ? error : "",
	    error != NULL ? "\", " : "", port, names);
	free(names);
	return value;
}
