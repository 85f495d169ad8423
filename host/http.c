/* What every HTTP route uses: headers, JSON bodies, JSON replies. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "clock.h"
#include "errors.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "mcp-version.h"
#include "session.h"

/* Returns a request header's value, or NULL. */
const char *
http_header(struct evhttp_request *req, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(req), name);
}

/* Sends a JSON body (stolen; NULL for none) with a status. */
void
http_reply_json(struct evhttp_request *req, int status, const char *reason,
    json_t *body)
{
	struct evbuffer	*buf = evbuffer_new();
	char		*text;

	if (body != NULL) {
		text = json_dumps(body, JSON_COMPACT);
		evbuffer_add(buf, text, strlen(text));
		free(text);
		json_decref(body);
	}
	evhttp_send_reply(req, status, reason, buf);
	evbuffer_free(buf);
}

/* Sends an HTTP error whose body is a JSON-RPC error with a null id. */
void
http_reply_error(struct evhttp_request *req, int status, const char *reason,
    int code, const char *message)
{
	http_reply_error_to(req, status, reason, NULL, code, message);
}

/*
 * Sends an HTTP error whose body is a JSON-RPC error answering request: it
 * carries the request's id when request is one message with a string or
 * integer id (NULL, a batch or no id: a null id).
 */
void
http_reply_error_to(struct evhttp_request *req, int status,
    const char *reason, const json_t *request, int code, const char *message)
{
	json_t	*id = json_is_object(request) ?
		    json_object_get(request, "id") : NULL;

	if (!json_is_string(id) && !json_is_integer(id))
		id = NULL;
	http_reply_json(req, status, reason,
	    jsonrpc_error(id, code, message, NULL));
}

/*
 * Reads a request's JSON body. On failure replies (415 or 400) and returns
 * -1.
 */
int
http_body_json(struct evhttp_request *req, json_t **body)
{
	struct evbuffer	*in = evhttp_request_get_input_buffer(req);
	const char	*type = http_header(req, "Content-Type");
	json_t		*error = NULL;
	size_t		 len = evbuffer_get_length(in);

	if (type == NULL || strncasecmp(type, "application/json", 16) != 0) {
		http_reply_error(req, 415, "Unsupported Media Type",
		    JSONRPC_INVALID_REQUEST, "Send the message as "
		    "Content-Type: application/json");
		return -1;
	}
	*body = jsonrpc_parse((const char *)evbuffer_pullup(in, len), len,
	    &error);
	if (*body == NULL) {
		http_reply_json(req, 400, "Bad Request", error);
		return -1;
	}
	return 0;
}

/*
 * Takes back a Streamable HTTP session this host made before it restarted
 * (its id carries the MAC of the host's token): the client goes on as if
 * nothing happened. The protocol version comes from the request's header,
 * as the client sends it after initialize (absent: 2025-03-26). NULL when
 * the id is not one of ours.
 */
static struct session *
http_session_resume(struct http_transport *transport,
    struct evhttp_request *req, const char *id)
{
	struct session	*session;
	const char	*version = http_header(req, "MCP-Protocol-Version");

	session = session_store_resume(transport->sessions, id,
	    SESSION_STREAMABLE, clock_now_ms(transport->clock));
	if (session == NULL)
		return NULL;
	snprintf(session->protocol_version, sizeof session->protocol_version,
	    "%s", version != NULL && mcp_version_supported(version) ?
	    version : MCP_DEFAULT_VERSION);
	session->initialized = true;
	log_info(transport->log, "MCP session %.8s resumed (the host restarted "
	    "since it began)", session->id);
	return session;
}

/*
 * Finds the session of a transport that id names and marks it used. On
 * failure replies 400 (no id: missing says what to send) or 404 (unknown,
 * ended or another transport's: not_found says what to do), answering
 * request's id when it has one, and returns NULL.
 */
struct session *
http_session_find(struct http_transport *transport,
    struct evhttp_request *req, const json_t *request, const char *id,
    enum session_transport kind, const char *missing, const char *not_found)
{
	struct session	*session;

	if (id == NULL) {
		http_reply_error_to(req, 400, "Bad Request", request,
		    JSONRPC_INVALID_REQUEST, missing);
		return NULL;
	}
	session = session_store_find(transport->sessions, id,
	    clock_now_ms(transport->clock));
	if (session == NULL && kind == SESSION_STREAMABLE)
		session = http_session_resume(transport, req, id);
	if (session == NULL || session->transport != kind) {
		http_reply_error_to(req, 404, "Not Found", request,
		    JSONRPC_INVALID_REQUEST, not_found);
		return NULL;
	}
	return session;
}
