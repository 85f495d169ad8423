/*
 * The MCP HTTP server on 127.0.0.1: binds, applies limits, checks Host,
 * Origin and the bearer token on every request, and routes /mcp, /sse,
 * /messages and /health to their transports.
 */
#ifndef HTTP_SERVER_H
#define HTTP_SERVER_H

#include <stdint.h>

#include <jansson.h>

struct bridge;
struct evhttp_request;
struct http_server;
struct sse_stream_list;

struct http_server	*http_server_new(struct bridge *bridge, char **cause);
void			 http_server_free(struct http_server *server);
void			 http_server_end_streams(struct http_server *server);
struct sse_stream_list	*http_server_streams(struct http_server *server);
void			 http_reply_json(struct evhttp_request *req,
			    int status, const char *reason, json_t *body);
void			 http_reply_error(struct evhttp_request *req,
			    int status, const char *reason, int code,
			    const char *message);
const char		*http_header(struct evhttp_request *req,
			    const char *name);
int			 http_body_json(struct evhttp_request *req,
			    json_t **body);

#endif
