/*
 * The MCP server: the method table and the dispatch of each message, for
 * legacy sessions and modern (2026-07-28) requests alike; initialize and
 * the small methods (discover, ping, tools, resources); notifications to
 * sessions and listen streams. Pending calls are mcp-call.c's, the task
 * methods mcp-tasks.c's. There are no prompts and no log messages, so
 * neither is advertised nor answered.
 */
#include "mcp.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-call.h"
#include "mcp-listen.h"
#include "mcp-method.h"
#include "mcp-modern.h"
#include "mcp-reply.h"
#include "mcp-resources.h"
#include "mcp-tasks.h"
#include "mcp-tools.h"
#include "mcp-version.h"
#include "oauth-scope.h"
#include "session.h"
#include "sse-stream.h"
#include "tools.h"
#include "xmalloc.h"

static const char mcp_instructions[] =
    "Drives the user's own browser. Read the page with get_browser_state, "
    "then act on elements by their ref. Refs go stale when the page "
    "changes: read the state again.";

/*
 * Makes the MCP server over a tool catalogue, the dispatcher that answers
 * forwarded calls, what host tools may ask, and the sessions to notify.
 */
struct mcp *
mcp_new(const struct tool_registry *tools, size_t tools_page_size,
    const struct mcp_dispatcher *dispatcher,
    const struct tool_host_context *host, struct session_store *sessions,
    struct log *log)
{
	struct mcp	*mcp = xcalloc(1, sizeof *mcp);

	mcp->tools = tools;
	mcp->tools_page_size = tools_page_size;
	mcp->dispatcher = *dispatcher;
	mcp->host = host;
	mcp->sessions = sessions;
	mcp->listeners = mcp_listeners_new();
	mcp->log = log;
	return mcp;
}

/* Frees the MCP server; sessions and listen streams must have ended. */
void
mcp_free(struct mcp *mcp)
{
	if (mcp == NULL)
		return;	/* bridge_new failed before making it */
	mcp_listeners_free(mcp->listeners);
	free(mcp);
}

/*
 * Opens a subscriptions/listen stream's listener; see mcp_listeners_open.
 * deliver gets the change notifications it asked for until mcp_unlisten.
 */
struct mcp_listener *
mcp_listen(struct mcp *mcp, const json_t *request, mcp_listener_cb deliver,
    void *arg, json_t **reply)
{
	return mcp_listeners_open(mcp->listeners, request,
	    mcp_tasks_declared(request), deliver, arg, reply);
}

/* Closes a listener whose stream ended. */
void
mcp_unlisten(struct mcp *mcp, struct mcp_listener *listener)
{
	mcp_listeners_close(mcp->listeners, listener);
}

/* Returns whether a request asked for progress notifications. */
static bool
mcp_wants_progress(const json_t *message)
{
	const json_t	*meta;

	meta = json_object_get(json_object_get(message, "params"), "_meta");
	return json_object_get(meta, "progressToken") != NULL;
}

/*
 * Returns whether a request should be answered on a stream: it asked for
 * progress, or it calls a tool whose agents may ask a question
 * (run_task) from a client that can ask its user (elicitation/create goes
 * on that stream).
 */
bool
mcp_wants_stream(const struct mcp *mcp, const struct session *session,
    const json_t *message)
{
	const char		*method = jsonrpc_string(json_object_get(message,
				    "method"));
	const struct tool	*tool;

	if (mcp_wants_progress(message))
		return true;
	if (!session->elicitation || method == NULL ||
	    strcmp(method, "tools/call") != 0)
		return false;
	tool = tool_registry_find(mcp->tools, jsonrpc_string(json_object_get(
	    json_object_get(message, "params"), "name")));
	return tool != NULL && tool->task_optional;
}

/* Returns whether a message is an initialize request. */
bool
mcp_is_initialize(const json_t *message)
{
	const char	*method;

	method = jsonrpc_string(json_object_get(message, "method"));
	return method != NULL && strcmp(method, "initialize") == 0 &&
	    json_object_get(message, "id") != NULL;
}

/* Builds the initialize result for a negotiated protocol version. */
static json_t *
mcp_initialize_result(const char *version)
{
	json_t	*result;

	result = json_pack("{s:s,s:{s:{s:b},s:{s:b,s:b}},"
	    "s:{s:s,s:s,s:s},s:s}",
	    "protocolVersion", version,
	    "capabilities",
	    "tools", "listChanged", 1,
	    "resources", "listChanged", 1, "subscribe", 1,
	    "serverInfo", "name", "browser-bridge", "title", "Browser Bridge",
	    "version", PACKAGE_VERSION,
	    "instructions", mcp_instructions);
	if (strcmp(version, MCP_TASKS_VERSION) == 0)
		json_object_set_new(json_object_get(result, "capabilities"),
		    "tasks", mcp_tasks_capabilities());
	return result;
}

