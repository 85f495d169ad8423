/* The HTTP server: bind, limits, the security gate, routing, /health. */
#include "http-server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "clock.h"
#include "errors.h"
#include "http.h"
#include "http-accept.h"
#include "http-door.h"
#include "http-framer.h"
#include "http-guard.h"
#include "http-streamable.h"
#include "http-legacy.h"
#include "http-oauth.h"
#include "log.h"
#include "oauth-metadata.h"
#include "oauth-scope.h"
#include "os-socket.h"
#include "proof.h"
#include "session.h"
#include "xmalloc.h"

struct http_server {
	struct http_transport	 transport;
	struct http_server_settings settings;
	http_connected_cb	 connected;
	void			*arg;
	struct evhttp		*http;
	struct event		*tick;		/* keepalive and expiry */
	struct http_accept_guard *accept_guard;
	struct http_door	*door;		/* caps, deadlines, early checks */
	uint16_t		 port;
	int			 taken_port;	/* configured but taken, or 0 */
	char			*port_note;	/* why the port differs */
	bool			 port_unsafe;	/* a stranger holds taken_port */
	struct http_oauth	*oauth;		/* NULL: only the owner key */
	char			*challenge;	/* WWW-Authenticate, no key */
	char			*challenge_invalid; /* a key that is none */
};

/* origin when the settings list it for CORS, else NULL. */
static const char *
http_server_cors_origin(const struct http_server *server, const char *origin)
{
	size_t	i;

	for (i = 0; origin != NULL &&
	    i < server->settings.allowed_origin_count; i++) {
		if (strcmp(origin, server->settings.allowed_origins[i]) == 0)
			return origin;
	}
	return NULL;
}

/*
 * CORS for an origin the settings list: the answer names it, and the
 * headers a client must read are exposed. A preflight (OPTIONS) is
 * answered here, without the token, which browsers never send on it;
 * returns 1 then. The token is still required on the request itself.
 */
static int
http_server_cors(struct http_server *server, struct evhttp_request *req)
{
	struct evkeyvalq	*out = evhttp_request_get_output_headers(req);
	const char		*origin = http_server_cors_origin(server,
				    http_header(req, "Origin"));

	if (origin == NULL)
		return 0;
	evhttp_add_header(out, "Access-Control-Allow-Origin", origin);
	evhttp_add_header(out, "Vary", "Origin");
	evhttp_add_header(out, "Access-Control-Expose-Headers",
	    "Mcp-Session-Id, WWW-Authenticate");
	if (evhttp_request_get_command(req) != EVHTTP_REQ_OPTIONS)
		return 0;
	evhttp_add_header(out, "Access-Control-Allow-Methods",
	    "GET, POST, DELETE");
	evhttp_add_header(out, "Access-Control-Allow-Headers",
	    "Authorization, Content-Type, Accept, Mcp-Session-Id, "
	    "MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID");
	evhttp_add_header(out, "Access-Control-Max-Age", "600");
	evhttp_send_reply(req, 204, "No Content", NULL);
	return 1;
}

/* Says whether a path needs a key: all but /health and OAuth's own. */
static bool
http_server_path_needs_token(const char *path)
{
	return strcmp(path, "/health") != 0 && !http_oauth_path(path);
}

/*
 * Says who a request's Authorization header names: the owner key (the
 * static token; anyone when auth is off) or an OAuth client's access
 * token. -1 when it names nobody.
 */
static int
http_server_credential(struct http_server *server, const char *authorization,
    struct session_grant *grant)
{
	const char	*token = server->settings.token;

	if (token == NULL || http_guard_bearer_valid(authorization, token)) {
		session_grant_owner(grant);
		return 0;
	}
	return http_oauth_authenticate(server->oauth, authorization, grant);
}

/* A request target's path, as the router reads it ("/" when it has none). */
static const char *
http_server_path(const struct evhttp_uri *uri)
{
	const char	*path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;

	return path == NULL || *path == '\0' ? "/" : path;
}

/*
 * Judges a request by its head: Host names loopback, Origin is allowed,
 * and the bearer token is there where the path needs it (a CORS preflight
 * from a listed origin needs none). 0: it may go on; -1: refused as
 * *refusal says. The door asks before the body is read; the router asks
 * again.
 */
