/*
 * The host's side of the host-extension protocol (docs/protocol.md).
 *
 * Every call the host makes lives on one list, in id order (ids only grow
 * and calls are appended), until its outcome is reported or it is
 * cancelled. Lookup by id is a linear walk that stops at the first larger
 * id; a handful of calls are in flight at a time, so nothing faster is
 * needed. A call is always taken off the list before its done callback
 * runs, so the callback may call rpc_call or rpc_cancel freely.
 *
 * Over 600 lines on purpose: sending, receiving, deadlines and the hello
 * all work on that one list of calls, which no other file sees.
 */
#include "rpc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errors.h"
#include "log.h"
#include "queue.h"
#include "xmalloc.h"

#define RPC_DEFAULT_TIMEOUT_MS	30000
/* The longest client name a request carries (a session's, "name version"). */
#define RPC_CLIENT_MAX		64
/* The longest caller identity a request carries (session.h). */
#define RPC_CALLER_MAX		64

#define RPC_MSG_NOT_CONNECTED \
	"The browser extension has not connected to this host. Open the " \
	"browser with the Browser Bridge extension enabled (check " \
	"chrome://extensions), then retry; `browser-bridge doctor` checks " \
	"every step."
#define RPC_MSG_DISCONNECTED \
	"The browser extension disconnected (browser closed or extension " \
	"reloaded). Reopen the browser and retry."

/*
 * Connection states:
 * RPC_WAITING_HELLO: the channel is open but the extension has not said
 *	hello; calls are queued.
 * RPC_CONNECTED: the hello was accepted; calls are sent at once.
 * RPC_DISCONNECTED: the channel closed; calls fail. Final.
 */
enum rpc_state {
	RPC_WAITING_HELLO,
	RPC_CONNECTED,
	RPC_DISCONNECTED,
};

struct rpc_call {
	struct rpc		*rpc;
	uint64_t		 id;
	char			*method;
	char			 client[RPC_CLIENT_MAX];	/* who asked, or "" */
	char			 caller[RPC_CALLER_MAX];	/* its identity, or "" */
	bool			 owner;		/* made with the owner key */
	json_t			*params;	/* until sent */
	int			 timeout_ms;
	uint64_t		 deadline_ms;	/* by the clock: timeout */
	uint64_t		 hello_deadline_ms;	/* unsent: no hello */
	bool			 sent;
	const char		*fail_code;	/* set: fails when timer fires */
	char			*fail_message;	/* owned */
	struct event		*timer;
	rpc_done_cb		 done;
	rpc_progress_cb		 progress;
	void			*arg;
	TAILQ_ENTRY(rpc_call)	 entry;
};
TAILQ_HEAD(rpc_calls, rpc_call);

struct rpc {
	struct event_base	*base;
	const struct clock	*clock;
	struct log		*log;
	int			 hello_grace_ms;
	struct rpc_callbacks	 cb;
	enum rpc_state		 state;
	json_t			*hello;
	uint64_t		 next_id;
	size_t			 ncalls;
	struct rpc_calls	 calls;
};

static void	rpc_call_timer(evutil_socket_t, short, void *);

/* Arms a call's timer to fire after ms milliseconds. */
static void
rpc_call_arm(struct rpc_call *call, int ms)
{
	struct timeval	tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(call->timer, &tv);
}

/* Finds a pending call by id. */
static struct rpc_call *
rpc_call_find(struct rpc *rpc, uint64_t id)
{
	struct rpc_call	*call;

	TAILQ_FOREACH(call, &rpc->calls, entry) {
		if (call->id == id)
			return call;
		if (call->id > id)
			break;
	}
	return NULL;
}

/* Takes a call off the pending list and stops its timer. */
static void
rpc_call_detach(struct rpc_call *call)
{
	TAILQ_REMOVE(&call->rpc->calls, call, entry);
	call->rpc->ncalls--;
	evtimer_del(call->timer);
}

