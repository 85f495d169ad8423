/* Request framing on a server connection, the way libevent 2.1 frames. */
#include "http-framer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/util.h>

#include "queue.h"
#include "xmalloc.h"

/* The longest chunk-size line we read: 16 hex digits and some slack. */
#define HTTP_FRAMER_CHUNK_LINE_MAX	64
/* The longest trailer line we read. */
#define HTTP_FRAMER_TRAILER_LINE_MAX	1024

enum http_framer_state {
	HTTP_FRAMER_STATE_HEAD,		/* reading a head */
	HTTP_FRAMER_STATE_JUDGING,	/* a head waits for http_framer_pass */
	HTTP_FRAMER_STATE_BODY,		/* Content-Length bytes to go */
	HTTP_FRAMER_STATE_CHUNK_SIZE,	/* a chunk-size line to read */
	HTTP_FRAMER_STATE_CHUNK_DATA,	/* a chunk's bytes to go */
	HTTP_FRAMER_STATE_TRAILER,	/* trailer lines, up to an empty one */
	HTTP_FRAMER_STATE_BROKEN,	/* an error was returned */
};

struct http_framer {
	enum http_framer_state	 state;
	size_t			 max_headers;
	size_t			 max_body;
	struct evbuffer		*head_bytes;	/* the head being read */
	struct http_head	 head;		/* valid while judging */
	uint64_t		 to_go;		/* of the body or the chunk */
	uint64_t		 body_size;	/* chunked: the sum so far */
	size_t			 trailer_size;
	uint64_t		 whole;		/* requests gone to dst whole */
	struct http_framer_error error;
};

/* The methods libevent 2.1 knows; any other is refused. */
static const char *const http_framer_methods[] = {
	"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT",
	"PATCH",
};

/* A framer for one connection: heads up to max_headers, bodies max_body. */
struct http_framer *
http_framer_new(size_t max_headers, size_t max_body)
{
	struct http_framer	*framer = xcalloc(1, sizeof *framer);

	framer->max_headers = max_headers;
	framer->max_body = max_body;
	framer->head_bytes = evbuffer_new();
	TAILQ_INIT(&framer->head.headers);
	return framer;
}

/* Forgets the parsed head. */
static void
http_framer_clear_head(struct http_framer *framer)
{
	free(framer->head.method);
	free(framer->head.target);
	evhttp_clear_headers(&framer->head.headers);
	memset(&framer->head, 0, sizeof framer->head);
	TAILQ_INIT(&framer->head.headers);
}

/* Frees a framer (NULL is fine). */
void
http_framer_free(struct http_framer *framer)
{
	if (framer == NULL)
		return;
	http_framer_clear_head(framer);
	evbuffer_free(framer->head_bytes);
	free(framer);
}

/* Breaks the stream: the caller replies with status and closes. */
static enum http_framer_result
http_framer_break(struct http_framer *framer, int status, const char *reason,
    const char *message)
{
	framer->state = HTTP_FRAMER_STATE_BROKEN;
	framer->error.status = status;
	framer->error.reason = reason;
	snprintf(framer->error.message, sizeof framer->error.message, "%s",
	    message);
	return HTTP_FRAMER_ERROR;
}

/* Breaks the stream for a body over max_body bytes. */
static enum http_framer_result
http_framer_too_large(struct http_framer *framer, uint64_t size)
{
	http_framer_break(framer, 413, "Payload Too Large", "");
	snprintf(framer->error.message, sizeof framer->error.message,
	    "Request body too large: %llu bytes or more, and the host takes "
	    "at most %zu (the max-body setting)", (unsigned long long)size,
	    framer->max_body);
	return HTTP_FRAMER_ERROR;
}

/* Says whether method is one libevent 2.1 parses. */
static bool
http_framer_known_method(const char *method)
{
	size_t	i;

	for (i = 0; i < sizeof http_framer_methods /
	    sizeof http_framer_methods[0]; i++) {
		if (strcmp(method, http_framer_methods[i]) == 0)
			return true;
	}
	return false;
}

/*
 * Parses "METHOD SP target SP HTTP/1.x": the method up to the first space,
 * the version after the last one, as libevent does. -1 if malformed.
 */
static int
http_framer_parse_request_line(struct http_head *head, char *line)
{
	char	*target, *version;

	if ((target = strchr(line, ' ')) == NULL)
		return -1;
	*target++ = '\0';
	if ((version = strrchr(target, ' ')) == NULL || version == target)
		return -1;
	*version++ = '\0';
	if (!http_framer_known_method(line) ||
	    (strcmp(version, "HTTP/1.1") != 0 &&
	    strcmp(version, "HTTP/1.0") != 0))
		return -1;
	head->method = xstrdup(line);
	head->target = xstrdup(target);
	return 0;
}

