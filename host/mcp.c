/*
 * MCP methods: initialize, discover, tools, resources, tasks, cancel; for
 * legacy sessions and for modern (2026-07-28) requests alike. There are no
 * prompts and no log messages, so neither is advertised nor answered.
 */
#include "mcp.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp-listen.h"
#include "mcp-modern.h"
#include "mcp-tasks.h"
#include "resources.h"
#include "session.h"
#include "sse.h"
#include "tools.h"
#include "xmalloc.h"

static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

/* How long the extension has to take a client's answer to a question. */
#define MCP_ANSWER_TIMEOUT_MS	15000

static const char mcp_instructions[] =
    "Drives the user's own browser. Read the page with get_browser_state, "
    "then act on elements by their ref. Refs go stale when the page "
    "changes: read the state again.";

struct mcp {
	const struct tool_registry	*tools;
	size_t				 tools_page_size;
	struct mcp_dispatcher		 dispatcher;
	const struct tool_host_context	*host;
	struct session_store		*sessions;
	struct mcp_listeners		*listeners;	/* modern streams */
	struct log			*log;
};

enum mcp_call_kind {
	MCP_CALL_TOOL,
	MCP_CALL_RESOURCE,
	MCP_CALL_TASK,		/* a task method, or a tools/call made a task */
};

/* A request waiting for the extension. */
struct mcp_call {
	struct mcp		*mcp;
	struct session		*session;
	enum mcp_call_kind	 kind;
	enum mcp_task_op	 task_op;	/* MCP_CALL_TASK */
	json_t			*task_args;	/* MCP_TASK_RESULT: to ask again */
	json_t			*request_id;
	uint64_t		 dispatch_id;
	json_t			*progress_token;	/* NULL: no progress */
	bool			 structured;	/* keep structuredContent */
	double			 last_progress;
	/* The agents' question sent as elicitation/create, until answered. */
	char			*elicit_id;
	json_t			*elicit_args;	/* answer_task's task_id, question_id */
	mcp_emit_cb		 emit;
	void			*arg;
	TAILQ_ENTRY(mcp_call)	 entry;
};

/*
 * A request method's handler: returns the result, or NULL after setting
 * *error or *call, or after a forwarded call was answered through emit.
 */
typedef json_t *(*mcp_method_fn)(struct mcp *, struct session *,
		    const json_t *request, const json_t *params,
		    mcp_emit_cb, void *, struct mcp_call **, json_t **error);

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

/* The legacy versions this host speaks, newest first (a new array). */
json_t *
mcp_legacy_versions(void)
{
	json_t	*versions = json_array();
	size_t	 i;

	for (i = 0; i < sizeof mcp_versions / sizeof *mcp_versions; i++)
		json_array_append_new(versions, json_string(mcp_versions[i]));
	return versions;
}

/* Returns whether a session (or stateless request) is of the modern era. */
static bool
mcp_session_modern(const struct session *session)
{
	return strcmp(session->protocol_version, MCP_MODERN_VERSION) == 0;
}