/* Frees a detached call. */
static void
rpc_call_free(struct rpc_call *call)
{
	event_free(call->timer);
	json_decref(call->params);
	free(call->method);
	free(call->fail_message);
	free(call);
}

/* Detaches a call, reports an error to its owner and frees it. */
static void
rpc_call_fail(struct rpc_call *call, const char *code, const char *message)
{
	rpc_call_detach(call);
	call->done(NULL, code, message, call->arg);
	rpc_call_free(call);
}

/* Makes a call fail from the event loop, never from the caller's stack. */
static void
rpc_call_fail_later(struct rpc_call *call, const char *code,
    const char *message)
{
	call->sent = false;
	call->fail_code = code;
	free(call->fail_message);
	call->fail_message = xstrdup(message);
	evtimer_del(call->timer);
	rpc_call_arm(call, 0);
}

/* Sends one message; returns -1 if the channel is gone. */
static int
rpc_send(struct rpc *rpc, json_t *message)
{
	int	ret;

	if (message == NULL) {
		log_error(rpc->log, "rpc: cannot build a message");
		return -1;
	}
	ret = rpc->cb.send(message, rpc->cb.arg);
	json_decref(message);
	return ret;
}

/* Sends a cancel for a call the extension knows about. */
static void
rpc_send_cancel(struct rpc *rpc, uint64_t id, const char *reason)
{
	rpc_send(rpc, json_pack("{s:s, s:I, s:s}", "type", "cancel",
	    "id", (json_int_t)id, "reason", reason));
}

/*
 * Sends a call's request, arming its timeout; fails it later on error, or
 * at once when the extension has stopped reading.
 */
static void
rpc_call_send(struct rpc_call *call, int timeout_ms)
{
	json_t	*message;
	size_t	 backlog;
	char	*busy;

	backlog = call->rpc->cb.backlog != NULL ?
	    call->rpc->cb.backlog(call->rpc->cb.arg) : 0;
	if (backlog > RPC_BACKLOG_MAX) {
		log_warn(call->rpc->log, "rpc: %s (id %" PRIu64 ") refused: "
		    "%zu bytes wait for the extension", call->method, call->id,
		    backlog);
		busy = xasprintf("The browser extension is not reading its "
		    "messages (%zu MiB wait for it): it may be hung. Retry in "
		    "a moment; if it keeps happening, reload Browser Bridge at "
		    "chrome://extensions or restart the browser.",
		    backlog / (1024 * 1024));
		rpc_call_fail_later(call, ERR_EXTENSION_BUSY, busy);
		free(busy);
		return;
	}

	message = json_pack("{s:s, s:I, s:s, s:O, s:i}", "type", "request",
	    "id", (json_int_t)call->id, "method", call->method,
	    "params", call->params, "timeout_ms", timeout_ms);
	if (call->client[0] != '\0')
		json_object_set_new(message, "client",
		    json_string(call->client));
	if (call->caller[0] != '\0')
		json_object_set_new(message, "caller",
		    json_string(call->caller));
	if (call->owner)
		json_object_set_new(message, "owner", json_true());
	if (rpc_send(call->rpc, message) != 0) {
		log_warn(call->rpc->log, "rpc: cannot send %s (id %" PRIu64
		    "): channel closed", call->method, call->id);
		rpc_call_fail_later(call, ERR_EXTENSION_DISCONNECTED,
		    RPC_MSG_DISCONNECTED);
		return;
	}
	json_decref(call->params);
	call->params = NULL;
	call->sent = true;
	evtimer_del(call->timer);
	rpc_call_arm(call, timeout_ms);
}

/* Returns when a call is overdue: its timeout, or unsent, the hello's. */
static uint64_t
rpc_call_due_ms(const struct rpc_call *call)
{
	return call->sent ? call->deadline_ms : call->hello_deadline_ms;
}

