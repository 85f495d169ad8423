/* Streamable HTTP at /mcp: POST messages, GET the server stream, DELETE. */
#ifndef HTTP_MCP_H
#define HTTP_MCP_H

struct evhttp_request;
struct http_transport;

void	http_mcp_handle(struct http_transport *transport,
	    struct evhttp_request *req);

#endif