/* Returns whether this host speaks a legacy MCP protocol version. */
bool
mcp_version_supported(const char *version)
{
	size_t	i;

	for (i = 0; i < sizeof mcp_versions / sizeof *mcp_versions; i++) {
		if (strcmp(version, mcp_versions[i]) == 0)
			return true;
	}
	return false;
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

/*
 * Returns whether a tools/call asked for structuredContent from a tool
 * without an output schema (params._meta["browser-bridge/structured"]):
 * programs ask; models read the text, and get only the text.
 */
static bool
mcp_wants_structured(const json_t *request)
{
	const json_t	*meta;

	meta = json_object_get(json_object_get(request, "params"), "_meta");
	return json_is_true(json_object_get(meta, MCP_META_STRUCTURED));
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

/* Builds a -32602 error. */
static json_t *
mcp_invalid_params(const json_t *request, const char *message)
{
	return jsonrpc_error(json_object_get(request, "id"),
	    JSONRPC_INVALID_PARAMS, message, NULL);
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
		return mcp_invalid_params(request,
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

/* tools/list: one page of the catalogue. */
static json_t *
mcp_tools_list(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	const json_t	*cursor = json_object_get(params, "cursor");
	json_t		*result;
	char		*cause = NULL;

	if (cursor != NULL && jsonrpc_string(cursor) == NULL) {
		*error = mcp_invalid_params(request, "cursor must be a string");
		return NULL;
	}
	result = tool_registry_list(mcp->tools, jsonrpc_string(cursor),
	    mcp->tools_page_size, &cause);
	if (result == NULL) {
		*error = mcp_invalid_params(request, cause);
		free(cause);
	}
	return result;
}

/* Builds a tool result that reports an error with its stable code. */
json_t *
mcp_tool_error(const char *code, const char *message)
{
	char	*text = xasprintf("%s: %s", code, message);
	json_t	*result;

	result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
	    "text", text, "isError", 1);
	free(text);
	return result;
}

/* Turns what the extension returned into a CallToolResult. */
static json_t *
mcp_tool_result(const json_t *result)
{
	char	*text;
	json_t	*wrapped;

	if (json_is_array(json_object_get(result, "content")))
		return json_copy((json_t *)result);	/* its own top level */
	text = json_dumps(result, JSON_COMPACT|JSON_ENCODE_ANY);
	wrapped = json_pack("{s:[{s:s,s:s}]}", "content", "type", "text",
	    "text", text != NULL ? text : "null");
	if (json_is_object(result))
		json_object_set(wrapped, "structuredContent", (json_t *)result);
	free(text);
	return wrapped;
}

/* Detaches a finished call from its session and frees it. */
static void
mcp_call_free(struct mcp_call *call)
{
	TAILQ_REMOVE(&call->session->calls, call, entry);
	call->session->call_count--;
	json_decref(call->task_args);
	json_decref(call->request_id);
	json_decref(call->progress_token);
	free(call->elicit_id);
	json_decref(call->elicit_args);
	free(call);
}

/*
 * Forgets a call, then gives its caller the final answer (NULL: none, it
 * was cancelled). In that order: the answer may end what the call belongs
 * to (a stateless request's state goes with its HTTP exchange).
 */
static void
mcp_call_answer(struct mcp *mcp, struct mcp_call *call, json_t *reply,
    bool cancel)
{
	mcp_emit_cb	 emit = call->emit;
	void		*arg = call->arg;

	if (cancel)
		mcp_call_abandon(mcp, call);
	else
		mcp_call_free(call);
	emit(reply, true, arg);
}

static bool	mcp_call_again(struct mcp_call *, const char **, char **);

/* The extension answered a call: send the response and forget the call. */
static void
mcp_call_done(const json_t *result, const char *error_code,
    const char *error_message, void *arg)
{
	struct mcp_call	*call = arg;
	json_t		*reply, *body;

	if (call->kind == MCP_CALL_TASK && call->task_op == MCP_TASK_RESULT &&
	    error_code == NULL && !mcp_tasks_finished(result)) {
		const char	*again_code = NULL;
		char		*again_message = NULL;

		if (mcp_call_again(call, &again_code, &again_message))
			return;
		reply = mcp_tasks_reply(call->task_op, false, call->request_id,
		    NULL, again_code, again_message);
		free(again_message);
	} else if (call->kind == MCP_CALL_TASK) {
		reply = mcp_tasks_reply(call->task_op,
		    mcp_session_modern(call->session), call->request_id,
		    result, error_code, error_message);
	} else if (call->kind == MCP_CALL_TOOL) {
		body = error_code != NULL ?
		    mcp_tool_error(error_code, error_message) :
		    mcp_tool_result(result);
		if (!call->structured)
			json_object_del(body, "structuredContent");
		if (mcp_session_modern(call->session))
			mcp_modern_finish(body, "tools/call");
		reply = jsonrpc_result(call->request_id, body);
	} else if (error_code != NULL) {
		char *text = xasprintf("%s: %s", error_code, error_message);

		reply = jsonrpc_error(call->request_id, JSONRPC_INTERNAL_ERROR,
		    text, json_pack("{s:s}", "code", error_code));
		free(text);
	} else if (json_is_array(json_object_get(result, "contents"))) {
		body = json_copy((json_t *)result);
		if (mcp_session_modern(call->session))
			mcp_modern_finish(body, "resources/read");
		reply = jsonrpc_result(call->request_id, body);
	}
	else {
		reply = jsonrpc_error(call->request_id, JSONRPC_INTERNAL_ERROR,
		    "The extension returned a resource without contents",
		    NULL);
	}
	mcp_call_answer(call->mcp, call, reply, false);
}

/*
 * The agents of the task this call waits on ask their question (progress
 * with "input"): a client that can ask its user gets it as
 * elicitation/create on the call's stream, once; its answer goes to
 * answer_task (mcp_response). The person may answer in the browser first.
 */
static void
mcp_call_elicit(struct mcp_call *call, const json_t *input)
{
	const json_t	*question = json_object_get(input, "question");
	json_t		*request;

	if (!call->session->elicitation || call->elicit_id != NULL ||
	    !json_is_string(question) ||
	    !json_is_string(json_object_get(input, "task_id")) ||
	    !json_is_string(json_object_get(input, "question_id")))
		return;
	call->elicit_id = xasprintf("elicit-%llu-%s",
	    (unsigned long long)call->dispatch_id,
	    json_string_value(json_object_get(input, "question_id")));
	call->elicit_args = json_pack("{s:O, s:O}", "task_id",
	    json_object_get(input, "task_id"), "question_id",
	    json_object_get(input, "question_id"));
	request = json_pack("{s:s, s:s, s:s, s:o}", "jsonrpc", "2.0", "id",
	    call->elicit_id, "method", "elicitation/create", "params",
	    mcp_tasks_question(question));
	call->emit(request, false, call->arg);
}

/* What an answer_task the host starts by itself needs: nothing back. */
static void
mcp_answer_done(const json_t *result, const char *error_code,
    const char *error_message, void *arg)
{
}

/*
 * A client's response to our elicitation/create: an accepted answer goes
 * to the extension's answer_task (the task's own, first answer wins);
 * a decline or cancel leaves the question to the person. Responses to
 * nothing we asked are ignored.
 */
static void
mcp_response(struct mcp *mcp, struct session *session, const json_t *message)
{
	const char	*id = jsonrpc_string(json_object_get(message, "id"));
	const char	*answer, *code = NULL;
	char		*error = NULL, caller[SESSION_CALLER_LENGTH + 1];
	struct mcp_call	*call;
	json_t		*args;
	bool		 malformed;

	if (id == NULL)
		return;
	TAILQ_FOREACH(call, &session->calls, entry) {
		if (call->elicit_id != NULL && strcmp(call->elicit_id, id) == 0)
			break;
	}
	if (call == NULL)
		return;
	answer = mcp_tasks_elicited(json_object_get(message, "result"),
	    &malformed);
	if (malformed)
		log_info(mcp->log, "client %s answered the agents' question of "
		    "task %s with no usable answer; the person can answer in "
		    "the browser", *session->client != '\0' ? session->client :
		    "(unnamed)", json_string_value(json_object_get(
		    call->elicit_args, "task_id")));
	if (answer != NULL) {
		args = json_deep_copy(call->elicit_args);
		json_object_set_new(args, "answer", json_string(answer));
		session_caller(mcp->sessions, session, caller);
		if (mcp->dispatcher.call(mcp->dispatcher.arg, "answer_task",
		    session->client, caller, args, MCP_ANSWER_TIMEOUT_MS, mcp_answer_done,
		    NULL, NULL, &code, &error) == 0) {
			log_warn(mcp->log, "the client's answer to task %s "
			    "was lost: %s", json_string_value(json_object_get(
			    call->elicit_args, "task_id")), error);
			free(error);
		}
	}
	free(call->elicit_id);
	call->elicit_id = NULL;
}

/* Passes extension progress on as notifications/progress, if asked for. */
static void
mcp_call_progress(const json_t *progress, void *arg)
{
	struct mcp_call	*call = arg;
	const json_t	*value = json_object_get(progress, "progress");
	json_t		*params;

	if (json_is_object(json_object_get(progress, "input")))
		mcp_call_elicit(call, json_object_get(progress, "input"));
	if (call->progress_token == NULL || !json_is_number(value) ||
	    json_number_value(value) <= call->last_progress)
		return;	/* progress must increase */
	call->last_progress = json_number_value(value);
	params = json_pack("{s:O,s:O}", "progressToken", call->progress_token,
	    "progress", value);
	if (json_is_number(json_object_get(progress, "total")))
		json_object_set(params, "total",
		    json_object_get(progress, "total"));
	if (json_is_string(json_object_get(progress, "message")))
		json_object_set(params, "message",
		    json_object_get(progress, "message"));
	call->emit(jsonrpc_notification("notifications/progress", params),
	    false, call->arg);
}

/* Records a request that will wait for the dispatcher. */
static struct mcp_call *
mcp_call_new(struct mcp *mcp, struct session *session, const json_t *request,
    enum mcp_call_kind kind, mcp_emit_cb emit, void *arg)
{
	struct mcp_call	*call = xcalloc(1, sizeof *call);
	const json_t	*meta;

	call->mcp = mcp;
	call->session = session;
	call->kind = kind;
	call->request_id = json_incref(json_object_get(request, "id"));
	meta = json_object_get(json_object_get(request, "params"), "_meta");
	call->progress_token = json_incref(json_object_get(meta,
	    "progressToken"));
	call->emit = emit;
	call->arg = arg;
	TAILQ_INSERT_TAIL(&session->calls, call, entry);
	session->call_count++;
	return call;
}

/*
 * Hands a recorded call to the dispatcher (stealing args). Returns it, or
 * NULL when the dispatcher refused at once and the call was answered.
 */
static struct mcp_call *
mcp_call_start(struct mcp_call *call, const char *method, json_t *args,
    int timeout_ms)
{
	struct mcp	*mcp = call->mcp;
	const char	*error_code = NULL;
	char		*error_message = NULL, caller[SESSION_CALLER_LENGTH + 1];

	session_caller(mcp->sessions, call->session, caller);
	call->dispatch_id = mcp->dispatcher.call(mcp->dispatcher.arg, method,
	    call->session->client, caller, args, timeout_ms, mcp_call_done,
	    mcp_call_progress, call, &error_code, &error_message);
	if (call->dispatch_id != 0)
		return call;
	mcp_call_done(NULL, error_code, error_message, call);
	free(error_message);
	return NULL;
}

/*
 * Forwards a request to the dispatcher and records it as pending. Returns
 * NULL when the dispatcher answered at once (emit was called).
 */
static struct mcp_call *
mcp_forward(struct mcp *mcp, struct session *session, const json_t *request,
    enum mcp_call_kind kind, const char *method, json_t *args, int timeout_ms,
    mcp_emit_cb emit, void *arg)
{
	return mcp_call_start(mcp_call_new(mcp, session, request, kind, emit,
	    arg), method, args, timeout_ms);
}

/*
 * Forwards a task method (or a tools/call made a task) to one of the
 * extension's task tools. Returns NULL; *call is set while it is pending.
 */
static json_t *
mcp_task_forward(struct mcp *mcp, struct session *session,
    const json_t *request, enum mcp_task_op op, const char *tool_name,
    json_t *args, mcp_emit_cb emit, void *arg, struct mcp_call **call)
{
	const struct tool	*tool = tool_registry_find(mcp->tools,
				    tool_name);
	struct mcp_call		*pending;

	pending = mcp_call_new(mcp, session, request, MCP_CALL_TASK, emit, arg);
	pending->task_op = op;
	if (op == MCP_TASK_RESULT)
		pending->task_args = json_incref(args);
	*call = mcp_call_start(pending, tool->method, args,
	    tool_timeout_ms(tool, args));
	return NULL;
}

/*
 * tasks/result waits for the end: asks get_task again when its wait ran
 * out first. Returns whether the call is pending again; if not, *code and
 * *message (heap) say why.
 */
static bool
mcp_call_again(struct mcp_call *call, const char **code, char **message)
{
	struct mcp		*mcp = call->mcp;
	const struct tool	*tool = tool_registry_find(mcp->tools,
				    "get_task");
	char			 caller[SESSION_CALLER_LENGTH + 1];

	session_caller(mcp->sessions, call->session, caller);
	call->dispatch_id = mcp->dispatcher.call(mcp->dispatcher.arg,
	    tool->method, call->session->client, caller,
	    json_incref(call->task_args),
	    tool_timeout_ms(tool, call->task_args), mcp_call_done,
	    mcp_call_progress, call, code, message);
	return call->dispatch_id != 0;
}

/* tools/call: checks the arguments, then runs the tool. */
static json_t *
mcp_tools_call(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	const char		*name;
	const struct tool	*tool;
	const json_t		*args;
	json_t			*result, *empty = NULL;
	char			*cause = NULL, *message;
	enum mcp_task_mode	 mode;

	name = jsonrpc_string(json_object_get(params, "name"));
	if (name == NULL) {
		*error = mcp_invalid_params(request,
		    "tools/call needs params.name (a string without NUL "
		    "characters)");
		return NULL;
	}
	if ((tool = tool_registry_find(mcp->tools, name)) == NULL) {
		message = xasprintf("Unknown tool: %s. Call tools/list for the "
		    "tools this server has.", name);
		*error = mcp_invalid_params(request, message);
		free(message);
		return NULL;
	}
	args = json_object_get(params, "arguments");
	if (args != NULL && !json_is_object(args)) {
		*error = mcp_invalid_params(request,
		    "params.arguments must be an object");
		return NULL;
	}
	if ((mode = mcp_tasks_mode(session, request, tool, error)) ==
	    MCP_TASK_REFUSED)
		return NULL;
	if (args == NULL)
		args = empty = json_object();
	if (tool_check_arguments(tool, args, &cause) != 0) {
		result = mcp_tool_error(ERR_INVALID_ARGUMENT, cause);
		free(cause);
	} else if (mode == MCP_TASK_START) {
		json_t *detached = json_copy((json_t *)args);

		json_object_set_new(detached, "wait", json_false());
		result = mcp_task_forward(mcp, session, request,
		    MCP_TASK_CREATE, tool->name, detached, emit, arg, call);
	} else if (tool->handler != NULL)
		result = tool->handler(mcp->host, args);
	else {
		struct mcp_call *pending = mcp_call_new(mcp, session, request,
		    MCP_CALL_TOOL, emit, arg);

		pending->structured = tool->output_schema != NULL ||
		    mcp_wants_structured(request);
		*call = mcp_call_start(pending, tool->method,
		    json_incref((json_t *)args), tool_timeout_ms(tool, args));
		result = NULL;
	}
	json_decref(empty);
	return result;
}

/* resources/list: the fixed resource table. */
static json_t *
mcp_resources_list(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	return resources_list();
}

/* resources/templates/list: there are none. */
static json_t *
mcp_resources_templates(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	return json_pack("{s:[]}", "resourceTemplates");
}

/*
 * Returns the index of the known resource params.uri names, or -1 after
 * setting *error (-32602 without a uri, -32002 for an unknown one).
 */
static int
mcp_resource_param(const json_t *request, const json_t *params,
    const char *method, bool modern, json_t **error)
{
	const char	*uri = jsonrpc_string(json_object_get(params, "uri"));
	char		*message;
	int		 index;

	if (uri == NULL) {
		message = xasprintf("%s needs params.uri (a string)", method);
		*error = mcp_invalid_params(request, message);
		free(message);
		return -1;
	}
	if ((index = resources_index(uri)) == -1) {
		message = xasprintf("Resource not found: %s. Call "
		    "resources/list for the resources this server has.", uri);
		*error = jsonrpc_error(json_object_get(request, "id"),
		    modern ? JSONRPC_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND,
		    message,
		    json_pack("{s:s}", "uri", uri));
		free(message);
	}
	return index;
}

/* resources/read: asks the extension for fresh data. */
static json_t *
mcp_resources_read(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	if (mcp_resource_param(request, params, "resources/read",
	    mcp_session_modern(session), error) == -1)
		return NULL;
	*call = mcp_forward(mcp, session, request, MCP_CALL_RESOURCE,
	    "read_resource", json_pack("{s:O}", "uri",
	    json_object_get(params, "uri")), 0, emit, arg);
	return NULL;
}

/* resources/subscribe: notify this session when the resource changes. */
static json_t *
mcp_resources_subscribe(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	int	index;

	index = mcp_resource_param(request, params, "resources/subscribe",
	    false, error);
	if (index == -1)
		return NULL;
	session->subscriptions |= 1u << index;
	return json_object();
}

/* resources/unsubscribe: stop notifying; unsubscribed already is fine. */
static json_t *
mcp_resources_unsubscribe(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	int	index;

	index = mcp_resource_param(request, params, "resources/unsubscribe",
	    false, error);
	if (index == -1)
		return NULL;
	session->subscriptions &= ~(1u << index);
	return json_object();
}

/*
 * The task a task method names, or NULL after *error: a modern client must
 * have declared the tasks extension, and params.taskId must be a string.
 */
static const char *
mcp_task_id(struct session *session, const json_t *request,
    const json_t *params, json_t **error)
{
	const char	*id;

	if (!mcp_tasks_negotiated(session, request)) {
		*error = mcp_tasks_missing_capability(json_object_get(request,
		    "id"));
		return NULL;
	}
	if ((id = jsonrpc_string(json_object_get(params, "taskId"))) == NULL)
		*error = mcp_invalid_params(request,
		    "params.taskId must be the task id tools/call returned");
	return id;
}

/*
 * The task methods that name one task, and what each asks of the
 * extension: tasks/get its status (in 2026-07-28 with the result, or the
 * question the agents ask as an input request), tasks/result (2025-11-25)
 * waits for the end, tasks/cancel stops it, tasks/update (2026-07-28)
 * hands the client's answer to that question to answer_task.
 */
static const struct {
	const char		*method;
	enum mcp_task_op	 op;
	const char		*tool;
} mcp_task_methods[] = {
	{ "tasks/get", MCP_TASK_GET, "get_task" },
	{ "tasks/result", MCP_TASK_RESULT, "get_task" },
	{ "tasks/cancel", MCP_TASK_CANCEL, "stop_task" },
	{ "tasks/update", MCP_TASK_UPDATE, "answer_task" },
};

/* tasks/get, tasks/result, tasks/cancel, tasks/update: see above. */
static json_t *
mcp_task_by_id(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	const char	*method = jsonrpc_string(json_object_get(request,
			    "method"));
	const char	*id = mcp_task_id(session, request, params, error);
	json_t		*args;
	size_t		 i;

	if (id == NULL)
		return NULL;
	for (i = 0; i < sizeof mcp_task_methods / sizeof *mcp_task_methods; i++) {
		if (strcmp(method, mcp_task_methods[i].method) == 0)
			break;
	}
	if (i == sizeof mcp_task_methods / sizeof *mcp_task_methods)
		return NULL;	/* not reached: mcp_methods routes only these */
	args = json_pack("{s:s}", "task_id", id);
	if (mcp_task_methods[i].op == MCP_TASK_RESULT)
		json_object_set_new(args, "wait_ms",
		    json_integer(MCP_TASK_RESULT_WAIT_MS));
	if (mcp_task_methods[i].op == MCP_TASK_UPDATE &&
	    mcp_tasks_update_args(args, params) != 0) {
		json_decref(args);
		*error = mcp_invalid_params(request, "params.inputResponses "
		    "must answer the task's input request: {\"<key from "
		    "inputRequests>\": {\"action\": \"accept\", \"content\": "
		    "{\"answer\": \"...\"}}}");
		return NULL;
	}
	return mcp_task_forward(mcp, session, request, mcp_task_methods[i].op,
	    mcp_task_methods[i].tool, args, emit, arg, call);
}

/* tasks/list (2025-11-25): the caller's tasks, all in one page. */
static json_t *
mcp_task_list(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	if (json_object_get(params, "cursor") != NULL) {
		*error = mcp_invalid_params(request, "invalid cursor: "
		    "tasks/list returns every task in one page and gives no "
		    "cursor");
		return NULL;
	}
	return mcp_task_forward(mcp, session, request, MCP_TASK_LIST,
	    "list_tasks", json_object(), emit, arg, call);
}

/* The eras a method belongs to. */
#define MCP_LEGACY	0x1	/* sessions opened with initialize */
#define MCP_MODERN	0x2	/* 2026-07-28 requests */

static const struct {
	const char	*name;
	mcp_method_fn	 fn;
	int		 eras;
} mcp_methods[] = {
	{ "initialize", mcp_initialize, MCP_LEGACY },
	{ "server/discover", mcp_discover, MCP_MODERN },
	{ "ping", mcp_ping, MCP_LEGACY },
	{ "tools/list", mcp_tools_list, MCP_LEGACY|MCP_MODERN },
	{ "tools/call", mcp_tools_call, MCP_LEGACY|MCP_MODERN },
	{ "resources/list", mcp_resources_list, MCP_LEGACY|MCP_MODERN },
	{ "resources/templates/list", mcp_resources_templates,
	  MCP_LEGACY|MCP_MODERN },
	{ "resources/read", mcp_resources_read, MCP_LEGACY|MCP_MODERN },
	{ "resources/subscribe", mcp_resources_subscribe, MCP_LEGACY },
	{ "resources/unsubscribe", mcp_resources_unsubscribe, MCP_LEGACY },
	{ "tasks/get", mcp_task_by_id, MCP_LEGACY|MCP_MODERN },
	{ "tasks/result", mcp_task_by_id, MCP_LEGACY },
	{ "tasks/cancel", mcp_task_by_id, MCP_LEGACY|MCP_MODERN },
	{ "tasks/list", mcp_task_list, MCP_LEGACY },
	{ "tasks/update", mcp_task_by_id, MCP_MODERN },
};

/* notifications/cancelled: stop the call; it gets no response. */
static void
mcp_cancelled(struct mcp *mcp, struct session *session, const json_t *params)
{
	const json_t	*id = json_object_get(params, "requestId");
	struct mcp_call	*call;

	if (id == NULL)
		return;
	TAILQ_FOREACH(call, &session->calls, entry) {
		if (json_equal(call->request_id, id))
			break;
	}
	if (call == NULL)
		return;	/* finished already, or never existed */
	log_debug(mcp->log, "session %.8s cancelled a call",
	    session->id);
	mcp_call_answer(mcp, call, NULL, true);
}

/* Handles a client notification. */
static void
mcp_notification(struct mcp *mcp, struct session *session, const char *method,
    const json_t *params)
{
	if (strcmp(method, "notifications/initialized") == 0)
		session->initialized = true;
	else if (strcmp(method, "notifications/cancelled") == 0)
		mcp_cancelled(mcp, session, params);
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
		mcp_response(mcp, session, message);
		return MCP_NO_REPLY;
	case JSONRPC_NOTIFICATION:
		mcp_notification(mcp, session, method,
		    json_object_get(message, "params"));
		return MCP_NO_REPLY;
	case JSONRPC_REQUEST:
		break;
	}
	params = json_object_get(message, "params");
	era = mcp_session_modern(session) ? MCP_MODERN : MCP_LEGACY;
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

/* The caller of a pending call is gone: cancel it, never emit again. */
void
mcp_call_abandon(struct mcp *mcp, struct mcp_call *call)
{
	mcp->dispatcher.cancel(mcp->dispatcher.arg, call->dispatch_id,
	    "cancelled");
	mcp_call_free(call);
}

/*
 * A session ended (DELETE, expiry, its stream closed): each pending call is
 * cancelled at the extension and answered with an error, so a caller still
 * waiting on its POST is not left hanging.
 */
void
mcp_session_ended(struct mcp *mcp, struct session *session)
{
	struct mcp_call	*call;

	while ((call = TAILQ_FIRST(&session->calls)) != NULL) {
		mcp_call_answer(mcp, call, jsonrpc_error(call->request_id,
		    JSONRPC_INTERNAL_ERROR, "The MCP session ended before this "
		    "call finished; initialize a new session and retry.", NULL),
		    true);
	}
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

/*
 * A resource changed: sends notifications/resources/updated to each session
 * subscribed to uri, through deliver, or when deliver is NULL on the
 * session's stream if it has one, and to each listen stream subscribed to
 * it. Returns how many were sent it; an unknown uri reaches none.
 */
size_t
mcp_resource_updated(struct mcp *mcp, const char *uri,
    mcp_deliver_cb deliver, void *arg)
{
	struct session	*s, *tmp;
	json_t		*note;
	size_t		 sent = 0;
	int		 index;

	if ((index = resources_index(uri)) == -1)
		return 0;
	note = jsonrpc_notification("notifications/resources/updated",
	    json_pack("{s:s}", "uri", uri));
	SESSION_STORE_FOREACH(s, mcp->sessions, tmp) {
		if ((s->subscriptions & (1u << index)) == 0)
			continue;
		if (deliver != NULL)
			deliver(s, note, arg);
		else if (s->stream != NULL)
			sse_stream_message(s->stream, "message", note);
		else
			continue;
		sent++;
	}
	sent += mcp_listeners_notify(mcp->listeners,
	    "notifications/resources/updated",
	    json_object_get(note, "params"));
	json_decref(note);
	return sent;
}
