/*
 * MCP sessions: one per client that initialized, over Streamable HTTP or
 * the legacy HTTP+SSE transport. The store caps how many exist and expires
 * idle ones, so a client that never sends DELETE cannot exhaust memory.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "log.h"
#include "queue.h"

/*
 * A session id is 32 random hex digits and 32 more of their MAC, keyed
 * with the bearer token (proof.h): a host that restarted knows the ids it
 * made and takes them back (session_store_resume).
 */
#define SESSION_ID_BYTES	16
#define SESSION_NONCE_LENGTH	(2 * SESSION_ID_BYTES)
#define SESSION_ID_LENGTH	(2 * SESSION_NONCE_LENGTH)
/* How many ids of sessions their clients ended the store remembers. */
#define SESSION_ENDED_KEPT	256

/* Longest client description kept ("name version", from initialize). */
#define SESSION_CLIENT_MAX	64

/*
 * A caller identity (session_caller): 32 hex digits that name one session,
 * or every stateless request of one token, to the extension.
 */
#define SESSION_CALLER_BYTES	16
#define SESSION_CALLER_LENGTH	(2 * SESSION_CALLER_BYTES)

/* The longest OAuth client id (oauth-store.c makes them). */
#define SESSION_CLIENT_ID_MAX	40

/*
 * The credential a session's requests carry: the owner key (the static
 * token, or no auth at all), or one OAuth client's key and its scopes.
 */
struct session_grant {
	bool		 owner;
	char		 client_id[SESSION_CLIENT_ID_MAX + 1];	/* "" for the owner */
	unsigned	 scopes;		/* OAUTH_SCOPE_* bits */
};

enum session_transport {
	SESSION_STREAMABLE,	/* POST/GET/DELETE on /mcp */
	SESSION_LEGACY_SSE,	/* GET /sse + POST /messages */
	SESSION_STATELESS,	/* one 2026-07-28 request; in no store */
};

struct mcp_call;
struct session_store;
struct sse_stream;

struct session {
	char			 id[SESSION_ID_LENGTH + 1];
	enum session_transport	 transport;
	char			 protocol_version[16];
	char			 client[SESSION_CLIENT_MAX];	/* "name version" */
	struct session_grant	 grant;		/* who its requests come from */
	bool			 initialized;	/* notifications/initialized seen */
	bool			 elicitation;	/* the client can ask its user */
	/* resources/subscribe: bit i is resources_index() i. */
	unsigned int		 subscriptions;
	uint64_t		 last_active_ms;
	/* The server-to-client stream: GET /mcp, or the /sse stream. */
	struct sse_stream	*stream;
	struct session_store	*store;		/* the store that owns it */
	/* Tool and resource calls still waiting for the extension. */
	TAILQ_HEAD(, mcp_call)	 calls;
	size_t			 call_count;
	TAILQ_ENTRY(session)	 entry;		/* least recently used first */
};

/* Called for a session the store is about to free (expiry, eviction). */
typedef void (*session_end_cb)(struct session *session, void *arg);


struct session_store	*session_store_new(size_t max_sessions, uint64_t idle_ms,
			    session_end_cb on_end, void *arg);
void			 session_store_free(struct session_store *store);
struct session		*session_store_create(struct session_store *store,
			    enum session_transport transport, uint64_t now_ms);
struct session		*session_store_find(struct session_store *store,
			    const char *id, uint64_t now_ms);
void			 session_store_set_key(struct session_store *store,
			    const char *key);
struct session		*session_store_resume(struct session_store *store,
			    const char *id, enum session_transport transport,
			    uint64_t now_ms);
void			 session_store_remove(struct session_store *store,
			    struct session *session);
void			 session_store_terminate(struct session_store *store,
			    struct session *session);
size_t			 session_store_expire(struct session_store *store,
			    uint64_t now_ms);
size_t			 session_store_count(const struct session_store *store);
size_t			 session_store_end_client(struct session_store *store,
			    const char *client_id);
void			 session_grant_owner(struct session_grant *grant);
bool			 session_grant_matches(const struct session *session,
			    const struct session_grant *grant);
void			 session_set_client(struct session *session,
			    const json_t *client_info);
json_t			*session_store_clients(struct session_store *store,
			    uint64_t now_ms);
struct session		*session_stateless_new(const char *version);
void			 session_stateless_free(struct session *session);
bool			 session_is_idle(const struct session *session);
void			 session_caller(const struct session_store *store,
			    const struct session *session,
			    char out[SESSION_CALLER_LENGTH + 1]);

#define SESSION_STORE_FOREACH(s, store, tmp)				\
	for ((s) = session_store_first(store);				\
	    (s) && ((tmp) = TAILQ_NEXT((s), entry), 1); (s) = (tmp))
struct session		*session_store_first(struct session_store *store);

#endif