static int
http_server_judge(struct http_server *server, const struct evkeyvalq *headers,
    const char *path, bool options, struct http_door_refusal *refusal)
{
	struct log	*log = server->transport.log;
	const char	*host = evhttp_find_header(headers, "Host");
	const char	*origin = evhttp_find_header(headers, "Origin");
	const char	*cors = http_server_cors_origin(server, origin);

	if (!http_guard_host_allowed(host)) {
		log_warn(log, "refused a request for Host %s: only "
		    "localhost, 127.0.0.1 and [::1] are served",
		    host != NULL ? host : "(none)");
		*refusal = (struct http_door_refusal){ 403, "Forbidden",
		    "Host not allowed: connect to 127.0.0.1 or localhost",
		    NULL, NULL };
		return -1;
	}
	if (!http_guard_origin_allowed(origin,
	    server->settings.extension_origin) && cors == NULL) {
		log_warn(log, "refused a request from Origin %s", origin);
		*refusal = (struct http_door_refusal){ 403, "Forbidden",
		    "Origin not allowed: web pages cannot drive the browser",
		    NULL, NULL };
		return -1;
	}
	struct session_grant	 grant;
	const char		*authorization = evhttp_find_header(headers,
				    "Authorization");

	if ((options && cors != NULL) || !http_server_path_needs_token(path) ||
	    http_server_credential(server, authorization, &grant) == 0)
		return 0;
	*refusal = (struct http_door_refusal){ 401, "Unauthorized",
	    server->oauth != NULL ? "Missing, expired or revoked key. An MCP "
	    "client that speaks OAuth gets one by itself (the person approves "
	    "it in the Browser Bridge popup); others send the owner key, "
	    "\"Authorization: Bearer <token>\" (`browser-bridge token` prints "
	    "it)." : "Missing or wrong bearer token. Send \"Authorization: "
	    "Bearer <token>\"; run `browser-bridge token` to print it.",
	    server->oauth == NULL ? "Bearer realm=\"browser-bridge\"" :
	    authorization != NULL ? server->challenge_invalid :
	    server->challenge, cors };
	return -1;
}

/* The door's question: judges a head before its body is read. */
static int
http_server_judge_head(const struct http_head *head,
    struct http_door_refusal *refusal, void *arg)
{
	struct http_server	*server = arg;
	struct evhttp_uri	*uri = evhttp_uri_parse(head->target);
	int			 r;

	r = http_server_judge(server, &head->headers, http_server_path(uri),
	    strcmp(head->method, "OPTIONS") == 0, refusal);
	if (uri != NULL)
		evhttp_uri_free(uri);
	return r;
}

/* Judges the request again in the router; answers it if refused. */
static int
http_server_gate(struct http_server *server, struct evhttp_request *req,
    const char *path)
{
	struct http_door_refusal	refusal;

	if (http_server_judge(server, evhttp_request_get_input_headers(req),
	    path, evhttp_request_get_command(req) == EVHTTP_REQ_OPTIONS,
	    &refusal) == 0)
		return 0;
	if (refusal.authenticate != NULL)
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "WWW-Authenticate", refusal.authenticate);
	http_reply_error(req, refusal.status, refusal.reason,
	    JSONRPC_INVALID_REQUEST, refusal.message);
	return -1;
}

/*
 * GET /health: liveness without secrets, for doctor and scripts. With
 * ?nonce=HEX it also proves the host holds the token (proof.h), so our
 * clients can tell the host from a process that took its port. With the
 * bearer token it also lists the connected clients (status shows them).
 */
static void
http_server_health(struct http_server *server, struct evhttp_request *req,
    const struct evhttp_uri *uri)
{
	struct evkeyvalq	 query;
	const char		*nonce = NULL, *token = server->settings.token;
	json_t			*health;
	char			*proof;

	health = json_pack("{s:s,s:s,s:b,s:I}", "status", "ok", "version",
	    PACKAGE_VERSION, "extension_connected",
	    server->connected(server->arg), "sessions",
	    (json_int_t)session_store_count(server->transport.sessions));
	TAILQ_INIT(&query);
	if (uri != NULL && evhttp_uri_get_query(uri) != NULL &&
	    evhttp_parse_query_str(evhttp_uri_get_query(uri), &query) == 0)
		nonce = evhttp_find_header(&query, "nonce");
	if (server->port_note != NULL) {
		json_object_set_new(health, "port_note",
		    json_string(server->port_note));
		json_object_set_new(health, "port_unsafe",
		    json_boolean(server->port_unsafe));
	}
	if (nonce != NULL && token != NULL &&
	    (proof = proof_compute(token, PROOF_HEALTH, nonce)) != NULL) {
		json_object_set_new(health, "proof", json_string(proof));
		free(proof);
	}
	/* Who is connected is for the token's holder only. */
	if (token != NULL && http_guard_bearer_valid(http_header(req,
	    "Authorization"), token)) {
		json_object_set_new(health, "clients", session_store_clients(
		    server->transport.sessions,
		    clock_now_ms(server->transport.clock)));
	}
	evhttp_clear_headers(&query);
	http_reply_json(req, 200, "OK", health);
}

