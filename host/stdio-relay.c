/*
 * The relay: a state machine between the client and the host's /mcp.
 * Over 600 lines on purpose: its states, the one function that changes
 * them and the requests waiting for a host share one struct; split, that
 * struct would be every file's.
 */
#include "stdio-relay.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "config.h"
#include "errors.h"
#include "instance.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp-modern.h"
#include "probe.h"
#include "queue.h"
#include "stdio-offline.h"
#include "stdio-post.h"
#include "token.h"
#include "xmalloc.h"

#define STDIO_RELAY_EXIT_GRACE_MS	3000
#define STDIO_RELAY_REPLAY_ID		"browser-bridge-stdio-initialize"
#define STDIO_RELAY_VERIFY_MS		1000	/* the host's proof, per connect */

/*
 * Relay states:
 * STDIO_OFFLINE: no host; answer here, look for one.
 * STDIO_CONNECTING: initialize sent to a host, not answered yet; client
 *	messages wait in the queue.
 * STDIO_CONNECTED: a session with the host; relay everything.
 */
enum stdio_state {
	STDIO_OFFLINE,
	STDIO_CONNECTING,
	STDIO_CONNECTED,
};

TAILQ_HEAD(stdio_posts, stdio_post);

/*
 * A client's subscriptions/listen (2026-07-28): carried by a stream from
 * the host whenever one runs (post), held while none does, until the
 * client cancels it. The host acknowledges it; while none runs, the
 * relay does (ack), with the same filter checks.
 */
struct stdio_listen {
	json_t			*request;
	struct mcp_listener	*listener;	/* stdio-offline's: the filter */
	json_t			*ack;		/* NULL once the client has one */
	json_t			*refusal;	/* the host's answer, if any */
	struct stdio_post	*post;		/* NULL: held */
	TAILQ_ENTRY(stdio_listen) entry;
};
TAILQ_HEAD(stdio_listens, stdio_listen);

struct stdio_relay {
	struct event_base		*base;
	const struct config		*config;
	struct log			*log;
	struct stdio_relay_callbacks	 cb;
	struct stdio_post_callbacks	 post_cb;
	struct stdio_offline		*offline;
	struct event			*retry_timer;
	struct event			*exit_timer;
	bool				 input_closed;
	bool				 exiting;	/* ending the session */

	enum stdio_state		 state;
	json_t				*initialize;	/* to replay */
	bool				 initialized;	/* client said so */
	char				*protocol_version;
	json_t				*queue;		/* held: CONNECTING */

	long				 host_pid;
	int				 host_port;
	bool				 host_verified;	/* proved, not lost */
	char				*token;
	char				*session_id;
	char				*last_error;	/* why no host */
	uint64_t			 generation;	/* per connect */
	struct stdio_post		*stream;	/* GET /mcp, or NULL */
	struct stdio_posts		 posts;
	struct stdio_listens		 listens;	/* 2026-07-28 */
};

static void	stdio_relay_dispatch(struct stdio_relay *, json_t *);
static void	stdio_relay_maybe_exit(struct stdio_relay *);
static void	stdio_relay_listen_message(struct stdio_relay *,
		    struct stdio_post *, json_t *);

/* Queues a message for the client. */
static void
stdio_relay_write(struct stdio_relay *relay, const json_t *message)
{
	relay->cb.write(message, relay->cb.arg);
}

/* Takes an offline answer (stolen) for the client. */
static void
stdio_relay_emit(json_t *message, bool final, void *arg)
{
	if (message == NULL)
		return;
	stdio_relay_write(arg, message);
	json_decref(message);
}

/* Answers a client message here, as well as it can be without a host. */
static void
stdio_relay_answer_offline(struct stdio_relay *relay, const json_t *message,
    bool lost)
{
	const char	*version;

	version = stdio_offline_answer(relay->offline, message, lost,
	    relay->last_error, stdio_relay_emit, relay);
	if (version != NULL) {
		free(relay->protocol_version);
		relay->protocol_version = xstrdup(version);
	}
}

/* Keeps why the host cannot be reached; logs it when it changes. */
static void
stdio_relay_set_error(struct stdio_relay *relay, char *cause)
{
	if (relay->last_error == NULL ||
	    strcmp(relay->last_error, cause) != 0)
		log_info(relay->log, "no host: %s", cause);
	free(relay->last_error);
	relay->last_error = cause;
}

