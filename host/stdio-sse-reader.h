/*
 * A parser for a server-sent event stream, the client's side (the stdio
 * bridge reads the host's replies with it): bytes in,
 * complete events out through a callback. It never reads a socket. Input
 * is bounded: an event (or a line) longer than the limit is dropped.
 */
#ifndef STDIO_SSE_READER_H
#define STDIO_SSE_READER_H

#include <stdbool.h>
#include <stddef.h>

struct evbuffer;

/* Called with each complete event; data is not NUL-terminated. */
typedef void (*stdio_sse_reader_cb)(const char *event, const char *data,
		    size_t len, void *arg);

struct stdio_sse_reader {
	struct evbuffer	*line;		/* an incomplete line so far */
	char		*event;		/* the "event:" field, or NULL */
	struct evbuffer	*data;		/* "data:" lines so far */
	size_t		 max;		/* largest event kept */
	bool		 overflow;	/* dropping an event larger than max */
};

void	 stdio_sse_reader_init(struct stdio_sse_reader *parser, size_t max);
void	 stdio_sse_reader_clear(struct stdio_sse_reader *parser);
void	 stdio_sse_reader_feed(struct stdio_sse_reader *parser,
	    const char *buf, size_t len, stdio_sse_reader_cb cb, void *arg);
size_t	 stdio_sse_reader_buffered(const struct stdio_sse_reader *parser);

#endif