/* Routes every request after the gate. */
static void
http_server_route(struct evhttp_request *req, void *arg)
{
	struct http_server	*server = arg;
	struct http_transport	*transport = &server->transport;
	const char		*path;
	struct evhttp_uri	*uri;
	enum evhttp_cmd_type	 method = evhttp_request_get_command(req);
	struct session_grant	 grant;

	http_door_track(server->door, req);	/* a refusal waits for it */
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Cache-Control", "no-store");
	if (http_guard_host_allowed(http_header(req, "Host")) &&
	    http_server_cors(server, req) != 0)
		return;	/* a preflight, answered */
	uri = evhttp_uri_parse(evhttp_request_get_uri(req));
	path = http_server_path(uri);
	/* Who asks: the transports read it while they are called. */
	if (http_server_credential(server, http_header(req, "Authorization"),
	    &grant) != 0)
		memset(&grant, 0, sizeof grant);	/* no scope at all */
	transport->grant = &grant;
	if (http_server_gate(server, req, path) != 0)
		;	/* already answered */
	else if (strcmp(path, "/health") == 0)
		http_server_health(server, req, uri);
	else if (http_oauth_path(path))
		http_oauth_route(server->oauth, req, path, uri);
	else if (strcmp(path, "/mcp") == 0)
		http_streamable_handle(transport, req);
	else if (strcmp(path, "/sse") == 0 && method == EVHTTP_REQ_GET)
		http_legacy_open(transport, req);
	else if ((strcmp(path, "/messages") == 0 ||
	    strcmp(path, "/message") == 0) && method == EVHTTP_REQ_POST)
		http_legacy_post(transport, req);
	else if (strcmp(path, "/sse") == 0 || strcmp(path, "/messages") == 0 ||
	    strcmp(path, "/message") == 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", strcmp(path, "/sse") == 0 ? "GET" : "POST");
		http_reply_error(req, 405, "Method Not Allowed",
		    JSONRPC_INVALID_REQUEST, strcmp(path, "/sse") == 0 ?
		    "/sse is the stream of the old HTTP+SSE transport and takes "
		    "only GET; Streamable HTTP clients use /mcp" :
		    "/messages takes only POST, from a client that opened its "
		    "stream with GET /sse; Streamable HTTP clients use /mcp");
	} else {
		http_reply_error(req, 404, "Not Found", JSONRPC_INVALID_REQUEST,
		    "Not found: the MCP endpoint is /mcp (or /sse for the "
		    "legacy transport)");
	}
	transport->grant = NULL;
	if (uri != NULL)
		evhttp_uri_free(uri);
}

/* Periodic work: keepalive comments on streams, expiry of idle sessions. */
static void
http_server_tick(evutil_socket_t fd, short events, void *arg)
{
	struct http_server	*server = arg;
	struct http_transport	*transport = &server->transport;
	size_t			 n;

	sse_stream_list_keepalive(&transport->streams);
	http_oauth_tick(server->oauth);
	n = session_store_expire(transport->sessions,
	    clock_now_ms(transport->clock));
	if (n > 0)
		log_info(transport->log, "expired %zu idle session%s", n,
		    n == 1 ? "" : "s");
}

/* Binds 127.0.0.1:port; returns the port bound, or -1. */
static int
http_server_bind(struct http_server *server, int port)
{
	struct evhttp_bound_socket	*handle;
	struct sockaddr_in		 sin;
	socklen_t			 len = sizeof sin;

	handle = evhttp_bind_socket_with_handle(server->http, "127.0.0.1",
	    (uint16_t)port);
	if (handle == NULL)
		return -1;
	if (getsockname(evhttp_bound_socket_get_fd(handle),
	    (struct sockaddr *)&sin, &len) != 0)
		return -1;
	server->accept_guard = http_accept_guard_new(
	    evhttp_bound_socket_get_listener(handle), server->transport.log);
	return ntohs(sin.sin_port);
}

/*
 * Creates the server, bound to the configured port or a free one: MCP over
 * the sessions, the gate from the settings, /health asking connected.
 */