/* Sends a request to the host in this session; steals message. */
static struct stdio_post *
stdio_relay_post(struct stdio_relay *relay, enum stdio_post_kind kind,
    json_t *message)
{
	struct stdio_post_target	 target = {
		.port = relay->host_port,
		.token = relay->token,
		.session_id = relay->session_id,
		.protocol_version = relay->protocol_version,
	};
	struct stdio_post		*post;

	post = stdio_post_send(relay->base, &target, kind, message,
	    relay->generation, &relay->post_cb);
	TAILQ_INSERT_TAIL(&relay->posts, post, entry);
	return post;
}

/* Forgets the session with the host and ends its event stream. */
static void
stdio_relay_drop_session(struct stdio_relay *relay)
{
	relay->state = STDIO_OFFLINE;
	relay->generation++;
	free(relay->session_id);
	relay->session_id = NULL;
	if (relay->stream != NULL) {
		stdio_post_cancel(relay->stream);
		relay->stream = NULL;
	}
}

/* The host went away: answer here until it is back. */
static void
stdio_relay_lost(struct stdio_relay *relay, char *cause)
{
	if (relay->state != STDIO_CONNECTED) {
		free(cause);
		return;
	}
	log_warn(relay->log, "lost the host (%s); answering here until it "
	    "is back", cause);
	relay->host_verified = false;
	stdio_relay_drop_session(relay);
	free(relay->last_error);
	relay->last_error = cause;
}

/* Hands a message from the host on to the client (or to the connect). */
static void
stdio_relay_host_message(struct stdio_post *post, const char *text,
    size_t len)
{
	struct stdio_relay	*relay = post->cb->arg;
	json_error_t		 error;
	json_t			*message;
	const char		*version;
	bool			 response;

	message = json_loadb(text, len, 0, &error);
	if (!json_is_object(message)) {
		log_warn(relay->log, "skipped a message from the host that is "
		    "not a JSON object: %s", message == NULL ? error.text :
		    "not an object");
		json_decref(message);
		return;
	}
	response = json_object_get(message, "id") != NULL &&
	    json_object_get(message, "method") == NULL;
	if (response)
		post->answered = true;
	if (post->kind == STDIO_POST_LISTEN)
		stdio_relay_listen_message(relay, post, message);
	else if (response && (post->kind == STDIO_POST_INITIALIZE ||
	    post->kind == STDIO_POST_REPLAY)) {
		version = json_string_value(json_object_get(json_object_get(
		    message, "result"), "protocolVersion"));
		if (version == NULL)
			post->failed_init = true;
		else {
			free(relay->protocol_version);
			relay->protocol_version = xstrdup(version);
		}
		if (post->kind == STDIO_POST_INITIALIZE)
			stdio_relay_write(relay, message);
	} else
		stdio_relay_write(relay, message);
	json_decref(message);
}

/* Finds the host to relay to: the one --instance names, or the first. */
static int
stdio_relay_find_host(struct stdio_relay *relay, char **cause)
{
	struct instance		*hosts;
	const struct instance	*host;
	size_t			 count;

	count = instance_list(&hosts);
	host = instance_pick(hosts, count, relay->config->instance, cause);
	if (host != NULL) {
		relay->host_pid = host->pid;
		relay->host_port = host->port;
	}
	instance_list_free(hosts, count);
	return host != NULL ? 0 : -1;
}

/*
 * Finds the host and has it prove it holds the token before the token
 * goes to it; remembers it until it is lost. Returns -1 (the reason kept)
 * when there is none.
 */
static int
stdio_relay_verify_host(struct stdio_relay *relay)
{
	char	*cause = NULL;
	json_t	*health = NULL;

	relay->host_verified = false;
	if (stdio_relay_find_host(relay, &cause) != 0) {
		stdio_relay_set_error(relay, cause);
		return -1;
	}
	free(relay->token);
	relay->token = NULL;
	if (relay->config->auth && (relay->token = token_load_or_create(
	    relay->config->token_file, &cause)) == NULL) {
		stdio_relay_set_error(relay, cause);
		return -1;
	}
	/* The token goes only to a listener that proves it holds it. */
	if (relay->token != NULL && (health = probe_health(relay->host_port,
	    relay->token, STDIO_RELAY_VERIFY_MS, &cause)) == NULL) {
		stdio_relay_set_error(relay, cause);
		return -1;
	}
	json_decref(health);
	relay->host_verified = true;
	return 0;
}

