/* The stdio bridge: MCP on stdin/stdout, relayed to the host's /mcp. */
#include "stdio-bridge.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "config.h"
#include "errors.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "probe.h"
#include "queue.h"
#include "resources.h"
#include "runtime-file.h"
#include "token.h"
#include "tools.h"
#include "xmalloc.h"

#define STDIO_READ_SIZE		(64 * 1024)
#define STDIO_EVENT_MAX		(64u * 1024 * 1024)
#define STDIO_INIT_TIMEOUT_S	10
#define STDIO_CALL_TIMEOUT_S	(24 * 3600)	/* tool timeouts end calls */
#define STDIO_DELETE_TIMEOUT_S	2
#define STDIO_EXIT_GRACE_MS	3000
#define STDIO_REPLAY_ID		"browser-bridge-stdio-initialize"

enum stdio_state {
	STDIO_OFFLINE,		/* no host: answer here, look for one */
	STDIO_CONNECTING,	/* initialize sent to a host, not answered yet */
	STDIO_CONNECTED,	/* a session with the host: relay everything */
};

enum stdio_post_kind {
	STDIO_POST_MESSAGE,	/* a client message */
	STDIO_POST_INITIALIZE,	/* the client's own initialize */
	STDIO_POST_REPLAY,	/* the client's initialize again, for a new host */
	STDIO_POST_STREAM,	/* GET /mcp: notifications for no request */
	STDIO_POST_DELETE,	/* DELETE /mcp at exit */
};

enum stdio_body {
	STDIO_BODY_UNKNOWN,
	STDIO_BODY_JSON,
	STDIO_BODY_SSE,
};

struct stdio_bridge;

/* One HTTP request to the host, on a connection of its own. */
struct stdio_post {
	struct stdio_bridge		*bridge;
	enum stdio_post_kind		 kind;
	json_t				*message;	/* NULL for GET, DELETE */
	uint64_t			 generation;	/* session it was sent in */
	struct evhttp_connection	*evcon;
	bool				 done;		/* libevent is done with it */
	struct event			*reap;		/* frees it from the loop */
	struct evbuffer			*body;
	enum stdio_body			 body_kind;
	struct stdio_sse_parser		 sse;
	int				 status;	/* HTTP status, 0: none */
	bool				 answered;	/* its response was seen */
	bool				 failed_init;	/* initialize got an error */
	const char			*error;		/* libevent's reason */
	bool				 failed_early;	/* never sent */
	TAILQ_ENTRY(stdio_post)		 entry;
};
TAILQ_HEAD(stdio_posts, stdio_post);

struct stdio_bridge {
	struct config		*config;
	struct log		*log;
	struct event_base	*base;
	struct tool_registry	*tools;
	int			 in_fd;
	int			 out_fd;
	int			 in_flags;	/* restored at exit */
	int			 out_flags;
	struct event		*read_event;
	struct event		*write_event;
	struct event		*retry_timer;
	struct event		*exit_timer;
	struct event		*signal_int;
	struct event		*signal_term;
	struct evbuffer		*input;
	struct evbuffer		*output;
	size_t			 max_message;
	bool			 skipping;	/* dropping an overlong line */
	bool			 input_closed;
	bool			 exiting;	/* DELETE sent or loop ending */

	enum stdio_state	 state;
	json_t			*initialize;	/* the client's, to replay */
	bool			 initialized;	/* notifications/initialized */
	char			*protocol_version;
	json_t			*queue;		/* held while CONNECTING */

	long			 host_pid;
	int			 host_port;
	char			*token;
	char			*session_id;
	char			*last_error;	/* why there is no host */
	uint64_t		 generation;	/* bumps per connect attempt */
	struct stdio_post	*stream;	/* GET /mcp, or NULL */
	struct stdio_posts	 posts;
};

static void	stdio_dispatch(struct stdio_bridge *, json_t *);
static void	stdio_maybe_exit(struct stdio_bridge *);
static void	stdio_post_failed(struct stdio_post *);
static void	stdio_post_replied(struct stdio_post *,
		    struct evhttp_request *);
static void	stdio_finish(struct stdio_bridge *);

/* Prepares a parser that keeps events up to max bytes. */
void
stdio_sse_init(struct stdio_sse_parser *parser, size_t max)
{
	memset(parser, 0, sizeof *parser);
	parser->data = evbuffer_new();
	parser->max = max;
}

/* Frees what a parser holds. */
void
stdio_sse_clear(struct stdio_sse_parser *parser)
{
	free(parser->event);
	if (parser->data != NULL)
		evbuffer_free(parser->data);
	memset(parser, 0, sizeof *parser);
}

/* Ends an event at a blank line: hands it on, then starts afresh. */
static void
stdio_sse_dispatch(struct stdio_sse_parser *parser, stdio_sse_event_cb cb,
    void *arg)
{
	size_t	 len = evbuffer_get_length(parser->data);
	char	*data;

	if (!parser->overflow && len > 0) {
		data = (char *)evbuffer_pullup(parser->data, -1);
		cb(parser->event != NULL ? parser->event : "message", data,
		    len - 1, arg);	/* without the last line's newline */
	}
	evbuffer_drain(parser->data, len);
	free(parser->event);
	parser->event = NULL;
	parser->overflow = 0;
}

/*
 * Consumes the complete lines of input: "data:" lines gather, "event:" names
 * the event, a blank line ends it, comments and other fields are skipped.
 */
