/*
 * The OAuth store's private file, clients.json: the lock that hosts on
 * other ports share, reading it again when another host changed it, and
 * writing it atomically. Codes are never written.
 */
#include "oauth-store.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "oauth-name.h"
#include "oauth-scope.h"
#include "oauth-store-private.h"
#include "os.h"
#include "xmalloc.h"

#define OAUTH_STORE_VERSION	1
#define OAUTH_STORE_FILE_MAX	(1024 * 1024)

static const char *const oauth_store_kinds[] = {
	[OAUTH_CODE] = "code",
	[OAUTH_ACCESS] = "access",
	[OAUTH_REFRESH] = "refresh",
};

/*
 * Reads a whole private file: the user's own, regular, for nobody else;
 * *sb is what it was (st_ino 0 when there is none), and *fdp stays open on
 * it (-1 when there is none).
 */
static char *
oauth_store_read(const char *path, size_t *len, struct stat *sb, int *fdp,
    char **cause)
{
	enum os_privacy	 privacy;
	char		*text = NULL, *detail = NULL;
	ssize_t		 n;
	int		 fd;

	*len = 0;
	*fdp = -1;
	memset(sb, 0, sizeof *sb);
	if ((fd = os_open_nofollow(path, O_RDONLY, 0)) == -1) {
		if (errno == ENOENT)
			return xstrdup("");
		*cause = xasprintf("cannot open %s: %s; delete it (the "
		    "clients must then be approved again)", path,
		    strerror(errno));
		return NULL;
	}
	privacy = fstat(fd, sb) == -1 ? OS_PRIVACY_UNKNOWN :
	    os_privacy_check(fd, &detail);
	free(detail);
	if (privacy != OS_PRIVATE || !S_ISREG(sb->st_mode) ||
	    sb->st_size > OAUTH_STORE_FILE_MAX) {
		*cause = xasprintf("%s must be a regular file of yours, at most "
		    "1 MiB, that only you can read (mode 600): run chmod 600 "
		    "%s, or delete it (the clients must then be approved "
		    "again)", path, path);
		goto out;
	}
	text = xmalloc((size_t)sb->st_size + 1);
	while (*len < (size_t)sb->st_size) {
		n = read(fd, text + *len, (size_t)sb->st_size - *len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			*cause = xasprintf("cannot read %s: %s", path,
			    n == 0 ? "it shrank" : strerror(errno));
			free(text);
			text = NULL;
			goto out;
		}
		*len += (size_t)n;
	}
	text[*len] = '\0';
	*fdp = fd;
	return text;
out:
	close(fd);
	return text;
}

/* Reads one client of the file; -1 when it is malformed. */
static int
oauth_store_load_client(struct oauth_store *store, const json_t *item)
{
	struct oauth_client	*client;
	const char		*id, *name;
	const json_t		*uris, *approved;

	id = json_string_value(json_object_get(item, "client_id"));
	name = json_string_value(json_object_get(item, "client_name"));
	uris = json_object_get(item, "redirect_uris");
	if (id == NULL || strlen(id) != OAUTH_CLIENT_ID_LENGTH ||
	    name == NULL || !json_is_array(uris))
		return -1;
	client = xcalloc(1, sizeof *client);
	memcpy(client->client_id, id, OAUTH_CLIENT_ID_LENGTH);
	client->name = oauth_name_stored(name);
	client->redirect_uris = json_incref((json_t *)uris);
	client->created_ms = (uint64_t)json_integer_value(json_object_get(item,
	    "created_at_ms"));
	approved = json_object_get(item, "approved");
	if (json_is_object(approved) && oauth_scope_from_array(json_object_get(
	    approved, "scopes"), &client->scopes) == 0) {
		client->approved = true;
		client->approved_ms = (uint64_t)json_integer_value(
		    json_object_get(approved, "approved_at_ms"));
		client->last_used_ms = (uint64_t)json_integer_value(
		    json_object_get(approved, "last_used_ms"));
		(void)snprintf(client->redirect_host,
		    sizeof client->redirect_host, "%s", json_string_value(
		    json_object_get(approved, "redirect_host")) != NULL ?
		    json_string_value(json_object_get(approved,
		    "redirect_host")) : "");
	}
	TAILQ_INSERT_TAIL(&store->clients, client, entry);
	store->nclients++;
	return 0;
}

