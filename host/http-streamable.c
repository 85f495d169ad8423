/* Streamable HTTP transport: one endpoint, /mcp. */
#include "http-streamable.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "clock.h"
#include "errors.h"
#include "http.h"
#include "http-resume.h"
#include "http-hangup.h"
#include "http-modern.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "mcp-call.h"
#include "mcp-version.h"
#include "mcp-modern.h"
#include "session.h"
#include "sse-stream.h"
#include "xmalloc.h"

struct http_exchange;

/* One request of a POST whose answer is awaited. */
struct http_streamable_exchange_slot {
	struct http_exchange	*exchange;
	struct mcp_call		*call;		/* NULL once answered */
};

/*
 * One POST being answered: as a single JSON reply once every request in it
 * has its response, or as an SSE stream when progress was asked for.
 */
struct http_exchange {
	struct http_transport		*transport;
	struct evhttp_request		*req;
	struct sse_stream		*stream;	/* SSE mode, else NULL */
	json_t				*responses;	/* JSON mode */
	struct http_hangup		*hangup;	/* JSON mode, pending */
	struct session			*stateless;	/* a modern request's */
	bool				 batch;
	size_t				 outstanding;
	size_t				 slot_count;
	struct http_streamable_exchange_slot	 slots[];
};

/* Returns whether the Accept header allows a media type. */
static bool
http_streamable_accepts(struct evhttp_request *req, const char *type)
{
	const char	*accept = http_header(req, "Accept");

	return accept == NULL || strstr(accept, type) != NULL ||
	    strstr(accept, "*/*") != NULL;
}

/* Frees an exchange whose HTTP reply is done. */
static void
http_streamable_exchange_free(struct http_exchange *exchange)
{
	http_hangup_free(exchange->hangup);
	if (exchange->stateless != NULL)
		session_stateless_free(exchange->stateless);
	json_decref(exchange->responses);
	free(exchange);
}

/* Every request has its answer: send the reply and free the exchange. */
static void
http_streamable_exchange_finish(struct http_exchange *exchange)
{
	struct evhttp_request		*req = exchange->req;
	struct evhttp_connection	*evcon;
	json_t				*body = NULL;

	if (exchange->stream != NULL) {
		sse_stream_end(exchange->stream);
		http_streamable_exchange_free(exchange);
		return;
	}
	evcon = evhttp_request_get_connection(req);
	if (evcon != NULL)
		evhttp_connection_set_closecb(evcon, NULL, NULL);
	if (json_array_size(exchange->responses) > 0) {
		body = exchange->batch ? json_incref(exchange->responses) :
		    json_incref(json_array_get(exchange->responses, 0));
		/* A modern server answers an unknown method with 404. */
		if (exchange->stateless != NULL && json_integer_value(
		    json_object_get(json_object_get(body, "error"), "code")) ==
		    JSONRPC_METHOD_NOT_FOUND)
			http_reply_json(req, 404, "Not Found", body);
		else
			http_reply_json(req, 200, "OK", body);
	} else
		http_reply_json(req, 202, "Accepted", NULL);
	http_streamable_exchange_free(exchange);
}

/* Receives a response or progress for one request of the POST. */
static void
http_streamable_exchange_emit(json_t *message, bool final, void *arg)
{
	struct http_streamable_exchange_slot	*slot = arg;
	struct http_exchange		*exchange = slot->exchange;

	if (message != NULL) {
		if (exchange->stream != NULL)
			sse_stream_message(exchange->stream, "message", message);
		else if (final)
			json_array_append(exchange->responses, message);
		json_decref(message);
	}
	if (!final)
		return;
	slot->call = NULL;
	if (--exchange->outstanding == 0)
		http_streamable_exchange_finish(exchange);
}

/* The client went away before its answers: cancel what is in flight. */
static void
http_streamable_exchange_abandon(struct http_exchange *exchange)
{
	size_t	i;

	for (i = 0; i < exchange->slot_count; i++) {
		if (exchange->slots[i].call != NULL)
			mcp_call_abandon(exchange->transport->mcp,
			    exchange->slots[i].call);
	}
}

/* Close callback for a POST waiting in JSON mode. */
static void
http_streamable_exchange_closed(struct evhttp_connection *evcon, void *arg)
{
	struct http_exchange	*exchange = arg;

	http_streamable_exchange_abandon(exchange);
	/* A detached request is ours to free; an attached one is libevent's. */
	if (evhttp_request_get_connection(exchange->req) == NULL)
		evhttp_send_reply_end(exchange->req);
	http_streamable_exchange_free(exchange);
}

/* Close callback for a POST answered as an SSE stream. */
static void
http_streamable_exchange_stream_closed(struct sse_stream *stream, void *arg)
{
	struct http_exchange	*exchange = arg;

	http_streamable_exchange_abandon(exchange);
	http_streamable_exchange_free(exchange);
}

/* Returns whether any message in the POST is to be answered on a stream. */
static bool
http_streamable_wants_stream(struct http_transport *transport,
    struct evhttp_request *req, struct session *session, json_t *messages)
{
	size_t	 i;
	json_t	*m;

