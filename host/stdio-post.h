/*
 * One HTTP request from the stdio bridge to the host's /mcp, on a
 * connection of its own. The reply is read as it arrives: a JSON body
 * whole, an SSE body event by event, so progress is relayed at once.
 */
#ifndef STDIO_POST_H
#define STDIO_POST_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "queue.h"
#include "stdio-sse-reader.h"

struct evbuffer;
struct event;
struct event_base;
struct evhttp_connection;
struct stdio_post;

enum stdio_post_kind {
	STDIO_POST_MESSAGE,	/* a client message */
	STDIO_POST_INITIALIZE,	/* the client's own initialize */
	STDIO_POST_REPLAY,	/* that initialize again, for a new host */
	STDIO_POST_STREAM,	/* GET /mcp: notifications for no request */
	STDIO_POST_DELETE,	/* DELETE /mcp at exit */
	STDIO_POST_MODERN,	/* a 2026-07-28 request: no session */
	STDIO_POST_LISTEN,	/* a 2026-07-28 subscriptions/listen stream */
};

/* Where a request goes and what identifies the client to the host. */
struct stdio_post_target {
	int		 port;
	const char	*token;			/* NULL: auth off */
	const char	*session_id;		/* NULL: none yet */
	const char	*protocol_version;	/* NULL: none yet */
};

/* What the owner of a request hears, always from the event loop. */
struct stdio_post_callbacks {
	/* A JSON-RPC message from the host: a JSON body, or an SSE event. */
	void	(*message)(struct stdio_post *post, const char *text,
		    size_t len);
	/*
	 * The reply is complete (status set; session_id is its
	 * Mcp-Session-Id header or NULL), or, with status 0, the request
	 * failed (error says why).
	 */
	void	(*finished)(struct stdio_post *post, const char *session_id);
	/* The request is about to be freed. */
	void	(*freed)(struct stdio_post *post);
	void	*arg;
};

enum stdio_post_body {
	STDIO_BODY_UNKNOWN,
	STDIO_BODY_JSON,
	STDIO_BODY_SSE,
};

struct stdio_post {
	const struct stdio_post_callbacks *cb;
	enum stdio_post_kind	 kind;
	json_t			*message;	/* NULL for GET, DELETE */
	uint64_t		 generation;	/* owner's: sent in */
	struct evhttp_connection *evcon;
	bool			 done;		/* libevent is done with it */
	struct event		*reap;		/* frees it from the loop */
	struct evbuffer		*body;		/* a JSON body */
	enum stdio_post_body	 body_kind;
	struct stdio_sse_reader	 sse;
	int			 status;	/* HTTP status, 0: none */
	const char		*error;		/* why it failed */
	bool			 failed_early;	/* never left */
	bool			 answered;	/* owner: response seen */
	bool			 failed_init;	/* owner: init refused */
	TAILQ_ENTRY(stdio_post)	 entry;		/* owner's list */
};

struct stdio_post	*stdio_post_send(struct event_base *base,
			    const struct stdio_post_target *target,
			    enum stdio_post_kind kind, json_t *message,
			    uint64_t generation,
			    const struct stdio_post_callbacks *cb);
void			 stdio_post_cancel(struct stdio_post *post);
void			 stdio_post_free(struct stdio_post *post);
char			*stdio_post_error_text(struct stdio_post *post,
			    int *code);

#endif
