/*
 * A parser for a server-sent event stream, the client's side: bytes in,
 * complete events out through a callback. It never reads a socket. Input
 * is bounded: an event (or a line) longer than the limit is dropped.
 */
#ifndef SSE_PARSER_H
#define SSE_PARSER_H

#include <stdbool.h>
#include <stddef.h>

struct evbuffer;

/* Called with each complete event; data is not NUL-terminated. */
typedef void (*sse_event_cb)(const char *event, const char *data, size_t len,
		    void *arg);

struct sse_parser {
	struct evbuffer	*line;		/* an incomplete line so far */
	char		*event;		/* the "event:" field, or NULL */
	struct evbuffer	*data;		/* "data:" lines so far */
	size_t		 max;		/* largest event kept */
	bool		 overflow;	/* dropping an event larger than max */
};

void	 sse_parser_init(struct sse_parser *parser, size_t max);
void	 sse_parser_clear(struct sse_parser *parser);
void	 sse_parser_feed(struct sse_parser *parser, const char *buf,
	    size_t len, sse_event_cb cb, void *arg);
size_t	 sse_parser_buffered(const struct sse_parser *parser);

#endif
