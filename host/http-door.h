/*
 * The front door of the HTTP server: every connection's bytes pass it
 * before libevent's HTTP parser reads them. It caps the connections open
 * at once, gives each request head a deadline and each body a minimum
 * rate, and has each head judged (Host, Origin, token, size) before any of
 * its body is read; a refused request gets a JSON-RPC error and a
 * lingering close, so the client reads the answer instead of a reset.
 * Requests pipelined ahead of a refused one are answered first: the
 * refusal waits until every reply before it is written.
 * libevent 2.1 has no hooks for this (2.2 added evhttp_set_newreqcb and
 * evhttp_set_max_connections), so the door stands in a filter bufferevent
 * that evhttp_set_bevcb puts under each connection.
 */
#ifndef HTTP_DOOR_H
#define HTTP_DOOR_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct evhttp;
struct evhttp_request;
struct clock;
struct http_head;
struct log;

struct http_door_settings {
	size_t		 max_connections;
	size_t		 max_headers;	/* bytes of a head */
	size_t		 max_body;	/* bytes of a body */
	int		 head_timeout_ms; /* a head must arrive within it */
	size_t		 min_body_rate;	/* bytes a second, after that time */
};

/* Why a head is refused: what the door answers. */
struct http_door_refusal {
	int		 status;
	const char	*reason;
	const char	*message;
	const char	*authenticate;	/* WWW-Authenticate's value, or NULL */
	const char	*cors_origin;	/* answer with CORS for it, or NULL */
};

/*
 * Judges a head: 0 lets it in; -1 refuses it as *refusal says. The
 * refusal may be written later, after the replies ahead of it: its
 * strings must last as long as the door.
 */
typedef int (*http_door_judge_cb)(const struct http_head *head,
    struct http_door_refusal *refusal, void *arg);

struct http_door;

struct http_door	*http_door_new(struct evhttp *http,
			    struct event_base *base,
			    const struct http_door_settings *settings,
			    http_door_judge_cb judge, void *arg,
			    const struct clock *clock, struct log *log);
void			 http_door_free(struct http_door *door);
void			 http_door_track(struct http_door *door,
			    struct evhttp_request *req);

#endif
