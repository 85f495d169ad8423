/*
 * The host's assembly: builds every part top to bottom, handing each only
 * the collaborators it uses, wires their callbacks, and owns the process's
 * lifetime (signals, the exit after the browser leaves, the runtime file).
 */
#include "bridge.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "channel.h"
#include "clock.h"
#include "config.h"
#include "errors.h"
#include "files.h"
#include "http-oauth.h"
#include "http-server.h"
#include "instance.h"
#include "log.h"
#include "loop.h"
#include "mcp.h"
#include "mcp-call.h"
#include "mcp-resources.h"
#include "oauth-authorize.h"
#include "oauth-store.h"
#include "os.h"
#include "probe.h"
#include "rpc.h"
#include "runtime-file.h"
#include "session.h"
#include "sse-stream.h"
#include "token.h"
#include "tools.h"
#include "upload.h"
#include "xmalloc.h"

/* How long replies may flush after the extension leaves, before exit. */
#define BRIDGE_EXIT_FLUSH_MS	100
/* How long the host waits for the holder of its configured port to prove itself. */
#define BRIDGE_PORT_PROBE_MS	1000

struct bridge {
	struct config		 config;
	const struct clock	*clock;
	struct log		*log;
	struct event_base	*base;
	struct channel		*channel;
	struct rpc		*rpc;
	struct tool_registry	*tools;
	struct session_store	*sessions;
	struct mcp		*mcp;
	struct tool_host_context host;	/* what host tools ask */
	struct http_server	*http;
	struct oauth_store	*oauth_store;	/* NULL when OAuth is off */
	struct http_oauth	*oauth;		/* its routes */
	char			*token;		/* NULL when auth is off */
	char			*runtime_file;
	struct upload_stage	*uploads;	/* NULL without a runtime dir */
	char			*port_note;	/* why not the usual port */
	bool			 port_unsafe;	/* a stranger holds it */
	uint16_t		 port;
	uint64_t		 started_ms;
	struct os_termination	*termination;
	struct event		*exit_timer;
	bool			 exiting;
};

/* Returns the MCP endpoint URL. */
static char *
bridge_mcp_url(const struct bridge *bridge)
{
	return xasprintf("http://127.0.0.1:%u/mcp", bridge->port);
}

/* Returns what both the status and the welcome say: where MCP is served. */
static json_t *
bridge_describe(struct bridge *bridge)
{
	char	*url = bridge_mcp_url(bridge);
	json_t	*about;

	about = json_pack("{s:s,s:s,s:i,s:b}", "version", PACKAGE_VERSION,
	    "mcp_url", url, "port", bridge->port, "auth",
	    bridge->token != NULL);
	if (bridge->port_note != NULL) {
		json_object_set_new(about, "port_note",
		    json_string(bridge->port_note));
		json_object_set_new(about, "port_unsafe",
		    json_boolean(bridge->port_unsafe));
	}
	free(url);
	return about;
}

/*
 * Says who holds the configured port, which the host could not bind. A
 * Browser Bridge host of another browser or profile proves it holds the
 * token: that is only a note. Any other program is a warning everywhere
 * the user looks (log, popup, host_status, status, doctor), since MCP
 * clients configured with that port would send it their token.
 */
static void
bridge_explain_taken_port(struct bridge *bridge, int taken)
{
	json_t	*health = NULL;
	char	*cause = NULL;

	if (bridge->token != NULL)
		health = probe_health(taken, bridge->token, BRIDGE_PORT_PROBE_MS,
		    &cause);
	free(cause);
	bridge->port_unsafe = health == NULL;
	json_decref(health);
	if (!bridge->port_unsafe) {
		bridge->port_note = xasprintf("port %d is used by another "
		    "Browser Bridge host (another browser or profile); this "
		    "one listens on port %u. MCP clients configured for port "
		    "%d reach the other host's browser.", taken, bridge->port,
		    taken);
		log_warn(bridge->log, "%s", bridge->port_note);
	} else {
		bridge->port_note = xasprintf("port %d is held by a program "
		    "that is not Browser Bridge (it cannot prove it knows the "
		    "token). MCP clients configured with http://127.0.0.1:%d "
		    "would send it their token: stop that program (`ss -ltnp "
		    "'sport = :%d'` names it), or set \"port\" in config.json "
		    "and update your clients. Meanwhile this host listens on "
		    "port %u, which `browser-bridge stdio` finds and verifies.",
		    taken, taken, taken, bridge->port);
		log_error(bridge->log, "%s", bridge->port_note);
	}
	http_server_set_port_note(bridge->http, bridge->port_note,
	    bridge->port_unsafe);
}

