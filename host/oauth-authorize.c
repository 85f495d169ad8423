/* GET /authorize: checks the request, asks the person, redirects back. */
#include "oauth-authorize.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <sodium.h>

#include "clock.h"
#include "log.h"
#include "oauth-metadata.h"
#include "oauth-name.h"
#include "oauth-register.h"
#include "oauth-scope.h"
#include "oauth-store.h"
#include "oauth-token.h"
#include "oauth-uri.h"
#include "queue.h"
#include "random.h"
#include "xmalloc.h"

#define OAUTH_REQUEST_ID_BYTES	16
#define OAUTH_STATE_MAX		512
#define OAUTH_CHALLENGE_LENGTH	43	/* BASE64URL of a SHA-256 */
/* How often the waiting page reloads itself, in seconds. */
#define OAUTH_RELOAD_S		2

enum oauth_pending_state {
	OAUTH_PENDING_WAITING,	/* the person has not decided */
	OAUTH_PENDING_APPROVED,
	OAUTH_PENDING_DENIED,	/* Deny, no answer in time, or no extension */
};

/* An authorization request waiting for the person, or for its page. */
struct oauth_pending {
	struct oauth_authorize	*authorize;
	char			 request_id[2 * OAUTH_REQUEST_ID_BYTES + 1];
	char			 client_id[OAUTH_CLIENT_ID_LENGTH + 1];
	char			*client_name;	/* as shown (oauth_name_shown) */
	char			*redirect_uri;
	bool			 redirect_given;	/* in the request */
	bool			 newcomer;	/* its client was never approved */
	long			 registrar_pid;	/* its client's; 0: unknown */
	char			 redirect_host[64];
	char			*state;		/* NULL: the client sent none */
	char			*challenge;
	unsigned		 asked;		/* scopes */
	unsigned		 granted;
	enum oauth_pending_state phase;
	const char		*why;		/* a denial's description */
	uint64_t		 call_id;	/* 0 once answered */
	uint64_t		 requested_ms;	/* wall clock, as decided_ms */
	uint64_t		 decided_ms;
	TAILQ_ENTRY(oauth_pending) entry;
};

struct oauth_authorize {
	struct oauth_store		*store;
	struct oauth_approver		 approver;
	uint16_t			 port;
	const struct clock		*wall;
	struct log			*log;
	TAILQ_HEAD(, oauth_pending)	 pending;
};

/* What the person sees for each scope (the extension shows the same). */
static const struct {
	unsigned	 scope;
	const char	*label;
} oauth_authorize_labels[] = {
	{ OAUTH_SCOPE_PAGES_READ, "Read pages" },
	{ OAUTH_SCOPE_PAGES_ACT, "Act on pages" },
	{ OAUTH_SCOPE_TASKS, "Run tasks with the agents" },
	{ OAUTH_SCOPE_NETWORK, "Network details" },
	{ OAUTH_SCOPE_SCRIPTS, "Run page scripts" },
};

/* Says whether a request of this client waits for the person. */
static bool
oauth_authorize_waits_for(const char *client_id, void *arg)
{
	const struct oauth_authorize	*authorize = arg;
	const struct oauth_pending	*pending;

	TAILQ_FOREACH(pending, &authorize->pending, entry) {
		if (pending->phase == OAUTH_PENDING_WAITING &&
		    strcmp(pending->client_id, client_id) == 0)
			return true;
	}
	return false;
}

/* Makes the table of pending requests; the approver asks the person. */
struct oauth_authorize *
oauth_authorize_new(struct oauth_store *store,
    const struct oauth_approver *approver, uint16_t port,
    const struct clock *wall, struct log *log)
{
	struct oauth_authorize	*authorize = xcalloc(1, sizeof *authorize);

	authorize->store = store;
	authorize->approver = *approver;
	authorize->port = port;
	authorize->wall = wall;
	authorize->log = log;
	TAILQ_INIT(&authorize->pending);
	/* A flood of registrations must not drop a client being asked about. */
	oauth_store_set_keep(store, oauth_authorize_waits_for, authorize);
	return authorize;
}

/* Forgets a pending request, withdrawing its question if still asked. */
static void
oauth_pending_free(struct oauth_pending *pending)
{
	struct oauth_authorize	*authorize = pending->authorize;

	if (pending->call_id != 0)
		authorize->approver.cancel(authorize->approver.arg,
		    pending->call_id);
	TAILQ_REMOVE(&authorize->pending, pending, entry);
	free(pending->client_name);
	free(pending->redirect_uri);
	free(pending->state);
	free(pending->challenge);
	free(pending);
}

