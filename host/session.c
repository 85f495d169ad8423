/* The session store: create, find, expire and cap MCP sessions. */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oauth-scope.h"
#include "proof.h"
#include "random.h"
#include "xmalloc.h"

struct session_store {
	TAILQ_HEAD(session_list, session) sessions;	/* least recently used first */
	size_t			 count;
	size_t			 max_sessions;
	uint64_t		 idle_ms;
	session_end_cb		 on_end;
	void			*arg;
	const char		*key;		/* signs ids; NULL: none */
	/* The nonces of sessions their clients ended, never resumed. */
	char			 ended[SESSION_ENDED_KEPT][SESSION_NONCE_LENGTH];
	size_t			 ended_next;
};

/* Makes an empty store. */
struct session_store *
session_store_new(size_t max_sessions, uint64_t idle_ms, session_end_cb on_end,
    void *arg)
{
	struct session_store	*store = xcalloc(1, sizeof *store);

	TAILQ_INIT(&store->sessions);
	store->max_sessions = max_sessions;
	store->idle_ms = idle_ms;
	store->on_end = on_end;
	store->arg = arg;
	return store;
}

/* Ends and frees every session, then the store. */
void
session_store_free(struct session_store *store)
{
	struct session	*s;

	if (store == NULL)
		return;
	while ((s = TAILQ_FIRST(&store->sessions)) != NULL)
		session_store_remove(store, s);
	free(store);
}

/* Returns true when nothing holds a session: no stream, no call in flight. */
bool
session_is_idle(const struct session *session)
{
	return session->stream == NULL && session->call_count == 0;
}

/* Ends the least recently used idle session to make room; false if none. */
static bool
session_store_evict(struct session_store *store)
{
	struct session	*s;

	TAILQ_FOREACH(s, &store->sessions, entry) {
		if (session_is_idle(s)) {
			session_store_remove(store, s);
			return true;
		}
	}
	return false;
}

/* Signs ids with key (borrowed; the bearer token), so they outlive the host. */
void
session_store_set_key(struct session_store *store, const char *key)
{
	store->key = key;
}

/*
 * Writes the second half of an id: the MAC of its nonce, or without a key
 * random digits (such ids cannot be resumed). -1 on failure.
 */
static int
session_id_seal(const struct session_store *store, char *id)
{
	char	*mac;

	if (store->key == NULL)
		return random_hex(id + SESSION_NONCE_LENGTH, SESSION_ID_BYTES);
	id[SESSION_NONCE_LENGTH] = '\0';
	if ((mac = proof_compute(store->key, PROOF_SESSION, id)) == NULL)
		return -1;
	memcpy(id + SESSION_NONCE_LENGTH, mac, SESSION_NONCE_LENGTH);
	id[SESSION_ID_LENGTH] = '\0';
	free(mac);
	return 0;
}

/* Adds a session with this id; NULL when the store is full. */
static struct session *
session_store_add(struct session_store *store, const char *id,
    enum session_transport transport, uint64_t now_ms)
{
	struct session	*s;

	session_store_expire(store, now_ms);
	if (store->count >= store->max_sessions && !session_store_evict(store))
		return NULL;
	s = xcalloc(1, sizeof *s);
	memcpy(s->id, id, SESSION_ID_LENGTH);
	s->store = store;
	s->transport = transport;
	session_grant_owner(&s->grant);
	s->last_active_ms = now_ms;
	TAILQ_INIT(&s->calls);
	TAILQ_INSERT_TAIL(&store->sessions, s, entry);
	store->count++;
	return s;
}

/* Creates a session with a fresh id; NULL when the store is full. */
struct session *
session_store_create(struct session_store *store,
    enum session_transport transport, uint64_t now_ms)
{
	char	id[SESSION_ID_LENGTH + 1];

	if (random_hex(id, SESSION_ID_BYTES) != 0 ||
	    session_id_seal(store, id) != 0)
		return NULL;
	return session_store_add(store, id, transport, now_ms);
}

/*
 * Ends a session at its client's request (DELETE): unlike an expired one,
 * its id is never taken back, whatever its MAC.
 */
void
session_store_terminate(struct session_store *store, struct session *session)
{
	memcpy(store->ended[store->ended_next], session->id,
	    SESSION_NONCE_LENGTH);
	store->ended_next = (store->ended_next + 1) % SESSION_ENDED_KEPT;
	session_store_remove(store, session);
}