	if (!http_streamable_accepts(req, "text/event-stream"))
		return false;
	json_array_foreach(messages, i, m) {
		if (mcp_wants_stream(transport->mcp, session, m))
			return true;
	}
	return false;
}

/*
 * Dispatches every message of a POST and answers when all are done. A
 * stateless session (a modern request's) is the exchange's to free.
 */
static void
http_streamable_dispatch(struct http_transport *transport,
    struct evhttp_request *req, struct session *session, json_t *messages,
    bool batch)
{
	struct http_exchange	*exchange;
	struct mcp_call		*call;
	size_t			 i, n = json_array_size(messages);

	exchange = xcalloc(1, sizeof *exchange + n * sizeof *exchange->slots);
	exchange->transport = transport;
	exchange->req = req;
	exchange->batch = batch;
	exchange->responses = json_array();
	exchange->slot_count = n;
	exchange->outstanding = n + 1;	/* held until the loop ends */
	if (session->transport == SESSION_STATELESS)
		exchange->stateless = session;
	if (http_streamable_wants_stream(transport, req, session, messages)) {
		exchange->stream = sse_stream_start(&transport->streams, req,
		    transport->grant->client_id,
		    http_streamable_exchange_stream_closed, exchange);
	}
	for (i = 0; i < n; i++) {
		exchange->slots[i].exchange = exchange;
		switch (mcp_handle(transport->mcp, session,
		    json_array_get(messages, i), http_streamable_exchange_emit,
		    &exchange->slots[i], &call)) {
		case MCP_PENDING:
			exchange->slots[i].call = call;
			break;
		case MCP_NO_REPLY:
			exchange->outstanding--;
			break;
		case MCP_REPLIED:
			break;	/* emit counted it down */
		}
	}
	if (--exchange->outstanding == 0)
		http_streamable_exchange_finish(exchange);
	else if (exchange->stream == NULL) {
		evhttp_connection_set_closecb(evhttp_request_get_connection(req),
		    http_streamable_exchange_closed, exchange);
		exchange->hangup = http_hangup_watch(req);
	}
}

/*
 * Finds the session a request names; on failure replies 400 or 404 with
 * the id of body (the parsed message, or NULL).
 */
static struct session *
http_streamable_session(struct http_transport *transport,
    struct evhttp_request *req, const json_t *body)
{
	return http_resume_find(transport, req, body,
	    http_header(req, "Mcp-Session-Id"), SESSION_STREAMABLE,
	    "Bad Request: Mcp-Session-Id header is required; send initialize "
	    "first", "Session not found (ended or expired): initialize again");
}

/*
 * Checks the MCP-Protocol-Version header; replies 400 with the id of body
 * (or NULL) when unsupported.
 */
static int
http_streamable_check_version(struct evhttp_request *req, const json_t *body)
{
	const char	*version = http_header(req, "MCP-Protocol-Version");
	char		*message;

	if (version == NULL || mcp_version_supported(version))
		return 0;
	message = xasprintf("Unsupported MCP-Protocol-Version %s: this "
	    "server speaks 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05",
	    version);
	http_reply_error_to(req, 400, "Bad Request", body,
	    JSONRPC_INVALID_REQUEST, message);
	free(message);
	return -1;
}

/*
 * POST /mcp of a modern (2026-07-28) request: checked, then served in a
 * state of its own; Mcp-Session-Id is ignored.
 */
static void
http_streamable_post_modern(struct http_transport *transport,
    struct evhttp_request *req, json_t *body, const char *version)
{
	json_t		*messages;
	struct session	*session;
	const char	*method = jsonrpc_string(json_object_get(body, "method"));

	if (http_modern_check(req, body, version) != 0)
		return;
	if (method != NULL && strcmp(method, "subscriptions/listen") == 0 &&
	    json_object_get(body, "id") != NULL) {
		http_modern_listen(transport, req, body);
		return;
	}
	messages = json_pack("[O]", body);
	if (http_resume_scope_check(transport, req, messages) != 0) {
		json_decref(messages);
		return;
	}
	session = session_stateless_new(version);
	session->grant = *transport->grant;
	/* Who asks, if it says (optional in this revision). */
	session_set_client(session, json_object_get(json_object_get(
	    json_object_get(body, "params"), "_meta"), MCP_META_CLIENT_INFO));
	http_streamable_dispatch(transport, req, session, messages, false);
	json_decref(messages);
}

/* POST /mcp: one message, or a batch under 2025-03-26. */
static void
http_streamable_post(struct http_transport *transport,
    struct evhttp_request *req)
{
	struct session	*session;
	json_t		*body, *messages, *refusal;
	const char	*version;
	bool		 batch;

