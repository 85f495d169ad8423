/* The OAuth store's life: opening it (from its file) and freeing it. */
#include "oauth-store.h"

#include <stdlib.h>
#include <unistd.h>

#include "oauth-store-private.h"
#include "xmalloc.h"

/*
 * Opens the store kept at path (NULL: in memory only, for tests), empty
 * when the file does not exist yet.
 */
struct oauth_store *
oauth_store_open(const char *path, char **cause)
{
	struct oauth_store	*store = xcalloc(1, sizeof *store);

	store->lock_fd = -1;
	store->seen_fd = -1;
	TAILQ_INIT(&store->clients);
	TAILQ_INIT(&store->tokens);
	if (path == NULL)
		return store;
	store->path = xstrdup(path);
	if (oauth_store_reload(store, cause) != 0) {
		oauth_store_free(store);
		return NULL;
	}
	return store;
}

/* Frees the store (what it holds is saved already). */
void
oauth_store_free(struct oauth_store *store)
{
	struct oauth_token	*token;

	if (store == NULL)
		return;
	oauth_store_clear(store);
	while ((token = TAILQ_FIRST(&store->tokens)) != NULL)
		oauth_store_drop_token(store, token);
	if (store->lock_fd != -1)
		close(store->lock_fd);
	if (store->seen_fd != -1)
		close(store->seen_fd);
	free(store->text);
	free(store->path);
	free(store);
}
