/*
 * The token endpoint (RFC 6749 4.1.3 and 6, RFC 7636, RFC 8707), token
 * revocation (RFC 7009), and checking the access tokens MCP requests
 * carry. Access tokens are opaque and short-lived, bound to their client,
 * scopes and this host's MCP URL; refresh tokens rotate on every use.
 */
#ifndef OAUTH_TOKEN_H
#define OAUTH_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct oauth_store;
struct session_grant;

#define OAUTH_CODE_TTL_MS	(60 * 1000)
#define OAUTH_ACCESS_TTL_MS	(60 * 60 * 1000)
#define OAUTH_REFRESH_TTL_MS	(30ull * 24 * 60 * 60 * 1000)

json_t	*oauth_token_exchange(struct oauth_store *store, const json_t *form,
	    uint16_t port, uint64_t now_ms, int *status);
void	 oauth_token_revoke(struct oauth_store *store, const json_t *form,
	    uint64_t now_ms);
int	 oauth_token_verify(struct oauth_store *store, const char *token,
	    uint16_t port, uint64_t now_ms, struct session_grant *grant,
	    bool *touched);
bool	 oauth_token_pkce_valid(const char *verifier, const char *challenge);

#endif