	if (!http_streamable_accepts(req, "application/json") &&
	    !http_streamable_accepts(req, "text/event-stream")) {
		http_reply_error(req, 406, "Not Acceptable",
		    JSONRPC_INVALID_REQUEST, "Accept must include "
		    "application/json and text/event-stream");
		return;
	}
	if (http_body_json(req, &body) != 0)
		return;
	batch = json_is_array(body);
	if (!batch && (version = mcp_modern_version(body)) != NULL) {
		http_streamable_post_modern(transport, req, body, version);
		json_decref(body);
		return;
	}
	if ((version = http_header(req, "MCP-Protocol-Version")) != NULL &&
	    mcp_modern_version_supported(version)) {
		http_reply_error_to(req, 400, "Bad Request", body,
		    JSONRPC_INVALID_PARAMS, "Invalid params: a "
		    MCP_MODERN_VERSION " request carries params._meta with "
		    MCP_META_VERSION " and " MCP_META_CAPABILITIES);
		json_decref(body);
		return;
	}
	if (!batch && mcp_is_initialize(body) &&
	    (refusal = mcp_initialize_refusal(body)) != NULL) {
		http_reply_json(req, 200, "OK", refusal);	/* and no session */
		json_decref(body);
		return;
	}
	if (!batch && mcp_is_initialize(body)) {
		session = session_store_create(transport->sessions,
		    SESSION_STREAMABLE, clock_now_ms(transport->clock));
		if (session == NULL) {
			http_reply_error(req, 503, "Service Unavailable",
			    JSONRPC_INTERNAL_ERROR, "Too many MCP sessions "
			    "are busy; close some clients and retry");
			json_decref(body);
			return;
		}
		session->grant = *transport->grant;
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Mcp-Session-Id", session->id);
		log_info(transport->log, "MCP session %.8s started",
		    session->id);
	} else if ((session = http_streamable_session(transport, req,
	    body)) == NULL || http_streamable_check_version(req, body) != 0) {
		json_decref(body);
		return;
	}
	if (batch && (strcmp(session->protocol_version, "2025-03-26") != 0 ||
	    json_array_size(body) == 0)) {
		http_reply_error(req, 400, "Bad Request",
		    JSONRPC_INVALID_REQUEST, json_array_size(body) == 0 ?
		    "Invalid request: empty batch" : "Invalid request: "
		    "batches are only allowed under protocol 2025-03-26");
		json_decref(body);
		return;
	}
	messages = batch ? json_incref(body) : json_pack("[O]", body);
	if (http_resume_scope_check(transport, req, messages) == 0)
		http_streamable_dispatch(transport, req, session, messages,
		    batch);
	json_decref(messages);
	json_decref(body);
}

/* The client closed its GET stream. */
static void
http_streamable_stream_closed(struct sse_stream *stream, void *arg)
{
	struct session	*session = arg;

	if (session->stream == stream)
		session->stream = NULL;
}

/*
 * Answers 405 when a GET or DELETE names the modern version, which has
 * neither a GET stream nor sessions; returns -1 then.
 */
static int
http_streamable_refuse_modern(struct evhttp_request *req)
{
	const char	*version = http_header(req, "MCP-Protocol-Version");

	if (version == NULL || !mcp_modern_version_supported(version))
		return 0;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
	    "POST");
	http_reply_error(req, 405, "Method Not Allowed",
	    JSONRPC_INVALID_REQUEST, MCP_MODERN_VERSION " has no GET stream "
	    "and no sessions to DELETE: send each request as a POST");
	return -1;
}

/* GET /mcp: the stream for notifications that belong to no request. */
static void
http_streamable_get(struct http_transport *transport,
    struct evhttp_request *req)
{
	struct session	*session;

	if (http_streamable_refuse_modern(req) != 0)
		return;
	if (!http_streamable_accepts(req, "text/event-stream")) {
		http_reply_error(req, 406, "Not Acceptable",
		    JSONRPC_INVALID_REQUEST,
		    "Accept must include text/event-stream");
		return;
	}
	if ((session = http_streamable_session(transport, req, NULL)) == NULL ||
	    http_streamable_check_version(req, NULL) != 0)
		return;
	if (session->stream != NULL)
		sse_stream_end(session->stream);	/* a reconnect wins */
	session->stream = sse_stream_start(&transport->streams, req,
	    transport->grant->client_id, http_streamable_stream_closed,
	    session);
	sse_stream_comment(session->stream, "stream open");
}

/* DELETE /mcp: the client ends its session. */
static void
http_streamable_delete(struct http_transport *transport,
    struct evhttp_request *req)
{
	struct session	*session;

	if (http_streamable_refuse_modern(req) != 0 ||
	    (session = http_streamable_session(transport, req, NULL)) == NULL ||
	    http_streamable_check_version(req, NULL) != 0)
		return;
	log_info(transport->log, "MCP session %.8s ended by the client",
	    session->id);
	session_store_terminate(transport->sessions, session);
	http_reply_json(req, 200, "OK", NULL);
}

/* Routes /mcp by method. */
void
http_streamable_handle(struct http_transport *transport,
    struct evhttp_request *req)
{
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_POST:
		http_streamable_post(transport, req);
		break;
	case EVHTTP_REQ_GET:
		http_streamable_get(transport, req);
		break;
	case EVHTTP_REQ_DELETE:
		http_streamable_delete(transport, req);
		break;
	default:
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", "GET, POST, DELETE");
		http_reply_error(req, 405, "Method Not Allowed",
		    JSONRPC_INVALID_REQUEST, "Use POST, GET or DELETE on /mcp");
		break;
	}
}
