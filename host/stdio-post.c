/* Requests from the stdio bridge to the host, read as replies arrive. */
#include "stdio-post.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <sodium.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-modern.h"
#include "xmalloc.h"

#define STDIO_POST_BODY_MAX		(64u * 1024 * 1024)
#define STDIO_POST_INIT_TIMEOUT_S	10
#define STDIO_POST_CALL_TIMEOUT_S	(24 * 3600)	/* tools time out */
#define STDIO_POST_DELETE_TIMEOUT_S	2

/* Frees a request and its connection, without callbacks. */
void
stdio_post_free(struct stdio_post *post)
{
	if (post->evcon != NULL)
		evhttp_connection_free(post->evcon);	/* no callbacks */
	if (post->reap != NULL)
		event_free(post->reap);
	json_decref(post->message);
	evbuffer_free(post->body);
	stdio_sse_reader_clear(&post->sse);
	free(post);
}

/* Frees a finished request from the loop, outside libevent's callbacks. */
static void
stdio_post_reap_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_post	*post = arg;

	if (post->failed_early)
		post->cb->finished(post, NULL);
	post->cb->freed(post);
	stdio_post_free(post);
}

/* Marks a request finished and schedules its freeing. */
static void
stdio_post_finish(struct stdio_post *post)
{
	post->done = true;
	event_active(post->reap, EV_TIMEOUT, 0);
}

/* Stops a request still in flight; it gets no more callbacks but freed. */
void
stdio_post_cancel(struct stdio_post *post)
{
	if (post->done)
		return;
	evhttp_connection_free(post->evcon);
	post->evcon = NULL;
	stdio_post_finish(post);
}

/* Receives one event of a streamed reply. */
static void
stdio_post_event(const char *event, const char *data, size_t len, void *arg)
{
	struct stdio_post	*post = arg;

	if (strcmp(event, "message") == 0)
		post->cb->message(post, data, len);
}

/* Takes the reply bytes that have arrived; streamed replies relay at once. */
static void
stdio_post_take(struct stdio_post *post, struct evhttp_request *req)
{
	struct evbuffer	*input = evhttp_request_get_input_buffer(req);
	size_t		 len = evbuffer_get_length(input);
	const char	*type;

	if (post->body_kind == STDIO_BODY_UNKNOWN) {
		post->status = evhttp_request_get_response_code(req);
		type = evhttp_find_header(evhttp_request_get_input_headers(req),
		    "Content-Type");
		post->body_kind = post->status == 200 && type != NULL &&
		    strncasecmp(type, "text/event-stream", 17) == 0 ?
		    STDIO_BODY_SSE : STDIO_BODY_JSON;
	}
	if (post->body_kind == STDIO_BODY_SSE) {
		stdio_sse_reader_feed(&post->sse,
		    (const char *)evbuffer_pullup(input, -1), len,
		    stdio_post_event, post);
		evbuffer_drain(input, len);
	} else if (evbuffer_get_length(post->body) + len > STDIO_POST_BODY_MAX)
		evbuffer_drain(input, len);
	else
		evbuffer_add_buffer(post->body, input);
}

/* Receives part of a reply. */
static void
stdio_post_chunk(struct evhttp_request *req, void *arg)
{
	stdio_post_take(arg, req);
}

/* Keeps libevent's reason for a failed request. */
static void
stdio_post_error_cb(enum evhttp_request_error error, void *arg)
{
	struct stdio_post	*post = arg;

	switch (error) {
	case EVREQ_HTTP_TIMEOUT:
		post->error = "timed out";
		break;
	case EVREQ_HTTP_EOF:
		post->error = "the connection closed";
		break;
	case EVREQ_HTTP_INVALID_HEADER:
		post->error = "the reply had a malformed header";
		break;
	case EVREQ_HTTP_BUFFER_ERROR:
		post->error = "connection refused or reset";
		break;
	case EVREQ_HTTP_REQUEST_CANCEL:
		post->error = "cancelled";
		break;
	case EVREQ_HTTP_DATA_TOO_LONG:
		post->error = "the reply was too large";
		break;
	}
}