/* Frees the table; questions still open are withdrawn. */
void
oauth_authorize_free(struct oauth_authorize *authorize)
{
	struct oauth_pending	*pending;

	if (authorize == NULL)
		return;
	while ((pending = TAILQ_FIRST(&authorize->pending)) != NULL)
		oauth_pending_free(pending);
	oauth_store_set_keep(authorize->store, NULL, NULL);
	free(authorize);
}

/* A revoked client's requests go: their questions are withdrawn. */
void
oauth_authorize_forget_client(struct oauth_authorize *authorize,
    const char *client_id)
{
	struct oauth_pending	*pending, *next;

	TAILQ_FOREACH_SAFE(pending, &authorize->pending, entry, next) {
		if (strcmp(pending->client_id, client_id) == 0)
			oauth_pending_free(pending);
	}
}

/* Drops decided requests whose page never came back for the answer. */
void
oauth_authorize_expire(struct oauth_authorize *authorize)
{
	struct oauth_pending	*pending, *next;
	uint64_t		 now = clock_now_ms(authorize->wall);

	TAILQ_FOREACH_SAFE(pending, &authorize->pending, entry, next) {
		if (pending->phase != OAUTH_PENDING_WAITING &&
		    now - pending->decided_ms > OAUTH_APPROVAL_MS)
			oauth_pending_free(pending);
	}
}

/* Records the person's decision (or why there was none). */
static void
oauth_authorize_decided(const json_t *result, const char *error_code,
    const char *error_message, void *arg)
{
	struct oauth_pending	*pending = arg;
	struct oauth_authorize	*authorize = pending->authorize;
	struct oauth_client	*client;
	unsigned		 scopes = 0;
	char			*cause = NULL;

	pending->call_id = 0;
	pending->decided_ms = clock_now_ms(authorize->wall);
	pending->phase = OAUTH_PENDING_DENIED;
	if (error_code != NULL) {
		pending->why = strcmp(error_code, "TIMEOUT") == 0 ?
		    "nobody approved the request within 5 minutes" :
		    "the Browser Bridge extension is not connected, so "
		    "nobody could approve the request";
		log_info(authorize->log, "authorization of client %.8s ended "
		    "unapproved: %s (%s)", pending->client_id, error_code,
		    error_message);
		return;
	}
	if (oauth_store_begin(authorize->store, &cause) != 0) {
		log_warn(authorize->log, "%s", cause);
		free(cause);
		cause = NULL;
	}
	if (!json_is_true(json_object_get(result, "approved")) ||
	    oauth_scope_from_array(json_object_get(result, "scopes"),
	    &scopes) != 0 || (scopes & pending->asked) == 0 ||
	    (client = oauth_store_client(authorize->store,
	    pending->client_id)) == NULL) {
		(void)oauth_store_end(authorize->store, false, &cause);
		pending->why = "the person denied the request";
		log_info(authorize->log, "the person denied client %.8s",
		    pending->client_id);
		return;
	}
	pending->phase = OAUTH_PENDING_APPROVED;
	pending->granted = scopes & pending->asked;	/* never more */
	oauth_store_approve(client, pending->granted,
	    pending->redirect_host, pending->decided_ms);
	log_info(authorize->log, "the person approved client %.8s (%s)",
	    pending->client_id, pending->client_name);
	if (oauth_store_end(authorize->store, true, &cause) != 0) {
		log_warn(authorize->log, "%s", cause);
		free(cause);
	}
}

/* Returns "name=value" encoded for a query, after sep ('?' or '&'). */
static char *
oauth_authorize_param(char *url, const char *name, const char *value)
{
	char	*encoded = evhttp_uriencode(value, -1, 0), *next;

	next = xasprintf("%s%c%s=%s", url, strchr(url, '?') != NULL ? '&' :
	    '?', name, encoded);
	free(encoded);
	free(url);
	return next;
}

/*
 * Returns where to send the browser back (RFC 6749 4.1.2, RFC 9207): the
 * redirect URI with code or error, state, and the issuer.
 */
