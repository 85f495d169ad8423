/* The HTTP server's front door: caps, deadlines, heads judged early. */
#include "http-door.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <jansson.h>

#include "errors.h"
#include "clock.h"
#include "http-framer.h"
#include "jsonrpc.h"
#include "log.h"
#include "os.h"
#include "os-socket.h"
#include "queue.h"
#include "xmalloc.h"

/* How long a refused connection is read (and its bytes dropped) at most. */
#define HTTP_DOOR_LINGER_MS		2000
/* How many bytes a refused connection may still send us. */
#define HTTP_DOOR_LINGER_BYTES		(8u * 1024 * 1024)
/* How often a lasting condition is logged again. */
#define HTTP_DOOR_LOG_EVERY_MS		60000

/* What a connection's timer waits for. */
enum http_door_wait {
	HTTP_DOOR_WAIT_NONE,
	HTTP_DOOR_WAIT_HEAD,		/* the rest of a head */
	HTTP_DOOR_WAIT_BODY,		/* the rest of a body */
	HTTP_DOOR_WAIT_REFUSE,		/* over the cap: refuse once set up */
	HTTP_DOOR_WAIT_LINGER,		/* refused: the client to hang up */
};

struct http_door_conn {
	struct http_door		*door;		/* NULL once detached */
	struct bufferevent		*filter;	/* what evhttp uses */
	struct bufferevent		*socket;	/* under the filter */
	struct event			*writable;	/* the socket takes more */
	struct event			*kick;		/* evhttp wrote: send */
	struct evbuffer_cb_entry	*written;	/* evhttp's writes */
	struct http_framer		*framer;
	struct event			*timer;
	enum http_door_wait		 wait;
	struct evbuffer_cb_entry	*flushed;	/* after a refusal */
	bool				 sending;	/* the door flushes */
	bool				 closing;	/* refused: drop input */
	size_t				 dropped;	/* bytes since */
	uint64_t			 answered;	/* replies written */
	bool				 holding;	/* held waits */
	struct http_door_refusal	 held;
	TAILQ_ENTRY(http_door_conn)	 entry;
};

TAILQ_HEAD(http_door_conns, http_door_conn);

struct http_door {
	struct http_door_settings	 settings;
	http_door_judge_cb		 judge;
	void				*arg;
	struct log			*log;
	struct event_base		*base;
	struct http_door_conns		 conns;
	size_t				 open;
	const struct clock		*clock;
	bool				 full_logged;	/* "over the cap" ever */
	uint64_t			 full_logged_ms;	/* last time */
};

/* Sets the connection's timer to fire in ms for what it waits for. */
static void
http_door_wait_for(struct http_door_conn *conn, enum http_door_wait wait,
    long ms)
{
	struct timeval	tv = { ms / 1000, (ms % 1000) * 1000 };

	conn->wait = wait;
	if (wait == HTTP_DOOR_WAIT_NONE)
		evtimer_del(conn->timer);
	else
		evtimer_add(conn->timer, &tv);
}

/* Hangs up: the connection reads end of file, and evhttp frees it. */
static void
http_door_hang_up(struct http_door_conn *conn)
{
	evutil_socket_t	fd = bufferevent_getfd(conn->socket);

	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
	http_door_wait_for(conn, HTTP_DOOR_WAIT_NONE, 0);
}

/* Once the refusal is written, says so to the client with a FIN. */
static void
http_door_flushed(struct evbuffer *buf,
    __attribute__((unused)) const struct evbuffer_cb_info *info, void *arg)
{
	struct http_door_conn	*conn = arg;
	evutil_socket_t		 fd = bufferevent_getfd(conn->socket);

	if (evbuffer_get_length(buf) != 0)
		return;
	if (fd >= 0)
		shutdown(fd, SHUT_WR);
	evbuffer_remove_cb_entry(buf, conn->flushed);
	conn->flushed = NULL;
}

