/*
 * What the HTTP routes share: the helpers every route uses, and the parts
 * of the host the MCP transports (http-streamable.c, http-legacy.c) work
 * with.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stdint.h>

#include <jansson.h>

#include "session.h"
#include "sse-stream.h"

struct clock;
struct evhttp_request;
struct log;
struct mcp;
struct session_store;

/* What the MCP transports work with; owned by the HTTP server. */
struct http_transport {
	struct mcp		*mcp;
	struct session_store	*sessions;
	const struct clock	*clock;
	struct log		*log;
	struct sse_stream_list	 streams;	/* every open SSE stream */
	uint16_t		 port;		/* where the server listens */
	/*
	 * The credential of the request the router is handing over: set
	 * for the call into the transport only, never read later.
	 */
	const struct session_grant *grant;
};

void		 http_reply_json(struct evhttp_request *req, int status,
		    const char *reason, json_t *body);
void		 http_reply_error(struct evhttp_request *req, int status,
		    const char *reason, int code, const char *message);
void		 http_reply_error_to(struct evhttp_request *req, int status,
		    const char *reason, const json_t *request, int code,
		    const char *message);
const char	*http_header(struct evhttp_request *req, const char *name);
int		 http_body_json(struct evhttp_request *req, json_t **body);

#endif
