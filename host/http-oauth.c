/* The OAuth routes: metadata, registration, authorization, tokens. */
#include "http-oauth.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "clock.h"
#include "errors.h"
#include "http.h"
#include "http-guard.h"
#include "log.h"
#include "oauth-authorize.h"
#include "oauth-metadata.h"
#include "oauth-name.h"
#include "oauth-register.h"
#include "oauth-store.h"
#include "oauth-token.h"
#include "os.h"
#include "session.h"
#include "xmalloc.h"

/* The largest /register, /token or /revoke body read. */
#define HTTP_OAUTH_BODY_MAX	(64 * 1024)

struct http_oauth {
	struct oauth_store	*store;
	struct oauth_authorize	*authorize;
	uint16_t		 port;
	const struct clock	*wall;
	struct log		*log;
	struct oauth_register_rate register_rate;	/* POST /register's */
};

/* The OAuth paths, which need no credential (/.well-known/ too). */
static const char *const http_oauth_paths[] = {
	"/register",
	"/authorize",
	"/token",
	"/revoke",
};

/* Makes the routes over the store; approver asks the person. */
struct http_oauth *
http_oauth_new(struct oauth_store *store, const struct oauth_approver *approver,
    uint16_t port, const struct clock *wall, struct log *log)
{
	struct http_oauth	*oauth = xcalloc(1, sizeof *oauth);

	oauth->store = store;
	oauth->authorize = oauth_authorize_new(store, approver, port, wall,
	    log);
	oauth->port = port;
	oauth->wall = wall;
	oauth->log = log;
	return oauth;
}

/* Frees the routes; pending approvals are withdrawn. */
void
http_oauth_free(struct http_oauth *oauth)
{
	if (oauth == NULL)
		return;
	oauth_authorize_free(oauth->authorize);
	free(oauth);
}

/* Says whether a path is one of the OAuth routes. */
bool
http_oauth_path(const char *path)
{
	size_t	i;

	if (strncmp(path, "/.well-known/", 13) == 0)
		return true;
	for (i = 0; i < sizeof http_oauth_paths / sizeof *http_oauth_paths;
	    i++) {
		if (strcmp(path, http_oauth_paths[i]) == 0)
			return true;
	}
	return false;
}

/*
 * Begins a look at the store or a change of it, as other hosts on the
 * file see it; logs a failure (the state in memory goes on).
 */
static void
http_oauth_begin(struct http_oauth *oauth)
{
	char	*cause = NULL;

	if (oauth_store_begin(oauth->store, &cause) != 0) {
		log_warn(oauth->log, "%s", cause);
		free(cause);
	}
}

/* Ends it, writing the store if save and it changed; logs a failure. */
static void
http_oauth_end(struct http_oauth *oauth, bool save)
{
	char	*cause = NULL;

	if (oauth_store_end(oauth->store, save, &cause) != 0) {
		log_warn(oauth->log, "%s", cause);
		free(cause);
	}
}

/*
 * Returns an urlencoded text's fields as a JSON object of strings; a
 * repeated one is null there (RFC 6749 3.1: each appears once at most).
 */
static json_t *
http_oauth_fields(const char *text)
{
	struct evkeyvalq	 fields;
	struct evkeyval		*field;
	json_t			*object = json_object();

	TAILQ_INIT(&fields);
	if (text != NULL && evhttp_parse_query_str(text, &fields) == 0) {
		TAILQ_FOREACH(field, &fields, next) {
			json_object_set_new(object, field->key,
			    json_object_get(object, field->key) == NULL ?
			    json_string(field->value) : json_null());
		}
	}
	evhttp_clear_headers(&fields);
	return object;
}

/* Returns the body as text, or NULL when it is over the limit. */
static char *
http_oauth_body(struct evhttp_request *req)
{
	struct evbuffer	*buf = evhttp_request_get_input_buffer(req);
	size_t		 len = evbuffer_get_length(buf);
	char		*text;

	if (len > HTTP_OAUTH_BODY_MAX)
		return NULL;
	text = xmalloc(len + 1);
	evbuffer_copyout(buf, text, len);
	text[len] = '\0';
	return text;
}

/* Says whether the request's Content-Type is this media type. */
static bool
http_oauth_content_type(struct evhttp_request *req, const char *type)
{
	const char	*given = http_header(req, "Content-Type");

	return given != NULL && strncasecmp(given, type, strlen(type)) == 0 &&
	    (given[strlen(type)] == '\0' || given[strlen(type)] == ';');
}

