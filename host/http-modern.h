/*
 * Streamable HTTP for MCP 2026-07-28: a POST whose body names its protocol
 * version in params._meta is served without a session. Its routing headers
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name) must agree with the body.
 */
#ifndef HTTP_MODERN_H
#define HTTP_MODERN_H

#include <jansson.h>

struct evhttp_request;
struct http_transport;

int	http_modern_check(struct evhttp_request *req, const json_t *body,
	    const char *version);
void	http_modern_listen(struct http_transport *transport,
	    struct evhttp_request *req, const json_t *body);

#endif