static char *
oauth_authorize_location(const struct oauth_authorize *authorize,
    const char *redirect_uri, const char *state, const char *code,
    const char *error, const char *description)
{
	char	*url = xstrdup(redirect_uri), *issuer;

	if (code != NULL)
		url = oauth_authorize_param(url, "code", code);
	else {
		url = oauth_authorize_param(url, "error", error);
		url = oauth_authorize_param(url, "error_description",
		    description);
	}
	if (state != NULL)
		url = oauth_authorize_param(url, "state", state);
	issuer = xasprintf("http://127.0.0.1:%u", authorize->port);
	url = oauth_authorize_param(url, "iss", issuer);
	free(issuer);
	return url;
}

/* Returns a whole page: a title and a paragraph (already HTML). */
static char *
oauth_authorize_page(const char *head, const char *title, const char *body)
{
	return xasprintf("<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\">%s<title>Browser Bridge: %s</title>"
	    "</head>\n<body style=\"font-family: sans-serif; max-width: 40em; "
	    "margin: 3em auto\">\n<h1>%s</h1>\n%s\n</body></html>\n", head,
	    title, title, body);
}

/* Answers with a page that explains an error and leaves it there. */
static void
oauth_authorize_error_page(struct oauth_authorize_answer *answer,
    int status, const char *text)
{
	char	*escaped = evhttp_htmlescape(text), *body;

	body = xasprintf("<p>%s</p>", escaped);
	answer->status = status;
	answer->html = oauth_authorize_page("", "Cannot authorize", body);
	free(body);
	free(escaped);
}

/* Answers with the page that waits for the person, reloading itself. */
static void
oauth_authorize_waiting_page(const struct oauth_pending *pending,
    struct oauth_authorize_answer *answer)
{
	char	*name = evhttp_htmlescape(pending->client_name);
	char	*host = evhttp_htmlescape(pending->redirect_host);
	char	*head, *list = xstrdup(""), *next, *body, *title;
	size_t	 i;

	for (i = 0; i < sizeof oauth_authorize_labels /
	    sizeof *oauth_authorize_labels; i++) {
		if ((pending->asked & oauth_authorize_labels[i].scope) == 0)
			continue;
		next = xasprintf("%s<li>%s</li>", list,
		    oauth_authorize_labels[i].label);
		free(list);
		list = next;
	}
	head = xasprintf("<meta http-equiv=\"refresh\" content=\"%d; "
	    "url=/authorize?request_id=%s\">", OAUTH_RELOAD_S,
	    pending->request_id);
	body = xasprintf("<p>A program that calls itself <strong>%s</strong> "
	    "(a name it chose itself) asks to use this browser through Browser "
	    "Bridge; its answer goes to %s. It asks to:</p><ul>%s</ul>"
	    "<p><strong>Approve it in the Browser Bridge popup in your "
	    "browser</strong> (the toolbar icon shows a badge), or deny it "
	    "there. Nothing on this page can approve it. This page moves on "
	    "by itself once you decide; the request expires in 5 minutes.</p>",
	    *name != '\0' ? name : "(no name)", host, list);
	title = xasprintf("Approve %s?", *name != '\0' ? name : "a client");
	answer->status = 200;
	answer->html = oauth_authorize_page(head, title, body);
	free(title);
	free(body);
	free(head);
	free(list);
	free(host);
	free(name);
}

/* The page came back for a request's answer: a code, or access_denied. */
static void
oauth_authorize_finish(struct oauth_pending *pending,
    struct oauth_authorize_answer *answer)
{
	struct oauth_authorize	*authorize = pending->authorize;
	struct oauth_token	 fields;
	char			*code;

	if (pending->phase == OAUTH_PENDING_WAITING) {
		oauth_authorize_waiting_page(pending, answer);
		return;
	}
	answer->status = 302;
	if (pending->phase == OAUTH_PENDING_DENIED) {
		answer->location = oauth_authorize_location(authorize,
		    pending->redirect_uri, pending->state, NULL,
		    "access_denied", pending->why);
		oauth_pending_free(pending);
		return;
	}
	memset(&fields, 0, sizeof fields);
	fields.kind = OAUTH_CODE;
	memcpy(fields.client_id, pending->client_id, sizeof fields.client_id);
	oauth_store_new_family(fields.family);
	fields.scopes = pending->granted;
	fields.resource = oauth_metadata_resource_url(authorize->port);
	fields.issued_ms = clock_now_ms(authorize->wall);
	/* /token must repeat it only if the request had it (RFC 6749 4.1.3). */
	fields.redirect_uri = pending->redirect_given ? pending->redirect_uri :
	    NULL;
	fields.challenge = pending->challenge;
	code = oauth_store_issue(authorize->store, &fields, OAUTH_CODE_TTL_MS);
	answer->location = oauth_authorize_location(authorize,
	    pending->redirect_uri, pending->state, code, NULL, NULL);
	sodium_memzero(code, strlen(code));
	free(code);
	free(fields.resource);
	oauth_pending_free(pending);
}