void
stdio_sse_feed(struct stdio_sse_parser *parser, struct evbuffer *input,
    stdio_sse_event_cb cb, void *arg)
{
	char	*line, *colon, *value;
	size_t	 len, name_len, value_len;

	while ((line = evbuffer_readln(input, &len, EVBUFFER_EOL_CRLF)) !=
	    NULL) {
		if (len == 0) {
			stdio_sse_dispatch(parser, cb, arg);
			free(line);
			continue;
		}
		colon = memchr(line, ':', len);
		name_len = colon != NULL ? (size_t)(colon - line) : len;
		value = colon != NULL ? colon + 1 : line + len;
		if (colon != NULL && *value == ' ')
			value++;
		value_len = len - (size_t)(value - line);
		if (name_len == 4 && strncmp(line, "data", 4) == 0) {
			if (evbuffer_get_length(parser->data) + value_len + 1 >
			    parser->max) {
				parser->overflow = 1;
				evbuffer_drain(parser->data,
				    evbuffer_get_length(parser->data));
			}
			if (!parser->overflow) {
				evbuffer_add(parser->data, value, value_len);
				evbuffer_add(parser->data, "\n", 1);
			}
		} else if (name_len == 5 && strncmp(line, "event", 5) == 0) {
			free(parser->event);
			parser->event = xstrndup(value, value_len);
		}
		free(line);
	}
	if (evbuffer_get_length(input) > parser->max) {
		/* One line longer than any event may be: drop it. */
		parser->overflow = 1;
		evbuffer_drain(input, evbuffer_get_length(input));
	}
}

/* Queues one message for the client, as one line. */
static void
stdio_write(struct stdio_bridge *bridge, const json_t *message)
{
	char	*text;

	if ((text = json_dumps(message, JSON_COMPACT)) == NULL)
		return;
	evbuffer_add(bridge->output, text, strlen(text));
	evbuffer_add(bridge->output, "\n", 1);
	free(text);
	event_add(bridge->write_event, NULL);
}

/* Queues a message for the client and frees it. */
static void
stdio_write_free(struct stdio_bridge *bridge, json_t *message)
{
	stdio_write(bridge, message);
	json_decref(message);
}

/* Writes what the client can take now. */
static void
stdio_write_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;
	int			 n;

	n = evbuffer_write(bridge->output, bridge->out_fd);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == -1) {
		log_warn(bridge->log, "cannot write to the client: %s; "
		    "stopping", strerror(errno));
		evbuffer_drain(bridge->output,
		    evbuffer_get_length(bridge->output));
		event_base_loopbreak(bridge->base);
	}
	if (evbuffer_get_length(bridge->output) == 0)
		event_del(bridge->write_event);
}

/* Keeps why the host cannot be reached; logs it when it changes. */
static void
stdio_set_error(struct stdio_bridge *bridge, char *cause)
{
	if (bridge->last_error == NULL ||
	    strcmp(bridge->last_error, cause) != 0)
		log_info(bridge->log, "no host: %s", cause);
	free(bridge->last_error);
	bridge->last_error = cause;
}

/* Returns the text of a result or error that says to open the browser. */
static char *
stdio_offline_text(struct stdio_bridge *bridge, bool lost)
{
	return xasprintf("%s: %s Open the browser with the Browser Bridge "
	    "extension (the extension starts the host); this bridge connects "
	    "to it within a second, then call again. `browser-bridge doctor` "
	    "shows what is missing.%s%s", ERR_HOST_NOT_RUNNING, lost ?
	    "The Browser Bridge host went away while this request was on its "
	    "way (was the browser closed?)." : "No Browser Bridge host is "
	    "running, so there is no browser to drive.",
	    bridge->last_error != NULL ? " Last attempt: " : "",
	    bridge->last_error != NULL ? bridge->last_error : "");
}

/* Builds the initialize result the host would give; NULL after *error. */
static json_t *
stdio_initialize_result(struct stdio_bridge *bridge, const json_t *request,
    json_t **error)
{
	const json_t	*params = json_object_get(request, "params");
	const char	*asked, *version;

	asked = json_string_value(json_object_get(params, "protocolVersion"));
	if (asked == NULL) {
		*error = jsonrpc_error(json_object_get(request, "id"),
		    JSONRPC_INVALID_PARAMS,
		    "initialize needs params.protocolVersion (a string)", NULL);
		return NULL;
	}
	version = mcp_negotiate_version(asked);
	free(bridge->protocol_version);
	bridge->protocol_version = xstrdup(version);
	return mcp_initialize_result(version);
}

/* Builds the tools/call answer while no host runs. */
static json_t *
stdio_offline_call(struct stdio_bridge *bridge, const json_t *request,
    bool lost, json_t **error)
{
	const json_t	*params = json_object_get(request, "params");
	const json_t	*id = json_object_get(request, "id");
	const char	*name;
	char		*text;
	json_t		*result;

	name = json_string_value(json_object_get(params, "name"));
	if (name == NULL) {
		*error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
		    "tools/call needs params.name (a string)", NULL);
		return NULL;
	}
	if (tool_registry_find(bridge->tools, name) == NULL) {
		text = xasprintf("Unknown tool: %s. Call tools/list for the "
		    "tools this server has.", name);
		*error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS, text, NULL);
		free(text);
		return NULL;
	}
	text = stdio_offline_text(bridge, lost);
	result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
	    "text", text, "isError", 1);
	free(text);
	return result;
}

