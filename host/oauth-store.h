/*
 * What the host's OAuth authorization server remembers: the clients that
 * registered, the grant the person approved for each, and the codes and
 * tokens it issued. Only BLAKE2b digests of codes and tokens are kept.
 * Approved clients, their grants and tokens live in a file only the user
 * can read (clients.json beside the token, mode 0600, rewritten
 * atomically), so they survive the host's restarts; codes live in memory
 * for a minute, and clients not approved yet in the memory of the host
 * they registered with (a flood of registrations writes nothing).
 * Hosts on other ports may share the file: every look at it and change
 * of it goes between oauth_store_begin and oauth_store_end, which lock
 * it and read again what another host wrote.
 * Times are wall-clock milliseconds, given by the caller.
 */
#ifndef OAUTH_STORE_H
#define OAUTH_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "queue.h"

#define OAUTH_CLIENT_ID_BYTES	16
#define OAUTH_CLIENT_ID_LENGTH	(2 * OAUTH_CLIENT_ID_BYTES)
#define OAUTH_CLIENTS_MAX	64	/* registered clients kept */
#define OAUTH_REDIRECT_URIS_MAX	8	/* per client */
#define OAUTH_REDIRECT_URI_MAX	512	/* bytes */
/* A family's live tokens: older ones are dropped past it. */
#define OAUTH_FAMILY_TOKENS_MAX	4
#define OAUTH_FAMILIES_MAX	8	/* approvals kept per client */

enum oauth_token_kind {
	OAUTH_CODE,		/* authorization code: memory only */
	OAUTH_ACCESS,
	OAUTH_REFRESH,
};

struct oauth_client {
	char			 client_id[OAUTH_CLIENT_ID_LENGTH + 1];
	char			*name;		/* as sent (oauth-name.h); "" when none */
	json_t			*redirect_uris;	/* array of strings */
	uint64_t		 created_ms;
	bool			 approved;	/* the person approved it */
	unsigned		 scopes;	/* what they approved */
	uint64_t		 approved_ms;
	char			 redirect_host[64];	/* of the approval */
	uint64_t		 last_used_ms;	/* to the minute; 0: never */
	/* The process that registered it (memory only); 0: unknown. */
	long			 registrar_pid;
	TAILQ_ENTRY(oauth_client) entry;	/* oldest first */
};

/*
 * An issued code or token, by its digest. A family is one approval: the
 * code, and every token it and its refreshes issued; reusing a used code
 * or a rotated refresh token ends the whole family.
 */
struct oauth_token {
	char			 digest[65];
	enum oauth_token_kind	 kind;
	char			 client_id[OAUTH_CLIENT_ID_LENGTH + 1];
	char			 family[OAUTH_CLIENT_ID_LENGTH + 1];
	unsigned		 scopes;
	char			*resource;
	uint64_t		 issued_ms;
	uint64_t		 expires_ms;
	bool			 used;		/* a code redeemed, a refresh rotated */
	/* A code's: where it was sent and the PKCE challenge. */
	char			*redirect_uri;
	char			*challenge;
	TAILQ_ENTRY(oauth_token) entry;
};

struct oauth_store;

/* Says whether a client must not be dropped to make room. */
typedef bool		 (*oauth_store_keep_fn)(const char *client_id,
			    void *arg);

struct oauth_store	*oauth_store_open(const char *path, char **cause);
void			 oauth_store_free(struct oauth_store *store);
int			 oauth_store_begin(struct oauth_store *store,
			    char **cause);
int			 oauth_store_end(struct oauth_store *store, bool save,
			    char **cause);
void			 oauth_store_set_keep(struct oauth_store *store,
			    oauth_store_keep_fn keep, void *arg);
struct oauth_client	*oauth_store_register(struct oauth_store *store,
			    const char *name, const json_t *redirect_uris,
			    uint64_t now_ms, char **cause);
struct oauth_client	*oauth_store_client(struct oauth_store *store,
			    const char *client_id);
void			 oauth_store_approve(struct oauth_client *client,
			    unsigned scopes, const char *redirect_host,
			    uint64_t now_ms);
char			*oauth_store_issue(struct oauth_store *store,
			    const struct oauth_token *fields, uint64_t ttl_ms);
struct oauth_token	*oauth_store_find(struct oauth_store *store,
			    enum oauth_token_kind kind, const char *secret,
			    uint64_t now_ms);
void			 oauth_store_end_family(struct oauth_store *store,
			    const char *family);
bool			 oauth_store_revoke(struct oauth_store *store,
			    const char *client_id);
bool			 oauth_store_touch(struct oauth_client *client,
			    uint64_t now_ms);
const struct oauth_client *oauth_store_namesake(struct oauth_store *store,
			    const struct oauth_client *client);
json_t			*oauth_store_list(struct oauth_store *store);
void			 oauth_store_expire(struct oauth_store *store,
			    uint64_t now_ms);
void			 oauth_store_new_family(
			    char out[OAUTH_CLIENT_ID_LENGTH + 1]);

#endif