/* Receives the end of a reply, or NULL when the request failed. */
static void
stdio_post_done_cb(struct evhttp_request *req, void *arg)
{
	struct stdio_post	*post = arg;

	if (post->done)
		return;
	if (req == NULL || evhttp_request_get_response_code(req) == 0) {
		post->status = 0;
		stdio_post_finish(post);
		post->cb->finished(post, NULL);
		return;
	}
	stdio_post_take(post, req);
	if (post->body_kind == STDIO_BODY_JSON && post->status == 200 &&
	    evbuffer_get_length(post->body) > 0) {
		post->cb->message(post,
		    (const char *)evbuffer_pullup(post->body, -1),
		    evbuffer_get_length(post->body));
	}
	stdio_post_finish(post);
	post->cb->finished(post, evhttp_find_header(
	    evhttp_request_get_input_headers(req), "Mcp-Session-Id"));
}

/* A request that could not leave: it fails from the loop. */
static struct stdio_post *
stdio_post_fail_early(struct stdio_post *post, const char *why)
{
	post->error = why;
	post->failed_early = true;
	stdio_post_finish(post);
	return post;
}

/*
 * Adds a routing header with a value from the body: as it is when it is
 * visible ASCII without spaces at its ends, else in the Base64 sentinel
 * form (=?base64?...?=) the host decodes.
 */
static void
stdio_post_routing_header(struct evkeyvalq *headers, const char *name,
    const char *value)
{
	size_t	 len = strlen(value), i, b64_len;
	bool	 plain = len > 0 && value[0] != ' ' && value[len - 1] != ' ' &&
		    strncmp(value, "=?base64?", 9) != 0;
	char	*b64, *text;

	for (i = 0; plain && i < len; i++)
		plain = value[i] >= 0x20 && value[i] <= 0x7e;
	if (plain) {
		evhttp_add_header(headers, name, value);
		return;
	}
	b64_len = sodium_base64_encoded_len(len,
	    sodium_base64_VARIANT_ORIGINAL);
	b64 = xmalloc(b64_len);
	sodium_bin2base64(b64, b64_len, (const unsigned char *)value, len,
	    sodium_base64_VARIANT_ORIGINAL);
	text = xasprintf("=?base64?%s?=", b64);
	evhttp_add_header(headers, name, text);
	free(text);
	free(b64);
}

/*
 * Adds the headers a 2026-07-28 request carries, from its body: the
 * version, the method and what it names (tool, resource or task).
 */
static void
stdio_post_modern_headers(struct evkeyvalq *headers, const json_t *message)
{
	const char	*method = jsonrpc_string(json_object_get(message,
			    "method"));
	const char	*field = mcp_modern_name_field(method);
	const char	*name = NULL;

	evhttp_add_header(headers, "MCP-Protocol-Version",
	    mcp_modern_version(message));
	if (method != NULL)
		stdio_post_routing_header(headers, "Mcp-Method", method);
	if (field != NULL)
		name = jsonrpc_string(json_object_get(json_object_get(message,
		    "params"), field));
	if (name != NULL)
		stdio_post_routing_header(headers, "Mcp-Name", name);
}

/* Adds the headers that say who sends what to the host. */
static void
stdio_post_headers(struct evkeyvalq *headers,
    const struct stdio_post_target *target, enum stdio_post_kind kind,
    const json_t *message)
{
	char	*text;

	text = xasprintf("127.0.0.1:%d", target->port);
	evhttp_add_header(headers, "Host", text);
	free(text);
	if (target->token != NULL) {
		text = xasprintf("Bearer %s", target->token);
		evhttp_add_header(headers, "Authorization", text);
		free(text);
	}
	if (kind == STDIO_POST_MODERN || kind == STDIO_POST_LISTEN)
		stdio_post_modern_headers(headers, message);
	else if (kind != STDIO_POST_INITIALIZE && kind != STDIO_POST_REPLAY) {
		if (target->session_id != NULL)
			evhttp_add_header(headers, "Mcp-Session-Id",
			    target->session_id);
		if (target->protocol_version != NULL)
			evhttp_add_header(headers, "MCP-Protocol-Version",
			    target->protocol_version);
	}
	if (kind == STDIO_POST_STREAM)
		evhttp_add_header(headers, "Accept", "text/event-stream");
	else if (kind != STDIO_POST_DELETE) {
		evhttp_add_header(headers, "Accept",
		    "application/json, text/event-stream");
		evhttp_add_header(headers, "Content-Type", "application/json");
	}
}

