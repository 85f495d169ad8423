/* POST /token and /revoke, and the check of an MCP request's token. */
#include "oauth-token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oauth-metadata.h"
#include "oauth-register.h"
#include "oauth-scope.h"
#include "oauth-store.h"
#include "session.h"
#include "xmalloc.h"

#define OAUTH_VERIFIER_MIN	43
#define OAUTH_VERIFIER_MAX	128

/* A form field's value, or NULL. */
static const char *
oauth_token_field(const json_t *form, const char *name)
{
	return json_string_value(json_object_get(form, name));
}

/*
 * Says whether a PKCE verifier (RFC 7636 4.1) hashes to the challenge:
 * BASE64URL(SHA256(verifier)) without padding.
 */
bool
oauth_token_pkce_valid(const char *verifier, const char *challenge)
{
	unsigned char	 hash[crypto_hash_sha256_BYTES];
	char		 encoded[sodium_base64_ENCODED_LEN(sizeof hash,
			    sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
	size_t		 len, i;

	if (verifier == NULL || challenge == NULL)
		return false;
	len = strlen(verifier);
	if (len < OAUTH_VERIFIER_MIN || len > OAUTH_VERIFIER_MAX)
		return false;
	for (i = 0; i < len; i++) {
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789-._~", verifier[i]) == NULL)
			return false;
	}
	crypto_hash_sha256(hash, (const unsigned char *)verifier, len);
	sodium_bin2base64(encoded, sizeof encoded, hash, sizeof hash,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return strlen(challenge) == strlen(encoded) &&
	    sodium_memcmp(encoded, challenge, strlen(encoded)) == 0;
}

/* Issues an access and a refresh token for a family; returns the reply. */
static json_t *
oauth_token_grant(struct oauth_store *store, const struct oauth_token *from,
    unsigned scopes, uint16_t port, uint64_t now_ms)
{
	struct oauth_token	 fields;
	char			*access, *refresh, *names;
	json_t			*reply;

	memset(&fields, 0, sizeof fields);
	memcpy(fields.client_id, from->client_id, sizeof fields.client_id);
	memcpy(fields.family, from->family, sizeof fields.family);
	fields.scopes = scopes;
	fields.resource = oauth_metadata_resource_url(port);
	fields.issued_ms = now_ms;
	fields.kind = OAUTH_ACCESS;
	access = oauth_store_issue(store, &fields, OAUTH_ACCESS_TTL_MS);
	fields.kind = OAUTH_REFRESH;
	refresh = oauth_store_issue(store, &fields, OAUTH_REFRESH_TTL_MS);
	names = oauth_scope_format(scopes);
	reply = json_pack("{s:s,s:s,s:i,s:s,s:s}", "access_token", access,
	    "token_type", "Bearer", "expires_in", OAUTH_ACCESS_TTL_MS / 1000,
	    "refresh_token", refresh, "scope", names);
	sodium_memzero(access, strlen(access));
	sodium_memzero(refresh, strlen(refresh));
	free(access);
	free(refresh);
	free(names);
	free(fields.resource);
	return reply;
}

/*
 * Checks what a code or refresh token and the request share: the client
 * that holds it, still approved, and the resource; NULL when fine.
 */
static json_t *
oauth_token_check_holder(struct oauth_store *store,
    const struct oauth_token *token, const json_t *form, uint16_t port)
{
	const char		*resource = oauth_token_field(form, "resource");
	struct oauth_client	*client;

	if (strcmp(token->client_id, oauth_token_field(form, "client_id")) != 0)
		return oauth_error("invalid_grant", "this grant was issued to "
		    "another client_id");
	client = oauth_store_client(store, token->client_id);
	if (client == NULL || !client->approved)
		return oauth_error("invalid_grant", "the client is no longer "
		    "approved (it was revoked): authorize again");
	if (resource != NULL && !oauth_metadata_resource_ours(resource, port))
		return oauth_error("invalid_target", "resource must be this "
		    "host's MCP URL, http://127.0.0.1:PORT/mcp, as its "
		    "protected resource metadata says");
	return NULL;
}

/*
 * grant_type=authorization_code: redeems a code, once, with its verifier.
 * Only a request that passes every check (client, redirect URI, PKCE)
 * spends the code, so a wrong try by anyone holding it leaves the real
 * client its grant; a spent code coming back, from anyone, ends what it
 * gave (RFC 6749 4.1.2).
 */
static json_t *
oauth_token_code(struct oauth_store *store, const json_t *form,
    uint16_t port, uint64_t now_ms, int *status)
{
	struct oauth_token	*code;
	json_t			*error;
	const char		*redirect = oauth_token_field(form,
				    "redirect_uri");

	if (oauth_token_field(form, "code") == NULL ||
	    oauth_token_field(form, "code_verifier") == NULL)
		return oauth_error("invalid_request", "an authorization_code "
		    "grant needs code, code_verifier and client_id, and "
		    "redirect_uri when the authorization request had one");
	code = oauth_store_find(store, OAUTH_CODE, oauth_token_field(form,
	    "code"), now_ms);
	if (code == NULL)
		return oauth_error("invalid_grant", "the code is unknown or "
		    "expired (codes live 60 seconds): authorize again");
	if (code->used) {
		/* RFC 6749 4.1.2: what the code gave is taken back too. */
		oauth_store_end_family(store, code->family);
		return oauth_error("invalid_grant", "the code was used "
		    "already; the tokens it gave are revoked: authorize again");
	}
	if ((error = oauth_token_check_holder(store, code, form, port)) != NULL)
		return error;
	if (code->redirect_uri != NULL && redirect == NULL)
		return oauth_error("invalid_request", "send redirect_uri: the "
		    "authorization request had one");
	if (code->redirect_uri != NULL && strcmp(redirect,
	    code->redirect_uri) != 0)
		return oauth_error("invalid_grant", "redirect_uri differs from "
		    "the authorization request's");
	if (!oauth_token_pkce_valid(oauth_token_field(form, "code_verifier"),
	    code->challenge))
		return oauth_error("invalid_grant", "code_verifier does not "
		    "match the code_challenge (PKCE, S256)");
	code->used = true;
	*status = 200;
	return oauth_token_grant(store, code, code->scopes, port, now_ms);
}

/* grant_type=refresh_token: rotates a refresh token; reuse ends its family. */
static json_t *
oauth_token_refresh(struct oauth_store *store, const json_t *form,
    uint16_t port, uint64_t now_ms, int *status)
{
	struct oauth_token	*refresh;
	const char		*asked = oauth_token_field(form, "scope");
	unsigned		 scopes, held;
	char			*cause = NULL;
	json_t			*error;

	if (oauth_token_field(form, "refresh_token") == NULL)
		return oauth_error("invalid_request", "a refresh_token grant "
		    "needs refresh_token and client_id");
	refresh = oauth_store_find(store, OAUTH_REFRESH,
	    oauth_token_field(form, "refresh_token"), now_ms);
	if (refresh == NULL)
		return oauth_error("invalid_grant", "the refresh token is "
		    "unknown, expired or revoked: authorize again");
	if (refresh->used) {
		/* A rotated token came back: one of its holders stole it. */
		oauth_store_end_family(store, refresh->family);
		return oauth_error("invalid_grant", "the refresh token was "
		    "used already; every token of this grant is revoked: "
		    "authorize again");
	}
	if ((error = oauth_token_check_holder(store, refresh, form, port)) !=
	    NULL)
		return error;
	/* The person's latest approval caps every grant the client holds. */
	held = refresh->scopes & oauth_store_client(store,
	    refresh->client_id)->scopes;	/* approved: checked above */
	scopes = held;
	if (asked != NULL) {
		if (oauth_scope_parse(asked, &scopes, &cause) != 0 ||
		    (scopes & ~held) != 0) {
			free(cause);
			return oauth_error("invalid_scope", "a refresh may ask "
			    "only for scopes the grant holds");
		}
	}
	refresh->used = true;
	*status = 200;
	return oauth_token_grant(store, refresh, scopes, port, now_ms);
}

/*
 * POST /token with form (the urlencoded fields, as strings): returns the
 * tokens and *status 200, or an error body (RFC 6749 5.2) and *status
 * 400.
 */
json_t *
oauth_token_exchange(struct oauth_store *store, const json_t *form,
    uint16_t port, uint64_t now_ms, int *status)
{
	const char	*grant = oauth_token_field(form, "grant_type");

	*status = 400;
	if (grant == NULL || oauth_token_field(form, "client_id") == NULL)
		return oauth_error("invalid_request", "send grant_type and "
		    "client_id (a public client: no secret)");
	if (oauth_store_client(store, oauth_token_field(form, "client_id")) ==
	    NULL) {
		*status = 401;
		return oauth_error("invalid_client", "unknown client_id: "
		    "register again at the registration endpoint");
	}
	if (strcmp(grant, "authorization_code") == 0)
		return oauth_token_code(store, form, port, now_ms, status);
	if (strcmp(grant, "refresh_token") == 0)
		return oauth_token_refresh(store, form, port, now_ms, status);
	return oauth_error("unsupported_grant_type", "grant_type must be "
	    "authorization_code or refresh_token");
}

/*
 * POST /revoke (RFC 7009): ends the family of the access or refresh token
 * given; an unknown token is no error.
 */
void
oauth_token_revoke(struct oauth_store *store, const json_t *form,
    uint64_t now_ms)
{
	const char		*secret = oauth_token_field(form, "token");
	struct oauth_token	*token;

	if ((token = oauth_store_find(store, OAUTH_ACCESS, secret,
	    now_ms)) == NULL)
		token = oauth_store_find(store, OAUTH_REFRESH, secret, now_ms);
	if (token != NULL && strcmp(token->client_id, oauth_token_field(form,
	    "client_id") != NULL ? oauth_token_field(form, "client_id") :
	    token->client_id) == 0)
		oauth_store_end_family(store, token->family);
}

/*
 * Checks an access token from an MCP request: live, for this host's MCP
 * URL, of a client still approved. 0 and *grant filled, *touched when the
 * client's last use changed (save the store); -1 when it is no key.
 */
int
oauth_token_verify(struct oauth_store *store, const char *token,
    uint16_t port, uint64_t now_ms, struct session_grant *grant,
    bool *touched)
{
	struct oauth_token	*access;
	struct oauth_client	*client;
	char			*ours;
	bool			 same;

	*touched = false;
	if ((access = oauth_store_find(store, OAUTH_ACCESS, token,
	    now_ms)) == NULL || access->used)
		return -1;
	ours = oauth_metadata_resource_url(port);
	same = strcmp(access->resource, ours) == 0;
	free(ours);
	client = oauth_store_client(store, access->client_id);
	if (!same || client == NULL || !client->approved)
		return -1;
	memset(grant, 0, sizeof *grant);
	(void)snprintf(grant->client_id, sizeof grant->client_id, "%s",
	    access->client_id);
	/* The person's latest approval caps every grant the client holds. */
	grant->scopes = access->scopes & client->scopes;
	*touched = oauth_store_touch(client, now_ms);
	return 0;
}