/* Answers a client request here, as well as it can be without a host. */
static void
stdio_answer_offline(struct stdio_bridge *bridge, const json_t *message,
    bool lost)
{
	const json_t	*id, *params, *cursor;
	const char	*method, *cause = NULL;
	json_t		*result = NULL, *error = NULL;
	char		*text, *why = NULL;

	switch (jsonrpc_classify(message, &method, &id, &cause)) {
	case JSONRPC_INVALID:
		text = xasprintf("Invalid request: %s", cause);
		stdio_write_free(bridge, jsonrpc_error(id,
		    JSONRPC_INVALID_REQUEST, text, NULL));
		free(text);
		return;
	case JSONRPC_NOTIFICATION:
	case JSONRPC_RESPONSE:
		return;		/* nothing to answer */
	case JSONRPC_REQUEST:
		break;
	}
	params = json_object_get(message, "params");
	if (strcmp(method, "initialize") == 0)
		result = stdio_initialize_result(bridge, message, &error);
	else if (strcmp(method, "ping") == 0 ||
	    strcmp(method, "logging/setLevel") == 0)
		result = json_object();
	else if (strcmp(method, "tools/list") == 0) {
		cursor = json_object_get(params, "cursor");
		if (cursor != NULL && !json_is_string(cursor))
			why = xstrdup("cursor must be a string");
		else {
			result = tool_registry_list(bridge->tools,
			    json_string_value(cursor),
			    bridge->config->tools_page_size, &why);
		}
		if (result == NULL)
			error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS, why,
			    NULL);
		free(why);
	} else if (strcmp(method, "tools/call") == 0)
		result = stdio_offline_call(bridge, message, lost, &error);
	else if (strcmp(method, "resources/list") == 0)
		result = resources_list();
	else if (strcmp(method, "resources/templates/list") == 0)
		result = json_pack("{s:[]}", "resourceTemplates");
	else if (strcmp(method, "prompts/list") == 0)
		result = json_pack("{s:[]}", "prompts");
	else {
		text = stdio_offline_text(bridge, lost);
		error = jsonrpc_error(id, JSONRPC_INTERNAL_ERROR, text,
		    json_pack("{s:s}", "code", ERR_HOST_NOT_RUNNING));
		free(text);
	}
	stdio_write_free(bridge, result != NULL ? jsonrpc_result(id, result) :
	    error);
}

/* Frees a request to the host and its connection. */
static void
stdio_post_free(struct stdio_post *post)
{
	if (post->evcon != NULL)
		evhttp_connection_free(post->evcon);	/* no callbacks */
	if (post->reap != NULL)
		event_free(post->reap);
	json_decref(post->message);
	evbuffer_free(post->body);
	stdio_sse_clear(&post->sse);
	free(post);
}

/* Frees a finished request from the loop, outside libevent's callbacks. */
static void
stdio_post_reap_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_post	*post = arg;
	struct stdio_bridge	*bridge = post->bridge;

	if (post->failed_early)
		stdio_post_failed(post);
	TAILQ_REMOVE(&bridge->posts, post, entry);
	stdio_post_free(post);
	stdio_maybe_exit(bridge);
}

/* Marks a request finished and schedules its freeing. */
static void
stdio_post_finish(struct stdio_post *post)
{
	post->done = true;
	event_active(post->reap, EV_TIMEOUT, 0);
}

/* Stops a request still in flight; it gets no more callbacks. */
static void
stdio_post_cancel(struct stdio_post *post)
{
	if (post->done)
		return;
	evhttp_connection_free(post->evcon);
	post->evcon = NULL;
	stdio_post_finish(post);
}

/* Forgets the session with the host and ends its event stream. */
static void
stdio_drop_session(struct stdio_bridge *bridge)
{
	bridge->state = STDIO_OFFLINE;
	bridge->generation++;
	free(bridge->session_id);
	bridge->session_id = NULL;
	if (bridge->stream != NULL) {
		stdio_post_cancel(bridge->stream);
		bridge->stream = NULL;
	}
}

/* The host went away: answer here until it is back. */
static void
stdio_lost(struct stdio_bridge *bridge, char *cause)
{
	if (bridge->state != STDIO_CONNECTED) {
		free(cause);
		return;
	}
	log_warn(bridge->log, "lost the host (%s); answering here until it "
	    "is back", cause);
	stdio_drop_session(bridge);
	free(bridge->last_error);
	bridge->last_error = cause;
}

/* Hands a message from the host on to the client (or to the connect). */
static void
stdio_host_message(struct stdio_post *post, const char *text, size_t len)
{
	struct stdio_bridge	*bridge = post->bridge;
	json_error_t		 error;
	json_t			*message;
	const char		*version;
	bool			 response;

	message = json_loadb(text, len, 0, &error);
	if (!json_is_object(message)) {
		log_warn(bridge->log, "skipped a message from the host that is "
		    "not a JSON object: %s", message == NULL ? error.text :
		    "not an object");
		json_decref(message);
		return;
	}
	response = json_object_get(message, "id") != NULL &&
	    json_object_get(message, "method") == NULL;
	if (response && (post->kind == STDIO_POST_INITIALIZE ||
	    post->kind == STDIO_POST_REPLAY)) {
		post->answered = true;
		version = json_string_value(json_object_get(json_object_get(
		    message, "result"), "protocolVersion"));
		if (version == NULL)
			post->failed_init = true;
		else {
			free(bridge->protocol_version);
			bridge->protocol_version = xstrdup(version);
		}
		if (post->kind == STDIO_POST_INITIALIZE)
			stdio_write(bridge, message);
	} else {
		if (response)
			post->answered = true;
		stdio_write(bridge, message);
	}
	json_decref(message);
}

