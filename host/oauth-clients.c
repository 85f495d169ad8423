/*
 * The OAuth store's registered clients: registering one (making room),
 * finding, approving, revoking, and the list the popup shows.
 */
#include "oauth-store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauth-name.h"
#include "oauth-scope.h"
#include "oauth-store-private.h"
#include "random.h"
#include "xmalloc.h"

#define OAUTH_MINUTE_MS		60000

/* Frees a client. */
void
oauth_client_free(struct oauth_client *client)
{
	free(client->name);
	json_decref(client->redirect_uris);
	free(client);
}

/*
 * Moves the clients never approved, which live in this host's memory only,
 * from store to fresh (the file as just read), unless the file has them.
 */
void
oauth_store_move_unapproved(struct oauth_store *store,
    struct oauth_store *fresh)
{
	struct oauth_client	*client, *next;

	TAILQ_FOREACH_SAFE(client, &store->clients, entry, next) {
		if (client->approved || oauth_store_client(fresh,
		    client->client_id) != NULL)
			continue;
		TAILQ_REMOVE(&store->clients, client, entry);
		store->nclients--;
		TAILQ_INSERT_TAIL(&fresh->clients, client, entry);
		fresh->nclients++;
	}
}

/* Takes a client out of the store with its tokens, and frees it. */
static void
oauth_store_drop_client(struct oauth_store *store, struct oauth_client *client)
{
	struct oauth_token	*token, *next;

	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (strcmp(token->client_id, client->client_id) == 0)
			oauth_store_drop_token(store, token);
	}
	TAILQ_REMOVE(&store->clients, client, entry);
	store->nclients--;
	oauth_client_free(client);
}

/*
 * Says which clients must stay when room is made: those with a request
 * waiting for the person (keep(client_id, arg) true).
 */
void
oauth_store_set_keep(struct oauth_store *store, oauth_store_keep_fn keep,
    void *arg)
{
	store->keep = keep;
	store->keep_arg = arg;
}

/*
 * Makes room for a client: drops the oldest one never approved that no
 * request waiting for the person names.
 */
static bool
oauth_store_make_room(struct oauth_store *store)
{
	struct oauth_client	*client;

	if (store->nclients < OAUTH_CLIENTS_MAX)
		return true;
	TAILQ_FOREACH(client, &store->clients, entry) {
		if (!client->approved && (store->keep == NULL ||
		    !store->keep(client->client_id, store->keep_arg))) {
			oauth_store_drop_client(store, client);
			return true;
		}
	}
	return false;
}

/*
 * Registers a client with its (already checked) redirect URIs; NULL with
 * *cause when every place is taken by an approved client.
 */
struct oauth_client *
oauth_store_register(struct oauth_store *store, const char *name,
    const json_t *redirect_uris, uint64_t now_ms, char **cause)
{
	struct oauth_client	*client;

	if (!oauth_store_make_room(store)) {
		*cause = xasprintf("%d clients are approved or wait for the "
		    "person's approval, the most this host keeps: answer the "
		    "waiting ones or revoke one in the Browser Bridge popup, "
		    "then register again", OAUTH_CLIENTS_MAX);
		return NULL;
	}
	client = xcalloc(1, sizeof *client);
	if (random_hex(client->client_id, OAUTH_CLIENT_ID_BYTES) != 0) {
		*cause = xasprintf("cannot make a client id: %s",
		    strerror(errno));
		free(client);
		return NULL;
	}
	client->name = oauth_name_stored(name != NULL ? name : "");
	client->redirect_uris = json_deep_copy(redirect_uris);
	client->created_ms = now_ms;
	TAILQ_INSERT_TAIL(&store->clients, client, entry);
	store->nclients++;
	return client;
}

/* Returns the client with this id, or NULL. */
struct oauth_client *
oauth_store_client(struct oauth_store *store, const char *client_id)
{
	struct oauth_client	*client;

	if (client_id == NULL)
		return NULL;
	TAILQ_FOREACH(client, &store->clients, entry) {
		if (strcmp(client->client_id, client_id) == 0)
			return client;
	}
	return NULL;
}

/*
 * Records that the person approved a client for these scopes, sending its
 * codes to redirect_host ("127.0.0.1:53123").
 */
void
oauth_store_approve(struct oauth_client *client, unsigned scopes,
    const char *redirect_host, uint64_t now_ms)
{
	(void)snprintf(client->redirect_host, sizeof client->redirect_host,
	    "%s", redirect_host);
	client->approved = true;
	client->scopes = scopes;
	client->approved_ms = now_ms;
}

/* Forgets a client, its grant and its tokens; false when unknown. */
bool
oauth_store_revoke(struct oauth_store *store, const char *client_id)
{
	struct oauth_client	*client = oauth_store_client(store, client_id);

	if (client == NULL)
		return false;
	oauth_store_drop_client(store, client);
	return true;
}

/*
 * Records a client's use, to the minute; true when that changed what the
 * file says (the caller saves it then, at most once a minute).
 */
bool
oauth_store_touch(struct oauth_client *client, uint64_t now_ms)
{
	uint64_t	minute = now_ms - now_ms % OAUTH_MINUTE_MS;

	if (client->last_used_ms == minute)
		return false;
	client->last_used_ms = minute;
	return true;
}

/*
 * Returns the approved client registered first whose name resembles this
 * client's (oauth_name_resembles), or NULL: the person is told before
 * approving a namesake.
 */
const struct oauth_client *
oauth_store_namesake(struct oauth_store *store,
    const struct oauth_client *client)
{
	const struct oauth_client	*other;

	TAILQ_FOREACH(other, &store->clients, entry) {
		if (other != client && other->approved &&
		    oauth_name_resembles(other->name, client->name))
			return other;
	}
	return NULL;
}

/*
 * Returns the approved clients, newest approval first, as list_clients
 * answers (docs/protocol.md): their names as shown (oauth_name_shown).
 */
json_t *
oauth_store_list(struct oauth_store *store)
{
	struct oauth_client	*client;
	json_t			*list = json_array(), *item, *next;
	char			*shown;
	size_t			 i;

	TAILQ_FOREACH(client, &store->clients, entry) {
		if (!client->approved)
			continue;
		shown = oauth_name_shown(client->name);
		item = json_pack("{s:s,s:s,s:s,s:o,s:I,s:o}", "client_id",
		    client->client_id, "client_name", shown,
		    "redirect_host", client->redirect_host, "scopes",
		    oauth_scope_array(client->scopes), "approved_at_ms",
		    (json_int_t)client->approved_ms, "last_used_ms",
		    client->last_used_ms != 0 ? json_integer(
		    (json_int_t)client->last_used_ms) : json_null());
		free(shown);
		for (i = 0; i < json_array_size(list); i++) {
			next = json_array_get(list, i);
			if (json_integer_value(json_object_get(next,
			    "approved_at_ms")) < (json_int_t)client->approved_ms)
				break;
		}
		json_array_insert_new(list, i, item);
	}
	return list;
}