/*
 * The error an initialize request gets, or NULL when it is well formed:
 * the transport asks before it makes a session, so a refused initialize
 * leaves none behind.
 */
json_t *
mcp_initialize_refusal(const json_t *request)
{
	const json_t	*params = json_object_get(request, "params");

	if (jsonrpc_string(json_object_get(params, "protocolVersion")) == NULL)
		return mcp_reply_invalid_params(request,
		    "initialize needs params.protocolVersion (a string)");
	return NULL;
}

/* initialize: negotiates the version and describes the server. */
static json_t *
mcp_initialize(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	const char	*asked;

	if ((*error = mcp_initialize_refusal(request)) != NULL)
		return NULL;
	asked = jsonrpc_string(json_object_get(params, "protocolVersion"));
	session_set_client(session, json_object_get(params, "clientInfo"));
	session->elicitation = json_is_object(json_object_get(json_object_get(
	    params, "capabilities"), "elicitation"));
	snprintf(session->protocol_version, sizeof session->protocol_version,
	    "%s", mcp_version_supported(asked) ? asked : MCP_LATEST_VERSION);
	return mcp_initialize_result(session->protocol_version);
}

/* server/discover: the versions, capabilities and guidance (modern). */
static json_t *
mcp_discover(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	return mcp_modern_discover(mcp_instructions);
}

/* ping: answers with an empty result. */
static json_t *
mcp_ping(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	return json_object();
}

/* The eras a method belongs to. */
#define MCP_LEGACY	0x1	/* sessions opened with initialize */
#define MCP_MODERN	0x2	/* 2026-07-28 requests */

/* tools/call needs the scope its tool names (the catalogue's "scope"). */
#define MCP_SCOPE_OF_TOOL	(~0u)

static const struct {
	const char	*name;
	mcp_method_fn	 fn;
	int		 eras;
	unsigned	 scope;		/* OAUTH_SCOPE_* a key needs, or 0 */
} mcp_methods[] = {
	{ "initialize", mcp_initialize, MCP_LEGACY, 0 },
	{ "server/discover", mcp_discover, MCP_MODERN, 0 },
	{ "ping", mcp_ping, MCP_LEGACY, 0 },
	{ "tools/list", mcp_tools_list, MCP_LEGACY|MCP_MODERN, 0 },
	{ "tools/call", mcp_tools_call, MCP_LEGACY|MCP_MODERN,
	  MCP_SCOPE_OF_TOOL },
	{ "resources/list", mcp_resources_list, MCP_LEGACY|MCP_MODERN,
	  OAUTH_SCOPE_PAGES_READ },
	{ "resources/templates/list", mcp_resources_templates,
	  MCP_LEGACY|MCP_MODERN, OAUTH_SCOPE_PAGES_READ },
	{ "resources/read", mcp_resources_read, MCP_LEGACY|MCP_MODERN,
	  OAUTH_SCOPE_PAGES_READ },
	{ "resources/subscribe", mcp_resources_subscribe, MCP_LEGACY,
	  OAUTH_SCOPE_PAGES_READ },
	{ "resources/unsubscribe", mcp_resources_unsubscribe, MCP_LEGACY,
	  OAUTH_SCOPE_PAGES_READ },
	{ "tasks/get", mcp_tasks_by_id, MCP_LEGACY|MCP_MODERN,
	  OAUTH_SCOPE_TASKS },
	{ "tasks/result", mcp_tasks_by_id, MCP_LEGACY, OAUTH_SCOPE_TASKS },
	{ "tasks/cancel", mcp_tasks_by_id, MCP_LEGACY|MCP_MODERN,
	  OAUTH_SCOPE_TASKS },
	{ "tasks/list", mcp_tasks_list, MCP_LEGACY, OAUTH_SCOPE_TASKS },
	{ "tasks/update", mcp_tasks_by_id, MCP_MODERN, OAUTH_SCOPE_TASKS },
};

/*
 * Returns the scope a request needs (OAUTH_SCOPE_*): its tool's for
 * tools/call, its method's otherwise; 0 when it needs none, or names no
 * method or tool (its handler says so).
 */