/* Receives one event of a streamed reply. */
static void
stdio_post_event(const char *event, const char *data, size_t len, void *arg)
{
	struct stdio_post	*post = arg;

	if (strcmp(event, "message") == 0)
		stdio_host_message(post, data, len);
}

/* Takes the reply bytes that have arrived; streamed replies relay at once. */
static void
stdio_post_take(struct stdio_post *post, struct evhttp_request *req)
{
	struct evbuffer	*input = evhttp_request_get_input_buffer(req);
	const char	*type;

	if (post->body_kind == STDIO_BODY_UNKNOWN) {
		post->status = evhttp_request_get_response_code(req);
		type = evhttp_find_header(evhttp_request_get_input_headers(req),
		    "Content-Type");
		post->body_kind = post->status == 200 && type != NULL &&
		    strncasecmp(type, "text/event-stream", 17) == 0 ?
		    STDIO_BODY_SSE : STDIO_BODY_JSON;
	}
	if (evbuffer_get_length(post->body) + evbuffer_get_length(input) >
	    STDIO_EVENT_MAX && post->body_kind == STDIO_BODY_JSON) {
		evbuffer_drain(input, evbuffer_get_length(input));
		return;
	}
	evbuffer_add_buffer(post->body, input);
	if (post->body_kind == STDIO_BODY_SSE)
		stdio_sse_feed(&post->sse, post->body, stdio_post_event, post);
}

/* Receives part of a reply. */
static void
stdio_post_chunk(struct evhttp_request *req, void *arg)
{
	stdio_post_take(arg, req);
}

/* Keeps libevent's reason for a failed request. */
static void
stdio_post_error_cb(enum evhttp_request_error error, void *arg)
{
	struct stdio_post	*post = arg;

	switch (error) {
	case EVREQ_HTTP_TIMEOUT:
		post->error = "timed out";
		break;
	case EVREQ_HTTP_EOF:
		post->error = "the connection closed";
		break;
	case EVREQ_HTTP_INVALID_HEADER:
		post->error = "the reply had a malformed header";
		break;
	case EVREQ_HTTP_BUFFER_ERROR:
		post->error = "connection refused or reset";
		break;
	case EVREQ_HTTP_REQUEST_CANCEL:
		post->error = "cancelled";
		break;
	case EVREQ_HTTP_DATA_TOO_LONG:
		post->error = "the reply was too large";
		break;
	}
}

/* Receives the end of a reply, or NULL when the request failed. */
static void
stdio_post_done_cb(struct evhttp_request *req, void *arg)
{
	struct stdio_post	*post = arg;

	if (post->done)
		return;
	if (req == NULL || evhttp_request_get_response_code(req) == 0) {
		stdio_post_finish(post);
		stdio_post_failed(post);
		return;
	}
	stdio_post_take(post, req);
	stdio_post_finish(post);
	stdio_post_replied(post, req);
}

/* Sends a request to the host on a new connection; steals message. */
static struct stdio_post *
stdio_post_send(struct stdio_bridge *bridge, enum stdio_post_kind kind,
    json_t *message)
{
	struct stdio_post	*post = xcalloc(1, sizeof *post);
	struct evhttp_request	*req;
	struct evkeyvalq	*headers;
	enum evhttp_cmd_type	 method = EVHTTP_REQ_POST;
	char			*text;
	int			 timeout = STDIO_CALL_TIMEOUT_S;

	post->bridge = bridge;
	post->kind = kind;
	post->message = message;
	post->generation = bridge->generation;
	post->body = evbuffer_new();
	stdio_sse_init(&post->sse, STDIO_EVENT_MAX);
	post->reap = evtimer_new(bridge->base, stdio_post_reap_cb, post);
	TAILQ_INSERT_TAIL(&bridge->posts, post, entry);

	if (kind == STDIO_POST_INITIALIZE || kind == STDIO_POST_REPLAY)
		timeout = STDIO_INIT_TIMEOUT_S;
	else if (kind == STDIO_POST_DELETE)
		timeout = STDIO_DELETE_TIMEOUT_S;
	post->evcon = evhttp_connection_base_new(bridge->base, NULL,
	    "127.0.0.1", (unsigned short)bridge->host_port);
	if (post->evcon == NULL) {
		post->error = "cannot make a connection";
		post->failed_early = true;
		stdio_post_finish(post);
		return post;
	}
	evhttp_connection_set_timeout(post->evcon, timeout);

	req = evhttp_request_new(stdio_post_done_cb, post);
	evhttp_request_set_chunked_cb(req, stdio_post_chunk);
	evhttp_request_set_error_cb(req, stdio_post_error_cb);
	headers = evhttp_request_get_output_headers(req);
	text = xasprintf("127.0.0.1:%d", bridge->host_port);
	evhttp_add_header(headers, "Host", text);
	free(text);
	if (bridge->token != NULL) {
		text = xasprintf("Bearer %s", bridge->token);
		evhttp_add_header(headers, "Authorization", text);
		free(text);
	}
	if (kind != STDIO_POST_INITIALIZE && kind != STDIO_POST_REPLAY) {
		if (bridge->session_id != NULL)
			evhttp_add_header(headers, "Mcp-Session-Id",
			    bridge->session_id);
		if (bridge->protocol_version != NULL)
			evhttp_add_header(headers, "MCP-Protocol-Version",
			    bridge->protocol_version);
	}
	if (kind == STDIO_POST_STREAM) {
		method = EVHTTP_REQ_GET;
		evhttp_add_header(headers, "Accept", "text/event-stream");
	} else if (kind == STDIO_POST_DELETE)
		method = EVHTTP_REQ_DELETE;
	else {
		evhttp_add_header(headers, "Accept",
		    "application/json, text/event-stream");
		evhttp_add_header(headers, "Content-Type", "application/json");
		text = json_dumps(message, JSON_COMPACT);
		evbuffer_add(evhttp_request_get_output_buffer(req), text,
		    strlen(text));
		free(text);
	}
	if (evhttp_make_request(post->evcon, req, method, "/mcp") != 0 &&
	    !post->done) {
		post->error = "cannot send the request";
		post->failed_early = true;
		stdio_post_finish(post);
	}
	return post;
}

