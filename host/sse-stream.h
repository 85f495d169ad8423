/*
 * Server-sent event streams on evhttp requests: start the chunked reply,
 * send events and keepalive comments, and end it, including when the client
 * has already gone (libevent then leaves the request for us to free), or
 * has stopped reading (it is dropped past SSE_BACKLOG_MAX unread bytes).
 */
#ifndef SSE_STREAM_H
#define SSE_STREAM_H

#include <jansson.h>

#include "queue.h"

/* Bytes a client may leave unread before its stream is dropped. */
#define SSE_BACKLOG_MAX	(4 * 1024 * 1024)
/* The longest key owner a stream records (an OAuth client id). */
#define SSE_OWNER_MAX	40

struct evhttp_request;
struct sse_stream;

/* The stream is ending (client gone, or shutdown); it is freed after this. */
typedef void (*sse_close_cb)(struct sse_stream *stream, void *arg);

TAILQ_HEAD(sse_stream_list, sse_stream);

struct sse_stream	*sse_stream_start(struct sse_stream_list *list,
			    struct evhttp_request *req, const char *owner,
			    sse_close_cb on_close, void *arg);
void			 sse_stream_event(struct sse_stream *stream,
			    const char *event, const char *data);
void			 sse_stream_message(struct sse_stream *stream,
			    const char *event, const json_t *message);
void			 sse_stream_comment(struct sse_stream *stream,
			    const char *text);
void			 sse_stream_end(struct sse_stream *stream);
void			 sse_stream_list_keepalive(struct sse_stream_list *list);
void			 sse_stream_list_end_all(struct sse_stream_list *list);
void			 sse_stream_list_end_owner(struct sse_stream_list *list,
			    const char *owner);

#endif