/* Reads one token of the file; -1 when it is malformed. */
static int
oauth_store_load_token(struct oauth_store *store, const json_t *item)
{
	struct oauth_token	*token;
	const char		*kind, *digest, *client, *family, *resource;
	unsigned		 scopes;

	kind = json_string_value(json_object_get(item, "kind"));
	digest = json_string_value(json_object_get(item, "digest"));
	client = json_string_value(json_object_get(item, "client_id"));
	family = json_string_value(json_object_get(item, "family"));
	resource = json_string_value(json_object_get(item, "resource"));
	if (kind == NULL || digest == NULL || strlen(digest) != 64 ||
	    client == NULL || strlen(client) != OAUTH_CLIENT_ID_LENGTH ||
	    family == NULL || strlen(family) != OAUTH_CLIENT_ID_LENGTH ||
	    resource == NULL || oauth_scope_from_array(json_object_get(item,
	    "scopes"), &scopes) != 0 ||
	    oauth_store_client(store, client) == NULL)
		return -1;
	token = xcalloc(1, sizeof *token);
	if (strcmp(kind, oauth_store_kinds[OAUTH_ACCESS]) == 0)
		token->kind = OAUTH_ACCESS;
	else if (strcmp(kind, oauth_store_kinds[OAUTH_REFRESH]) == 0)
		token->kind = OAUTH_REFRESH;
	else {
		free(token);
		return -1;
	}
	memcpy(token->digest, digest, 64);
	memcpy(token->client_id, client, OAUTH_CLIENT_ID_LENGTH);
	memcpy(token->family, family, OAUTH_CLIENT_ID_LENGTH);
	token->scopes = scopes;
	token->resource = xstrdup(resource);
	token->issued_ms = (uint64_t)json_integer_value(json_object_get(item,
	    "issued_at_ms"));
	token->expires_ms = (uint64_t)json_integer_value(json_object_get(item,
	    "expires_at_ms"));
	token->used = json_is_true(json_object_get(item, "used"));
	TAILQ_INSERT_TAIL(&store->tokens, token, entry);
	store->ntokens++;
	return 0;
}

/* Reads the file's JSON into the store; -1 with *cause when malformed. */
static int
oauth_store_load(struct oauth_store *store, const char *text, size_t len,
    char **cause)
{
	json_error_t	 error;
	json_t		*data, *item;
	size_t		 i;
	int		 rc = -1;

	data = json_loadb(text, len, 0, &error);
	if (!json_is_object(data) || json_integer_value(json_object_get(data,
	    "version")) != OAUTH_STORE_VERSION)
		goto out;
	json_array_foreach(json_object_get(data, "clients"), i, item) {
		if (oauth_store_load_client(store, item) != 0)
			goto out;
	}
	json_array_foreach(json_object_get(data, "tokens"), i, item) {
		if (oauth_store_load_token(store, item) != 0)
			goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		*cause = xasprintf("%s is not a clients file this host can "
		    "read; delete it (the clients must then be approved "
		    "again)", store->path);
	json_decref(data);
	return rc;
}

/* Records the file just read or written: its fd (stolen), stat and text. */
static void
oauth_store_seen(struct oauth_store *store, int fd, const struct stat *sb,
    char *text)
{
	if (store->seen_fd != -1)
		close(store->seen_fd);
	store->seen_fd = fd;
	store->seen = *sb;
	free(store->text);
	store->text = text;
}

/* Drops the clients and what the file holds of the tokens: not codes. */
void
oauth_store_clear(struct oauth_store *store)
{
	struct oauth_client	*client;
	struct oauth_token	*token, *next;

	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (token->kind != OAUTH_CODE)
			oauth_store_drop_token(store, token);
	}
	while ((client = TAILQ_FIRST(&store->clients)) != NULL) {
		TAILQ_REMOVE(&store->clients, client, entry);
		store->nclients--;
		oauth_client_free(client);
	}
}