/*
 * Answers with an error whose body is a JSON-RPC error and closes the
 * lingering way: the answer is written, then a FIN, and what the client
 * still sends is read and dropped until it hangs up (or a short while
 * passes), so it reads the answer instead of a connection reset.
 */
static void
http_door_answer(struct http_door_conn *conn,
    const struct http_door_refusal *refusal)
{
	struct evbuffer	*out = bufferevent_get_output(conn->socket);
	json_t		*error;
	char		*body;

	conn->closing = true;
	http_door_wait_for(conn, HTTP_DOOR_WAIT_LINGER, HTTP_DOOR_LINGER_MS);
	if (evbuffer_get_length(bufferevent_get_output(conn->filter)) > 0) {
		/*
		 * Every reply is written (http_door_refuse waits for them),
		 * but evhttp writes what answers no request (a 100 Continue):
		 * no room for ours.
		 */
		http_door_hang_up(conn);
		return;
	}
	error = jsonrpc_error(NULL, JSONRPC_INVALID_REQUEST, refusal->message,
	    NULL);
	body = json_dumps(error, JSON_COMPACT);
	json_decref(error);
	/* libevent formats with the C runtime's printf: msvcrt has no %zu. */
	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: %lu\r\n"
	    "Cache-Control: no-store\r\n"
	    "Connection: close\r\n", refusal->status, refusal->reason,
	    (unsigned long)strlen(body));
	if (refusal->authenticate != NULL)
		evbuffer_add_printf(out, "WWW-Authenticate: %s\r\n",
		    refusal->authenticate);
	if (refusal->cors_origin != NULL)
		evbuffer_add_printf(out, "Access-Control-Allow-Origin: %s\r\n"
		    "Vary: Origin\r\n"
		    "Access-Control-Expose-Headers: WWW-Authenticate\r\n",
		    refusal->cors_origin);
	evbuffer_add_printf(out, "\r\n%s", body);
	free(body);
	conn->flushed = evbuffer_add_cb(out, http_door_flushed, conn);
}

/*
 * Refuses a connection, once: see http_door_answer. Requests that came
 * whole before the refused one are answered first (a client that
 * pipelines reads every answer): until their replies are written, the
 * refusal is held, with no deadline of its own, and what the client
 * sends is dropped.
 */
static void
http_door_refuse(struct http_door_conn *conn,
    const struct http_door_refusal *refusal)
{
	if (conn->closing)
		return;
	if (conn->answered < http_framer_whole(conn->framer)) {
		conn->closing = true;
		conn->holding = true;
		conn->held = *refusal;
		http_door_wait_for(conn, HTTP_DOOR_WAIT_NONE, 0);
		return;
	}
	http_door_answer(conn, refusal);
}

/* evhttp wrote a reply: a refusal held for the last one goes out. */
static void
http_door_replied(__attribute__((unused)) struct evhttp_request *req,
    void *arg)
{
	struct http_door_conn	*conn = arg;

	conn->answered++;
	if (conn->door == NULL || !conn->holding ||
	    conn->answered < http_framer_whole(conn->framer))
		return;
	conn->holding = false;
	http_door_answer(conn, &conn->held);
}

/* Refuses a connection that was too slow with its head or its body. */
static void
http_door_refuse_slow(struct http_door_conn *conn, bool head)
{
	struct http_door		*door = conn->door;
	struct http_door_refusal	 refusal = {
		.status = 408,
		.reason = "Request Timeout",
		.message = head ? "Request headers too slow: send the whole "
		    "head at once" : "Request body too slow: send the body "
		    "at once",
	};

	log_info(door->log, "closed a connection whose request %s came too "
	    "slowly", head ? "head" : "body");
	http_door_refuse(conn, &refusal);
}