/* Looks for a running host through the runtime file. */
static int
stdio_find_host(struct stdio_bridge *bridge, char **cause)
{
	struct probe_runtime	 runtime;
	char			*path;

	if ((path = runtime_file_path(cause)) == NULL)
		return -1;
	if (probe_runtime_read(path, &runtime, cause) != 0) {
		free(path);
		return -1;
	}
	if (!probe_pid_alive(runtime.pid)) {
		*cause = xasprintf("the runtime file %s names pid %ld, which "
		    "has exited", path, runtime.pid);
		probe_runtime_clear(&runtime);
		free(path);
		return -1;
	}
	bridge->host_pid = runtime.pid;
	bridge->host_port = runtime.port;
	probe_runtime_clear(&runtime);
	free(path);
	return 0;
}

/*
 * Starts a session with the host: sends the client's initialize (its own,
 * or the one kept from before, to replay for a new host). Fails at once
 * when no host is found.
 */
static int
stdio_connect(struct stdio_bridge *bridge, json_t *client_initialize)
{
	char	*cause = NULL;
	json_t	*replay;

	if (stdio_find_host(bridge, &cause) != 0) {
		stdio_set_error(bridge, cause);
		return -1;
	}
	free(bridge->token);
	bridge->token = NULL;
	if (bridge->config->auth && (bridge->token = token_load_or_create(
	    bridge->config->token_file, &cause)) == NULL) {
		stdio_set_error(bridge, cause);
		return -1;
	}
	bridge->state = STDIO_CONNECTING;
	bridge->generation++;
	log_debug(bridge->log, "connecting to the host (pid %ld, port %d)",
	    bridge->host_pid, bridge->host_port);
	if (client_initialize != NULL) {
		stdio_post_send(bridge, STDIO_POST_INITIALIZE,
		    json_incref(client_initialize));
	} else {
		replay = json_deep_copy(bridge->initialize);
		json_object_set_new(replay, "id", json_string(STDIO_REPLAY_ID));
		stdio_post_send(bridge, STDIO_POST_REPLAY, replay);
	}
	return 0;
}

/* Answers here every message held for a connect that failed. */
static void
stdio_flush_offline(struct stdio_bridge *bridge)
{
	json_t	*queue = bridge->queue, *message;
	size_t	 i;

	bridge->queue = json_array();
	json_array_foreach(queue, i, message)
		stdio_answer_offline(bridge, message, false);
	json_decref(queue);
}

/* A connect failed: back to answering here. */
static void
stdio_connect_failed(struct stdio_post *post, char *cause)
{
	struct stdio_bridge	*bridge = post->bridge;

	if (post->generation != bridge->generation ||
	    bridge->state != STDIO_CONNECTING) {
		free(cause);
		return;		/* a newer attempt took over */
	}
	bridge->state = STDIO_OFFLINE;
	stdio_set_error(bridge, cause);
	if (post->kind == STDIO_POST_INITIALIZE && !post->answered)
		stdio_answer_offline(bridge, post->message, false);
	stdio_flush_offline(bridge);
}

/* The host answered initialize: relay what was held, open the stream. */
static void
stdio_connected(struct stdio_post *post, const char *session_id)
{
	struct stdio_bridge	*bridge = post->bridge;
	json_t			*queue, *message;
	const char		*method;
	size_t			 i;

	if (post->generation != bridge->generation ||
	    bridge->state != STDIO_CONNECTING)
		return;
	bridge->state = STDIO_CONNECTED;
	free(bridge->session_id);
	bridge->session_id = xstrdup(session_id);
	free(bridge->last_error);
	bridge->last_error = NULL;
	log_info(bridge->log, "connected to the host (pid %ld, port %d), "
	    "session %.8s", bridge->host_pid, bridge->host_port, session_id);
	if (post->kind == STDIO_POST_REPLAY && bridge->initialized) {
		stdio_post_send(bridge, STDIO_POST_MESSAGE,
		    jsonrpc_notification("notifications/initialized", NULL));
	}
	bridge->stream = stdio_post_send(bridge, STDIO_POST_STREAM, NULL);
	queue = bridge->queue;
	bridge->queue = json_array();
	json_array_foreach(queue, i, message) {
		method = json_string_value(json_object_get(message, "method"));
		if (post->kind == STDIO_POST_REPLAY && method != NULL &&
		    strcmp(method, "notifications/initialized") == 0)
			continue;	/* sent above */
		stdio_dispatch(bridge, message);
	}
	json_decref(queue);
}

