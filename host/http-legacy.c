/* Legacy HTTP+SSE transport: GET /sse and POST /messages?sessionId=. */
#include "http-legacy.h"

#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "clock.h"
#include "errors.h"
#include "http.h"
#include "http-resume.h"
#include "log.h"
#include "mcp.h"
#include "session.h"
#include "sse-stream.h"
#include "xmalloc.h"

/* Sends a response or notification down the session's stream. */
static void
http_legacy_emit(json_t *message, bool final, void *arg)
{
	struct session	*session = arg;

	if (message == NULL)
		return;
	if (session->stream != NULL)
		sse_stream_message(session->stream, "message", message);
	json_decref(message);
}

/* The client closed its stream: the session ends with it. */
static void
http_legacy_closed(struct sse_stream *stream, void *arg)
{
	struct session	*session = arg;

	session->stream = NULL;
	session_store_remove(session->store, session);
}

/* GET /sse: a new session whose first event names the POST endpoint. */
void
http_legacy_open(struct http_transport *transport,
    struct evhttp_request *req)
{
	struct session	*session;
	char		*endpoint;

	session = session_store_create(transport->sessions, SESSION_LEGACY_SSE,
	    clock_now_ms(transport->clock));
	if (session == NULL) {
		http_reply_error(req, 503, "Service Unavailable",
		    JSONRPC_INTERNAL_ERROR, "Too many MCP sessions are busy; "
		    "close some clients and retry");
		return;
	}
	snprintf(session->protocol_version, sizeof session->protocol_version,
	    "2024-11-05");
	session->grant = *transport->grant;
	session->stream = sse_stream_start(&transport->streams, req,
	    transport->grant->client_id, http_legacy_closed, session);
	endpoint = xasprintf("/messages?sessionId=%s", session->id);
	sse_stream_event(session->stream, "endpoint", endpoint);
	free(endpoint);
	log_info(transport->log, "legacy SSE session %.8s started",
	    session->id);
}

/* POST /messages: dispatch; every answer goes back on the stream. */
void
http_legacy_post(struct http_transport *transport,
    struct evhttp_request *req)
{
	struct evkeyvalq	 query;
	struct session		*session;
	struct mcp_call		*call;
	json_t			*body, *messages, *m;
	size_t			 i;

	TAILQ_INIT(&query);
	evhttp_parse_query(evhttp_request_get_uri(req), &query);
	if (http_body_json(req, &body) != 0)
		goto out;
	session = http_resume_find(transport, req, body,
	    evhttp_find_header(&query, "sessionId"), SESSION_LEGACY_SSE,
	    "sessionId is missing: POST to the endpoint the /sse stream named",
	    "Session not found (ended or expired): open /sse again");
	if (session == NULL) {
		json_decref(body);
		goto out;
	}
	messages = json_is_array(body) ? json_incref(body) :
	    json_pack("[O]", body);
	if (http_resume_scope_check(transport, req, messages) != 0) {
		json_decref(messages);
		json_decref(body);
		goto out;
	}
	json_array_foreach(messages, i, m)
		mcp_handle(transport->mcp, session, m, http_legacy_emit, session,
		    &call);
	json_decref(messages);
	json_decref(body);
	http_reply_json(req, 202, "Accepted", NULL);
out:
	evhttp_clear_headers(&query);
}
