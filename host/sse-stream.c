/* SSE streams over evhttp chunked replies. */
#include "sse-stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "xmalloc.h"

struct sse_stream {
	struct sse_stream_list	*list;
	struct evhttp_request	*req;
	sse_close_cb		 on_close;
	void			*arg;
	struct event		*drop;	/* set: the client stopped reading */
	char			 owner[SSE_OWNER_MAX + 1];	/* whose key */
	TAILQ_ENTRY(sse_stream)	 entry;
};

/* Runs when the client's connection closes under an open stream. */
static void
sse_stream_closed(struct evhttp_connection *evcon, void *arg)
{
	struct sse_stream	*stream = arg;

	if (stream->on_close != NULL)
		stream->on_close(stream, stream->arg);
	sse_stream_end(stream);
}

/*
 * Sends the stream's headers and keeps the reply open; owner names the
 * key it was opened with (an OAuth client id, "" for the owner key).
 */
struct sse_stream *
sse_stream_start(struct sse_stream_list *list, struct evhttp_request *req,
    const char *owner, sse_close_cb on_close, void *arg)
{
	struct evkeyvalq	*headers = evhttp_request_get_output_headers(req);
	struct sse_stream	*stream = xcalloc(1, sizeof *stream);

	(void)snprintf(stream->owner, sizeof stream->owner, "%s", owner);
	stream->list = list;
	stream->req = req;
	stream->on_close = on_close;
	stream->arg = arg;
	TAILQ_INSERT_TAIL(list, stream, entry);
	evhttp_remove_header(headers, "Content-Type");
	evhttp_add_header(headers, "Content-Type", "text/event-stream");
	evhttp_add_header(headers, "Cache-Control", "no-cache");
	evhttp_add_header(headers, "X-Accel-Buffering", "no");
	evhttp_connection_set_closecb(evhttp_request_get_connection(req),
	    sse_stream_closed, stream);
	evhttp_send_reply_start(req, 200, "OK");
	return stream;
}

/*
 * Drops a client that stopped reading: freeing its connection runs the
 * close callback, which tells the owner and ends the stream.
 */
static void
sse_stream_drop(__attribute__((unused)) evutil_socket_t fd,
    __attribute__((unused)) short events, void *arg)
{
	struct sse_stream	*stream = arg;

	evhttp_connection_free(evhttp_request_get_connection(stream->req));
}

/*
 * Writes text to the stream now; once more than SSE_BACKLOG_MAX bytes
 * wait for the client, writes nothing more and drops it from the loop.
 */
static void
sse_stream_write(struct sse_stream *stream, struct evbuffer *buf)
{
	struct evhttp_connection	*evcon;
	struct bufferevent		*bev;

	evcon = evhttp_request_get_connection(stream->req);
	if (evcon == NULL || stream->drop != NULL)
		return;
	bev = evhttp_connection_get_bufferevent(evcon);
	if (evbuffer_get_length(bufferevent_get_output(bev)) > SSE_BACKLOG_MAX) {
		stream->drop = evtimer_new(evhttp_connection_get_base(evcon),
		    sse_stream_drop, stream);
		event_active(stream->drop, EV_TIMEOUT, 1);
		return;
	}
	evhttp_send_reply_chunk(stream->req, buf);
}

/* Sends one event; data must not contain a newline. */
void
sse_stream_event(struct sse_stream *stream, const char *event,
    const char *data)
{
	struct evbuffer	*buf = evbuffer_new();

	if (event != NULL)
		evbuffer_add_printf(buf, "event: %s\n", event);
	evbuffer_add_printf(buf, "data: %s\n\n", data);
	sse_stream_write(stream, buf);
	evbuffer_free(buf);
}

/* Sends a JSON message as one event (compact JSON has no newline). */
void
sse_stream_message(struct sse_stream *stream, const char *event,
    const json_t *message)
{
	char	*text = json_dumps(message, JSON_COMPACT);

	sse_stream_event(stream, event, text);
	free(text);
}

/* Sends a comment line, which clients ignore: keeps idle streams alive. */
void
sse_stream_comment(struct sse_stream *stream, const char *text)
{
	struct evbuffer	*buf = evbuffer_new();

	evbuffer_add_printf(buf, ": %s\n\n", text);
	sse_stream_write(stream, buf);
	evbuffer_free(buf);
}

/* Ends the reply (or frees the detached request) and frees the stream. */
void
sse_stream_end(struct sse_stream *stream)
{
	struct evhttp_connection	*evcon;

	evcon = evhttp_request_get_connection(stream->req);
	if (evcon != NULL)
		evhttp_connection_set_closecb(evcon, NULL, NULL);
	TAILQ_REMOVE(stream->list, stream, entry);
	evhttp_send_reply_end(stream->req);
	if (stream->drop != NULL)
		event_free(stream->drop);
	free(stream);
}

/* Sends a keepalive comment on every stream in the list. */
void
sse_stream_list_keepalive(struct sse_stream_list *list)
{
	struct sse_stream	*stream;

	TAILQ_FOREACH(stream, list, entry)
		sse_stream_comment(stream, "keepalive");
}

/* Ends every stream in the list, telling each owner first. */
void
sse_stream_list_end_all(struct sse_stream_list *list)
{
	sse_stream_list_end_owner(list, NULL);
}

/*
 * Ends every stream opened with owner's key (NULL: every stream), telling
 * each owner; a revoked client's streams close at once.
 */
void
sse_stream_list_end_owner(struct sse_stream_list *list, const char *owner)
{
	struct sse_stream	*stream;

	for (;;) {
		/* An owner's callback may end other streams: start over. */
		TAILQ_FOREACH(stream, list, entry) {
			if (owner == NULL || strcmp(stream->owner, owner) == 0)
				break;
		}
		if (stream == NULL)
			break;
		if (stream->on_close != NULL)
			stream->on_close(stream, stream->arg);
		sse_stream_end(stream);
	}
}