/*
 * Reads the file again into the store: its clients and tokens replace the
 * ones in memory; the codes and the clients never approved (memory only)
 * stay, a code while its client does.
 */
int
oauth_store_reload(struct oauth_store *store, char **cause)
{
	struct oauth_store	 fresh;
	struct oauth_token	*token, *next;
	struct stat		 sb;
	char			*text;
	size_t			 len;
	int			 fd;

	memset(&fresh, 0, sizeof fresh);
	fresh.path = store->path;
	TAILQ_INIT(&fresh.clients);
	TAILQ_INIT(&fresh.tokens);
	if ((text = oauth_store_read(store->path, &len, &sb, &fd, cause)) ==
	    NULL)
		return -1;
	if (len > 0 && oauth_store_load(&fresh, text, len, cause) != 0) {
		oauth_store_clear(&fresh);
		if (fd != -1)
			close(fd);
		free(text);
		return -1;
	}
	oauth_store_move_unapproved(store, &fresh);
	oauth_store_clear(store);
	TAILQ_CONCAT(&store->clients, &fresh.clients, entry);
	store->nclients = fresh.nclients;
	TAILQ_FOREACH_SAFE(token, &store->tokens, entry, next) {
		if (oauth_store_client(store, token->client_id) == NULL)
			oauth_store_drop_token(store, token);
	}
	/* The file's tokens are older than any code in memory. */
	while ((token = TAILQ_LAST(&fresh.tokens, oauth_tokens)) != NULL) {
		TAILQ_REMOVE(&fresh.tokens, token, entry);
		TAILQ_INSERT_HEAD(&store->tokens, token, entry);
		store->ntokens++;
	}
	oauth_store_seen(store, fd, &sb, fd != -1 ? text : NULL);
	if (fd == -1)
		free(text);
	return 0;
}

/* Says whether the file is still the one this store last read or wrote. */
static bool
oauth_store_unchanged(const struct oauth_store *store)
{
	struct stat	sb;

	if (stat(store->path, &sb) == -1)
		return errno == ENOENT && store->seen_fd == -1;
	return store->seen_fd != -1 && sb.st_dev == store->seen.st_dev &&
	    sb.st_ino == store->seen.st_ino &&
	    sb.st_size == store->seen.st_size &&
	    os_modified_ns(&sb) == os_modified_ns(&store->seen);
}

/*
 * Begins a look or a change: takes the lock other hosts on the file take
 * too, and reads the file again if one of them changed it. End with
 * oauth_store_end. -1 with *cause when that failed; the store goes on
 * with what it holds then, and must still be ended.
 */
int
oauth_store_begin(struct oauth_store *store, char **cause)
{
	char	*lock;

	if (store->path == NULL)
		return 0;
	if (store->lock_fd == -1) {
		lock = xasprintf("%s.lock", store->path);
		store->lock_fd = os_open_nofollow(lock, O_RDWR|O_CREAT,
		    S_IRUSR|S_IWUSR);
		if (store->lock_fd == -1) {
			*cause = xasprintf("cannot open %s: %s; check the "
			    "configuration directory's permissions", lock,
			    strerror(errno));
			free(lock);
			return -1;
		}
		free(lock);
	}
	if (os_lock(store->lock_fd) == -1) {
		*cause = xasprintf("cannot lock %s.lock: %s", store->path,
		    strerror(errno));
		return -1;
	}
	store->locked = true;
	if (oauth_store_unchanged(store))
		return 0;
	return oauth_store_reload(store, cause);
}

