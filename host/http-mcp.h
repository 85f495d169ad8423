/* Streamable HTTP at /mcp: POST messages, GET the server stream, DELETE. */
#ifndef HTTP_MCP_H
#define HTTP_MCP_H

struct bridge;
struct evhttp_request;

void	http_mcp_handle(struct bridge *bridge, struct evhttp_request *req);

#endif