/* Which waiting requests oauth_authorize_waiting counts. */
enum oauth_waiting_among {
	OAUTH_WAITING_OF_CLIENT,	/* one client's */
	OAUTH_WAITING_OF_PROCESS,	/* of its process's new clients */
	OAUTH_WAITING_OF_NEWCOMERS,	/* of every client never approved */
};

/*
 * Returns how many requests wait for the person among those of client
 * (its own, or of its process's or of all clients never approved);
 * *oldest_ms is when the oldest of them was made.
 */
static size_t
oauth_authorize_waiting(const struct oauth_authorize *authorize,
    const struct oauth_client *client, enum oauth_waiting_among among,
    uint64_t *oldest_ms)
{
	const struct oauth_pending	*pending;
	size_t				 n = 0;
	bool				 counted;

	TAILQ_FOREACH(pending, &authorize->pending, entry) {
		if (pending->phase != OAUTH_PENDING_WAITING)
			continue;
		if (among == OAUTH_WAITING_OF_CLIENT)
			counted = strcmp(pending->client_id,
			    client->client_id) == 0;
		else if (among == OAUTH_WAITING_OF_PROCESS)
			counted = pending->newcomer && pending->registrar_pid ==
			    client->registrar_pid;
		else
			counted = pending->newcomer;
		if (counted && n++ == 0)
			*oldest_ms = pending->requested_ms;
	}
	return n;
}

/*
 * Refuses a request while the client has its share of the queue
 * (OAUTH_PENDING_PER_CLIENT) or, for a client never approved, while the
 * clients never approved that its process registered have theirs
 * (OAUTH_PENDING_PER_PROCESS; not counted when the process is unknown),
 * or while the OAUTH_PENDING_MAX places of such clients are taken: a
 * client the person approved before is never crowded out by new ones,
 * nor one process's new clients by another's. 503 with the seconds until
 * the oldest request in the way expires; false when the request may
 * wait.
 */
static bool
oauth_authorize_full(const struct oauth_authorize *authorize,
    const struct oauth_client *client, struct oauth_authorize_answer *answer)
{
	uint64_t	 oldest_ms = 0, now = clock_now_ms(authorize->wall);
	uint64_t	 free_ms;
	char		*text;
	enum oauth_waiting_among among;

	if (oauth_authorize_waiting(authorize, client,
	    OAUTH_WAITING_OF_CLIENT, &oldest_ms) >= OAUTH_PENDING_PER_CLIENT)
		among = OAUTH_WAITING_OF_CLIENT;
	else if (client->approved)
		return false;
	else if (client->registrar_pid != 0 && oauth_authorize_waiting(
	    authorize, client, OAUTH_WAITING_OF_PROCESS, &oldest_ms) >=
	    OAUTH_PENDING_PER_PROCESS)
		among = OAUTH_WAITING_OF_PROCESS;
	else if (oauth_authorize_waiting(authorize, client,
	    OAUTH_WAITING_OF_NEWCOMERS, &oldest_ms) >= OAUTH_PENDING_MAX)
		among = OAUTH_WAITING_OF_NEWCOMERS;
	else
		return false;
	free_ms = oldest_ms + OAUTH_APPROVAL_MS > now ?
	    oldest_ms + OAUTH_APPROVAL_MS - now : 0;
	answer->retry_after_s = (unsigned)((free_ms + 999) / 1000);
	if (answer->retry_after_s == 0)
		answer->retry_after_s = 1;
	if (among == OAUTH_WAITING_OF_CLIENT)
		text = xasprintf("This client already has %d approval requests "
		    "waiting in the Browser Bridge popup: answer them there "
		    "(Deny all denies them at once), or start again from your "
		    "MCP client in %u seconds, when the oldest expires.",
		    OAUTH_PENDING_PER_CLIENT, answer->retry_after_s);
	else if (among == OAUTH_WAITING_OF_PROCESS)
		text = xasprintf("The program that registered this client "
		    "already has %d approval requests of new clients waiting in "
		    "the Browser Bridge popup: answer them there, or start "
		    "again from your MCP client in %u seconds, when the oldest "
		    "expires.", OAUTH_PENDING_PER_PROCESS,
		    answer->retry_after_s);
	else
		text = xasprintf("Too many approval requests are waiting in the "
		    "Browser Bridge popup: answer them there, or start again "
		    "from your MCP client in %u seconds, when the oldest "
		    "expires.", answer->retry_after_s);
	oauth_authorize_error_page(answer, 503, text);
	free(text);
	return true;
}