/* Appends a folded line's text to the last header's value. */
static int
http_framer_fold(struct http_head *head, const char *more)
{
	struct evkeyval	*last = TAILQ_LAST(&head->headers, evkeyvalq);
	char		*value;

	if (last == NULL)
		return -1;
	more += strspn(more, " \t");
	value = xasprintf("%s %s", last->value, more);
	free(last->value);
	last->value = value;
	return 0;
}

/* Parses "Name: value" into the head's headers. -1 if malformed. */
static int
http_framer_parse_header(struct http_head *head, char *line)
{
	char	*colon = strchr(line, ':'), *value, *end;

	if (colon == NULL || colon == line)
		return -1;
	*colon = '\0';
	value = colon + 1 + strspn(colon + 1, " \t");
	end = value + strlen(value);
	while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return evhttp_add_header(&head->headers, line, value);
}

/* Splits text (NUL-terminated, lines ending "\n" or "\r\n") into a head. */
static int
http_framer_parse_head(struct http_head *head, char *text)
{
	char	*line, *next;
	bool	 first = true;

	for (line = text; *line != '\0'; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (next - line >= 2 && next[-2] == '\r')
			next[-2] = '\0';
		if (*line == '\0')
			break;		/* the empty line that ends the head */
		if (first) {
			if (http_framer_parse_request_line(head, line) != 0)
				return -1;
			first = false;
		} else if (*line == ' ' || *line == '\t') {
			if (http_framer_fold(head, line) != 0)
				return -1;
		} else if (http_framer_parse_header(head, line) != 0)
			return -1;
	}
	return first ? -1 : 0;
}

/*
 * Decides how the body is framed, as libevent 2.1 does: HEAD and TRACE
 * have none; "Transfer-Encoding: chunked" is chunked; else Content-Length,
 * absent meaning none. -1 on a Content-Length libevent would refuse.
 */
static int
http_framer_body_framing(struct http_head *head)
{
	const char	*encoding, *length;
	char		*end;
	ev_int64_t	 n;

	if (strcmp(head->method, "HEAD") == 0 ||
	    strcmp(head->method, "TRACE") == 0)
		return 0;
	encoding = evhttp_find_header(&head->headers, "Transfer-Encoding");
	if (encoding != NULL && strcasecmp(encoding, "chunked") == 0) {
		head->chunked = true;
		return 0;
	}
	if ((length = evhttp_find_header(&head->headers,
	    "Content-Length")) == NULL)
		return 0;
	n = evutil_strtoll(length, &end, 10);
	if (*length == '\0' || *end != '\0' || n < 0)
		return -1;
	head->body_length = (uint64_t)n;
	return 0;
}

/*
 * Moves bytes of src into the head until the empty line that ends it,
 * then parses it. Empty lines before a head are skipped, as libevent does.
 */
static enum http_framer_result
http_framer_read_head(struct http_framer *framer, struct evbuffer *src)
{
	struct evbuffer	*head;
	unsigned char	*bytes;
	char		*text, *end1, *end2;
	size_t		 before, len, from, head_len;
	char		 c;

	while (evbuffer_get_length(framer->head_bytes) == 0 &&
	    evbuffer_copyout(src, &c, 1) == 1 && (c == '\r' || c == '\n'))
		evbuffer_drain(src, 1);
	if (evbuffer_get_length(src) == 0)
		return HTTP_FRAMER_MORE;
	before = evbuffer_get_length(framer->head_bytes);
	evbuffer_add_buffer(framer->head_bytes, src);
	len = evbuffer_get_length(framer->head_bytes);
	bytes = evbuffer_pullup(framer->head_bytes, -1);

	/* The head ends at "\n\n" or "\n\r\n"; look only at what is new. */
	from = before > 2 ? before - 2 : 0;
	end1 = memmem(bytes + from, len - from, "\n\n", 2);
	end2 = memmem(bytes + from, len - from, "\n\r\n", 3);
	if (end1 == NULL && end2 == NULL) {
		if (len > framer->max_headers)
			return http_framer_break(framer, 431,
			    "Request Header Fields Too Large",
			    "Request headers too large");
		return HTTP_FRAMER_MORE;
	}
	if (end1 != NULL && (end2 == NULL || end1 < end2))
		head_len = (size_t)(end1 - (char *)bytes) + 2;
	else
		head_len = (size_t)(end2 - (char *)bytes) + 3;
	if (head_len > framer->max_headers)
		return http_framer_break(framer, 431,
		    "Request Header Fields Too Large",
		    "Request headers too large");
	if (memchr(bytes, '\0', head_len) != NULL)
		return http_framer_break(framer, 400, "Bad Request",
		    "Malformed request: a NUL byte in the headers");

	/* What follows the head goes back to the front of src. */
	head = evbuffer_new();
	evbuffer_remove_buffer(framer->head_bytes, head, head_len);
	evbuffer_prepend_buffer(src, framer->head_bytes);
	evbuffer_free(framer->head_bytes);
	framer->head_bytes = head;

	text = xmalloc(head_len + 1);
	evbuffer_copyout(framer->head_bytes, text, head_len);
	text[head_len] = '\0';
	if (http_framer_parse_head(&framer->head, text) != 0 ||
	    http_framer_body_framing(&framer->head) != 0) {
		free(text);
		return http_framer_break(framer, 400, "Bad Request",
		    "Malformed request head");
	}
	free(text);
	if (framer->head.body_length > framer->max_body)
		return http_framer_too_large(framer, framer->head.body_length);
	framer->state = HTTP_FRAMER_STATE_JUDGING;
	return HTTP_FRAMER_HEAD;
}