/* Fails an overdue call: no hello in time, or no answer in time. */
static void
rpc_call_expire(struct rpc_call *call)
{
	struct rpc	*rpc = call->rpc;
	char		*message;

	if (!call->sent) {
		log_warn(rpc->log, "rpc: %s (id %" PRIu64 ") failed: no hello "
		    "from the extension", call->method, call->id);
		rpc_call_fail(call, ERR_EXTENSION_NOT_CONNECTED,
		    RPC_MSG_NOT_CONNECTED);
		return;
	}
	log_warn(rpc->log, "rpc: %s (id %" PRIu64 ") timed out after %d ms",
	    call->method, call->id, call->timeout_ms);
	rpc_call_detach(call);
	rpc_send_cancel(rpc, call->id, "timeout");
	message = xasprintf("The extension did not answer %s within %d ms. "
	    "The page may be busy or the tab closed; check the tab and retry, "
	    "or raise timeout_ms.", call->method, call->timeout_ms);
	call->done(NULL, ERR_TIMEOUT, message, call->arg);
	free(message);
	rpc_call_free(call);
}

/*
 * A call's timer: a deferred failure, or the clock says the call may be
 * overdue. The clock decides; a timer that fires early is armed again.
 */
static void
rpc_call_timer(__attribute__((unused)) evutil_socket_t fd,
    __attribute__((unused)) short events, void *arg)
{
	struct rpc_call	*call = arg;
	uint64_t	 now, due;

	if (call->fail_code != NULL) {
		rpc_call_fail(call, call->fail_code, call->fail_message);
		return;
	}
	now = clock_now_ms(call->rpc->clock);
	due = rpc_call_due_ms(call);
	if (now < due)
		rpc_call_arm(call, (int)(due - now));
	else
		rpc_call_expire(call);
}

/*
 * Fails every call the clock says is overdue, as their timers would; for
 * an owner (or a test) that moved the clock. Returns how many failed.
 */
size_t
rpc_expire(struct rpc *rpc)
{
	struct rpc_call	*call;
	uint64_t	 now;
	size_t		 n = 0;

	/* A done callback may add or cancel calls: look again each time. */
	for (;;) {
		now = clock_now_ms(rpc->clock);
		TAILQ_FOREACH(call, &rpc->calls, entry) {
			if (call->fail_code == NULL &&
			    now >= rpc_call_due_ms(call))
				break;
		}
		if (call == NULL)
			return n;
		rpc_call_expire(call);
		n++;
	}
}

/* Creates the protocol state, waiting for the extension's hello. */
struct rpc *
rpc_new(struct event_base *base, const struct clock *clock, struct log *log,
    int hello_grace_ms, const struct rpc_callbacks *callbacks)
{
	struct rpc	*rpc;

	rpc = xcalloc(1, sizeof *rpc);
	rpc->base = base;
	rpc->clock = clock;
	rpc->log = log;
	rpc->hello_grace_ms = hello_grace_ms > 0 ? hello_grace_ms :
	    RPC_DEFAULT_HELLO_GRACE_MS;
	rpc->cb = *callbacks;
	rpc->state = RPC_WAITING_HELLO;
	rpc->next_id = 1;
	TAILQ_INIT(&rpc->calls);
	return rpc;
}

/* Frees the state; pending calls go without their callbacks. */
void
rpc_free(struct rpc *rpc)
{
	struct rpc_call	*call;

	if (rpc == NULL)
		return;
	while ((call = TAILQ_FIRST(&rpc->calls)) != NULL) {
		rpc_call_detach(call);
		rpc_call_free(call);
	}
	json_decref(rpc->hello);
	free(rpc);
}

/*
 * Answers a hello: a welcome, then the queued calls go out and the owner
 * hears. A second hello on the same channel is welcomed again and calls
 * connected again; a mismatched one changes nothing but gets an error.
 */