/* Answers an OAuth JSON body (stolen) with a status. */
static void
http_oauth_reply(struct evhttp_request *req, int status, json_t *body)
{
	evhttp_add_header(evhttp_request_get_output_headers(req), "Pragma",
	    "no-cache");
	http_reply_json(req, status, status == 200 ? "OK" : status == 201 ?
	    "Created" : status == 401 ? "Unauthorized" : status == 403 ?
	    "Forbidden" : status == 404 ?
	    "Not Found" : status == 405 ? "Method Not Allowed" : status == 429 ?
	    "Too Many Requests" : "Bad Request", body);
}

/* Answers 405 for a route that takes one method. */
static void
http_oauth_method(struct evhttp_request *req, const char *allow)
{
	evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
	    allow);
	http_oauth_reply(req, 405, oauth_error("invalid_request",
	    "wrong HTTP method for this OAuth endpoint"));
}

/*
 * Answers 429 with Retry-After to a registration past the rate
 * (oauth_register_allowed); false when it may go on. Only registrations
 * that register a client spend the rate (oauth_register_refund).
 */
static bool
http_oauth_register_refused(struct http_oauth *oauth,
    struct evhttp_request *req)
{
	unsigned	 seconds;
	char		*text;

	if (oauth_register_allowed(&oauth->register_rate,
	    clock_now_ms(oauth->wall), &seconds))
		return false;
	text = xasprintf("%u", seconds);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Retry-After", text);
	free(text);
	text = xasprintf("too many new clients: at most %d a second after a "
	    "burst of %d; register again in %u seconds",
	    OAUTH_REGISTER_PER_SECOND, OAUTH_REGISTER_BURST, seconds);
	http_oauth_reply(req, 429, oauth_error("temporarily_unavailable",
	    text));
	free(text);
	return true;
}

/*
 * Finds the process at the other end of req's connection (os_loopback_peer):
 * the one that registers a client. 0 with *peer filled, -1 when unknown.
 */
static int
http_oauth_peer(struct evhttp_request *req, struct os_peer *peer)
{
	struct evhttp_connection	*evcon;
	struct bufferevent		*bev;
	evutil_socket_t			 fd;

	peer->pid = 0;
	peer->other_user = false;
	if ((evcon = evhttp_request_get_connection(req)) == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL ||
	    (fd = bufferevent_getfd(bev)) < 0)
		return -1;
	return os_loopback_peer(fd, peer);
}

/*
 * Notes which process registered the client of a 201 reply, for the
 * approval queue's share per process; a client registered by another
 * user's process is dropped again and the reply becomes a 403: a real
 * MCP client runs as the user whose browser runs the host.
 */
static json_t *
http_oauth_registrar(struct http_oauth *oauth, struct evhttp_request *req,
    json_t *reply, int *status)
{
	struct oauth_client	*client;
	struct os_peer		 peer;
	const char		*id;

	id = json_string_value(json_object_get(reply, "client_id"));
	(void)http_oauth_peer(req, &peer);
	if (peer.other_user) {
		(void)oauth_store_revoke(oauth->store, id);
		log_warn(oauth->log, "refused a registration from another "
		    "user's process");
		json_decref(reply);
		*status = 403;
		return oauth_error("access_denied", "this host serves the user "
		    "it runs as: a process of another user may not register a "
		    "client");
	}
	if ((client = oauth_store_client(oauth->store, id)) != NULL)
		client->registrar_pid = peer.pid;
	return reply;
}

/*
 * POST /register: dynamic client registration. A new client lives in
 * memory until the person approves it: nothing is written.
 */
static void
http_oauth_register(struct http_oauth *oauth, struct evhttp_request *req)
{
	json_t		*request = NULL, *reply;
	json_error_t	 error;
	char		*text, *shown;
	int		 status = 400;

	if (http_oauth_register_refused(oauth, req))
		return;
	text = http_oauth_body(req);
	if (text != NULL && http_oauth_content_type(req, "application/json"))
		request = json_loads(text, JSON_REJECT_DUPLICATES, &error);
	free(text);
	if (request == NULL)
		reply = oauth_error("invalid_client_metadata", "send the client "
		    "metadata as a JSON object (Content-Type: "
		    "application/json), at most 64 KiB");
	else {
		http_oauth_begin(oauth);
		reply = oauth_register(oauth->store, request,
		    clock_now_ms(oauth->wall), &status);
		if (status == 201)
			reply = http_oauth_registrar(oauth, req, reply,
			    &status);
		http_oauth_end(oauth, false);
	}
	if (status != 201)
		oauth_register_refund(&oauth->register_rate);
	if (status == 201) {
		shown = oauth_name_shown(json_string_value(json_object_get(reply,
		    "client_name")));
		log_info(oauth->log, "OAuth client %.8s registered (%s)",
		    json_string_value(json_object_get(reply, "client_id")),
		    shown);
		free(shown);
	}
	json_decref(request);
	http_oauth_reply(req, status, reply);
}