/*
 * Starts a session with the host: sends the client's initialize (its own,
 * or the one kept from before, to replay for a new host). Fails at once
 * when no host is found.
 */
static int
stdio_relay_connect(struct stdio_relay *relay, json_t *client_initialize)
{
	json_t	*replay;

	if (stdio_relay_verify_host(relay) != 0)
		return -1;
	relay->state = STDIO_CONNECTING;
	relay->generation++;
	log_debug(relay->log, "connecting to the host (pid %ld, port %d)",
	    relay->host_pid, relay->host_port);
	if (client_initialize != NULL) {
		stdio_relay_post(relay, STDIO_POST_INITIALIZE,
		    json_incref(client_initialize));
	} else {
		replay = json_deep_copy(relay->initialize);
		json_object_set_new(replay, "id",
		    json_string(STDIO_RELAY_REPLAY_ID));
		stdio_relay_post(relay, STDIO_POST_REPLAY, replay);
	}
	return 0;
}

/* A connect failed: back to answering here, held messages too. */
static void
stdio_relay_connect_failed(struct stdio_post *post, char *cause)
{
	struct stdio_relay	*relay = post->cb->arg;
	json_t			*queue, *message;
	size_t			 i;

	if (post->generation != relay->generation ||
	    relay->state != STDIO_CONNECTING) {
		free(cause);
		return;		/* a newer attempt took over */
	}
	relay->state = STDIO_OFFLINE;
	stdio_relay_set_error(relay, cause);
	if (post->kind == STDIO_POST_INITIALIZE && !post->answered)
		stdio_relay_answer_offline(relay, post->message, false);
	queue = relay->queue;
	relay->queue = json_array();
	json_array_foreach(queue, i, message)
		stdio_relay_answer_offline(relay, message, false);
	json_decref(queue);
}

/* The host answered initialize: relay what was held, open the stream. */
static void
stdio_relay_connected(struct stdio_post *post, const char *session_id)
{
	struct stdio_relay	*relay = post->cb->arg;
	json_t			*queue, *message;
	const char		*method;
	size_t			 i;

	if (post->generation != relay->generation ||
	    relay->state != STDIO_CONNECTING)
		return;
	relay->state = STDIO_CONNECTED;
	free(relay->session_id);
	relay->session_id = xstrdup(session_id);
	free(relay->last_error);
	relay->last_error = NULL;
	log_info(relay->log, "connected to the host (pid %ld, port %d), "
	    "session %.8s", relay->host_pid, relay->host_port, session_id);
	if (post->kind == STDIO_POST_REPLAY && relay->initialized) {
		stdio_relay_post(relay, STDIO_POST_MESSAGE,
		    jsonrpc_notification("notifications/initialized", NULL));
	}
	relay->stream = stdio_relay_post(relay, STDIO_POST_STREAM, NULL);
	queue = relay->queue;
	relay->queue = json_array();
	json_array_foreach(queue, i, message) {
		method = json_string_value(json_object_get(message, "method"));
		if (post->kind == STDIO_POST_REPLAY && method != NULL &&
		    strcmp(method, "notifications/initialized") == 0)
			continue;	/* sent above */
		stdio_relay_dispatch(relay, message);
	}
	json_decref(queue);
}

/*
 * A 2026-07-28 request to the host ended. Unanswered, it is answered here:
 * as the host would without the browser when the host went away, with
 * the host's own error when it refused the request (-32022 names the
 * versions it speaks), or with what its HTTP status said. Steals cause.
 */
static void
stdio_relay_modern_finished(struct stdio_relay *relay,
    struct stdio_post *post, char *cause)
{
	json_t	*body;
	char	*text;
	int	 code;

	if (cause != NULL) {
		relay->host_verified = false;
		stdio_relay_set_error(relay, cause);
		if (!post->answered)
			stdio_relay_answer_offline(relay, post->message, true);
		return;
	}
	if (post->answered)
		return;
	body = json_loadb((const char *)evbuffer_pullup(post->body, -1),
	    evbuffer_get_length(post->body), 0, NULL);
	if (json_is_object(json_object_get(body, "error")) &&
	    json_equal(json_object_get(body, "id"),
	    json_object_get(post->message, "id"))) {
		stdio_relay_write(relay, body);
	} else {
		text = stdio_post_error_text(post, &code);
		log_warn(relay->log, "%s", text);
		stdio_relay_emit(jsonrpc_error(json_object_get(post->message,
		    "id"), code, text, NULL), true, relay);
		free(text);
	}
	json_decref(body);
}