/* Returns the host's status: what host_status and the extension see. */
static json_t *
bridge_status(void *arg, char **cause)
{
	struct bridge	*bridge = arg;
	const json_t	*hello = rpc_extension_hello(bridge->rpc);
	json_t		*status = bridge_describe(bridge);
	uint64_t	 now_ms = clock_now_ms(bridge->clock);

	json_object_update_new(status, json_pack("{s:b,s:I,s:I,s:I,s:i,s:o}",
	    "extension_connected", rpc_is_connected(bridge->rpc),
	    "sessions", (json_int_t)session_store_count(bridge->sessions),
	    "pending_calls", (json_int_t)rpc_pending_count(bridge->rpc),
	    "uptime_ms", (json_int_t)(now_ms - bridge->started_ms),
	    "pid", (int)getpid(),
	    "clients", session_store_clients(bridge->sessions, now_ms)));
	if (json_is_string(json_object_get(hello, "version")))
		json_object_set(status, "extension_version",
		    json_object_get(hello, "version"));
	return status;
}

/* Writes one message to the extension. */
static int
bridge_send(const json_t *message, void *arg)
{
	struct bridge	*bridge = arg;

	if (bridge->channel == NULL)
		return -1;
	return channel_send(bridge->channel, message);
}

/* Returns the bytes written to the extension that it has not read yet. */
static size_t
bridge_backlog(void *arg)
{
	struct bridge	*bridge = arg;

	return bridge->channel != NULL ?
	    channel_output_pending(bridge->channel) : 0;
}

/*
 * The directories the tools must never open, even with allow_file_urls:
 * the config directory (the token) and the runtime file's directory.
 */
static json_t *
bridge_protected_dirs(struct bridge *bridge)
{
	json_t	*dirs = json_array();
	char	*dir, *hosts;

	json_array_append_new(dirs, json_string(bridge->config.config_dir));
	if (bridge->runtime_file != NULL) {
		hosts = files_dirname(bridge->runtime_file);
		dir = files_dirname(hosts);	/* .../browser-bridge */
		json_array_append_new(dirs, json_string(dir));
		free(dir);
		free(hosts);
	}
	return dirs;
}

/* The fields of the welcome, given the extension's hello. */
static json_t *
bridge_welcome(const json_t *hello, void *arg)
{
	struct bridge	*bridge = arg;
	json_t		*welcome = bridge_describe(bridge);

	json_object_set_new(welcome, "evaluate_script",
	    json_boolean(bridge->config.evaluate_script));
	json_object_set_new(welcome, "allow_file_urls",
	    json_boolean(bridge->config.allow_file_urls));
	json_object_set_new(welcome, "oauth", json_boolean(bridge->oauth !=
	    NULL));
	json_object_set_new(welcome, "reveal_network_secrets",
	    json_boolean(bridge->config.reveal_network_secrets));
	json_object_set_new(welcome, "protected_dirs",
	    bridge_protected_dirs(bridge));
	/* The extension is the one peer Chrome lets start us; its popup
	 * hands the token to the user's MCP client configuration. */
	if (bridge->token != NULL)
		json_object_set_new(welcome, "token",
		    json_string(bridge->token));
	/* The tools exactly as MCP clients see them, for the agents. */
	json_object_set_new(welcome, "catalogue",
	    tool_registry_catalogue(bridge->tools));
	return welcome;
}

