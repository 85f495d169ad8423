/* The client-side SSE parser: lines gather into events. */
#include "stdio-sse-reader.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "xmalloc.h"

/* Prepares a parser that keeps events up to max bytes. */
void
stdio_sse_reader_init(struct stdio_sse_reader *parser, size_t max)
{
	memset(parser, 0, sizeof *parser);
	parser->line = evbuffer_new();
	parser->data = evbuffer_new();
	parser->max = max;
}

/* Frees what a parser holds. */
void
stdio_sse_reader_clear(struct stdio_sse_reader *parser)
{
	free(parser->event);
	if (parser->line != NULL)
		evbuffer_free(parser->line);
	if (parser->data != NULL)
		evbuffer_free(parser->data);
	memset(parser, 0, sizeof *parser);
}

/* Ends an event at a blank line: hands it on, then starts afresh. */
static void
stdio_sse_reader_dispatch(struct stdio_sse_reader *parser,
    stdio_sse_reader_cb cb, void *arg)
{
	size_t	 len = evbuffer_get_length(parser->data);
	char	*data;

	if (!parser->overflow && len > 0) {
		data = (char *)evbuffer_pullup(parser->data, -1);
		cb(parser->event != NULL ? parser->event : "message", data,
		    len - 1, arg);	/* without the last line's newline */
	}
	evbuffer_drain(parser->data, len);
	free(parser->event);
	parser->event = NULL;
	parser->overflow = false;
}

/* Takes one line: a field, or the blank line that ends an event. */
static void
stdio_sse_reader_line(struct stdio_sse_reader *parser, const char *line,
    size_t len, stdio_sse_reader_cb cb, void *arg)
{
	const char	*colon, *value;
	size_t		 name_len, value_len;

	if (len == 0) {
		stdio_sse_reader_dispatch(parser, cb, arg);
		return;
	}
	colon = memchr(line, ':', len);
	name_len = colon != NULL ? (size_t)(colon - line) : len;
	value = colon != NULL ? colon + 1 : line + len;
	if (colon != NULL && *value == ' ')
		value++;
	value_len = len - (size_t)(value - line);
	if (name_len == 4 && strncmp(line, "data", 4) == 0) {
		if (evbuffer_get_length(parser->data) + value_len + 1 >
		    parser->max) {
			parser->overflow = true;
			evbuffer_drain(parser->data,
			    evbuffer_get_length(parser->data));
		}
		if (!parser->overflow) {
			evbuffer_add(parser->data, value, value_len);
			evbuffer_add(parser->data, "\n", 1);
		}
	} else if (name_len == 5 && strncmp(line, "event", 5) == 0) {
		free(parser->event);
		parser->event = xstrndup(value, value_len);
	}
}

/*
 * Consumes bytes: "data:" lines gather, "event:" names the event, a blank
 * line ends it, comments and other fields are skipped. Lines may end in
 * LF or CRLF and may be split anywhere between calls.
 */
void
stdio_sse_reader_feed(struct stdio_sse_reader *parser, const char *buf,
    size_t len, stdio_sse_reader_cb cb, void *arg)
{
	char	*line;
	size_t	 line_len;

	evbuffer_add(parser->line, buf, len);
	while ((line = evbuffer_readln(parser->line, &line_len,
	    EVBUFFER_EOL_CRLF)) != NULL) {
		stdio_sse_reader_line(parser, line, line_len, cb, arg);
		free(line);
	}
	if (evbuffer_get_length(parser->line) > parser->max) {
		/* One line longer than any event may be: drop it. */
		parser->overflow = true;
		evbuffer_drain(parser->line, evbuffer_get_length(parser->line));
	}
}

/* Returns how many bytes of an incomplete line the parser holds. */
size_t
stdio_sse_reader_buffered(const struct stdio_sse_reader *parser)
{
	return evbuffer_get_length(parser->line);
}