/*
 * Sends a request to the host on a new connection; steals message. The
 * owner frees it only through freed, or at the end with stdio_post_free.
 */
struct stdio_post *
stdio_post_send(struct event_base *base, const struct stdio_post_target *target,
    enum stdio_post_kind kind, json_t *message, uint64_t generation,
    const struct stdio_post_callbacks *cb)
{
	struct stdio_post	*post = xcalloc(1, sizeof *post);
	struct evhttp_request	*req;
	enum evhttp_cmd_type	 method = EVHTTP_REQ_POST;
	char			*text;
	int			 timeout = STDIO_POST_CALL_TIMEOUT_S;

	post->cb = cb;
	post->kind = kind;
	post->message = message;
	post->generation = generation;
	post->body = evbuffer_new();
	stdio_sse_reader_init(&post->sse, STDIO_POST_BODY_MAX);
	post->reap = evtimer_new(base, stdio_post_reap_cb, post);

	if (kind == STDIO_POST_INITIALIZE || kind == STDIO_POST_REPLAY)
		timeout = STDIO_POST_INIT_TIMEOUT_S;
	else if (kind == STDIO_POST_DELETE)
		timeout = STDIO_POST_DELETE_TIMEOUT_S;
	post->evcon = evhttp_connection_base_new(base, NULL, "127.0.0.1",
	    (unsigned short)target->port);
	if (post->evcon == NULL)
		return stdio_post_fail_early(post, "cannot make a connection");
	evhttp_connection_set_timeout(post->evcon, timeout);

	req = evhttp_request_new(stdio_post_done_cb, post);
	evhttp_request_set_chunked_cb(req, stdio_post_chunk);
	evhttp_request_set_error_cb(req, stdio_post_error_cb);
	stdio_post_headers(evhttp_request_get_output_headers(req), target,
	    kind, message);
	if (kind == STDIO_POST_STREAM)
		method = EVHTTP_REQ_GET;
	else if (kind == STDIO_POST_DELETE)
		method = EVHTTP_REQ_DELETE;
	else {
		text = json_dumps(message, JSON_COMPACT);
		evbuffer_add(evhttp_request_get_output_buffer(req), text,
		    strlen(text));
		free(text);
	}
	if (evhttp_make_request(post->evcon, req, method, "/mcp") != 0 &&
	    !post->done)
		return stdio_post_fail_early(post, "cannot send the request");
	return post;
}

/*
 * Returns what an error reply says ("the host answered HTTP N: ...") and
 * its JSON-RPC error code in *code (-32603 when it has none).
 */
char *
stdio_post_error_text(struct stdio_post *post, int *code)
{
	json_t		*body, *error;
	const char	*message;
	char		*text;

	*code = JSONRPC_INTERNAL_ERROR;
	body = json_loadb((const char *)evbuffer_pullup(post->body, -1),
	    evbuffer_get_length(post->body), 0, NULL);
	error = json_object_get(body, "error");
	if (json_is_integer(json_object_get(error, "code")))
		*code = (int)json_integer_value(json_object_get(error, "code"));
	message = json_string_value(json_object_get(error, "message"));
	text = xasprintf("the host answered HTTP %d: %s", post->status,
	    message != NULL ? message : "(no message)");
	json_decref(body);
	return text;
}