static void
rpc_receive_hello(struct rpc *rpc, const json_t *message)
{
	json_t		*protocol = json_object_get(message, "protocol");
	json_t		*welcome, *fields = NULL;
	struct rpc_call	*call;
	uint64_t	 now;
	char		*text, *error;
	int		 remaining;

	if (!json_is_integer(protocol) ||
	    json_integer_value(protocol) != RPC_PROTOCOL_VERSION) {
		text = json_dumps(protocol, JSON_ENCODE_ANY);
		error = xasprintf("The extension speaks protocol %s, this host "
		    "speaks %d: update both to the same release.",
		    text != NULL ? text : "(none)", RPC_PROTOCOL_VERSION);
		free(text);
		log_error(rpc->log, "rpc: %s", error);
		rpc_send(rpc, json_pack("{s:s, s:i, s:{s:s, s:s}}", "type",
		    "welcome", "protocol", RPC_PROTOCOL_VERSION, "error",
		    "code", ERR_PROTOCOL_MISMATCH, "message", error));
		free(error);
		return;
	}

	json_decref(rpc->hello);
	rpc->hello = json_deep_copy(message);
	welcome = json_pack("{s:s, s:i}", "type", "welcome", "protocol",
	    RPC_PROTOCOL_VERSION);
	if (rpc->cb.welcome != NULL)
		fields = rpc->cb.welcome(rpc->hello, rpc->cb.arg);
	if (json_is_object(fields)) {
		json_object_update(welcome, fields);
		json_object_set_new(welcome, "type", json_string("welcome"));
		json_object_set_new(welcome, "protocol",
		    json_integer(RPC_PROTOCOL_VERSION));
	}
	json_decref(fields);
	if (rpc_send(rpc, welcome) != 0)
		log_warn(rpc->log, "rpc: cannot send welcome: channel closed");
	log_info(rpc->log, "rpc: extension connected (protocol %d)",
	    RPC_PROTOCOL_VERSION);
	rpc->state = RPC_CONNECTED;

	/* Sending never removes a call from the list (failures are later). */
	now = clock_now_ms(rpc->clock);
	TAILQ_FOREACH(call, &rpc->calls, entry) {
		if (call->sent || call->fail_code != NULL)
			continue;
		remaining = 1;
		if (call->deadline_ms > now + 1)
			remaining = (int)(call->deadline_ms - now);
		rpc_call_send(call, remaining);
	}
	if (rpc->cb.connected != NULL)
		rpc->cb.connected(rpc->cb.arg);
}

/* Finds the sent call a response or progress message is about. */
static struct rpc_call *
rpc_receive_find(struct rpc *rpc, const json_t *message, const char *type)
{
	json_t		*id = json_object_get(message, "id");
	struct rpc_call	*call = NULL;

	if (json_is_integer(id) && json_integer_value(id) > 0)
		call = rpc_call_find(rpc, (uint64_t)json_integer_value(id));
	if (call == NULL || !call->sent || call->fail_code != NULL) {
		log_debug(rpc->log, "rpc: %s for no pending call, dropped",
		    type);
		return NULL;
	}
	return call;
}

/* Reports a response to the call it answers. */
static void
rpc_receive_response(struct rpc *rpc, const json_t *message)
{
	struct rpc_call	*call;
	json_t		*result, *error, *code, *text;
	const char	*error_code = NULL, *error_message = NULL;

	if ((call = rpc_receive_find(rpc, message, "response")) == NULL)
		return;
	result = json_object_get(message, "result");
	error = json_object_get(message, "error");
	if (error != NULL && !json_is_null(error)) {
		code = json_object_get(error, "code");
		text = json_is_string(error) ? error :
		    json_object_get(error, "message");
		error_code = json_is_string(code) ? json_string_value(code) :
		    ERR_INTERNAL;
		error_message = json_is_string(text) ? json_string_value(text) :
		    "The extension reported an error without a message. "
		    "Check the extension's console for details, then retry.";
		result = NULL;
	} else if (result == NULL) {
		error_code = ERR_INTERNAL;
		error_message = "The extension answered with neither a result "
		    "nor an error. Update the extension, then retry.";
	}
	rpc_call_detach(call);
	call->done(result, error_code, error_message, call->arg);
	rpc_call_free(call);
}