/* A passed request's last byte went to dst: the next head comes. */
static void
http_framer_request_done(struct http_framer *framer)
{
	framer->whole++;
	framer->state = HTTP_FRAMER_STATE_HEAD;
}

/* Moves up to framer->to_go bytes of src to dst; says whether all went. */
static bool
http_framer_move_body(struct http_framer *framer, struct evbuffer *src,
    struct evbuffer *dst)
{
	size_t	len = evbuffer_get_length(src), n;

	n = framer->to_go < len ? (size_t)framer->to_go : len;
	evbuffer_remove_buffer(src, dst, n);
	framer->to_go -= n;
	return framer->to_go == 0;
}

/*
 * Moves one line of src (a chunk size or a trailer) to dst and copies its
 * text, without the end of line, to line (size bytes). 0: a line was
 * read; 1: no whole line yet; -1: the line is longer than size - 1.
 */
static int
http_framer_line(struct evbuffer *src, struct evbuffer *dst, char *line,
    size_t size)
{
	struct evbuffer_ptr	 eol;
	size_t			 eol_len;

	eol = evbuffer_search_eol(src, NULL, &eol_len, EVBUFFER_EOL_CRLF);
	/* size bytes may still be size - 1 of line and a CR before the LF. */
	if (eol.pos < 0)
		return evbuffer_get_length(src) > size ? -1 : 1;
	if ((size_t)eol.pos >= size)
		return -1;
	evbuffer_copyout(src, line, (size_t)eol.pos);
	line[eol.pos] = '\0';
	evbuffer_remove_buffer(src, dst, (size_t)eol.pos + eol_len);
	return 0;
}

/*
 * Reads a chunk-size line as libevent does: hex, then nothing or a space;
 * an empty line (the end of the chunk before) is skipped. 1: read one;
 * 0: no whole line yet; -1: broken.
 */
static int
http_framer_chunk_size(struct http_framer *framer, struct evbuffer *src,
    struct evbuffer *dst)
{
	char		 line[HTTP_FRAMER_CHUNK_LINE_MAX], *end;
	ev_int64_t	 n;
	int		 r;

	if ((r = http_framer_line(src, dst, line, sizeof line)) == 1)
		return 0;
	if (r == -1) {
		http_framer_break(framer, 400, "Bad Request", "Malformed "
		    "chunked body: a chunk-size line is too long");
		return -1;
	}
	if (*line == '\0')
		return 1;
	n = evutil_strtoll(line, &end, 16);
	if ((*end != '\0' && *end != ' ') || n < 0) {
		http_framer_break(framer, 400, "Bad Request",
		    "Malformed chunked body: a bad chunk size");
		return -1;
	}
	if ((uint64_t)n > framer->max_body - framer->body_size) {
		http_framer_too_large(framer, framer->body_size + (uint64_t)n);
		return -1;
	}
	framer->body_size += (uint64_t)n;
	framer->to_go = (uint64_t)n;
	framer->state = n == 0 ? HTTP_FRAMER_STATE_TRAILER :
	    HTTP_FRAMER_STATE_CHUNK_DATA;
	return 1;
}

/*
 * Reads a trailer line; the empty one ends the request. 1: read one;
 * 0: no whole line yet; -1: broken.
 */