/* A query field's value, or NULL. */
static const char *
oauth_authorize_field(const json_t *query, const char *name)
{
	return json_string_value(json_object_get(query, name));
}

/*
 * Finds the registered redirect URI a request names: exact, but for the
 * port of a loopback one. The only one registered when it names none (if
 * it is one registration takes today: a file may be older).
 */
static const char *
oauth_authorize_redirect(const struct oauth_client *client, const char *uri)
{
	struct oauth_uri	 parsed;
	const json_t		*item;
	const char		*only;
	size_t			 i;

	if (uri == NULL) {
		only = json_array_size(client->redirect_uris) == 1 ?
		    json_string_value(json_array_get(client->redirect_uris, 0)) :
		    NULL;
		return oauth_uri_loopback(only, &parsed) == 0 ? only : NULL;
	}
	json_array_foreach(client->redirect_uris, i, item) {
		if (oauth_uri_same_but_port(json_string_value(item), uri))
			return uri;
	}
	return NULL;
}

/*
 * Checks the parameters that are sent back to the client when wrong;
 * NULL when fine, else the error code, *description saying why.
 */
static const char *
oauth_authorize_check(const struct oauth_authorize *authorize,
    const json_t *query, unsigned *scopes, const char **description)
{
	const char	*type = oauth_authorize_field(query, "response_type");
	const char	*challenge = oauth_authorize_field(query,
			    "code_challenge");
	const char	*method = oauth_authorize_field(query,
			    "code_challenge_method");
	const char	*resource = oauth_authorize_field(query, "resource");
	const char	*scope = oauth_authorize_field(query, "scope");
	const char	*state = oauth_authorize_field(query, "state");
	char		*cause = NULL;

	if (oauth_repeated(query) != NULL) {
		*description = "a parameter is sent more than once; send each "
		    "at most once (RFC 6749 3.1)";
		return "invalid_request";
	}
	if (type == NULL || strcmp(type, "code") != 0) {
		*description = "response_type must be code";
		return "unsupported_response_type";
	}
	if (challenge == NULL || strlen(challenge) != OAUTH_CHALLENGE_LENGTH ||
	    method == NULL || strcmp(method, "S256") != 0) {
		*description = "PKCE is required, with code_challenge_method "
		    "S256 (plain is refused) and a 43-character code_challenge";
		return "invalid_request";
	}
	if (state != NULL && strlen(state) > OAUTH_STATE_MAX) {
		*description = "state is longer than 512 bytes";
		return "invalid_request";
	}
	if (resource != NULL && !oauth_metadata_resource_ours(resource,
	    authorize->port)) {
		*description = "resource must be this host's MCP URL "
		    "(http://127.0.0.1:PORT/mcp), as its protected resource "
		    "metadata says";
		return "invalid_target";
	}
	*scopes = OAUTH_SCOPE_DEFAULT;
	if (scope != NULL && *scope != '\0') {
		if (oauth_scope_parse(scope, scopes, &cause) != 0) {
			free(cause);
			*description = "unknown scope: the scopes are "
			    "pages:read, pages:act, tasks, network and scripts";
			return "invalid_scope";
		}
	}
	return NULL;
}

/*
 * Adds to approve_client's params the approved client whose name this
 * client's resembles, if any: its name as shown, when it registered and
 * when it was approved (the approval page warns of the namesake).
 */
static void
oauth_authorize_namesake(struct oauth_authorize *authorize,
    const struct oauth_client *client, json_t *params)
{
	const struct oauth_client	*namesake;
	char				*shown;

	if ((namesake = oauth_store_namesake(authorize->store, client)) ==
	    NULL)
		return;
	shown = oauth_name_shown(namesake->name);
	json_object_set_new(params, "name_taken_by", json_pack("{s:s,s:I,s:I}",
	    "client_name", shown, "registered_at_ms",
	    (json_int_t)namesake->created_ms, "approved_at_ms",
	    (json_int_t)namesake->approved_ms));
	free(shown);
}

