/*
 * The inside of the OAuth store, shared by its files only: oauth-store.c
 * (open, free), oauth-file.c (clients.json: lock, read, write),
 * oauth-clients.c (the registered clients and their grants) and
 * oauth-grants.c (codes, tokens and their families). Everyone else sees
 * oauth-store.h.
 */
#ifndef OAUTH_STORE_PRIVATE_H
#define OAUTH_STORE_PRIVATE_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stdbool.h>
#include <stddef.h>

#include "oauth-store.h"
#include "queue.h"

TAILQ_HEAD(oauth_clients, oauth_client);
TAILQ_HEAD(oauth_tokens, oauth_token);

/*
 * Hosts on other ports share the file: each change is made under an
 * exclusive flock(2) of path.lock, on the file as it is then (read again
 * when it is not the one this store last read or wrote).
 */
struct oauth_store {
	char			*path;		/* NULL: memory only */
	int			 lock_fd;	/* path.lock; -1 until needed */
	bool			 locked;
	/*
	 * The file last read or written, held open so that its inode is
	 * not reused: a file at path with that inode is still it (every
	 * change is a new file renamed over it). -1: there was none.
	 */
	int			 seen_fd;
	struct stat		 seen;
	char			*text;		/* its text; NULL: none */
	struct oauth_clients	 clients;
	size_t			 nclients;
	struct oauth_tokens	 tokens;
	size_t			 ntokens;
	oauth_store_keep_fn	 keep;		/* clients not to drop for room */
	void			*keep_arg;
};

/* oauth-clients.c */
void			 oauth_client_free(struct oauth_client *client);
void			 oauth_store_move_unapproved(struct oauth_store *store,
			    struct oauth_store *fresh);

/* oauth-grants.c */
void			 oauth_store_drop_token(struct oauth_store *store,
			    struct oauth_token *token);

/* oauth-file.c */
void			 oauth_store_clear(struct oauth_store *store);
int			 oauth_store_reload(struct oauth_store *store,
			    char **cause);

#endif