/* Returns a form body's fields, or NULL after answering a bad one. */
static json_t *
http_oauth_form(struct evhttp_request *req)
{
	char		*text = http_oauth_body(req), *why;
	const char	*repeated;
	json_t		*form;

	if (text == NULL || !http_oauth_content_type(req,
	    "application/x-www-form-urlencoded")) {
		free(text);
		http_oauth_reply(req, 400, oauth_error("invalid_request",
		    "send the parameters as application/x-www-form-urlencoded, "
		    "at most 64 KiB"));
		return NULL;
	}
	form = http_oauth_fields(text);
	free(text);
	if ((repeated = oauth_repeated(form)) != NULL) {
		why = xasprintf("the parameter %s is sent more than once; send "
		    "each at most once (RFC 6749 3.1)", repeated);
		http_oauth_reply(req, 400, oauth_error("invalid_request", why));
		free(why);
		json_decref(form);
		return NULL;
	}
	return form;
}

/* POST /token: codes and refresh tokens exchanged for tokens. */
static void
http_oauth_token(struct http_oauth *oauth, struct evhttp_request *req)
{
	json_t	*form, *reply;
	int	 status;

	if ((form = http_oauth_form(req)) == NULL)
		return;
	http_oauth_begin(oauth);
	reply = oauth_token_exchange(oauth->store, form, oauth->port,
	    clock_now_ms(oauth->wall), &status);
	/* A failure may have ended a family (a reused code or refresh). */
	http_oauth_end(oauth, true);
	json_decref(form);
	http_oauth_reply(req, status, reply);
}

/* POST /revoke: a token given up (RFC 7009); always 200. */
static void
http_oauth_revoke(struct http_oauth *oauth, struct evhttp_request *req)
{
	json_t	*form;

	if ((form = http_oauth_form(req)) == NULL)
		return;
	http_oauth_begin(oauth);
	oauth_token_revoke(oauth->store, form, clock_now_ms(oauth->wall));
	http_oauth_end(oauth, true);
	json_decref(form);
	http_oauth_reply(req, 200, json_object());
}