/* Asks the person about a new request; its page waits for the answer. */
static void
oauth_authorize_ask(struct oauth_authorize *authorize,
    const struct oauth_client *client, const char *redirect_uri,
    const json_t *query, unsigned scopes,
    struct oauth_authorize_answer *answer)
{
	struct oauth_pending	*pending = xcalloc(1, sizeof *pending);
	struct oauth_uri	 parsed;
	uint64_t		 now = clock_now_ms(authorize->wall);
	json_t			*params;

	pending->authorize = authorize;
	if (random_hex(pending->request_id, OAUTH_REQUEST_ID_BYTES) != 0)
		abort();	/* getrandom does not fail once it worked */
	memcpy(pending->client_id, client->client_id,
	    sizeof pending->client_id);
	pending->client_name = oauth_name_shown(client->name);
	pending->redirect_uri = xstrdup(redirect_uri);
	pending->redirect_given = oauth_authorize_field(query,
	    "redirect_uri") != NULL;
	(void)oauth_uri_loopback(redirect_uri, &parsed);
	oauth_uri_authority(&parsed, pending->redirect_host,
	    sizeof pending->redirect_host);
	if (oauth_authorize_field(query, "state") != NULL)
		pending->state = xstrdup(oauth_authorize_field(query, "state"));
	pending->challenge = xstrdup(oauth_authorize_field(query,
	    "code_challenge"));
	pending->asked = scopes;
	pending->newcomer = !client->approved;
	pending->registrar_pid = client->registrar_pid;
	pending->requested_ms = now;
	TAILQ_INSERT_TAIL(&authorize->pending, pending, entry);

	params = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:I,s:I}", "request_id",
	    pending->request_id, "client_id", client->client_id,
	    "client_name", pending->client_name, "redirect_uri", redirect_uri,
	    "redirect_host", pending->redirect_host, "scopes",
	    oauth_scope_array(scopes), "requested_at_ms", (json_int_t)now,
	    "expires_at_ms", (json_int_t)(now + OAUTH_APPROVAL_MS));
	oauth_authorize_namesake(authorize, client, params);
	log_info(authorize->log, "client %.8s (%s) asks for approval",
	    client->client_id, pending->client_name);
	pending->call_id = authorize->approver.ask(authorize->approver.arg,
	    params, OAUTH_APPROVAL_MS, oauth_authorize_decided, pending);
	oauth_authorize_waiting_page(pending, answer);
}

/*
 * Answers GET /authorize (query: its fields as strings): a new request
 * is checked and the person asked; ?request_id=... is its page coming
 * back, answered with the wait or the redirect.
 */
void
oauth_authorize_request(struct oauth_authorize *authorize,
    const json_t *query, struct oauth_authorize_answer *answer)
{
	struct oauth_pending	*pending;
	struct oauth_client	*client;
	const char		*id = oauth_authorize_field(query, "request_id");
	const char		*redirect, *error, *description;
	unsigned		 scopes;

	memset(answer, 0, sizeof *answer);
	if (id != NULL) {
		TAILQ_FOREACH(pending, &authorize->pending, entry) {
			/* Constant time: the id is the page's only key. */
			if (strlen(id) == sizeof pending->request_id - 1 &&
			    sodium_memcmp(pending->request_id, id,
			    sizeof pending->request_id - 1) == 0) {
				oauth_authorize_finish(pending, answer);
				return;
			}
		}
		oauth_authorize_error_page(answer, 400, "This approval request "
		    "is unknown or over. Start again from your MCP client.");
		return;
	}
	client = oauth_store_client(authorize->store,
	    oauth_authorize_field(query, "client_id"));
	if (client == NULL) {
		oauth_authorize_error_page(answer, 400, "Unknown client_id: "
		    "the client must register first (its registration may have "
		    "been revoked). Start again from your MCP client.");
		return;
	}
	redirect = oauth_authorize_redirect(client,
	    oauth_authorize_field(query, "redirect_uri"));
	if (redirect == NULL || json_is_null(json_object_get(query,
	    "redirect_uri"))) {
		oauth_authorize_error_page(answer, 400, "The redirect_uri is "
		    "not one this client registered, so the answer cannot be "
		    "sent there.");
		return;
	}
	if ((error = oauth_authorize_check(authorize, query, &scopes,
	    &description)) != NULL) {
		answer->status = 302;
		answer->location = oauth_authorize_location(authorize, redirect,
		    oauth_authorize_field(query, "state"), NULL, error,
		    description);
		return;
	}
	if (oauth_authorize_full(authorize, client, answer))
		return;
	oauth_authorize_ask(authorize, client, redirect, query, scopes, answer);
}