/* Returns the message of an error reply's body, or a stand-in. */
static char *
stdio_reply_error_text(struct stdio_post *post, int *code)
{
	json_t		*body;
	const char	*message = NULL;
	char		*text;
	size_t		 len = evbuffer_get_length(post->body);

	*code = JSONRPC_INTERNAL_ERROR;
	body = json_loadb((const char *)evbuffer_pullup(post->body, -1), len,
	    0, NULL);
	if (json_is_integer(json_object_get(json_object_get(body, "error"),
	    "code")))
		*code = (int)json_integer_value(json_object_get(
		    json_object_get(body, "error"), "code"));
	message = json_string_value(json_object_get(json_object_get(body,
	    "error"), "message"));
	text = xasprintf("the host answered HTTP %d: %s", post->status,
	    message != NULL ? message : "(no message)");
	json_decref(body);
	return text;
}

/* A reply is complete: act on its status. */
static void
stdio_post_replied(struct stdio_post *post, struct evhttp_request *req)
{
	struct stdio_bridge	*bridge = post->bridge;
	const char		*session;
	char			*text;
	int			 code;

	if (post->status == 200 && post->body_kind == STDIO_BODY_JSON &&
	    evbuffer_get_length(post->body) > 0) {
		stdio_host_message(post,
		    (const char *)evbuffer_pullup(post->body, -1),
		    evbuffer_get_length(post->body));
	}
	switch (post->kind) {
	case STDIO_POST_INITIALIZE:
	case STDIO_POST_REPLAY:
		session = evhttp_find_header(evhttp_request_get_input_headers(
		    req), "Mcp-Session-Id");
		if (post->status == 200 && post->answered &&
		    !post->failed_init && session != NULL)
			stdio_connected(post, session);
		else if (post->status == 200) {
			stdio_connect_failed(post, xstrdup("the host answered "
			    "initialize without a session"));
		} else {
			stdio_connect_failed(post,
			    stdio_reply_error_text(post, &code));
		}
		break;
	case STDIO_POST_MESSAGE:
		if (post->status == 200 || post->status == 202)
			break;
		if (post->status == 404 &&
		    post->generation == bridge->generation) {
			/* The session expired: a new one, then again. */
			stdio_lost(bridge, xstrdup("the host ended the "
			    "session"));
			stdio_dispatch(bridge, post->message);
			break;
		}
		text = stdio_reply_error_text(post, &code);
		log_warn(bridge->log, "%s", text);
		if (json_object_get(post->message, "id") != NULL &&
		    json_object_get(post->message, "method") != NULL) {
			stdio_write_free(bridge, jsonrpc_error(json_object_get(
			    post->message, "id"), code, text, NULL));
		}
		free(text);
		break;
	case STDIO_POST_STREAM:
		if (bridge->stream == post)
			bridge->stream = NULL;
		if (post->status == 200 &&
		    post->generation == bridge->generation) {
			stdio_lost(bridge, xstrdup("the host closed its event "
			    "stream"));
		}
		break;
	case STDIO_POST_DELETE:
		stdio_finish(bridge);
		break;
	}
}

/* A request got no reply: the host is not (or no longer) there. */
static void
stdio_post_failed(struct stdio_post *post)
{
	struct stdio_bridge	*bridge = post->bridge;
	char			*cause;

	cause = xasprintf("cannot reach the host on 127.0.0.1:%d: %s",
	    bridge->host_port, post->error != NULL ? post->error :
	    "no reply");
	switch (post->kind) {
	case STDIO_POST_INITIALIZE:
	case STDIO_POST_REPLAY:
		stdio_connect_failed(post, cause);
		return;
	case STDIO_POST_MESSAGE:
		if (post->generation == bridge->generation)
			stdio_lost(bridge, cause);
		else
			free(cause);
		if (!post->answered)
			stdio_answer_offline(bridge, post->message, true);
		return;
	case STDIO_POST_STREAM:
		if (bridge->stream == post)
			bridge->stream = NULL;
		if (post->generation == bridge->generation)
			stdio_lost(bridge, cause);
		else
			free(cause);
		return;
	case STDIO_POST_DELETE:
		free(cause);
		stdio_finish(bridge);
		return;
	}
}

/* Handles one message from the client. */
static void
stdio_dispatch(struct stdio_bridge *bridge, json_t *message)
{
	const char	*method;
	bool		 request;

	method = json_string_value(json_object_get(message, "method"));
	request = method != NULL && json_object_get(message, "id") != NULL;
	if (request && strcmp(method, "initialize") == 0) {
		json_decref(bridge->initialize);
		bridge->initialize = json_deep_copy(message);
		bridge->initialized = false;
		if (bridge->state == STDIO_CONNECTING) {
			json_array_append(bridge->queue, message);
			return;
		}
		if (bridge->state == STDIO_CONNECTED)
			stdio_drop_session(bridge);	/* a new session */
		if (bridge->input_closed || stdio_connect(bridge, message) != 0)
			stdio_answer_offline(bridge, message, false);
		return;
	}
	if (method != NULL && strcmp(method, "notifications/initialized") == 0)
		bridge->initialized = true;
	switch (bridge->state) {
	case STDIO_CONNECTED:
		stdio_post_send(bridge, STDIO_POST_MESSAGE, json_incref(message));
		break;
	case STDIO_CONNECTING:
		json_array_append(bridge->queue, message);
		break;
	case STDIO_OFFLINE:
		if (bridge->initialize != NULL && !bridge->input_closed &&
		    stdio_connect(bridge, NULL) == 0)
			json_array_append(bridge->queue, message);
		else
			stdio_answer_offline(bridge, message, false);
		break;
	}
}