/* Refuses a connection over the cap, logging it once a minute. */
static void
http_door_refuse_full(struct http_door_conn *conn)
{
	struct http_door		*door = conn->door;
	struct http_door_refusal	 refusal = {
		.status = 503,
		.reason = "Service Unavailable",
		.message = "Too many connections to Browser Bridge: close "
		    "idle ones and retry (the max-connections setting)",
	};
	uint64_t			 now = clock_now_ms(door->clock);

	if (!door->full_logged ||
	    now - door->full_logged_ms >= HTTP_DOOR_LOG_EVERY_MS) {
		log_warn(door->log, "%zu connections are open, the most "
		    "max-connections allows: new ones are refused until some "
		    "close", door->settings.max_connections);
		door->full_logged = true;
		door->full_logged_ms = now;
	}
	http_door_answer(conn, &refusal);
}

/* The connection's timer: what it waited for did not come in time. */
static void
http_door_timer(__attribute__((unused)) evutil_socket_t fd,
    __attribute__((unused)) short events, void *arg)
{
	struct http_door_conn	*conn = arg;
	enum http_door_wait	 wait = conn->wait;

	conn->wait = HTTP_DOOR_WAIT_NONE;
	switch (wait) {
	case HTTP_DOOR_WAIT_HEAD:
	case HTTP_DOOR_WAIT_BODY:
		http_door_refuse_slow(conn, wait == HTTP_DOOR_WAIT_HEAD);
		break;
	case HTTP_DOOR_WAIT_REFUSE:
		http_door_refuse_full(conn);
		break;
	case HTTP_DOOR_WAIT_LINGER:
		http_door_hang_up(conn);
		break;
	case HTTP_DOOR_WAIT_NONE:
		break;
	}
}

/* The time a body of length bytes may take at the minimum rate. */
static long
http_door_body_ms(const struct http_door *door, uint64_t length)
{
	const struct http_door_settings	*settings = &door->settings;

	return settings->head_timeout_ms +
	    (long)(length * 1000 / (settings->min_body_rate > 0 ?
	    settings->min_body_rate : 1));
}

/* Has a whole head judged; lets it through or refuses the connection. */
static bool
http_door_judge(struct http_door_conn *conn, struct evbuffer *dst)
{
	struct http_door		*door = conn->door;
	const struct http_head		*head = http_framer_head(conn->framer);
	struct http_door_refusal	 refusal;

	memset(&refusal, 0, sizeof refusal);
	if (door->judge(head, &refusal, door->arg) != 0) {
		http_door_refuse(conn, &refusal);
		return false;
	}
	if (head->chunked)
		http_door_wait_for(conn, HTTP_DOOR_WAIT_BODY,
		    http_door_body_ms(door, door->settings.max_body));
	else if (head->body_length > 0)
		http_door_wait_for(conn, HTTP_DOOR_WAIT_BODY,
		    http_door_body_ms(door, head->body_length));
	else
		http_door_wait_for(conn, HTTP_DOOR_WAIT_NONE, 0);
	http_framer_pass(conn->framer, dst);
	return true;
}

/*
 * The filter under evhttp: src holds what the socket read, dst is what
 * evhttp will parse. Heads are held back until judged; bodies of passed
 * requests go through; a refused connection's bytes are dropped.
 */
