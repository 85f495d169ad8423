/*
 * Where one HTTP/1.1 request ends and the next begins, read from the raw
 * bytes of a server connection before libevent's HTTP parser sees them.
 * It parses each request head so the host can judge it (Host, Origin,
 * token, size) before any of its body is read, and then counts the body
 * through (Content-Length or chunked) the way libevent 2.1 does, so both
 * agree on where the next head starts. Pure: no sockets, no clock.
 */
#ifndef HTTP_FRAMER_H
#define HTTP_FRAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/keyvalq_struct.h>

struct evbuffer;

/* One parsed request head. */
struct http_head {
	char			*method;	/* "GET", "POST", ... */
	char			*target;	/* as sent: path and query */
	struct evkeyvalq	 headers;
	bool			 chunked;	/* the body comes in chunks */
	uint64_t		 body_length;	/* Content-Length; 0 if chunked */
};

/* What http_framer_feed found. */
enum http_framer_result {
	HTTP_FRAMER_MORE,	/* every byte taken; feed more */
	HTTP_FRAMER_HEAD,	/* a whole head: judge it, then pass or stop */
	HTTP_FRAMER_ERROR,	/* the stream is broken: reply and close */
};

/* Why the stream broke: an HTTP status and a sentence for the client. */
struct http_framer_error {
	int		 status;	/* 400, 413 or 431 */
	const char	*reason;
	char		 message[160];
};

struct http_framer;

struct http_framer	*http_framer_new(size_t max_headers, size_t max_body);
void			 http_framer_free(struct http_framer *framer);
enum http_framer_result	 http_framer_feed(struct http_framer *framer,
			    struct evbuffer *src, struct evbuffer *dst);
const struct http_head	*http_framer_head(const struct http_framer *framer);
void			 http_framer_pass(struct http_framer *framer,
			    struct evbuffer *dst);
const struct http_framer_error *http_framer_error(
			    const struct http_framer *framer);
bool			 http_framer_between(const struct http_framer *framer);
bool			 http_framer_in_body(const struct http_framer *framer);
uint64_t		 http_framer_whole(const struct http_framer *framer);

#endif
