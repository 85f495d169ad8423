/*
 * The OAuth store's codes and tokens, by digest: issuing, finding and
 * ending them, a family (one approval) at a time, within their caps.
 */
#include "oauth-store.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oauth-store-private.h"
#include "random.h"
#include "xmalloc.h"

/* Tokens kept at most; the oldest go first past it. */
#define OAUTH_TOKENS_MAX	512
#define OAUTH_SECRET_BYTES	32

/* What each kind of secret starts with, so a leaked one says what it is. */
static const char *const oauth_store_prefixes[] = {
	[OAUTH_CODE] = "bbc_",
	[OAUTH_ACCESS] = "bba_",
	[OAUTH_REFRESH] = "bbr_",
};

/* Writes the hex BLAKE2b-256 digest of a secret. */
static void
oauth_store_digest(const char *secret, char out[65])
{
	unsigned char	digest[32];

	crypto_generichash(digest, sizeof digest,
	    (const unsigned char *)secret, strlen(secret), NULL, 0);
	sodium_bin2hex(out, 65, digest, sizeof digest);
}

/* Frees a token. */
static void
oauth_token_free(struct oauth_token *token)
{
	free(token->resource);
	free(token->redirect_uri);
	free(token->challenge);
	free(token);
}

/* Takes a token out of the store and frees it. */
void
oauth_store_drop_token(struct oauth_store *store, struct oauth_token *token)
{
	TAILQ_REMOVE(&store->tokens, token, entry);
	store->ntokens--;
	oauth_token_free(token);
}

/* Writes a fresh family name (one approval's codes and tokens). */
void
oauth_store_new_family(char out[OAUTH_CLIENT_ID_LENGTH + 1])
{
	if (random_hex(out, OAUTH_CLIENT_ID_BYTES) != 0)
		abort();	/* getrandom does not fail once it worked */
}

/* Drops a family's oldest live tokens of a kind past the cap. */
static void
oauth_store_cap_family(struct oauth_store *store, const char *family,
    enum oauth_token_kind kind)
{
	struct oauth_token	*token, *next;
	size_t			 live = 0;

	TAILQ_FOREACH_REVERSE(token, &store->tokens, oauth_tokens, entry) {
		if (token->kind == kind && !token->used &&
		    strcmp(token->family, family) == 0)
			live++;
	}
	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (live <= OAUTH_FAMILY_TOKENS_MAX)
			break;
		if (token->kind == kind && !token->used &&
		    strcmp(token->family, family) == 0) {
			oauth_store_drop_token(store, token);
			live--;
		}
	}
}

/* Returns how many families a client's codes and tokens belong to. */
static size_t
oauth_store_families(struct oauth_store *store, const char *client_id)
{
	struct oauth_token	*token, *before;
	size_t			 n = 0;

	TAILQ_FOREACH(token, &store->tokens, entry) {
		if (strcmp(token->client_id, client_id) != 0)
			continue;
		for (before = TAILQ_FIRST(&store->tokens); before != token;
		    before = TAILQ_NEXT(before, entry)) {
			if (strcmp(before->family, token->family) == 0)
				break;
		}
		if (before == token)
			n++;	/* the family's first */
	}
	return n;
}

/*
 * Keeps a client's approvals to OAUTH_FAMILIES_MAX: past it, its oldest
 * family ends, so one client authorizing again and again cannot push
 * other clients' grants out of the OAUTH_TOKENS_MAX places.
 */
static void
oauth_store_cap_families(struct oauth_store *store, const char *client_id)
{
	struct oauth_token	*token;

	while (oauth_store_families(store, client_id) > OAUTH_FAMILIES_MAX) {
		TAILQ_FOREACH(token, &store->tokens, entry) {
			if (strcmp(token->client_id, client_id) == 0)
				break;
		}
		oauth_store_end_family(store, token->family);
	}
}