/* Has the host carry a listen's notifications. */
static void
stdio_relay_listen_attach(struct stdio_relay *relay,
    struct stdio_listen *listen)
{
	listen->post = stdio_relay_post(relay, STDIO_POST_LISTEN,
	    json_incref(listen->request));
}

/* Ends a listen: its stream, its filter, its memory. */
static void
stdio_relay_listen_free(struct stdio_relay *relay,
    struct stdio_listen *listen)
{
	TAILQ_REMOVE(&relay->listens, listen, entry);
	if (listen->post != NULL)
		stdio_post_cancel(listen->post);
	stdio_offline_unlisten(relay->offline, listen->listener);
	json_decref(listen->request);
	json_decref(listen->ack);
	json_decref(listen->refusal);
	free(listen);
}

/* The listen a stream from the host carries, or NULL (cancelled). */
static struct stdio_listen *
stdio_relay_listen_find(struct stdio_relay *relay, struct stdio_post *post)
{
	struct stdio_listen	*listen;

	TAILQ_FOREACH(listen, &relay->listens, entry) {
		if (listen->post == post)
			return listen;
	}
	return NULL;
}

/* Gives the client its listen's acknowledgement, once. */
static void
stdio_relay_listen_ack(struct stdio_relay *relay, struct stdio_listen *listen,
    const json_t *ack)
{
	if (listen->ack == NULL)
		return;
	stdio_relay_write(relay, ack);
	json_decref(listen->ack);
	listen->ack = NULL;
}

/*
 * A message on a listen's stream: the host's acknowledgement goes to the
 * client unless it had one from here; a response is the host's refusal,
 * kept for when the stream ends; notifications go to the client.
 */
static void
stdio_relay_listen_message(struct stdio_relay *relay, struct stdio_post *post,
    json_t *message)
{
	struct stdio_listen	*listen = stdio_relay_listen_find(relay, post);
	const char		*method = jsonrpc_string(json_object_get(message,
				    "method"));

	if (listen == NULL)
		return;
	if (method == NULL) {
		json_decref(listen->refusal);
		listen->refusal = json_incref(message);
	} else if (strcmp(method, "notifications/subscriptions/acknowledged") ==
	    0)
		stdio_relay_listen_ack(relay, listen, message);
	else
		stdio_relay_write(relay, message);
}

/*
 * A listen's stream from the host ended. The host went away: hold the
 * listen until one runs again (acknowledged from here if the host had not
 * yet). The host refused it: end it, with the host's answer when the
 * client has no acknowledgement yet, else as a server ends a listen on
 * stdio, with notifications/cancelled naming it. Steals cause.
 */
static void
stdio_relay_listen_finished(struct stdio_relay *relay,
    struct stdio_post *post, char *cause)
{
	struct stdio_listen	*listen = stdio_relay_listen_find(relay, post);
	json_t			*note;
	char			*text;
	int			 code;

	if (listen == NULL) {
		free(cause);
		return;
	}
	listen->post = NULL;
	if (!post->answered && (cause != NULL || post->status == 200)) {
		relay->host_verified = false;
		stdio_relay_set_error(relay, cause != NULL ? cause :
		    xstrdup("the host closed a subscriptions/listen stream"));
		stdio_relay_listen_ack(relay, listen, listen->ack);
		return;
	}
	free(cause);
	log_warn(relay->log, "the host refused a subscriptions/listen "
	    "(HTTP %d); ended it", post->status);
	if (listen->ack != NULL && listen->refusal != NULL)
		stdio_relay_write(relay, listen->refusal);
	else if (listen->ack != NULL) {
		text = stdio_post_error_text(post, &code);
		stdio_relay_emit(jsonrpc_error(json_object_get(listen->request,
		    "id"), code, text, NULL), true, relay);
		free(text);
	} else {
		note = jsonrpc_notification("notifications/cancelled",
		    json_pack("{s:O,s:s}", "requestId", json_object_get(
		    listen->request, "id"), "reason", "the Browser Bridge "
		    "host ended the subscription"));
		stdio_relay_write(relay, note);
		json_decref(note);
	}
	stdio_relay_listen_free(relay, listen);
}

