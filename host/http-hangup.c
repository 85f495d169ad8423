/* Noticing a client that hangs up while its request waits for the reply. */
#include "http-hangup.h"

#include <stdlib.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "os.h"
#include "os-socket.h"
#include "xmalloc.h"

struct http_hangup {
	struct evhttp_connection	*evcon;
	struct event			*readable;
};

/*
 * The socket is readable: end of file or an error means the client is
 * gone, so the connection is freed (its close callback frees this watch).
 * Bytes mean a pipelined request, which libevent reads after the reply:
 * the watch then stops, since it cannot tell more.
 */
static void
http_hangup_readable(evutil_socket_t fd, short events, void *arg)
{
	struct http_hangup	*hangup = arg;
	char			 byte;
	ssize_t			 n;

	n = recv(fd, &byte, 1, MSG_PEEK);
	if (n > 0) {
		event_del(hangup->readable);
		return;
	}
	if (n < 0 && os_io_again(EVUTIL_SOCKET_ERROR()))
		return;
	evhttp_connection_free(hangup->evcon);
}

/* Starts watching the connection of req; NULL if it has none. */
struct http_hangup *
http_hangup_watch(struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	struct bufferevent		*bev;
	struct http_hangup		*hangup;
	evutil_socket_t			 fd;

	if ((evcon = evhttp_request_get_connection(req)) == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL ||
	    (fd = bufferevent_getfd(bev)) < 0)
		return NULL;
	hangup = xcalloc(1, sizeof *hangup);
	hangup->evcon = evcon;
	hangup->readable = event_new(bufferevent_get_base(bev), fd,
	    EV_READ|EV_PERSIST, http_hangup_readable, hangup);
	event_add(hangup->readable, NULL);
	return hangup;
}

/* Stops watching and frees the watch (NULL is fine). */
void
http_hangup_free(struct http_hangup *hangup)
{
	if (hangup == NULL)
		return;
	event_free(hangup->readable);
	free(hangup);
}