/*
 * Keeps at most OAUTH_TOKENS_MAX codes and tokens: used and expired ones
 * go first, so one client's rotations never push out another's live
 * grant; only then the oldest live ones.
 */
static void
oauth_store_trim(struct oauth_store *store, uint64_t now_ms)
{
	struct oauth_token	*token, *next;

	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (store->ntokens <= OAUTH_TOKENS_MAX)
			return;
		if (token->used || now_ms >= token->expires_ms)
			oauth_store_drop_token(store, token);
	}
	while (store->ntokens > OAUTH_TOKENS_MAX)
		oauth_store_drop_token(store, TAILQ_FIRST(&store->tokens));
}

/*
 * Issues a code or token with fields' kind, client, family, scopes,
 * resource, issue time and (for a code) redirect URI and challenge, valid
 * ttl_ms; returns the secret (heap), of which only the digest is kept.
 */
char *
oauth_store_issue(struct oauth_store *store, const struct oauth_token *fields,
    uint64_t ttl_ms)
{
	struct oauth_token	*token = xcalloc(1, sizeof *token);
	char			 hex[2 * OAUTH_SECRET_BYTES + 1], *secret;

	if (random_hex(hex, OAUTH_SECRET_BYTES) != 0)
		abort();	/* getrandom does not fail once it worked */
	secret = xasprintf("%s%s", oauth_store_prefixes[fields->kind], hex);
	sodium_memzero(hex, sizeof hex);
	oauth_store_digest(secret, token->digest);
	token->kind = fields->kind;
	memcpy(token->client_id, fields->client_id, sizeof token->client_id);
	memcpy(token->family, fields->family, sizeof token->family);
	token->scopes = fields->scopes;
	token->resource = xstrdup(fields->resource);
	token->issued_ms = fields->issued_ms;
	token->expires_ms = fields->issued_ms + ttl_ms;
	if (fields->redirect_uri != NULL)
		token->redirect_uri = xstrdup(fields->redirect_uri);
	if (fields->challenge != NULL)
		token->challenge = xstrdup(fields->challenge);
	TAILQ_INSERT_TAIL(&store->tokens, token, entry);
	store->ntokens++;
	oauth_store_cap_family(store, token->family, token->kind);
	if (token->kind == OAUTH_CODE)	/* a new family */
		oauth_store_cap_families(store, token->client_id);
	oauth_store_trim(store, fields->issued_ms);
	return secret;
}

/*
 * Returns the unexpired code or token of this kind whose secret this is
 * (a used one too: the caller judges reuse), or NULL.
 */
struct oauth_token *
oauth_store_find(struct oauth_store *store, enum oauth_token_kind kind,
    const char *secret, uint64_t now_ms)
{
	struct oauth_token	*token;
	char			 digest[65];

	if (secret == NULL || strncmp(secret, oauth_store_prefixes[kind],
	    strlen(oauth_store_prefixes[kind])) != 0)
		return NULL;
	oauth_store_digest(secret, digest);
	TAILQ_FOREACH(token, &store->tokens, entry) {
		if (token->kind == kind && sodium_memcmp(token->digest, digest,
		    sizeof digest) == 0)
			return now_ms < token->expires_ms ? token : NULL;
	}
	return NULL;
}

/* Ends a family: its code and every token it issued. */
void
oauth_store_end_family(struct oauth_store *store, const char *family)
{
	struct oauth_token	*token, *next;
	char			 name[OAUTH_CLIENT_ID_LENGTH + 1];

	/* family may be a token's own, freed on the way. */
	(void)snprintf(name, sizeof name, "%s", family);
	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (strcmp(token->family, name) == 0)
			oauth_store_drop_token(store, token);
	}
}

/* Drops the codes and tokens that expired. */
void
oauth_store_expire(struct oauth_store *store, uint64_t now_ms)
{
	struct oauth_token	*token, *next;

	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (now_ms >= token->expires_ms)
			oauth_store_drop_token(store, token);
	}
}