/* Whether the host is there to take a request: known, or found now. */
static bool
stdio_relay_host_ready(struct stdio_relay *relay)
{
	return relay->host_verified ||
	    (!relay->input_closed && stdio_relay_verify_host(relay) == 0);
}

/*
 * subscriptions/listen: its filter checked here, then carried by the host
 * when one runs, which acknowledges it; while none does, acknowledged here
 * and held (stdio_relay_retry_cb attaches held ones).
 */
static void
stdio_relay_listen(struct stdio_relay *relay, const json_t *request)
{
	struct stdio_listen	*listen;
	struct mcp_listener	*listener;
	json_t			*reply;

	if ((listener = stdio_offline_listen(relay->offline, request,
	    &reply)) == NULL) {
		stdio_relay_write(relay, reply);
		json_decref(reply);
		return;
	}
	listen = xcalloc(1, sizeof *listen);
	listen->request = json_incref((json_t *)request);
	listen->listener = listener;
	listen->ack = reply;
	TAILQ_INSERT_TAIL(&relay->listens, listen, entry);
	if (stdio_relay_host_ready(relay))
		stdio_relay_listen_attach(relay, listen);
	else
		stdio_relay_listen_ack(relay, listen, listen->ack);
}

/*
 * notifications/cancelled for a 2026-07-28 request: its request to the
 * host is closed, which cancels it there (and it gets no response); a
 * listen ends.
 */
static void
stdio_relay_modern_cancel(struct stdio_relay *relay, const json_t *id)
{
	struct stdio_post	*post;
	struct stdio_listen	*listen;

	TAILQ_FOREACH(listen, &relay->listens, entry) {
		if (json_equal(json_object_get(listen->request, "id"), id)) {
			stdio_relay_listen_free(relay, listen);
			return;
		}
	}
	TAILQ_FOREACH(post, &relay->posts, entry) {
		if (post->kind == STDIO_POST_MODERN && !post->done &&
		    json_equal(json_object_get(post->message, "id"), id)) {
			stdio_post_cancel(post);
			return;
		}
	}
}

/*
 * A 2026-07-28 message: each request goes to the host on its own, without
 * a session (answered here while no host runs); cancellations close the
 * request they name. Other notifications have nothing to do.
 */
static void
stdio_relay_modern(struct stdio_relay *relay, json_t *message)
{
	const char	*method = jsonrpc_string(json_object_get(message,
			    "method"));

	if (json_object_get(message, "id") == NULL) {
		if (method != NULL &&
		    strcmp(method, "notifications/cancelled") == 0)
			stdio_relay_modern_cancel(relay, json_object_get(
			    json_object_get(message, "params"), "requestId"));
		return;
	}
	if (method != NULL && strcmp(method, "subscriptions/listen") == 0)
		stdio_relay_listen(relay, message);
	else if (stdio_relay_host_ready(relay))
		stdio_relay_post(relay, STDIO_POST_MODERN, json_incref(message));
	else
		stdio_relay_answer_offline(relay, message, false);
}

/*
 * A request to the host ended: replied (with an HTTP status), or failed
 * (status 0: no reply, the host is not or no longer there).
 */