/* Whether the client ended the session with this id (of the ones kept). */
static bool
session_store_was_terminated(const struct session_store *store, const char *id)
{
	size_t	i;

	for (i = 0; i < SESSION_ENDED_KEPT; i++) {
		if (memcmp(store->ended[i], id, SESSION_NONCE_LENGTH) == 0)
			return true;
	}
	return false;
}

/*
 * Takes back a session this host (or an earlier run of it with the same
 * token) made, when its id carries a valid MAC: the client of a host that
 * restarted goes on with its id. The caller restores what the session
 * needs (its protocol version). NULL when the id is not ours or the store
 * is full.
 */
struct session *
session_store_resume(struct session_store *store, const char *id,
    enum session_transport transport, uint64_t now_ms)
{
	char	nonce[SESSION_NONCE_LENGTH + 1], *mac;
	bool	ours;

	if (store->key == NULL || id == NULL ||
	    strlen(id) != SESSION_ID_LENGTH ||
	    session_store_was_terminated(store, id))
		return NULL;
	memcpy(nonce, id, SESSION_NONCE_LENGTH);
	nonce[SESSION_NONCE_LENGTH] = '\0';
	if ((mac = proof_compute(store->key, PROOF_SESSION, nonce)) == NULL)
		return NULL;
	ours = sodium_memcmp(mac, id + SESSION_NONCE_LENGTH,
	    SESSION_NONCE_LENGTH) == 0;
	free(mac);
	return ours ? session_store_add(store, id, transport, now_ms) : NULL;
}

/* Finds a session by id and marks it used; NULL if unknown or ended. */
struct session *
session_store_find(struct session_store *store, const char *id, uint64_t now_ms)
{
	struct session	*s;

	if (id == NULL || strlen(id) != SESSION_ID_LENGTH)
		return NULL;
	TAILQ_FOREACH(s, &store->sessions, entry) {
		if (memcmp(s->id, id, SESSION_ID_LENGTH) == 0)
			break;
	}
	if (s == NULL)
		return NULL;
	if (session_is_idle(s) && now_ms - s->last_active_ms > store->idle_ms) {
		session_store_remove(store, s);
		return NULL;
	}
	s->last_active_ms = now_ms;
	TAILQ_REMOVE(&store->sessions, s, entry);
	TAILQ_INSERT_TAIL(&store->sessions, s, entry);
	return s;
}

/* Ends a session: the owner's callback releases what it holds, then free. */
void
session_store_remove(struct session_store *store, struct session *session)
{
	TAILQ_REMOVE(&store->sessions, session, entry);
	store->count--;
	if (store->on_end != NULL)
		store->on_end(session, store->arg);
	free(session);
}

/* Ends idle sessions unused for longer than the idle limit; returns how many. */
size_t
session_store_expire(struct session_store *store, uint64_t now_ms)
{
	struct session	*s, *tmp;
	size_t		 n = 0;

	TAILQ_FOREACH_SAFE(s, &store->sessions, entry, tmp) {
		if (now_ms - s->last_active_ms <= store->idle_ms)
			break;	/* the rest were used more recently */
		if (session_is_idle(s)) {
			session_store_remove(store, s);
			n++;
		}
	}
	return n;
}

/* Returns how many sessions exist. */
size_t
session_store_count(const struct session_store *store)
{
	return store->count;
}

/*
 * Keeps what a client said it is in initialize's clientInfo: "name
 * version", printable ASCII only (it is shown in status and logs),
 * truncated to SESSION_CLIENT_MAX - 1 bytes. Unnamed clients stay "".
 */
void
session_set_client(struct session *session, const json_t *client_info)
{
	const char	*name, *version;
	char		 raw[SESSION_CLIENT_MAX];
	size_t		 i;

	name = json_string_value(json_object_get(client_info, "name"));
	version = json_string_value(json_object_get(client_info, "version"));
	if (name == NULL || *name == '\0') {
		session->client[0] = '\0';
		return;
	}
	(void)snprintf(raw, sizeof raw, "%s%s%s", name, version != NULL ?
	    " " : "", version != NULL ? version : "");
	for (i = 0; raw[i] != '\0'; i++) {
		if (raw[i] < 0x20 || raw[i] > 0x7e)
			raw[i] = '?';
	}
	memcpy(session->client, raw, sizeof raw);
}

