/* The OAuth clients, grants, codes and tokens, and their private file. */
#include "oauth-store.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "files.h"
#include "oauth-scope.h"
#include "random.h"
#include "xmalloc.h"

#define OAUTH_STORE_VERSION	1
#define OAUTH_STORE_FILE_MAX	(1024 * 1024)
/* Tokens kept at most; the oldest go first past it. */
#define OAUTH_TOKENS_MAX	512
#define OAUTH_SECRET_BYTES	32
#define OAUTH_MINUTE_MS		60000

TAILQ_HEAD(oauth_clients, oauth_client);
TAILQ_HEAD(oauth_tokens, oauth_token);

struct oauth_store {
	char			*path;		/* NULL: memory only */
	struct oauth_clients	 clients;
	size_t			 nclients;
	struct oauth_tokens	 tokens;
	size_t			 ntokens;
};

/* What each kind of secret starts with, so a leaked one says what it is. */
static const char *const oauth_store_prefixes[] = {
	[OAUTH_CODE] = "bbc_",
	[OAUTH_ACCESS] = "bba_",
	[OAUTH_REFRESH] = "bbr_",
};

static const char *const oauth_store_kinds[] = {
	[OAUTH_CODE] = "code",
	[OAUTH_ACCESS] = "access",
	[OAUTH_REFRESH] = "refresh",
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
static void
oauth_store_drop_token(struct oauth_store *store, struct oauth_token *token)
{
	TAILQ_REMOVE(&store->tokens, token, entry);
	store->ntokens--;
	oauth_token_free(token);
}

/* Frees a client. */
static void
oauth_client_free(struct oauth_client *client)
{
	free(client->name);
	json_decref(client->redirect_uris);
	free(client);
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
 * Returns a client name fit to show: control characters dropped, at most
 * OAUTH_CLIENT_NAME_MAX characters (name is UTF-8, as JSON strings are).
 */
static char *
oauth_store_clean_name(const char *name)
{
	char		*clean = xmalloc(strlen(name) + 1), *p = clean;
	size_t		 chars = 0;
	unsigned char	 c;

	for (; (c = (unsigned char)*name) != '\0'; name++) {
		if (c < 0x20 || c == 0x7f)
			continue;
		if ((c & 0xc0) != 0x80 && chars++ == OAUTH_CLIENT_NAME_MAX)
			break;
		*p++ = (char)c;
	}
	*p = '\0';
	return clean;
}

/* Reads a whole private file: the user's own, regular, for nobody else. */
static char *
oauth_store_read(const char *path, size_t *len, char **cause)
{
	struct stat	 sb;
	char		*text = NULL;
	ssize_t		 n;
	int		 fd;

	*len = 0;
	if ((fd = open(path, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC)) ==
	    -1) {
		if (errno == ENOENT)
			return xstrdup("");
		*cause = xasprintf("cannot open %s: %s; delete it (the "
		    "clients must then be approved again)", path,
		    strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & (S_IRWXG|S_IRWXO)) != 0 ||
	    sb.st_size > OAUTH_STORE_FILE_MAX) {
		*cause = xasprintf("%s must be a regular file of yours, at most "
		    "1 MiB, that only you can read (mode 600): run chmod 600 "
		    "%s, or delete it (the clients must then be approved "
		    "again)", path, path);
		goto out;
	}
	text = xmalloc((size_t)sb.st_size + 1);
	while (*len < (size_t)sb.st_size) {
		n = read(fd, text + *len, (size_t)sb.st_size - *len);
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
	client->name = oauth_store_clean_name(name);
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

/*
 * Opens the store kept at path (NULL: in memory only, for tests), empty
 * when the file does not exist yet.
 */
struct oauth_store *
oauth_store_open(const char *path, char **cause)
{
	struct oauth_store	*store = xcalloc(1, sizeof *store);
	char			*text;
	size_t			 len;

	TAILQ_INIT(&store->clients);
	TAILQ_INIT(&store->tokens);
	if (path == NULL)
		return store;
	store->path = xstrdup(path);
	if ((text = oauth_store_read(path, &len, cause)) == NULL ||
	    (len > 0 && oauth_store_load(store, text, len, cause) != 0)) {
		free(text);
		oauth_store_free(store);
		return NULL;
	}
	free(text);
	return store;
}

/* Frees the store (what it holds is saved already). */
void
oauth_store_free(struct oauth_store *store)
{
	struct oauth_client	*client;
	struct oauth_token	*token;

	if (store == NULL)
		return;
	while ((token = TAILQ_FIRST(&store->tokens)) != NULL)
		oauth_store_drop_token(store, token);
	while ((client = TAILQ_FIRST(&store->clients)) != NULL) {
		TAILQ_REMOVE(&store->clients, client, entry);
		oauth_client_free(client);
	}
	free(store->path);
	free(store);
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
 * Writes the store to its file: a new private file renamed over the old
 * one, so a crash leaves one or the other. Codes stay in memory.
 */
int
oauth_store_save(struct oauth_store *store, char **cause)
{
	struct oauth_client	*client;
	struct oauth_token	*token;
	json_t			*data, *clients, *tokens;
	char			*text, *tmp;
	int			 rc = -1;

	if (store->path == NULL)
		return 0;
	clients = json_array();
	TAILQ_FOREACH(client, &store->clients, entry)
		json_array_append_new(clients, oauth_store_dump_client(client));
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
	tmp = files_write_temp(store->path, "clients file", text, strlen(text),
	    cause);
	if (tmp != NULL) {
		if (rename(tmp, store->path) == 0)
			rc = 0;
		else {
			*cause = xasprintf("cannot replace %s: %s", store->path,
			    strerror(errno));
			unlink(tmp);
		}
		free(tmp);
	}
	free(text);
	return rc;
}

/* Makes room for a client: drops the oldest one never approved. */
static bool
oauth_store_make_room(struct oauth_store *store)
{
	struct oauth_client	*client;

	if (store->nclients < OAUTH_CLIENTS_MAX)
		return true;
	TAILQ_FOREACH(client, &store->clients, entry) {
		if (!client->approved) {
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
		*cause = xasprintf("%d clients are approved already, the most "
		    "this host keeps: revoke one in the Browser Bridge popup, "
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
	client->name = oauth_store_clean_name(name != NULL ? name : "");
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
oauth_store_approve(struct oauth_store *store, struct oauth_client *client,
    unsigned scopes, const char *redirect_host, uint64_t now_ms)
{
	(void)store;
	(void)snprintf(client->redirect_host, sizeof client->redirect_host,
	    "%s", redirect_host);
	client->approved = true;
	client->scopes = scopes;
	client->approved_ms = now_ms;
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
	while (store->ntokens > OAUTH_TOKENS_MAX)
		oauth_store_drop_token(store, TAILQ_FIRST(&store->tokens));
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
oauth_store_touch(struct oauth_store *store, struct oauth_client *client,
    uint64_t now_ms)
{
	uint64_t	minute = now_ms - now_ms % OAUTH_MINUTE_MS;

	(void)store;
	if (client->last_used_ms == minute)
		return false;
	client->last_used_ms = minute;
	return true;
}

/*
 * Returns the approved clients, newest approval first, as list_clients
 * answers (docs/protocol.md).
 */
json_t *
oauth_store_list(struct oauth_store *store)
{
	struct oauth_client	*client;
	json_t			*list = json_array(), *item, *next;
	size_t			 i;

	TAILQ_FOREACH(client, &store->clients, entry) {
		if (!client->approved)
			continue;
		item = json_pack("{s:s,s:s,s:s,s:o,s:I,s:o}", "client_id",
		    client->client_id, "client_name", client->name,
		    "redirect_host", client->redirect_host, "scopes",
		    oauth_scope_array(client->scopes), "approved_at_ms",
		    (json_int_t)client->approved_ms, "last_used_ms",
		    client->last_used_ms != 0 ? json_integer(
		    (json_int_t)client->last_used_ms) : json_null());
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