/* The extension said hello: tools and resources are usable now. */
static void
bridge_connected(void *arg)
{
	struct bridge	*bridge = arg;
	const json_t	*hello = rpc_extension_hello(bridge->rpc);

	log_info(bridge->log, "extension connected (version %s)",
	    json_string_value(json_object_get(hello, "version")) != NULL ?
	    json_string_value(json_object_get(hello, "version")) : "unknown");
	mcp_broadcast(bridge->mcp, "notifications/tools/list_changed");
	mcp_broadcast(bridge->mcp, "notifications/resources/list_changed");
}

/* The extension left. */
static void
bridge_disconnected(void *arg)
{
	struct bridge	*bridge = arg;

	log_info(bridge->log, "extension disconnected");
	mcp_broadcast(bridge->mcp, "notifications/tools/list_changed");
	mcp_broadcast(bridge->mcp, "notifications/resources/list_changed");
}

/* revoke_client: a client's key taken back, its sessions ended at once. */
static json_t *
bridge_revoke_client(struct bridge *bridge, const json_t *params,
    const char **error_code, char **error_message)
{
	const char	*id = json_string_value(json_object_get(params,
			    "client_id"));
	char		 caller[SESSION_CALLER_LENGTH + 1];
	size_t		 ended;

	if (id == NULL || !http_oauth_revoke_client(bridge->oauth, id)) {
		*error_code = ERR_INVALID_ARGUMENT;
		*error_message = xstrdup("No approved client has this "
		    "client_id; call list_clients for the ones there are.");
		return NULL;
	}
	/* Streams first: a POST's stream may still belong to a session. */
	http_server_end_client(bridge->http, id);
	ended = session_store_end_client(bridge->sessions, id);
	log_info(bridge->log, "the person revoked client %.8s; %zu session%s "
	    "ended", id, ended, ended == 1 ? "" : "s");
	/* The extension stops the tasks this caller runs. */
	session_client_caller(bridge->sessions, id, caller);
	return json_pack("{s:b,s:s}", "revoked", 1, "caller", caller);
}

/* Answers the extension's own requests to the host. */
static json_t *
bridge_host_request(const char *method, const json_t *params, void *arg,
    const char **error_code, char **error_message)
{
	struct bridge	*bridge = arg;

	json_t		*dirs, *resolved;
	char		*why = NULL;

	if (strcmp(method, "status") == 0)
		return bridge_status(bridge, NULL);
	if (strcmp(method, "list_clients") == 0)
		return json_pack("{s:o}", "clients",
		    http_oauth_clients(bridge->oauth));
	if (strcmp(method, "revoke_client") == 0)
		return bridge_revoke_client(bridge, params, error_code,
		    error_message);
	if (strcmp(method, "check_upload") == 0) {
		dirs = bridge_protected_dirs(bridge);
		resolved = upload_check(json_object_get(params, "paths"),
		    bridge->config.upload_roots, bridge->config.upload_root_count,
		    dirs, bridge->uploads, &why);
		json_decref(dirs);
		if (resolved != NULL)
			return json_pack("{s:o}", "paths", resolved);
		*error_code = ERR_INVALID_ARGUMENT;
		*error_message = why;
		return NULL;
	}
	*error_code = ERR_UNKNOWN_METHOD;
	*error_message = xasprintf("The host has no method \"%s\"; update the "
	    "host and the extension to the same release.", method);
	return NULL;
}

/*
 * An event from the extension. resource_updated (the active tab navigated,
 * tabs changed) is passed on to the sessions subscribed to its uri.
 */
static void
bridge_event(const json_t *event, void *arg)
{
	struct bridge	*bridge = arg;
	const char	*name, *uri;
	size_t		 sent;

	name = json_string_value(json_object_get(event, "event"));
	log_debug(bridge->log, "extension event %s", name);
	if (name == NULL || strcmp(name, "resource_updated") != 0)
		return;
	uri = json_string_value(json_object_get(event, "uri"));
	if (uri == NULL) {
		log_warn(bridge->log, "resource_updated event without a uri");
		return;
	}
	sent = mcp_resources_updated(bridge->mcp, uri, NULL, NULL);
	log_debug(bridge->log, "%s updated: %zu subscribers told", uri, sent);
}