unsigned
mcp_scope_needed(const struct mcp *mcp, const json_t *message)
{
	const char		*method = jsonrpc_string(json_object_get(message,
				    "method"));
	const struct tool	*tool;
	size_t			 i;

	if (method == NULL || json_object_get(message, "id") == NULL)
		return 0;
	for (i = 0; i < sizeof mcp_methods / sizeof *mcp_methods; i++) {
		if (strcmp(method, mcp_methods[i].name) != 0)
			continue;
		if (mcp_methods[i].scope != MCP_SCOPE_OF_TOOL)
			return mcp_methods[i].scope;
		tool = tool_registry_find(mcp->tools, jsonrpc_string(
		    json_object_get(json_object_get(message, "params"),
		    "name")));
		return tool != NULL ? tool->scope : 0;
	}
	return 0;
}

/* Handles a client notification. */
static void
mcp_notification(struct mcp *mcp, struct session *session, const char *method,
    const json_t *params)
{
	if (strcmp(method, "notifications/initialized") == 0)
		session->initialized = true;
	else if (strcmp(method, "notifications/cancelled") == 0)
		mcp_call_cancelled(mcp, session, params);
}

/* Handles one JSON-RPC message from a session's client. */
enum mcp_outcome
mcp_handle(struct mcp *mcp, struct session *session, const json_t *message,
    mcp_emit_cb emit, void *arg, struct mcp_call **call)
{
	const char	*method, *cause = NULL;
	const json_t	*id, *params;
	json_t		*result, *error = NULL;
	char		*text;
	size_t		 i;
	int		 era;

	*call = NULL;
	switch (jsonrpc_classify(message, &method, &id, &cause)) {
	case JSONRPC_INVALID:
		text = xasprintf("Invalid request: %s", cause);
		emit(jsonrpc_error(id, JSONRPC_INVALID_REQUEST, text, NULL),
		    true, arg);
		free(text);
		return MCP_REPLIED;
	case JSONRPC_RESPONSE:
		mcp_call_response(mcp, session, message);
		return MCP_NO_REPLY;
	case JSONRPC_NOTIFICATION:
		mcp_notification(mcp, session, method,
		    json_object_get(message, "params"));
		return MCP_NO_REPLY;
	case JSONRPC_REQUEST:
		break;
	}
	params = json_object_get(message, "params");
	era = mcp_version_modern(session) ? MCP_MODERN : MCP_LEGACY;
	for (i = 0; i < sizeof mcp_methods / sizeof *mcp_methods; i++) {
		if (strcmp(method, mcp_methods[i].name) == 0 &&
		    (mcp_methods[i].eras & era) != 0)
			break;
	}
	if (i == sizeof mcp_methods / sizeof *mcp_methods) {
		text = xasprintf("Method not found: %s", method);
		emit(jsonrpc_error(id, JSONRPC_METHOD_NOT_FOUND, text, NULL),
		    true, arg);
		free(text);
		return MCP_REPLIED;
	}
	if ((mcp_scope_needed(mcp, message) & ~session->grant.scopes) != 0) {
		/* The transports refuse it first, with HTTP 403. */
		emit(jsonrpc_error(id, JSONRPC_INVALID_REQUEST, "insufficient_"
		    "scope: this client's key does not allow this request; "
		    "approve the client again with more scopes", NULL), true,
		    arg);
		return MCP_REPLIED;
	}
	result = mcp_methods[i].fn(mcp, session, message, params, emit, arg,
	    call, &error);
	if (*call != NULL)
		return MCP_PENDING;
	if (result == NULL && error == NULL)
		return MCP_REPLIED;	/* the dispatcher answered at once */
	if (result != NULL && era == MCP_MODERN)
		mcp_modern_finish(result, method);
	emit(result != NULL ? jsonrpc_result(id, result) : error, true, arg);
	return MCP_REPLIED;
}

/*
 * Sends a parameterless notification to every session with a stream, and
 * to every listen stream that asked for it.
 */
void
mcp_broadcast(struct mcp *mcp, const char *method)
{
	struct session	*s, *tmp;
	json_t		*note = jsonrpc_notification(method, NULL);

	SESSION_STORE_FOREACH(s, mcp->sessions, tmp) {
		if (s->stream != NULL)
			sse_stream_message(s->stream, "message", note);
	}
	json_decref(note);
	mcp_listeners_notify(mcp->listeners, method, NULL);
}