/*
 * The live sessions, most recently active first, as status shows them:
 * [{"client","transport","idle_ms","calls"}] (a new array).
 */
json_t *
session_store_clients(struct session_store *store, uint64_t now_ms)
{
	struct session	*s;
	json_t		*clients = json_array();

	TAILQ_FOREACH_REVERSE(s, &store->sessions, session_list, entry) {
		json_array_append_new(clients, json_pack("{s:s,s:s,s:I,s:I}",
		    "client", s->client[0] != '\0' ? s->client : "(unnamed)",
		    "transport", s->transport == SESSION_LEGACY_SSE ?
		    "HTTP+SSE" : "Streamable HTTP",
		    "idle_ms", (json_int_t)(now_ms > s->last_active_ms ?
		    now_ms - s->last_active_ms : 0),
		    "calls", (json_int_t)s->call_count));
	}
	return clients;
}

/* Returns the least recently used session, for iteration. */
struct session *
session_store_first(struct session_store *store)
{
	return TAILQ_FIRST(&store->sessions);
}

/*
 * Makes the state one modern (2026-07-28) request lives in while it is
 * served: its version and its pending calls. It is in no store, has no id
 * a client could name, and ends with the request.
 */
struct session *
session_stateless_new(const char *version)
{
	struct session	*s = xcalloc(1, sizeof *s);

	s->transport = SESSION_STATELESS;
	session_grant_owner(&s->grant);
	snprintf(s->protocol_version, sizeof s->protocol_version, "%s",
	    version);
	TAILQ_INIT(&s->calls);
	return s;
}

/*
 * Who a session is, for the extension (what only its caller may read).
 * An OAuth client's sessions are all that client: a digest of its id, the
 * same across its sessions and host restarts. The owner key's session is
 * a digest of its id, so a session that comes back after a host restart
 * is the same caller; the owner's stateless requests carry nothing that
 * tells one from another, so they are one caller. The token goes into the
 * digest, so a new token makes new callers.
 */
void
session_caller(const struct session_store *store,
    const struct session *session, char out[SESSION_CALLER_LENGTH + 1])
{
	unsigned char	 digest[SESSION_CALLER_BYTES];
	const char	*key = store != NULL && store->key != NULL ?
			    store->key : "";
	char		*text;

	if (session->grant.client_id[0] != '\0')
		text = xasprintf("browser-bridge client:%s:%s", key,
		    session->grant.client_id);
	else
		text = xasprintf("browser-bridge caller:%s:%s", key,
		    session->transport == SESSION_STATELESS ? "stateless" :
		    session->id);
	crypto_generichash(digest, sizeof digest, (unsigned char *)text,
	    strlen(text), NULL, 0);
	sodium_memzero(text, strlen(text));
	free(text);
	sodium_bin2hex(out, SESSION_CALLER_LENGTH + 1, digest, sizeof digest);
}

/*
 * Makes grant the owner key's: every scope. A session holds it until its
 * transport says who it is.
 */
void
session_grant_owner(struct session_grant *grant)
{
	memset(grant, 0, sizeof *grant);
	grant->owner = true;
	grant->scopes = OAUTH_SCOPE_ALL;
}

/* Says whether a request with this credential may use the session. */
bool
session_grant_matches(const struct session *session,
    const struct session_grant *grant)
{
	return session->grant.owner == grant->owner &&
	    strcmp(session->grant.client_id, grant->client_id) == 0;
}

/*
 * Ends every session of an OAuth client (its key was revoked): each is
 * terminated as by DELETE, so its stream closes and its id is never taken
 * back. Returns how many ended.
 */
size_t
session_store_end_client(struct session_store *store, const char *client_id)
{
	struct session	*s, *tmp;
	size_t		 n = 0;

	SESSION_STORE_FOREACH(s, store, tmp) {
		if (strcmp(s->grant.client_id, client_id) == 0) {
			session_store_terminate(store, s);
			n++;
		}
	}
	return n;
}

/* Frees a stateless request's state; its calls must have ended. */
void
session_stateless_free(struct session *session)
{
	free(session);
}