struct http_server *
http_server_new(struct event_base *base,
    const struct http_server_settings *settings, struct mcp *mcp,
    struct session_store *sessions, const struct clock *clock,
    struct log *log, http_connected_cb connected, void *arg, char **cause)
{
	struct http_server		*server = xcalloc(1, sizeof *server);
	struct http_door_settings	 door_settings = {
		.max_connections = settings->max_connections,
		.max_headers = settings->max_headers,
		.max_body = settings->max_body,
		.head_timeout_ms = settings->head_timeout_ms,
		.min_body_rate = settings->min_body_rate,
	};
	struct timeval			 tv;
	int				 port;

	server->transport.mcp = mcp;
	server->transport.sessions = sessions;
	server->transport.clock = clock;
	server->transport.log = log;
	TAILQ_INIT(&server->transport.streams);
	TAILQ_INIT(&server->transport.waiting);
	server->settings = *settings;
	server->connected = connected;
	server->arg = arg;
	server->http = evhttp_new(base);
	server->door = http_door_new(server->http, base, &door_settings,
	    http_server_judge_head, server, clock, log);
	evhttp_set_gencb(server->http, http_server_route, server);
	/* The router answers 405 itself; libevent would say 501. */
	evhttp_set_allowed_methods(server->http, EVHTTP_REQ_GET|
	    EVHTTP_REQ_POST|EVHTTP_REQ_DELETE|EVHTTP_REQ_OPTIONS|
	    EVHTTP_REQ_PUT|EVHTTP_REQ_PATCH|EVHTTP_REQ_HEAD);
	evhttp_set_max_body_size(server->http, (ev_ssize_t)settings->max_body);
	evhttp_set_max_headers_size(server->http,
	    (ev_ssize_t)settings->max_headers);
	evhttp_set_timeout(server->http, settings->timeout_s);
	evhttp_set_default_content_type(server->http, "application/json");

	port = http_server_bind(server, settings->port);
	if (port == -1 && settings->port != 0) {
		/* The caller says why, once it knows who holds the port. */
		server->taken_port = settings->port;
		port = http_server_bind(server, 0);
	}
	if (port == -1) {
		*cause = xasprintf("cannot listen on 127.0.0.1: %s",
		    strerror(errno));
		http_server_free(server);
		return NULL;
	}
	server->port = (uint16_t)port;
	server->transport.port = server->port;

	server->tick = event_new(base, -1, EV_PERSIST,
	    http_server_tick, server);
	tv.tv_sec = settings->keepalive_ms / 1000;
	tv.tv_usec = (settings->keepalive_ms % 1000) * 1000;
	event_add(server->tick, &tv);
	return server;
}

/* Ends every open stream, telling each owner. */
void
http_server_end_streams(struct http_server *server)
{
	sse_stream_list_end_all(&server->transport.streams);
}

/* Ends the streams opened with a revoked client's key, at once. */
void
http_server_end_client(struct http_server *server, const char *client_id)
{
	sse_stream_list_end_owner(&server->transport.streams, client_id);
	http_streamable_end_client(&server->transport, client_id);
}

/* Ends every stream, then frees the server. */
void
http_server_free(struct http_server *server)
{
	if (server == NULL)
		return;
	http_server_end_streams(server);
	if (server->tick != NULL)
		event_free(server->tick);
	http_accept_guard_free(server->accept_guard);
	evhttp_free(server->http);
	http_door_free(server->door);
	free(server->challenge);
	free(server->challenge_invalid);
	free(server->port_note);
	free(server);
}

/* Returns the port the server listens on. */
uint16_t
http_server_port(const struct http_server *server)
{
	return server->port;
}

/* Returns the configured port when it was taken (the server listens on another), else 0. */
int
http_server_taken_port(const struct http_server *server)
{
	return server->taken_port;
}

/*
 * Records why the port is not the configured one, for /health; unsafe
 * when a program that is not Browser Bridge holds the configured port.
 */
void
http_server_set_port_note(struct http_server *server, const char *note,
    bool unsafe)
{
	free(server->port_note);
	server->port_note = xstrdup(note);
	server->port_unsafe = unsafe;
}

/*
 * Lets OAuth clients in (oauth: the routes, owned by the caller, NULL to
 * keep only the owner key): a request without a key is told where the
 * authorization server is.
 */
void
http_server_set_oauth(struct http_server *server, struct http_oauth *oauth)
{
	server->oauth = oauth;
	free(server->challenge);
	free(server->challenge_invalid);
	server->challenge = oauth_metadata_challenge(server->port, NULL,
	    OAUTH_SCOPE_DEFAULT);
	server->challenge_invalid = oauth_metadata_challenge(server->port,
	    "invalid_token", OAUTH_SCOPE_DEFAULT);
}
