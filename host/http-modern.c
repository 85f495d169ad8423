/*
 * Streamable HTTP for MCP 2026-07-28: the version and routing headers, and
 * the streams of subscriptions/listen.
 */
#include "http-modern.h"

#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <sodium.h>

#include "errors.h"
#include "http.h"
#include "jsonrpc.h"
#include "mcp.h"
#include "mcp-modern.h"
#include "sse-stream.h"
#include "xmalloc.h"

#define HTTP_MODERN_B64_PREFIX	"=?base64?"
#define HTTP_MODERN_B64_SUFFIX	"?="

/*
 * A header value as the body would hold it: the Base64 sentinel form
 * (=?base64?...?=) decoded, else the value itself. NULL when the sentinel
 * does not decode. Free the result.
 */
static char *
http_modern_decode(const char *value)
{
	size_t	 len = strlen(value), pre = strlen(HTTP_MODERN_B64_PREFIX),
		 suf = strlen(HTTP_MODERN_B64_SUFFIX), out_len;
	char	*out;

	if (len < pre + suf || strncmp(value, HTTP_MODERN_B64_PREFIX, pre) != 0 ||
	    strcmp(value + len - suf, HTTP_MODERN_B64_SUFFIX) != 0)
		return xstrdup(value);
	out = xmalloc(len + 1);
	if (sodium_base642bin((unsigned char *)out, len, value + pre,
	    len - pre - suf, NULL, &out_len, NULL,
	    sodium_base64_VARIANT_ORIGINAL) != 0) {
		free(out);
		return NULL;
	}
	out[out_len] = '\0';
	return out;
}

/* Answers 400 with a HeaderMismatch error; returns -1. */
static int
http_modern_mismatch(struct evhttp_request *req, const json_t *body,
    const char *message)
{
	char	*text = xasprintf("Header mismatch: %s", message);

	http_reply_error_to(req, 400, "Bad Request", body, MCP_HEADER_MISMATCH,
	    text);
	free(text);
	return -1;
}

/*
 * Checks that a routing header is present and equals the body's value;
 * replies 400 and returns -1 when it does not.
 */
static int
http_modern_header(struct evhttp_request *req, const json_t *body,
    const char *name, const char *expected)
{
	const char	*value = http_header(req, name);
	char		*decoded, *message;
	int		 rc = 0;

	if (value == NULL) {
		message = xasprintf("the %s header is required", name);
		rc = http_modern_mismatch(req, body, message);
		free(message);
		return rc;
	}
	decoded = http_modern_decode(value);
	if (decoded == NULL || expected == NULL ||
	    strcmp(decoded, expected) != 0) {
		message = xasprintf("%s header value '%s' does not match the "
		    "body value '%s'", name, value, expected != NULL ?
		    expected : "(none)");
		rc = http_modern_mismatch(req, body, message);
		free(message);
	}
	free(decoded);
	return rc;
}

/*
 * Checks a modern request before it is served: the version it names is one
 * this host speaks (else 400, UnsupportedProtocolVersionError), and the
 * routing headers agree with the body (else 400, HeaderMismatch). Returns
 * 0, or -1 after replying.
 */
int
http_modern_check(struct evhttp_request *req, const json_t *body,
    const char *version)
{
	const char	*method = jsonrpc_string(json_object_get(body, "method"));
	const char	*name_field = mcp_modern_name_field(method);
	json_t		*refusal;

	if (http_modern_header(req, body, "MCP-Protocol-Version", version) != 0)
		return -1;
	if ((refusal = mcp_modern_refusal(body)) != NULL) {
		http_reply_json(req, 400, "Bad Request", refusal);
		return -1;
	}
	if (http_modern_header(req, body, "Mcp-Method", method) != 0)
		return -1;
	if (name_field != NULL && http_modern_header(req, body, "Mcp-Name",
	    jsonrpc_string(json_object_get(json_object_get(body, "params"),
	    name_field))) != 0)
		return -1;
	return 0;
}

/* A subscriptions/listen stream: the listener and the stream it feeds. */
struct http_listen {
	struct http_transport	*transport;
	struct mcp_listener	*listener;
	struct sse_stream	*stream;
};

/* Writes a change notification to its listen stream. */
static void
http_modern_listen_deliver(const json_t *message, void *arg)
{
	struct http_listen	*listen = arg;

	sse_stream_message(listen->stream, "message", message);
}

/* The listen stream ended (client gone, dropped, or shutdown). */
static void
http_modern_listen_closed(struct sse_stream *stream, void *arg)
{
	struct http_listen	*listen = arg;

	mcp_unlisten(listen->transport->mcp, listen->listener);
	free(listen);
}

/*
 * subscriptions/listen: answers with an SSE stream that starts with the
 * acknowledgement (the filter honoured) and then carries the change
 * notifications asked for, with keepalive comments, until the client
 * closes it. A refused filter is answered as a JSON error.
 */
void
http_modern_listen(struct http_transport *transport,
    struct evhttp_request *req, const json_t *body)
{
	struct http_listen	*listen = xcalloc(1, sizeof *listen);
	json_t			*reply;

	listen->transport = transport;
	listen->listener = mcp_listen(transport->mcp, body,
	    http_modern_listen_deliver, listen, &reply);
	if (listen->listener == NULL) {
		free(listen);
		http_reply_json(req, 200, "OK", reply);
		return;
	}
	listen->stream = sse_stream_start(&transport->streams, req,
	    transport->grant->client_id, http_modern_listen_closed, listen);
	sse_stream_message(listen->stream, "message", reply);
	json_decref(reply);
}