static enum bufferevent_filter_result
http_door_input(struct evbuffer *src, struct evbuffer *dst,
    __attribute__((unused)) ev_ssize_t limit,
    __attribute__((unused)) enum bufferevent_flush_mode mode, void *arg)
{
	struct http_door_conn		*conn = arg;
	struct http_door_refusal	 refusal;
	const struct http_framer_error	*error;
	size_t				 before = evbuffer_get_length(dst);
	enum http_framer_result		 r;

	if (conn->door == NULL) {
		evbuffer_drain(src, evbuffer_get_length(src));
		return BEV_NEED_MORE;
	}
	while (!conn->closing) {
		r = http_framer_feed(conn->framer, src, dst);
		if (r == HTTP_FRAMER_HEAD) {
			if (!http_door_judge(conn, dst))
				break;
			continue;
		}
		if (r == HTTP_FRAMER_ERROR) {
			error = http_framer_error(conn->framer);
			refusal = (struct http_door_refusal){
				.status = error->status,
				.reason = error->reason,
				.message = error->message,
			};
			http_door_refuse(conn, &refusal);
			break;
		}
		/*
		 * A body done ends its deadline (blank lines before a head
		 * keep the one from accept); a head begun gets one.
		 */
		if (http_framer_between(conn->framer)) {
			if (conn->wait == HTTP_DOOR_WAIT_BODY)
				http_door_wait_for(conn, HTTP_DOOR_WAIT_NONE,
				    0);
		} else if (!http_framer_in_body(conn->framer) &&
		    conn->wait != HTTP_DOOR_WAIT_HEAD)
			http_door_wait_for(conn, HTTP_DOOR_WAIT_HEAD,
			    conn->door->settings.head_timeout_ms);
		break;
	}
	if (conn->closing) {
		conn->dropped += evbuffer_get_length(src);
		evbuffer_drain(src, evbuffer_get_length(src));
		if (conn->dropped > HTTP_DOOR_LINGER_BYTES)
			http_door_hang_up(conn);
	}
	return evbuffer_get_length(dst) > before ? BEV_OK : BEV_NEED_MORE;
}

/* The socket can take more, or evhttp wrote: send what evhttp has. */
static void
http_door_writable(__attribute__((unused)) evutil_socket_t fd,
    __attribute__((unused)) short events, void *arg)
{
	struct http_door_conn	*conn = arg;

	conn->sending = true;
	bufferevent_flush(conn->filter, EV_WRITE, BEV_NORMAL);
	conn->sending = false;
}

/*
 * evhttp added to what it writes: send it on the next turn of the loop,
 * never at once. evhttp sets what to do once a reply is written after it
 * adds the reply (and enables writing after that), as a socket writes
 * only later in the loop.
 */
static void
http_door_written(__attribute__((unused)) struct evbuffer *buf,
    const struct evbuffer_cb_info *info, void *arg)
{
	struct http_door_conn	*conn = arg;

	if (info->n_added > 0)
		event_active(conn->kick, EV_TIMEOUT, 1);
}

/*
 * The filter over evhttp's writes: it writes them to the socket itself,
 * so what evhttp counts as written is in the kernel. (Moved to the
 * socket's bufferevent instead, a reply would count as written while it
 * still waited there, and evhttp, closing the connection after its last
 * reply, would shut the socket before the reply left.) What the socket
 * cannot take waits here, and the door writes it once the socket is
 * writable; on an error the rest goes to the socket's bufferevent, which
 * reports the error to evhttp.
 */
static enum bufferevent_filter_result
http_door_output(struct evbuffer *src, struct evbuffer *dst,
    __attribute__((unused)) ev_ssize_t limit,
    __attribute__((unused)) enum bufferevent_flush_mode mode, void *arg)
{
	struct http_door_conn	*conn = arg;
	evutil_socket_t		 fd = bufferevent_getfd(conn->socket);
	bool			 wrote = false;

	/* Only the door sends; a refusal, or bytes after an error, go first. */
	if (!conn->sending || evbuffer_get_length(dst) > 0 || fd < 0 ||
	    conn->door == NULL)
		return BEV_NEED_MORE;
	while (evbuffer_get_length(src) > 0) {
		if (evbuffer_write(src, fd) > 0) {
			wrote = true;
			continue;
		}
		if (os_io_again(EVUTIL_SOCKET_ERROR())) {
			if (conn->writable == NULL)
				conn->writable = event_new(conn->door->base,
				    fd, EV_WRITE, http_door_writable, conn);
			event_add(conn->writable, NULL);
		} else
			evbuffer_add_buffer(dst, src);
		break;
	}
	return wrote ? BEV_OK : BEV_NEED_MORE;
}