/* Starts a forwarded MCP call at the extension; it never fails at once. */
static uint64_t
bridge_dispatch_call(void *arg, const char *method, const char *client,
    const char *caller, const struct session_grant *grant, json_t *params,
    int timeout_ms, mcp_done_cb done, mcp_progress_cb progress,
    void *call_arg, const char **error_code, char **error_message)
{
	return rpc_call(arg, method, client, caller, grant, params, timeout_ms,
	    done, progress, call_arg);
}

/* Asks the person, in the extension, whether a client may have a key. */
static uint64_t
bridge_approval_ask(void *arg, json_t *params, int timeout_ms,
    oauth_approval_cb done, void *done_arg)
{
	return rpc_call(arg, "approve_client", NULL, NULL, NULL, params,
	    timeout_ms, done, NULL, done_arg);
}

/* Withdraws a question to the person (the client was revoked, or we exit). */
static void
bridge_approval_cancel(void *arg, uint64_t id)
{
	rpc_cancel(arg, id, "cancelled");
}

/*
 * Opens the OAuth clients' store and lets OAuth clients in, unless auth
 * or OAuth is off; -1 with *cause when the store cannot be read.
 */
static int
bridge_open_oauth(struct bridge *bridge, char **cause)
{
	struct oauth_approver	approver = {
		.ask = bridge_approval_ask,
		.cancel = bridge_approval_cancel,
		.arg = bridge->rpc,
	};

	if (bridge->token == NULL || !bridge->config.oauth) {
		if (bridge->token != NULL)
			log_info(bridge->log, "OAuth is off (config.json): "
			    "only the owner key opens /mcp");
		return 0;
	}
	if ((bridge->oauth_store = oauth_store_open(
	    bridge->config.clients_file, cause)) == NULL)
		return -1;
	bridge->oauth = http_oauth_new(bridge->oauth_store, &approver,
	    bridge->port, clock_wall(), bridge->log);
	http_server_set_oauth(bridge->http, bridge->oauth);
	return 0;
}

/* Cancels a forwarded MCP call at the extension. */
static void
bridge_dispatch_cancel(void *arg, uint64_t id, const char *reason)
{
	rpc_cancel(arg, id, reason);
}

/* Says whether the extension is connected, for /health. */
static bool
bridge_extension_connected(void *arg)
{
	return rpc_is_connected(arg);
}

/* Passes a channel message to the RPC layer. */
static void
bridge_channel_message(json_t *message, void *arg)
{
	struct bridge	*bridge = arg;

	rpc_receive(bridge->rpc, message);
}

/* Ends the loop once pending replies had a moment to flush. */
static void
bridge_exit_timer(evutil_socket_t fd, short events, void *arg)
{
	struct bridge	*bridge = arg;

	event_base_loopexit(bridge->base, NULL);
}

/* Starts a clean exit: fail pending calls, close streams, then stop. */
static void
bridge_begin_exit(struct bridge *bridge, const char *why)
{
	struct timeval	tv = { 0, BRIDGE_EXIT_FLUSH_MS * 1000 };

	if (bridge->exiting)
		return;
	bridge->exiting = true;
	log_info(bridge->log, "%s; exiting", why);
	rpc_channel_closed(bridge->rpc);
	http_server_end_streams(bridge->http);
	bridge->exit_timer = evtimer_new(bridge->base, bridge_exit_timer,
	    bridge);
	evtimer_add(bridge->exit_timer, &tv);
}

/* The browser closed the channel (EOF): the host's work is over. */
static void
bridge_channel_closed(void *arg)
{
	bridge_begin_exit(arg, "the browser closed the native-messaging channel");
}

/* The user or the system asked the host to end. */
static void
bridge_terminated(const char *what, void *arg)
{
	bridge_begin_exit(arg, what);
}