static int
http_framer_trailer(struct http_framer *framer, struct evbuffer *src,
    struct evbuffer *dst)
{
	char	line[HTTP_FRAMER_TRAILER_LINE_MAX];
	int	r;

	if ((r = http_framer_line(src, dst, line, sizeof line)) == 1)
		return 0;
	if (r == 0)
		framer->trailer_size += strlen(line);
	if (r == -1 || framer->trailer_size > framer->max_headers) {
		http_framer_break(framer, 431, "Request Header Fields Too "
		    "Large", "Request trailer too large");
		return -1;
	}
	if (*line == '\0')
		http_framer_request_done(framer);
	return 1;
}

/*
 * Takes the bytes of src: head bytes are kept until the head is whole
 * (HTTP_FRAMER_HEAD: judge it with http_framer_head, then call
 * http_framer_pass or close); body bytes of a passed request go to dst.
 * HTTP_FRAMER_MORE: src is empty, or holds only the start of a line that
 * must be read whole. HTTP_FRAMER_ERROR: see http_framer_error.
 */
enum http_framer_result
http_framer_feed(struct http_framer *framer, struct evbuffer *src,
    struct evbuffer *dst)
{
	int	r;

	for (;;) {
		switch (framer->state) {
		case HTTP_FRAMER_STATE_HEAD:
			return http_framer_read_head(framer, src);
		case HTTP_FRAMER_STATE_JUDGING:
			return HTTP_FRAMER_HEAD;
		case HTTP_FRAMER_STATE_BODY:
			if (evbuffer_get_length(src) == 0)
				return HTTP_FRAMER_MORE;
			if (http_framer_move_body(framer, src, dst))
				http_framer_request_done(framer);
			break;
		case HTTP_FRAMER_STATE_CHUNK_DATA:
			if (evbuffer_get_length(src) == 0)
				return HTTP_FRAMER_MORE;
			if (http_framer_move_body(framer, src, dst))
				framer->state = HTTP_FRAMER_STATE_CHUNK_SIZE;
			break;
		case HTTP_FRAMER_STATE_CHUNK_SIZE:
			if ((r = http_framer_chunk_size(framer, src, dst)) != 1)
				return r == 0 ? HTTP_FRAMER_MORE :
				    HTTP_FRAMER_ERROR;
			break;
		case HTTP_FRAMER_STATE_TRAILER:
			if ((r = http_framer_trailer(framer, src, dst)) != 1)
				return r == 0 ? HTTP_FRAMER_MORE :
				    HTTP_FRAMER_ERROR;
			break;
		case HTTP_FRAMER_STATE_BROKEN:
			evbuffer_drain(src, evbuffer_get_length(src));
			return HTTP_FRAMER_ERROR;
		}
	}
}

/* The head being judged (valid until http_framer_pass), or NULL. */
const struct http_head *
http_framer_head(const struct http_framer *framer)
{
	return framer->state == HTTP_FRAMER_STATE_JUDGING ? &framer->head :
	    NULL;
}

/* Lets the judged request through: its head goes to dst, then its body. */
void
http_framer_pass(struct http_framer *framer, struct evbuffer *dst)
{
	evbuffer_add_buffer(dst, framer->head_bytes);
	framer->body_size = 0;
	framer->trailer_size = 0;
	if (framer->head.chunked)
		framer->state = HTTP_FRAMER_STATE_CHUNK_SIZE;
	else if (framer->head.body_length > 0) {
		framer->to_go = framer->head.body_length;
		framer->state = HTTP_FRAMER_STATE_BODY;
	} else
		http_framer_request_done(framer);
	http_framer_clear_head(framer);
}

/* Why the stream broke, after HTTP_FRAMER_ERROR. */
const struct http_framer_error *
http_framer_error(const struct http_framer *framer)
{
	return &framer->error;
}

/* Says whether the connection is between requests, with no byte of one. */
bool
http_framer_between(const struct http_framer *framer)
{
	return framer->state == HTTP_FRAMER_STATE_HEAD &&
	    evbuffer_get_length(framer->head_bytes) == 0;
}

/* How many requests have gone to dst whole, head and body. */
uint64_t
http_framer_whole(const struct http_framer *framer)
{
	return framer->whole;
}

/* Says whether a passed request's body (or its chunks) is being read. */
bool
http_framer_in_body(const struct http_framer *framer)
{
	return framer->state != HTTP_FRAMER_STATE_HEAD &&
	    framer->state != HTTP_FRAMER_STATE_JUDGING &&
	    framer->state != HTTP_FRAMER_STATE_BROKEN;
}