/* Handles one line from the client. */
static void
stdio_line(struct stdio_bridge *bridge, const char *line, size_t len)
{
	json_t	*message, *reply = NULL, *element;
	size_t	 i;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	    line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	if ((message = jsonrpc_parse(line, len, &reply)) == NULL) {
		stdio_write_free(bridge, reply);
		return;
	}
	if (json_is_array(message) && json_array_size(message) > 0) {
		json_array_foreach(message, i, element)
			stdio_dispatch(bridge, element);
	} else if (json_is_object(message))
		stdio_dispatch(bridge, message);
	else
		stdio_answer_offline(bridge, message, false);	/* invalid */
	json_decref(message);
}

/* Takes complete lines from the client; drops one longer than allowed. */
static void
stdio_lines(struct stdio_bridge *bridge)
{
	char	*line;
	size_t	 len;

	while ((line = evbuffer_readln(bridge->input, &len,
	    EVBUFFER_EOL_LF)) != NULL) {
		if (bridge->skipping)
			bridge->skipping = false;	/* its tail */
		else
			stdio_line(bridge, line, len);
		free(line);
	}
	if (evbuffer_get_length(bridge->input) > bridge->max_message) {
		if (!bridge->skipping) {
			log_warn(bridge->log, "a message from the client is "
			    "over %zu bytes; skipped it", bridge->max_message);
			stdio_write_free(bridge, jsonrpc_error(NULL,
			    JSONRPC_INVALID_REQUEST, "Invalid request: the "
			    "message is too large", NULL));
		}
		bridge->skipping = true;
		evbuffer_drain(bridge->input,
		    evbuffer_get_length(bridge->input));
	}
}

/* Reads what the client sent. */
static void
stdio_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;
	size_t			 len;
	char			*rest;
	int			 n;

	n = evbuffer_read(bridge->input, bridge->in_fd, STDIO_READ_SIZE);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		stdio_lines(bridge);
		return;
	}
	if (n == -1)
		log_warn(bridge->log, "cannot read from the client: %s",
		    strerror(errno));
	event_del(bridge->read_event);
	if ((len = evbuffer_get_length(bridge->input)) > 0 &&
	    !bridge->skipping) {
		rest = xstrndup((const char *)evbuffer_pullup(bridge->input,
		    -1), len);	/* a last line without its newline */
		stdio_line(bridge, rest, len);
		free(rest);
	}
	evbuffer_drain(bridge->input, evbuffer_get_length(bridge->input));
	bridge->input_closed = true;
	log_debug(bridge->log, "the client closed stdin");
	stdio_maybe_exit(bridge);
}

/* Stops the loop. */
static void
stdio_finish(struct stdio_bridge *bridge)
{
	event_base_loopbreak(bridge->base);
}

/*
 * After stdin closed, exits once every request in flight has its answer,
 * ending the host session first.
 */
static void
stdio_maybe_exit(struct stdio_bridge *bridge)
{
	struct stdio_post	*post;
	struct timeval		 tv;

	if (!bridge->input_closed || bridge->exiting)
		return;
	if (json_array_size(bridge->queue) > 0)
		return;
	TAILQ_FOREACH(post, &bridge->posts, entry) {
		if (!post->done && post->kind != STDIO_POST_STREAM &&
		    post->kind != STDIO_POST_DELETE)
			return;
	}
	bridge->exiting = true;
	if (bridge->stream != NULL) {
		stdio_post_cancel(bridge->stream);
		bridge->stream = NULL;
	}
	if (bridge->state != STDIO_CONNECTED || bridge->session_id == NULL) {
		stdio_finish(bridge);
		return;
	}
	stdio_post_send(bridge, STDIO_POST_DELETE, NULL);
	tv.tv_sec = STDIO_EXIT_GRACE_MS / 1000;
	tv.tv_usec = (STDIO_EXIT_GRACE_MS % 1000) * 1000;
	evtimer_add(bridge->exit_timer, &tv);
}

/* Exits once the session's DELETE is answered (or took too long). */
static void
stdio_exit_cb(evutil_socket_t fd, short events, void *arg)
{
	stdio_finish(arg);
}

/* Looks for a host again while there is none. */
static void
stdio_retry_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;

	if (bridge->state == STDIO_OFFLINE && bridge->initialize != NULL &&
	    !bridge->input_closed)
		(void)stdio_connect(bridge, NULL);
}

/* Stops on SIGINT or SIGTERM. */
static void
stdio_signal_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;

	log_debug(bridge->log, "signal %d: stopping", (int)fd);
	stdio_finish(bridge);
}

/* Says whether epoll can watch fd (pipes, sockets and terminals). */
static bool
stdio_pollable(int fd)
{
	struct stat	sb;

	if (fstat(fd, &sb) == -1)
		return false;
	return S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || isatty(fd);
}