/* A session is going away: release its calls and its stream. */
static void
bridge_session_end(struct session *session, void *arg)
{
	struct bridge		*bridge = arg;
	struct sse_stream	*stream = session->stream;

	log_info(bridge->log, "MCP session %.8s ended", session->id);
	mcp_call_session_ended(bridge->mcp, session);
	session->stream = NULL;
	if (stream != NULL)
		sse_stream_end(stream);
}

/*
 * Makes or checks the directories of the runtime file and of the upload
 * copies, each the user's alone, and removes copies that hosts which died
 * left; -1 with *cause when one is not private. Without a place for them
 * (neither XDG_RUNTIME_DIR nor HOME) the host runs without both.
 */
static int
bridge_prepare_runtime(struct bridge *bridge, char **cause)
{
	char	*why = NULL, *base, *uploads;

	bridge->runtime_file = runtime_file_path(&why);
	if (bridge->runtime_file == NULL) {
		log_warn(bridge->log, "no runtime file and no uploads: %s", why);
		free(why);
		return 0;
	}
	if ((base = runtime_file_prepare(bridge->runtime_file, cause)) == NULL)
		return -1;
	uploads = xasprintf("%s/uploads", base);
	bridge->uploads = upload_stage_new(uploads, cause);
	free(uploads);
	free(base);
	return bridge->uploads == NULL ? -1 : 0;
}

/* Writes the runtime file that tells other tools where the host is. */
static void
bridge_write_runtime_file(struct bridge *bridge)
{
	char	*cause = NULL, *url;
	json_t	*contents;

	if (bridge->runtime_file == NULL)
		return;
	url = bridge_mcp_url(bridge);
	contents = instance_identity(os_parent_pid());
	json_object_update_new(contents, json_pack("{s:i,s:i,s:s,s:s,s:I}",
	    "pid", (int)getpid(), "port", bridge->port, "version",
	    PACKAGE_VERSION, "url", url, "started", (json_int_t)time(NULL)));
	if (runtime_file_write(bridge->runtime_file, contents, &cause) != 0) {
		log_warn(bridge->log, "%s", cause);
		free(cause);
	}
	json_decref(contents);
	free(url);
}

/*
 * Builds the host top to bottom, every part wired, listening. Steals
 * config. Each part gets only what it uses; bridge_free is the one cleanup.
 */