static void
stdio_relay_post_finished(struct stdio_post *post, const char *session_id)
{
	struct stdio_relay	*relay = post->cb->arg;
	bool			 current = post->generation == relay->generation;
	char			*cause = NULL, *text;
	int			 code;

	if (post->status == 0) {
		cause = xasprintf("cannot reach the host on 127.0.0.1:%d: %s",
		    relay->host_port, post->error != NULL ? post->error :
		    "no reply");
	}
	switch (post->kind) {
	case STDIO_POST_INITIALIZE:
	case STDIO_POST_REPLAY:
		if (cause == NULL && post->status == 200 && post->answered &&
		    !post->failed_init && session_id != NULL) {
			stdio_relay_connected(post, session_id);
			break;
		}
		if (cause == NULL && post->status == 200)
			cause = xstrdup("the host answered initialize without "
			    "a session");
		else if (cause == NULL)
			cause = stdio_post_error_text(post, &code);
		stdio_relay_connect_failed(post, cause);
		break;
	case STDIO_POST_MESSAGE:
		if (cause != NULL) {
			if (current)
				stdio_relay_lost(relay, cause);
			else
				free(cause);
			if (!post->answered)
				stdio_relay_answer_offline(relay, post->message,
				    true);
		} else if (post->status == 404 && current) {
			/* The session expired: a new one, then again. */
			stdio_relay_lost(relay, xstrdup("the host ended the "
			    "session"));
			stdio_relay_dispatch(relay, post->message);
		} else if (post->status != 200 && post->status != 202) {
			text = stdio_post_error_text(post, &code);
			log_warn(relay->log, "%s", text);
			if (json_object_get(post->message, "id") != NULL &&
			    json_object_get(post->message, "method") != NULL) {
				stdio_relay_emit(jsonrpc_error(json_object_get(
				    post->message, "id"), code, text, NULL),
				    true, relay);
			}
			free(text);
		}
		break;
	case STDIO_POST_STREAM:
		if (relay->stream == post)
			relay->stream = NULL;
		if (cause == NULL && post->status == 200)
			cause = xstrdup("the host closed its event stream");
		if (current && cause != NULL)
			stdio_relay_lost(relay, cause);
		else
			free(cause);
		break;
	case STDIO_POST_DELETE:
		free(cause);
		relay->cb.finished(relay->cb.arg);
		break;
	case STDIO_POST_MODERN:
		stdio_relay_modern_finished(relay, post, cause);
		break;
	case STDIO_POST_LISTEN:
		stdio_relay_listen_finished(relay, post, cause);
		break;
	}
}

/* A request is about to be freed: forget it; maybe the work is done. */
static void
stdio_relay_post_freed(struct stdio_post *post)
{
	struct stdio_relay	*relay = post->cb->arg;

	TAILQ_REMOVE(&relay->posts, post, entry);
	stdio_relay_maybe_exit(relay);
}

/* Handles one message (an object) from the client. */
static void
stdio_relay_dispatch(struct stdio_relay *relay, json_t *message)
{
	const char	*method;
	bool		 request;

	if (mcp_modern_version(message) != NULL) {
		stdio_relay_modern(relay, message);
		return;
	}
	method = json_string_value(json_object_get(message, "method"));
	request = method != NULL && json_object_get(message, "id") != NULL;
	if (request && strcmp(method, "initialize") == 0) {
		json_decref(relay->initialize);
		relay->initialize = json_deep_copy(message);
		relay->initialized = false;
		if (relay->state == STDIO_CONNECTING) {
			json_array_append(relay->queue, message);
			return;
		}
		if (relay->state == STDIO_CONNECTED)
			stdio_relay_drop_session(relay);	/* a new one */
		if (relay->input_closed ||
		    stdio_relay_connect(relay, message) != 0)
			stdio_relay_answer_offline(relay, message, false);
		return;
	}
	if (method != NULL && strcmp(method, "notifications/initialized") == 0)
		relay->initialized = true;
	switch (relay->state) {
	case STDIO_CONNECTED:
		stdio_relay_post(relay, STDIO_POST_MESSAGE,
		    json_incref(message));
		break;
	case STDIO_CONNECTING:
		json_array_append(relay->queue, message);
		break;
	case STDIO_OFFLINE:
		if (relay->initialize != NULL && !relay->input_closed &&
		    stdio_relay_connect(relay, NULL) == 0)
			json_array_append(relay->queue, message);
		else
			stdio_relay_answer_offline(relay, message, false);
		break;
	}
}

/* Handles one message from the client; one that is no object is invalid. */
void
stdio_relay_message(struct stdio_relay *relay, const json_t *message)
{
	if (json_is_object(message))
		stdio_relay_dispatch(relay, (json_t *)message);
	else
		stdio_relay_answer_offline(relay, message, false);
}

/*
 * After the input closed, finishes once every request in flight has its
 * answer, ending the host session first.
 */
