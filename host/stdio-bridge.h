/*
 * browser-bridge stdio: an MCP server on stdin and stdout (newline-delimited
 * JSON-RPC, the MCP stdio transport) for clients that only start stdio
 * servers. It relays every message to the running host over Streamable
 * HTTP (found through the runtime file, authenticated with the user's
 * token) and every message back. Without a host it answers initialize and
 * tools/list itself, fails tool calls with a result that says to open the
 * browser, and connects as soon as a host appears.
 */
#ifndef STDIO_BRIDGE_H
#define STDIO_BRIDGE_H

#include <stddef.h>

#include <jansson.h>

struct config;
struct evbuffer;

/* How often the bridge looks for a host while it has none. */
#define STDIO_BRIDGE_RETRY_MS	1000


/* Called with each complete event of a server-sent event stream. */
typedef void (*stdio_sse_event_cb)(const char *event, const char *data,
		    size_t len, void *arg);

/* An incremental parser for a server-sent event stream (client side). */
struct stdio_sse_parser {
	char		*event;		/* the "event:" field, or NULL */
	struct evbuffer	*data;		/* "data:" lines so far */
	size_t		 max;		/* largest event kept */
	int		 overflow;	/* dropping an event larger than max */
};

void	 stdio_sse_init(struct stdio_sse_parser *parser, size_t max);
void	 stdio_sse_clear(struct stdio_sse_parser *parser);
void	 stdio_sse_feed(struct stdio_sse_parser *parser, struct evbuffer *input,
	    stdio_sse_event_cb cb, void *arg);

int	 stdio_bridge_run(struct config *config, int out_fd);

#endif