/* Passes a progress message to the call it is about. */
static void
rpc_receive_progress(struct rpc *rpc, const json_t *message)
{
	struct rpc_call	*call;

	if ((call = rpc_receive_find(rpc, message, "progress")) == NULL)
		return;
	if (call->progress != NULL)
		call->progress(message, call->arg);
}

/* Answers a request from the extension. */
static void
rpc_receive_request(struct rpc *rpc, const json_t *message)
{
	json_t		*id = json_object_get(message, "id");
	json_t		*method = json_object_get(message, "method");
	json_t		*params = json_object_get(message, "params");
	json_t		*empty = NULL, *result = NULL, *reply;
	const char	*code = NULL;
	char		*text = NULL;

	if (id == NULL) {
		log_warn(rpc->log, "rpc: request without an id, dropped");
		return;
	}
	if (!json_is_string(method)) {
		code = ERR_INVALID_ARGUMENT;
		text = xstrdup("The request has no string \"method\". Send "
		    "{\"type\":\"request\",\"id\":...,\"method\":\"...\"}.");
	} else if (params != NULL && !json_is_null(params) &&
	    !json_is_object(params)) {
		code = ERR_INVALID_ARGUMENT;
		text = xstrdup("The request's \"params\" must be an object.");
	} else if (rpc->cb.host_request == NULL) {
		code = ERR_UNKNOWN_METHOD;
		text = xasprintf("This host answers no method; %s is unknown.",
		    json_string_value(method));
	} else {
		if (!json_is_object(params))
			params = empty = json_object();
		result = rpc->cb.host_request(json_string_value(method), params,
		    rpc->cb.arg, &code, &text);
		json_decref(empty);
	}

	if (result != NULL) {
		reply = json_pack("{s:s, s:O, s:o}", "type", "response",
		    "id", id, "result", result);
	} else {
		reply = json_pack("{s:s, s:O, s:{s:s, s:s}}", "type",
		    "response", "id", id, "error",
		    "code", code != NULL ? code : ERR_INTERNAL,
		    "message", text != NULL ? text : "The host could not "
		    "answer the request. Check the host's log, then retry.");
	}
	free(text);
	if (rpc_send(rpc, reply) != 0)
		log_warn(rpc->log, "rpc: cannot send response: channel closed");
}

/* Handles one message from the extension (a JSON object). */
void
rpc_receive(struct rpc *rpc, const json_t *message)
{
	const char	*type = json_string_value(json_object_get(message,
			    "type"));

	if (rpc->state == RPC_DISCONNECTED) {
		log_debug(rpc->log, "rpc: message after close, dropped");
		return;
	}
	if (type == NULL)
		log_warn(rpc->log, "rpc: message without a type, ignored");
	else if (strcmp(type, "hello") == 0)
		rpc_receive_hello(rpc, message);
	else if (strcmp(type, "response") == 0)
		rpc_receive_response(rpc, message);
	else if (strcmp(type, "progress") == 0)
		rpc_receive_progress(rpc, message);
	else if (strcmp(type, "request") == 0)
		rpc_receive_request(rpc, message);
	else if (strcmp(type, "event") == 0) {
		if (rpc->cb.event != NULL)
			rpc->cb.event(message, rpc->cb.arg);
	} else
		log_warn(rpc->log, "rpc: unknown message type %s, ignored",
		    type);
}