static void
stdio_relay_maybe_exit(struct stdio_relay *relay)
{
	struct stdio_post	*post;
	struct stdio_listen	*listen;
	struct timeval		 tv;

	if (!relay->input_closed || relay->exiting)
		return;
	if (json_array_size(relay->queue) > 0)
		return;
	TAILQ_FOREACH(post, &relay->posts, entry) {
		if (!post->done && post->kind != STDIO_POST_STREAM &&
		    post->kind != STDIO_POST_LISTEN &&
		    post->kind != STDIO_POST_DELETE)
			return;
	}
	relay->exiting = true;
	while ((listen = TAILQ_FIRST(&relay->listens)) != NULL)
		stdio_relay_listen_free(relay, listen);
	if (relay->stream != NULL) {
		stdio_post_cancel(relay->stream);
		relay->stream = NULL;
	}
	if (relay->state != STDIO_CONNECTED || relay->session_id == NULL) {
		relay->cb.finished(relay->cb.arg);
		return;
	}
	stdio_relay_post(relay, STDIO_POST_DELETE, NULL);
	tv.tv_sec = STDIO_RELAY_EXIT_GRACE_MS / 1000;
	tv.tv_usec = (STDIO_RELAY_EXIT_GRACE_MS % 1000) * 1000;
	evtimer_add(relay->exit_timer, &tv);
}

/* The client's input ended: finish what is in flight, then stop. */
void
stdio_relay_input_closed(struct stdio_relay *relay)
{
	relay->input_closed = true;
	stdio_relay_maybe_exit(relay);
}

/* The session's DELETE took too long: stop anyway. */
static void
stdio_relay_exit_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_relay	*relay = arg;

	relay->cb.finished(relay->cb.arg);
}

/*
 * Looks for a host again while there is none: for the client's session,
 * and for the listens held.
 */
static void
stdio_relay_retry_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_relay	*relay = arg;
	struct stdio_listen	*listen;
	bool			 held = false;

	if (relay->state == STDIO_OFFLINE && relay->initialize != NULL &&
	    !relay->input_closed)
		(void)stdio_relay_connect(relay, NULL);
	TAILQ_FOREACH(listen, &relay->listens, entry)
		held = held || listen->post == NULL;
	if (!held || !stdio_relay_host_ready(relay))
		return;
	TAILQ_FOREACH(listen, &relay->listens, entry) {
		if (listen->post == NULL)
			stdio_relay_listen_attach(relay, listen);
	}
}

/* Makes the relay, offline until the client initializes and a host runs. */
struct stdio_relay *
stdio_relay_new(struct event_base *base, const struct config *config,
    struct log *log, const struct tool_registry *tools,
    const struct stdio_relay_callbacks *cb)
{
	struct stdio_relay	*relay = xcalloc(1, sizeof *relay);
	struct timeval		 tv;

	relay->base = base;
	relay->config = config;
	relay->log = log;
	relay->cb = *cb;
	relay->post_cb.message = stdio_relay_host_message;
	relay->post_cb.finished = stdio_relay_post_finished;
	relay->post_cb.freed = stdio_relay_post_freed;
	relay->post_cb.arg = relay;
	relay->offline = stdio_offline_new(tools, config->tools_page_size,
	    log);
	relay->queue = json_array();
	TAILQ_INIT(&relay->posts);
	TAILQ_INIT(&relay->listens);
	relay->retry_timer = event_new(base, -1, EV_PERSIST,
	    stdio_relay_retry_cb, relay);
	relay->exit_timer = evtimer_new(base, stdio_relay_exit_cb, relay);
	tv.tv_sec = STDIO_RELAY_RETRY_MS / 1000;
	tv.tv_usec = (STDIO_RELAY_RETRY_MS % 1000) * 1000;
	event_add(relay->retry_timer, &tv);
	return relay;
}

/* Frees the relay and every request still in flight, without callbacks. */
void
stdio_relay_free(struct stdio_relay *relay)
{
	struct stdio_post	*post;
	struct stdio_listen	*listen;

	if (relay == NULL)
		return;
	while ((post = TAILQ_FIRST(&relay->posts)) != NULL) {
		TAILQ_REMOVE(&relay->posts, post, entry);
		stdio_post_free(post);
	}
	while ((listen = TAILQ_FIRST(&relay->listens)) != NULL) {
		listen->post = NULL;	/* freed above */
		stdio_relay_listen_free(relay, listen);
	}
	event_free(relay->retry_timer);
	event_free(relay->exit_timer);
	stdio_offline_free(relay->offline);
	json_decref(relay->initialize);
	json_decref(relay->queue);
	free(relay->protocol_version);
	free(relay->token);
	free(relay->session_id);
	free(relay->last_error);
	free(relay);
}
