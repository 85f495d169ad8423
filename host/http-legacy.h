/*
 * The legacy HTTP+SSE transport (MCP 2024-11-05): GET /sse opens a stream
 * that first names the endpoint to POST to; every reply travels back on
 * that stream as an "event: message".
 */
#ifndef HTTP_LEGACY_H
#define HTTP_LEGACY_H

struct evhttp_request;
struct http_transport;

void	http_legacy_open(struct http_transport *transport,
	    struct evhttp_request *req);
void	http_legacy_post(struct http_transport *transport,
	    struct evhttp_request *req);

#endif