/* The channel closed: every pending call fails now, then the owner hears. */
void
rpc_channel_closed(struct rpc *rpc)
{
	struct rpc_call	*call;
	uint64_t	 last = rpc->next_id - 1;

	if (rpc->state == RPC_DISCONNECTED)
		return;
	log_info(rpc->log, "rpc: extension disconnected, %zu calls pending",
	    rpc->ncalls);
	rpc->state = RPC_DISCONNECTED;

	/*
	 * Calls made by a done callback get larger ids, go to the tail and
	 * fail later from the loop; a cancelled call leaves the list.
	 */
	while ((call = TAILQ_FIRST(&rpc->calls)) != NULL && call->id <= last)
		rpc_call_fail(call, ERR_EXTENSION_DISCONNECTED,
		    RPC_MSG_DISCONNECTED);
	if (rpc->cb.disconnected != NULL)
		rpc->cb.disconnected(rpc->cb.arg);
}

/*
 * Starts a call to the extension; returns its id. client names the MCP
 * client that asked ("name version"), for the person's view of who acts;
 * caller is who asked as the host knows it (session_caller), for what only
 * that caller may read; each NULL or "" when unknown. owner: the call
 * came with the owner key, which may see every caller's work.
 */
uint64_t
rpc_call(struct rpc *rpc, const char *method, const char *client,
    const char *caller, bool owner, json_t *params, int timeout_ms, rpc_done_cb done, rpc_progress_cb progress,
    void *arg)
{
	struct rpc_call	*call;
	uint64_t	 now = clock_now_ms(rpc->clock);
	int		 grace_ms;

	if (timeout_ms <= 0)
		timeout_ms = RPC_DEFAULT_TIMEOUT_MS;
	grace_ms = timeout_ms < rpc->hello_grace_ms ? timeout_ms :
	    rpc->hello_grace_ms;
	call = xcalloc(1, sizeof *call);
	call->rpc = rpc;
	call->id = rpc->next_id++;
	call->method = xstrdup(method);
	/* In the call itself: one allocation less per call, none left behind. */
	if (client != NULL)
		(void)snprintf(call->client, sizeof call->client, "%s", client);
	if (caller != NULL)
		(void)snprintf(call->caller, sizeof call->caller, "%s", caller);
	call->owner = owner;
	call->params = params != NULL ? params : json_object();
	call->timeout_ms = timeout_ms;
	call->deadline_ms = now + (uint64_t)timeout_ms;
	call->hello_deadline_ms = now + (uint64_t)grace_ms;
	call->timer = evtimer_new(rpc->base, rpc_call_timer, call);
	call->done = done;
	call->progress = progress;
	call->arg = arg;
	TAILQ_INSERT_TAIL(&rpc->calls, call, entry);
	rpc->ncalls++;

	switch (rpc->state) {
	case RPC_CONNECTED:
		rpc_call_send(call, timeout_ms);
		break;
	case RPC_WAITING_HELLO:
		log_debug(rpc->log, "rpc: %s (id %" PRIu64 ") waits for the "
		    "hello", method, call->id);
		rpc_call_arm(call, grace_ms);
		break;
	case RPC_DISCONNECTED:
		rpc_call_fail_later(call, ERR_EXTENSION_DISCONNECTED,
		    RPC_MSG_DISCONNECTED);
		break;
	}
	return call->id;
}

/* Cancels a pending call; its done callback is never called. */
void
rpc_cancel(struct rpc *rpc, uint64_t id, const char *reason)
{
	struct rpc_call	*call;

	if ((call = rpc_call_find(rpc, id)) == NULL)
		return;
	rpc_call_detach(call);
	if (call->sent)
		rpc_send_cancel(rpc, id, reason != NULL ? reason : "cancelled");
	rpc_call_free(call);
}

/* Returns whether the extension has said hello and is still there. */
bool
rpc_is_connected(const struct rpc *rpc)
{
	return rpc->state == RPC_CONNECTED;
}

/* Returns how many calls await their outcome. */
size_t
rpc_pending_count(const struct rpc *rpc)
{
	return rpc->ncalls;
}

/* Returns the accepted hello, or NULL before one arrives. */
const json_t *
rpc_extension_hello(const struct rpc *rpc)
{
	return rpc->hello;
}