/* Returns one client as the file holds it. */
static json_t *
oauth_store_dump_client(const struct oauth_client *client)
{
	json_t	*item;

	item = json_pack("{s:s,s:s,s:O,s:I}", "client_id", client->client_id,
	    "client_name", client->name, "redirect_uris",
	    client->redirect_uris, "created_at_ms",
	    (json_int_t)client->created_ms);
	json_object_set_new(item, "approved", !client->approved ?
	    json_null() : json_pack("{s:o,s:s,s:I,s:I}", "scopes",
	    oauth_scope_array(client->scopes), "redirect_host",
	    client->redirect_host, "approved_at_ms",
	    (json_int_t)client->approved_ms, "last_used_ms",
	    (json_int_t)client->last_used_ms));
	return item;
}

/* Returns one token as the file holds it. */
static json_t *
oauth_store_dump_token(const struct oauth_token *token)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:I,s:I,s:b}", "kind",
	    oauth_store_kinds[token->kind], "digest", token->digest,
	    "client_id", token->client_id, "family", token->family, "scopes",
	    oauth_scope_array(token->scopes), "resource", token->resource,
	    "issued_at_ms", (json_int_t)token->issued_ms, "expires_at_ms",
	    (json_int_t)token->expires_ms, "used", token->used);
}

/*
 * Writes the store to its file when it differs from what the file holds:
 * a new private file renamed over the old one, so a crash leaves one or
 * the other. Codes and the clients never approved stay in memory, so a
 * flood of registrations writes nothing.
 */
static int
oauth_store_save(struct oauth_store *store, char **cause)
{
	struct oauth_client	*client;
	struct oauth_token	*token;
	struct stat		 sb;
	json_t			*data, *clients, *tokens;
	char			*text, *tmp;
	int			 rc = -1, fd;

	clients = json_array();
	TAILQ_FOREACH(client, &store->clients, entry) {
		if (client->approved)
			json_array_append_new(clients,
			    oauth_store_dump_client(client));
	}
	tokens = json_array();
	TAILQ_FOREACH(token, &store->tokens, entry) {
		if (token->kind != OAUTH_CODE)
			json_array_append_new(tokens,
			    oauth_store_dump_token(token));
	}
	data = json_pack("{s:i,s:o,s:o}", "version", OAUTH_STORE_VERSION,
	    "clients", clients, "tokens", tokens);
	text = json_dumps(data, JSON_INDENT(1));
	json_decref(data);
	if (store->text != NULL && strcmp(text, store->text) == 0) {
		free(text);
		return 0;
	}
	tmp = files_write_temp(store->path, "clients file", text, strlen(text),
	    cause);
	if (tmp != NULL) {
		/* Under the lock: what is at path now is this file. */
		if (os_replace_file(tmp, store->path) == 0 &&
		    (fd = os_open_nofollow(store->path, O_RDONLY, 0)) != -1) {
			if (fstat(fd, &sb) == -1)
				memset(&sb, 0, sizeof sb);	/* read again */
			oauth_store_seen(store, fd, &sb, text);
			text = NULL;
			rc = 0;
		} else {
			*cause = xasprintf("cannot replace %s: %s", store->path,
			    strerror(errno));
			unlink(tmp);
		}
		free(tmp);
	}
	free(text);
	return rc;
}

/*
 * Ends what oauth_store_begin began: writes the file if save and the
 * store changed, then lets the other hosts in. -1 with *cause when the
 * file could not be written (the state in memory goes on).
 */
int
oauth_store_end(struct oauth_store *store, bool save, char **cause)
{
	int	rc = 0;

	if (store->path == NULL)
		return 0;
	if (save)
		rc = oauth_store_save(store, cause);
	if (store->locked) {
		(void)os_unlock(store->lock_fd);
		store->locked = false;
	}
	return rc;
}
