/* Streamable HTTP at /mcp: POST messages, GET the server stream, DELETE. */
#ifndef HTTP_STREAMABLE_H
#define HTTP_STREAMABLE_H

struct evhttp_request;
struct http_transport;

void	http_streamable_handle(struct http_transport *transport,
	    struct evhttp_request *req);
void	http_streamable_end_client(struct http_transport *transport,
	    const char *client_id);

#endif