/* Writes what is still queued for the client, blocking. */
static void
stdio_flush(struct stdio_bridge *bridge)
{
	(void)fcntl(bridge->out_fd, F_SETFL, bridge->out_flags & ~O_NONBLOCK);
	while (evbuffer_get_length(bridge->output) > 0) {
		if (evbuffer_write(bridge->output, bridge->out_fd) <= 0 &&
		    errno != EINTR)
			break;
	}
}

/* Frees everything the bridge owns and restores the descriptors. */
static void
stdio_bridge_free(struct stdio_bridge *bridge)
{
	struct stdio_post	*post;

	while ((post = TAILQ_FIRST(&bridge->posts)) != NULL) {
		TAILQ_REMOVE(&bridge->posts, post, entry);
		stdio_post_free(post);
	}
	if (bridge->output != NULL)
		stdio_flush(bridge);
	if (bridge->in_flags != -1)
		(void)fcntl(bridge->in_fd, F_SETFL, bridge->in_flags);
	if (bridge->out_flags != -1)
		(void)fcntl(bridge->out_fd, F_SETFL, bridge->out_flags);
	if (bridge->read_event != NULL)
		event_free(bridge->read_event);
	if (bridge->write_event != NULL)
		event_free(bridge->write_event);
	if (bridge->retry_timer != NULL)
		event_free(bridge->retry_timer);
	if (bridge->exit_timer != NULL)
		event_free(bridge->exit_timer);
	if (bridge->signal_int != NULL)
		event_free(bridge->signal_int);
	if (bridge->signal_term != NULL)
		event_free(bridge->signal_term);
	if (bridge->input != NULL)
		evbuffer_free(bridge->input);
	if (bridge->output != NULL)
		evbuffer_free(bridge->output);
	if (bridge->base != NULL)
		event_base_free(bridge->base);
	tool_registry_free(bridge->tools);
	json_decref(bridge->initialize);
	json_decref(bridge->queue);
	free(bridge->protocol_version);
	free(bridge->token);
	free(bridge->session_id);
	free(bridge->last_error);
	log_close(bridge->log);
	free(bridge);
}

/* Runs the stdio bridge until the client closes stdin. */
int
stdio_bridge_run(struct config *config, int out_fd)
{
	struct stdio_bridge	*bridge = xcalloc(1, sizeof *bridge);
	struct event_config	*ev_config;
	struct timeval		 tv;
	char			*cause = NULL;
	int			 rc = 1;

	bridge->config = config;
	bridge->in_fd = STDIN_FILENO;
	bridge->out_fd = out_fd;
	bridge->in_flags = bridge->out_flags = -1;
	bridge->max_message = config->max_body;
	bridge->queue = json_array();
	TAILQ_INIT(&bridge->posts);
	if ((bridge->log = log_open(config->log_level, config->log_file,
	    &cause)) == NULL ||
	    (bridge->tools = tool_registry_new(&cause)) == NULL) {
		fprintf(stderr, "browser-bridge stdio: %s\n", cause);
		free(cause);
		goto out;
	}
	if (config->file_error != NULL)
		log_warn(bridge->log, "ignored settings: %s", config->file_error);

	ev_config = event_config_new();
	if (!stdio_pollable(bridge->in_fd) || !stdio_pollable(out_fd))
		event_config_avoid_method(ev_config, "epoll");
	bridge->base = event_base_new_with_config(ev_config);
	event_config_free(ev_config);
	if (bridge->base == NULL) {
		log_error(bridge->log, "cannot make an event loop");
		goto out;
	}
	bridge->in_flags = fcntl(bridge->in_fd, F_GETFL);
	bridge->out_flags = fcntl(out_fd, F_GETFL);
	if (bridge->in_flags != -1)
		(void)fcntl(bridge->in_fd, F_SETFL,
		    bridge->in_flags | O_NONBLOCK);
	if (bridge->out_flags != -1)
		(void)fcntl(out_fd, F_SETFL, bridge->out_flags | O_NONBLOCK);
	bridge->input = evbuffer_new();
	bridge->output = evbuffer_new();
	bridge->read_event = event_new(bridge->base, bridge->in_fd,
	    EV_READ|EV_PERSIST, stdio_read_cb, bridge);
	bridge->write_event = event_new(bridge->base, out_fd,
	    EV_WRITE|EV_PERSIST, stdio_write_cb, bridge);
	bridge->retry_timer = event_new(bridge->base, -1, EV_PERSIST,
	    stdio_retry_cb, bridge);
	bridge->exit_timer = evtimer_new(bridge->base, stdio_exit_cb, bridge);
	bridge->signal_int = evsignal_new(bridge->base, SIGINT,
	    stdio_signal_cb, bridge);
	bridge->signal_term = evsignal_new(bridge->base, SIGTERM,
	    stdio_signal_cb, bridge);
	if (event_add(bridge->read_event, NULL) == -1) {
		log_error(bridge->log, "cannot watch stdin");
		goto out;
	}
	evsignal_add(bridge->signal_int, NULL);
	evsignal_add(bridge->signal_term, NULL);
	tv.tv_sec = STDIO_BRIDGE_RETRY_MS / 1000;
	tv.tv_usec = (STDIO_BRIDGE_RETRY_MS % 1000) * 1000;
	event_add(bridge->retry_timer, &tv);
	log_debug(bridge->log, "stdio bridge %s ready", PACKAGE_VERSION);

	rc = event_base_dispatch(bridge->base) == -1 ? 1 : 0;
out:
	stdio_bridge_free(bridge);
	return rc;
}
