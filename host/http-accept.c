/* Accepting connections when file descriptors run out. */
#include "http-accept.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "log.h"
#include "queue.h"
#include "xmalloc.h"

/* How long the listener rests when no descriptor is left. */
#define HTTP_ACCEPT_PAUSE_MS	1000

struct http_accept_guard {
	struct evconnlistener			*listener;
	struct log				*log;
	struct event				*resume;
	unsigned long				 pauses;
	TAILQ_ENTRY(http_accept_guard)		 entry;
};

/*
 * Every guard in the process: libevent calls the error callback with the
 * listener and evhttp's argument, so the guard is found by its listener.
 */
static TAILQ_HEAD(, http_accept_guard) http_accept_guards =
    TAILQ_HEAD_INITIALIZER(http_accept_guards);

/* Accepts again after a pause. */
static void
http_accept_resume(__attribute__((unused)) evutil_socket_t fd,
    __attribute__((unused)) short events, void *arg)
{
	struct http_accept_guard	*guard = arg;

	evconnlistener_enable(guard->listener);
}

/* accept() failed: pause on a lack of descriptors, else just log. */
static void
http_accept_error(struct evconnlistener *listener,
    __attribute__((unused)) void *arg)
{
	struct http_accept_guard	*guard;
	struct timeval			 tv = { HTTP_ACCEPT_PAUSE_MS / 1000,
					     HTTP_ACCEPT_PAUSE_MS % 1000 * 1000 };
	int				 error = EVUTIL_SOCKET_ERROR();

	TAILQ_FOREACH(guard, &http_accept_guards, entry) {
		if (guard->listener == listener)
			break;
	}
	if (guard == NULL)
		return;
	if (error != EMFILE && error != ENFILE && error != ENOBUFS &&
	    error != ENOMEM) {
		log_warn(guard->log, "cannot accept a connection: %s",
		    strerror(error));
		return;
	}
	/* Said at once, then once a minute while it lasts. */
	if (guard->pauses++ % (60000 / HTTP_ACCEPT_PAUSE_MS) == 0) {
		log_warn(guard->log, "out of file descriptors (%s): new "
		    "connections wait; idle ones close after their timeout",
		    strerror(error));
	}
	evconnlistener_disable(listener);
	evtimer_add(guard->resume, &tv);
}

/* Guards a listener; it must outlive the guard. */
struct http_accept_guard *
http_accept_guard_new(struct evconnlistener *listener, struct log *log)
{
	struct http_accept_guard	*guard = xcalloc(1, sizeof *guard);

	guard->listener = listener;
	guard->log = log;
	guard->resume = evtimer_new(evconnlistener_get_base(listener),
	    http_accept_resume, guard);
	TAILQ_INSERT_TAIL(&http_accept_guards, guard, entry);
	evconnlistener_set_error_cb(listener, http_accept_error);
	return guard;
}

/* Frees a guard (NULL is fine). */
void
http_accept_guard_free(struct http_accept_guard *guard)
{
	if (guard == NULL)
		return;
	TAILQ_REMOVE(&http_accept_guards, guard, entry);
	event_free(guard->resume);
	free(guard);
}