/* GET /authorize: the page that waits for the person, or the redirect. */
static void
http_oauth_authorize(struct http_oauth *oauth, struct evhttp_request *req,
    const struct evhttp_uri *uri)
{
	struct evkeyvalq		*out = evhttp_request_get_output_headers(
					    req);
	struct oauth_authorize_answer	 answer;
	struct evbuffer			*buf;
	json_t				*query;
	char				*retry;

	query = http_oauth_fields(uri != NULL ? evhttp_uri_get_query(uri) :
	    NULL);
	http_oauth_begin(oauth);	/* a client another host registered */
	oauth_authorize_request(oauth->authorize, query, &answer);
	/* A code issued may have ended the client's oldest approval. */
	http_oauth_end(oauth, true);
	json_decref(query);
	evhttp_add_header(out, "Referrer-Policy", "no-referrer");
	evhttp_add_header(out, "X-Frame-Options", "DENY");
	evhttp_add_header(out, "Content-Security-Policy", "default-src "
	    "'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
	buf = evbuffer_new();
	if (answer.location != NULL) {
		evhttp_add_header(out, "Location", answer.location);
		evhttp_send_reply(req, 302, "Found", buf);
	} else {
		evhttp_add_header(out, "Content-Type",
		    "text/html; charset=utf-8");
		if (answer.retry_after_s != 0) {
			retry = xasprintf("%u", answer.retry_after_s);
			evhttp_add_header(out, "Retry-After", retry);
			free(retry);
		}
		evbuffer_add(buf, answer.html, strlen(answer.html));
		evhttp_send_reply(req, answer.status, answer.status == 200 ?
		    "OK" : answer.status == 503 ? "Service Unavailable" :
		    "Bad Request", buf);
	}
	evbuffer_free(buf);
	free(answer.location);
	free(answer.html);
}

/* GET /.well-known/...: the two metadata documents; anything else 404. */
static void
http_oauth_well_known(struct http_oauth *oauth, struct evhttp_request *req,
    const char *path)
{
	if (strcmp(path, "/.well-known/oauth-protected-resource") == 0 ||
	    strcmp(path, "/.well-known/oauth-protected-resource/mcp") == 0)
		http_oauth_reply(req, 200, oauth_metadata_resource(oauth->port,
		    http_header(req, "Host")));
	else if (strcmp(path, "/.well-known/oauth-authorization-server") == 0)
		http_oauth_reply(req, 200, oauth_metadata_server(oauth->port));
	else
		/* openid-configuration among them: no OpenID here. */
		http_oauth_reply(req, 404, oauth_error("not_found", "no such "
		    "document: the metadata are at /.well-known/oauth-"
		    "protected-resource/mcp and /.well-known/oauth-"
		    "authorization-server"));
}

/* Routes an OAuth path (http_oauth_path); oauth NULL: OAuth is off. */
void
http_oauth_route(struct http_oauth *oauth, struct evhttp_request *req,
    const char *path, const struct evhttp_uri *uri)
{
	enum evhttp_cmd_type	method = evhttp_request_get_command(req);

	if (oauth == NULL) {
		http_reply_error(req, 404, "Not Found", JSONRPC_INVALID_REQUEST,
		    "OAuth is off (\"oauth\": false in config.json, or "
		    "--no-auth): send the owner key, \"Authorization: Bearer "
		    "<token>\"; run `browser-bridge token` to print it.");
		return;
	}
	if (strncmp(path, "/.well-known/", 13) == 0) {
		if (method != EVHTTP_REQ_GET)
			http_oauth_method(req, "GET");
		else
			http_oauth_well_known(oauth, req, path);
	} else if (strcmp(path, "/authorize") == 0) {
		if (method != EVHTTP_REQ_GET)
			http_oauth_method(req, "GET");
		else
			http_oauth_authorize(oauth, req, uri);
	} else if (method != EVHTTP_REQ_POST)
		http_oauth_method(req, "POST");
	else if (strcmp(path, "/register") == 0)
		http_oauth_register(oauth, req);
	else if (strcmp(path, "/token") == 0)
		http_oauth_token(oauth, req);
	else
		http_oauth_revoke(oauth, req);
}

/*
 * Checks the access token an Authorization header carries; 0 and *grant
 * filled when it is a live key of an approved client, else -1.
 */
int
http_oauth_authenticate(struct http_oauth *oauth, const char *authorization,
    struct session_grant *grant)
{
	const char	*given;
	char		*token;
	size_t		 len;
	bool		 touched;
	int		 rc;

	if (oauth == NULL ||
	    (given = http_guard_bearer(authorization, &len)) == NULL)
		return -1;
	token = xstrndup(given, len);
	http_oauth_begin(oauth);	/* a revocation by another host counts */
	rc = oauth_token_verify(oauth->store, token, oauth->port,
	    clock_now_ms(oauth->wall), grant, &touched);
	http_oauth_end(oauth, touched);	/* last use, once a minute at most */
	free(token);
	return rc;
}

/* The approved clients (list_clients), as every host on the file has them. */
json_t *
http_oauth_clients(struct http_oauth *oauth)
{
	json_t	*list;

	if (oauth == NULL)
		return json_array();	/* OAuth is off */
	http_oauth_begin(oauth);
	list = oauth_store_list(oauth->store);
	http_oauth_end(oauth, false);
	return list;
}

/*
 * The person revoked a client (revoke_client): it, its grant and its
 * tokens go, for every host on the file, and its waiting approvals; false
 * when no client has this id.
 */
bool
http_oauth_revoke_client(struct http_oauth *oauth, const char *client_id)
{
	bool	revoked;

	if (oauth == NULL)
		return false;
	http_oauth_begin(oauth);
	revoked = oauth_store_revoke(oauth->store, client_id);
	http_oauth_end(oauth, revoked);
	if (revoked)
		oauth_authorize_forget_client(oauth->authorize, client_id);
	return revoked;
}

/* Periodic work: expired tokens and forgotten approvals are dropped. */
void
http_oauth_tick(struct http_oauth *oauth)
{
	if (oauth == NULL)
		return;
	oauth_authorize_expire(oauth->authorize);
	oauth_store_expire(oauth->store, clock_now_ms(oauth->wall));
}
