/* The stdio bridge: MCP lines on stdin/stdout, handed to the relay. */
#include "stdio-bridge.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "config.h"
#include "errors.h"
#include "jsonrpc.h"
#include "log.h"
#include "loop.h"
#include "os.h"
#include "stdio-relay.h"
#include "tools.h"
#include "xmalloc.h"

#define STDIO_READ_SIZE		(64 * 1024)

struct stdio_bridge {
	struct log		*log;
	struct event_base	*base;
	struct tool_registry	*tools;
	struct stdio_relay	*relay;
	struct os_stdio		*stdio;		/* stdin and stdout for the loop */
	struct event		*read_event;
	struct event		*write_event;
	struct os_termination	*termination;
	struct evbuffer		*input;
	struct evbuffer		*output;
	size_t			 max_message;
	bool			 skipping;	/* dropping an overlong line */
};

/* Queues one message for the client, as one line. */
static void
stdio_bridge_write(const json_t *message, void *arg)
{
	struct stdio_bridge	*bridge = arg;
	char			*text;

	if ((text = json_dumps(message, JSON_COMPACT)) == NULL)
		return;
	evbuffer_add(bridge->output, text, strlen(text));
	evbuffer_add(bridge->output, "\n", 1);
	free(text);
	event_add(bridge->write_event, NULL);
}

/* Queues a message for the client and frees it. */
static void
stdio_bridge_write_free(struct stdio_bridge *bridge, json_t *message)
{
	stdio_bridge_write(message, bridge);
	json_decref(message);
}

/* Writes what the client can take now. */
static void
stdio_bridge_write_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;
	int			 n, error = 0;

	n = evbuffer_write(bridge->output, fd);
	if (n == -1 && os_io_again(error = EVUTIL_SOCKET_ERROR()))
		return;
	if (n == -1) {
		log_warn(bridge->log, "cannot write to the client: %s; "
		    "stopping", evutil_socket_error_to_string(error));
		evbuffer_drain(bridge->output,
		    evbuffer_get_length(bridge->output));
		event_base_loopbreak(bridge->base);
	}
	if (evbuffer_get_length(bridge->output) == 0)
		event_del(bridge->write_event);
}

/* Handles one line from the client: a message or a batch of them. */
static void
stdio_bridge_line(struct stdio_bridge *bridge, const char *line, size_t len)
{
	json_t	*message, *reply = NULL, *element;
	size_t	 i;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	    line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	if ((message = jsonrpc_parse(line, len, &reply)) == NULL) {
		stdio_bridge_write_free(bridge, reply);
		return;
	}
	if (json_is_array(message) && json_array_size(message) > 0) {
		json_array_foreach(message, i, element)
			stdio_relay_message(bridge->relay, element);
	} else
		stdio_relay_message(bridge->relay, message);
	json_decref(message);
}

