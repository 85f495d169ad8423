/*
 * The MCP HTTP server on 127.0.0.1: binds, applies limits, checks Host,
 * Origin and the bearer token on every request, and routes /mcp, /sse,
 * /messages and /health to their transports.
 */
#ifndef HTTP_SERVER_H
#define HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct clock;
struct event_base;
struct http_oauth;
struct http_server;
struct log;
struct mcp;
struct session_store;

/* Where to listen, the limits, and the gate's settings. */
struct http_server_settings {
	int		 port;		/* 0: any free port */
	size_t		 max_body;
	size_t		 max_headers;
	size_t		 max_connections;	/* open at once */
	int		 head_timeout_ms;	/* for a request head */
	size_t		 min_body_rate;		/* bytes a second */
	int		 timeout_s;
	int		 keepalive_ms;	/* keepalive comments, expiry checks */
	const char	*token;		/* the bearer token; NULL: auth off */
	const char	*extension_origin;	/* NULL when unknown */
	char *const	*allowed_origins;	/* answered with CORS */
	size_t		 allowed_origin_count;
};

/* Says whether the extension is connected, for /health. */
typedef bool (*http_connected_cb)(void *arg);

struct http_server	*http_server_new(struct event_base *base,
			    const struct http_server_settings *settings,
			    struct mcp *mcp, struct session_store *sessions,
			    const struct clock *clock, struct log *log,
			    http_connected_cb connected, void *arg,
			    char **cause);
void			 http_server_free(struct http_server *server);
void			 http_server_end_streams(struct http_server *server);
uint16_t		 http_server_port(const struct http_server *server);
int			 http_server_taken_port(
			    const struct http_server *server);
void			 http_server_end_client(struct http_server *server,
			    const char *client_id);
void			 http_server_set_oauth(struct http_server *server,
			    struct http_oauth *oauth);
void			 http_server_set_port_note(struct http_server *server,
			    const char *note, bool unsafe);

#endif