/* Frees what a connection holds besides itself. */
static void
http_door_conn_detach(struct http_door_conn *conn)
{
	if (conn->door == NULL)
		return;
	TAILQ_REMOVE(&conn->door->conns, conn, entry);
	conn->door->open--;
	conn->door = NULL;
	if (conn->flushed != NULL)
		evbuffer_remove_cb_entry(bufferevent_get_output(conn->socket),
		    conn->flushed);
	event_free(conn->timer);
	event_free(conn->kick);
	evbuffer_remove_cb_entry(bufferevent_get_output(conn->filter),
	    conn->written);
	if (conn->writable != NULL)
		event_free(conn->writable);
	http_framer_free(conn->framer);
}

/* evhttp freed the connection's bufferevent: forget the connection. */
static void
http_door_conn_free(void *arg)
{
	struct http_door_conn	*conn = arg;

	http_door_conn_detach(conn);
	free(conn);
}

/*
 * evhttp's hook for a new connection: the socket bufferevent with the
 * door's filter over it. Over the cap, the connection is refused as soon
 * as evhttp has set it up.
 */
static struct bufferevent *
http_door_connection(struct event_base *base, void *arg)
{
	struct http_door	*door = arg;
	struct http_door_conn	*conn = xcalloc(1, sizeof *conn);
	struct bufferevent	*filter;

	conn->socket = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	filter = bufferevent_filter_new(conn->socket, http_door_input,
	    http_door_output, BEV_OPT_CLOSE_ON_FREE, http_door_conn_free, conn);
	if (conn->socket == NULL || filter == NULL)
		xmalloc_fail();		/* libevent fails only for memory */
	conn->filter = filter;
	conn->kick = evtimer_new(base, http_door_writable, conn);
	conn->written = evbuffer_add_cb(bufferevent_get_output(filter),
	    http_door_written, conn);
	conn->door = door;
	conn->framer = http_framer_new(door->settings.max_headers,
	    door->settings.max_body);
	conn->timer = evtimer_new(base, http_door_timer, conn);
	TAILQ_INSERT_TAIL(&door->conns, conn, entry);
	if (++door->open > door->settings.max_connections) {
		/* Nothing it sends gets through, even before the answer. */
		conn->closing = true;
		http_door_wait_for(conn, HTTP_DOOR_WAIT_REFUSE, 0);
	}
	else
		http_door_wait_for(conn, HTTP_DOOR_WAIT_HEAD,
		    door->settings.head_timeout_ms);
	return filter;
}

/*
 * The router got req: the door counts its reply once written. Called for
 * every request evhttp hands over; the ones it answers itself close the
 * connection.
 */
void
http_door_track(struct http_door *door, struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	struct bufferevent		*filter;
	struct http_door_conn		*conn;

	if ((evcon = evhttp_request_get_connection(req)) == NULL)
		return;
	filter = evhttp_connection_get_bufferevent(evcon);
	TAILQ_FOREACH(conn, &door->conns, entry) {
		if (conn->filter == filter) {
			evhttp_request_set_on_complete_cb(req,
			    http_door_replied, conn);
			return;
		}
	}
}

/*
 * Puts a door in front of http's connections; clock times the log of the
 * cap (deadlines are libevent timers).
 */
struct http_door *
http_door_new(struct evhttp *http, struct event_base *base,
    const struct http_door_settings *settings, http_door_judge_cb judge,
    void *arg, const struct clock *clock, struct log *log)
{
	struct http_door	*door = xcalloc(1, sizeof *door);

	door->settings = *settings;
	door->judge = judge;
	door->arg = arg;
	door->clock = clock;
	door->log = log;
	door->base = base;
	TAILQ_INIT(&door->conns);
	evhttp_set_bevcb(http, http_door_connection, door);
	return door;
}

/*
 * Frees the door, after evhttp_free: libevent may free a connection's
 * bufferevent later, so connections still listed are detached first.
 */
void
http_door_free(struct http_door *door)
{
	struct http_door_conn	*conn;

	if (door == NULL)
		return;
	while ((conn = TAILQ_FIRST(&door->conns)) != NULL)
		http_door_conn_detach(conn);
	free(door);
}