/* Takes complete lines from the client; drops one longer than allowed. */
static void
stdio_bridge_lines(struct stdio_bridge *bridge)
{
	char	*line;
	size_t	 len;

	while ((line = evbuffer_readln(bridge->input, &len,
	    EVBUFFER_EOL_LF)) != NULL) {
		if (bridge->skipping)
			bridge->skipping = false;	/* its tail */
		else
			stdio_bridge_line(bridge, line, len);
		free(line);
	}
	if (evbuffer_get_length(bridge->input) > bridge->max_message) {
		if (!bridge->skipping) {
			log_warn(bridge->log, "a message from the client is "
			    "over %zu bytes; skipped it", bridge->max_message);
			stdio_bridge_write_free(bridge, jsonrpc_error(NULL,
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
stdio_bridge_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct stdio_bridge	*bridge = arg;
	size_t			 len;
	char			*rest;
	int			 n, error = 0;

	n = evbuffer_read(bridge->input, fd, STDIO_READ_SIZE);
	if (n == -1 && os_io_again(error = EVUTIL_SOCKET_ERROR()))
		return;
	if (n > 0) {
		stdio_bridge_lines(bridge);
		return;
	}
	if (n == -1)
		log_warn(bridge->log, "cannot read from the client: %s",
		    evutil_socket_error_to_string(error));
	event_del(bridge->read_event);
	if ((len = evbuffer_get_length(bridge->input)) > 0 &&
	    !bridge->skipping) {
		rest = xstrndup((const char *)evbuffer_pullup(bridge->input,
		    -1), len);	/* a last line without its newline */
		stdio_bridge_line(bridge, rest, len);
		free(rest);
	}
	evbuffer_drain(bridge->input, evbuffer_get_length(bridge->input));
	log_debug(bridge->log, "the client closed stdin");
	stdio_relay_input_closed(bridge->relay);
}

/* Stops the loop: the relay is done, or a signal came. */
static void
stdio_bridge_finish(void *arg)
{
	struct stdio_bridge	*bridge = arg;

	event_base_loopbreak(bridge->base);
}

/* Stops when the user or the system asks it to end. */
static void
stdio_bridge_terminated(const char *what, void *arg)
{
	struct stdio_bridge	*bridge = arg;

	log_debug(bridge->log, "%s: stopping", what);
	stdio_bridge_finish(bridge);
}

/* Writes what is still queued for the client, blocking. */
static void
stdio_bridge_flush(struct stdio_bridge *bridge)
{
	os_stdio_output_blocking(bridge->stdio);
	while (evbuffer_get_length(bridge->output) > 0) {
		if (evbuffer_write(bridge->output,
		    os_stdio_output(bridge->stdio)) <= 0 &&
		    !os_io_again(EVUTIL_SOCKET_ERROR()))
			break;
	}
}

/* Frees everything the bridge owns and restores the descriptors. */
static void
stdio_bridge_free(struct stdio_bridge *bridge)
{
	stdio_relay_free(bridge->relay);
	if (bridge->output != NULL && bridge->stdio != NULL)
		stdio_bridge_flush(bridge);
	os_stdio_free(bridge->stdio);
	if (bridge->read_event != NULL)
		event_free(bridge->read_event);
	if (bridge->write_event != NULL)
		event_free(bridge->write_event);
	os_termination_free(bridge->termination);
	if (bridge->input != NULL)
		evbuffer_free(bridge->input);
	if (bridge->output != NULL)
		evbuffer_free(bridge->output);
	if (bridge->base != NULL)
		event_base_free(bridge->base);
	tool_registry_free(bridge->tools);
	log_close(bridge->log);
	free(bridge);
}

/* Runs the stdio bridge until the client closes stdin. */
int
stdio_bridge_run(struct config *config, int out_fd)
{
	struct stdio_bridge		*bridge = xcalloc(1, sizeof *bridge);
	struct stdio_relay_callbacks	 callbacks = {
		.write = stdio_bridge_write,
		.finished = stdio_bridge_finish,
		.arg = bridge,
	};
	char				*cause = NULL;
	int				 rc = 1;

	bridge->max_message = config->max_body;
	if ((bridge->log = log_open(config->log_level, config->log_file,
	    &cause)) == NULL ||
	    (bridge->tools = tool_registry_new(&cause)) == NULL) {
		fprintf(stderr, "browser-bridge stdio: %s\n", cause);
		free(cause);
		goto out;
	}
	if (config->file_error != NULL)
		log_warn(bridge->log, "ignored settings: %s",
		    config->file_error);
	if ((bridge->base = loop_new(STDIN_FILENO, out_fd)) == NULL) {
		log_error(bridge->log, "cannot make an event loop");
		goto out;
	}
	if ((bridge->stdio = os_stdio_new(STDIN_FILENO, out_fd,
	    &cause)) == NULL) {
		log_error(bridge->log, "%s", cause);
		free(cause);
		goto out;
	}
	bridge->input = evbuffer_new();
	bridge->output = evbuffer_new();
	bridge->relay = stdio_relay_new(bridge->base, config, bridge->log,
	    bridge->tools, &callbacks);
	bridge->read_event = event_new(bridge->base,
	    os_stdio_input(bridge->stdio), EV_READ|EV_PERSIST,
	    stdio_bridge_read_cb, bridge);
	bridge->write_event = event_new(bridge->base,
	    os_stdio_output(bridge->stdio), EV_WRITE|EV_PERSIST,
	    stdio_bridge_write_cb, bridge);
	if (event_add(bridge->read_event, NULL) == -1) {
		log_error(bridge->log, "cannot watch stdin");
		goto out;
	}
	bridge->termination = os_termination_new(bridge->base,
	    stdio_bridge_terminated, bridge);
	log_debug(bridge->log, "stdio bridge %s ready", PACKAGE_VERSION);

	rc = event_base_dispatch(bridge->base) == -1 ? 1 : 0;
out:
	stdio_bridge_free(bridge);
	return rc;
}