struct bridge *
bridge_new(struct config *config, int in_fd, int out_fd, char **cause)
{
	struct bridge			*bridge = xcalloc(1, sizeof *bridge);
	struct rpc_callbacks		 callbacks = {
		.send = bridge_send,
		.backlog = bridge_backlog,
		.welcome = bridge_welcome,
		.connected = bridge_connected,
		.disconnected = bridge_disconnected,
		.host_request = bridge_host_request,
		.event = bridge_event,
		.arg = bridge,
	};
	struct mcp_dispatcher		 dispatcher = {
		.call = bridge_dispatch_call,
		.cancel = bridge_dispatch_cancel,
	};
	struct http_server_settings	 http_settings;
	char				*url;

	bridge->config = *config;
	memset(config, 0, sizeof *config);
	config = &bridge->config;
	bridge->clock = clock_monotonic();
	bridge->started_ms = clock_now_ms(bridge->clock);

	if ((bridge->log = log_open(config->log_level, config->log_file,
	    cause)) == NULL)
		goto fail;
	log_route_libevent(bridge->log);
	if ((bridge->tools = tool_registry_new(cause)) == NULL)
		goto fail;
	if (files_check_private_dir(config->config_dir, cause) == -1 ||
	    bridge_prepare_runtime(bridge, cause) == -1)
		goto fail;
	if (config->auth) {
		if ((bridge->token = token_load_or_create(config->token_file,
		    cause)) == NULL)
			goto fail;
	} else
		log_warn(bridge->log, "authentication is off: any local "
		    "process can drive the browser");

	bridge->base = loop_new(in_fd, out_fd);
	if (!loop_pollable(in_fd))
		log_warn(bridge->log, "standard input is not a pipe (a file or "
		    "/dev/null?): the host reads it to its end, then exits. "
		    "A browser starts the host itself, with a pipe to its "
		    "extension; open the browser with the Browser Bridge "
		    "extension instead (`browser-bridge doctor` checks the "
		    "setup)");
	bridge->rpc = rpc_new(bridge->base, bridge->clock, bridge->log,
	    config->hello_grace_ms, &callbacks);
	bridge->sessions = session_store_new(config->max_sessions,
	    (uint64_t)config->session_idle_ms, bridge_session_end, bridge);
	session_store_set_key(bridge->sessions, bridge->token);
	dispatcher.arg = bridge->rpc;
	bridge->host.status = bridge_status;
	bridge->host.arg = bridge;
	bridge->mcp = mcp_new(bridge->tools, config->tools_page_size,
	    &dispatcher, &bridge->host, bridge->sessions, bridge->log);
	http_settings = (struct http_server_settings){
		.port = config->port,
		.max_body = config->max_body,
		.max_headers = config->max_headers,
		.max_connections = config->max_connections,
		.head_timeout_ms = config->head_timeout_ms,
		.min_body_rate = CONFIG_MIN_BODY_RATE,
		.timeout_s = config->http_timeout_s,
		.keepalive_ms = config->keepalive_ms,
		.token = bridge->token,
		.extension_origin = config->extension_origin,
		.allowed_origins = config->allowed_origins,
		.allowed_origin_count = config->allowed_origin_count,
	};
	if ((bridge->http = http_server_new(bridge->base, &http_settings,
	    bridge->mcp, bridge->sessions, bridge->clock, bridge->log,
	    bridge_extension_connected, bridge->rpc, cause)) == NULL)
		goto fail;
	bridge->port = http_server_port(bridge->http);
	if (bridge_open_oauth(bridge, cause) != 0)
		goto fail;
	if (http_server_taken_port(bridge->http) != 0)
		bridge_explain_taken_port(bridge,
		    http_server_taken_port(bridge->http));
	bridge->channel = channel_new(bridge->base, in_fd, out_fd,
	    config->max_frame, bridge->log, bridge_channel_message,
	    bridge_channel_closed, bridge);

	bridge->termination = os_termination_new(bridge->base,
	    bridge_terminated, bridge);

	bridge_write_runtime_file(bridge);
	url = bridge_mcp_url(bridge);
	log_info(bridge->log, "browser-bridge %s serving MCP at %s (pid %ld)",
	    PACKAGE_VERSION, url, (long)getpid());
	free(url);
	return bridge;

fail:
	bridge_free(bridge);
	return NULL;
}

/* Runs the event loop until the browser leaves or a signal arrives. */
int
bridge_run(struct bridge *bridge)
{
	return event_base_dispatch(bridge->base) == -1 ? -1 : 0;
}

/* Tears everything down in the reverse order of bridge_new. */
void
bridge_free(struct bridge *bridge)
{
	if (bridge == NULL)
		return;
	if (bridge->runtime_file != NULL)
		runtime_file_remove(bridge->runtime_file, (long)getpid());
	upload_stage_free(bridge->uploads);
	os_termination_free(bridge->termination);
	if (bridge->exit_timer != NULL)
		event_free(bridge->exit_timer);
	http_server_free(bridge->http);
	http_oauth_free(bridge->oauth);
	oauth_store_free(bridge->oauth_store);
	session_store_free(bridge->sessions);
	channel_free(bridge->channel);
	bridge->channel = NULL;
	rpc_free(bridge->rpc);
	mcp_free(bridge->mcp);
	if (bridge->base != NULL)
		event_base_free(bridge->base);
	tool_registry_free(bridge->tools);
	free(bridge->token);
	free(bridge->port_note);
	free(bridge->runtime_file);
	log_close(bridge->log);
	config_clear(&bridge->config);
	free(bridge);
}
