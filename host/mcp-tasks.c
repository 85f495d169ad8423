/*
 * MCP tasks: which tool calls become tasks, and the protocol's task shapes
 * made from what get_task, stop_task and list_tasks return. The two
 * revisions differ in names (ttl and pollInterval in 2025-11-25, ttlMs and
 * pollIntervalMs in 2026-07-28), in how a created task is wrapped, and in
 * where the final result is read (tasks/result, or inline in tasks/get).
 */
#include "mcp-tasks.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-call.h"
#include "mcp-method.h"
#include "mcp-modern.h"
#include "mcp-reply.h"
#include "mcp-version.h"
#include "session.h"
#include "tools.h"
#include "xmalloc.h"

#define MCP_META_RELATED_TASK	"io.modelcontextprotocol/related-task"
#define MCP_META_IMMEDIATE	"io.modelcontextprotocol/model-immediate-response"

/* The server's tasks capability (2025-11-25 initialize). */
json_t *
mcp_tasks_capabilities(void)
{
	return json_pack("{s:{},s:{},s:{s:{s:{}}}}", "list", "cancel",
	    "requests", "tools", "call");
}

/*
 * Whether a request may use tasks: a modern request must name the tasks
 * extension in its client capabilities; a legacy session always may (the
 * methods exist only where they were advertised).
 */
bool
mcp_tasks_negotiated(const struct session *session, const json_t *request)
{
	if (strcmp(session->protocol_version, MCP_MODERN_VERSION) != 0)
		return true;
	return mcp_tasks_declared(request);
}

/* Whether a modern request's client capabilities name the tasks extension. */
bool
mcp_tasks_declared(const json_t *request)
{
	const json_t	*meta, *extensions;

	meta = json_object_get(json_object_get(request, "params"), "_meta");
	extensions = json_object_get(json_object_get(meta,
	    MCP_META_CAPABILITIES), "extensions");
	return json_is_object(json_object_get(extensions, MCP_TASKS_EXTENSION));
}

/* The -32021 error for a modern client that did not declare tasks. */
json_t *
mcp_tasks_missing_capability(const json_t *id)
{
	return jsonrpc_error(id, MCP_MISSING_CAPABILITY,
	    "Missing required client capability: declare the "
	    MCP_TASKS_EXTENSION " extension in params._meta."
	    MCP_META_CAPABILITIES ".extensions to use tasks",
	    json_pack("{s:{s:{s:{}}}}", "requiredCapabilities", "extensions",
	    MCP_TASKS_EXTENSION));
}

/*
 * Decides whether a tools/call starts a task: a modern client that
 * declared the extension gets one for every tool that may run as a task
 * (the server decides); a 2025-11-25 session gets one when it asks with
 * params.task, and an error when the tool cannot run as one. Older
 * sessions never see tasks advertised, and their params.task is ignored.
 */
enum mcp_task_mode
mcp_tasks_mode(const struct session *session, const json_t *request,
    const struct tool *tool, json_t **error)
{
	const json_t	*id = json_object_get(request, "id");
	const json_t	*task;
	char		*text;

	if (strcmp(session->protocol_version, MCP_MODERN_VERSION) == 0) {
		return tool->task_optional && mcp_tasks_negotiated(session,
		    request) ? MCP_TASK_START : MCP_TASK_NONE;
	}
	task = json_object_get(json_object_get(request, "params"), "task");
	if (task == NULL ||
	    strcmp(session->protocol_version, MCP_TASKS_VERSION) != 0)
		return MCP_TASK_NONE;
	if (!json_is_object(task)) {
		*error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
		    "params.task must be an object, e.g. {\"ttl\": 60000}",
		    NULL);
		return MCP_TASK_REFUSED;
	}
	if (!tool->task_optional) {
		text = xasprintf("Tool %s does not run as a task (its "
		    "execution.taskSupport is forbidden): call it without "
		    "params.task", tool->name);
		*error = jsonrpc_error(id, JSONRPC_METHOD_NOT_FOUND, text, NULL);
		free(text);
		return MCP_TASK_REFUSED;
	}
	return MCP_TASK_START;
}

/* The first line of a tool result's text, or NULL. */
static json_t *
mcp_tasks_first_line(const json_t *result)
{
	const char	*text, *end;

	text = json_string_value(json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text"));
	if (text == NULL)
		return NULL;
	end = strchr(text, '\n');
	return json_stringn(text, end != NULL ? (size_t)(end - text) :
	    strlen(text));
}

/*
 * The protocol status of a task as the extension describes it: a task
 * cancelled, stopped by the person or ended by the person closing its tab
 * is "cancelled".
 */
static const char *
mcp_tasks_status(const json_t *task)
{
	const char	*status, *stop_reason;

	status = json_string_value(json_object_get(task, "status"));
	if (status != NULL && strcmp(status, "input_required") == 0)
		return "input_required";
	if (status == NULL || strcmp(status, "finished") != 0)
		return "working";
	stop_reason = json_string_value(json_object_get(task, "stop_reason"));
	if (stop_reason != NULL && (strcmp(stop_reason, "cancelled") == 0 ||
	    strcmp(stop_reason, "stopped_by_user") == 0 ||
	    strcmp(stop_reason, "tab_closed") == 0))
		return "cancelled";
	return "completed";
}

/*
 * A protocol Task from the extension's description of one (get_task's
 * structured result, or an entry of list_tasks'), with the status message
 * when there is one.
 */
static json_t *
mcp_tasks_object(const json_t *task, json_t *status_message, bool modern)
{
	json_t	*object;

	object = json_pack("{s:O,s:s,s:O,s:O}",
	    "taskId", json_object_get(task, "task_id"),
	    "status", mcp_tasks_status(task),
	    "createdAt", json_object_get(task, "created_at"),
	    "lastUpdatedAt", json_object_get(task, "updated_at"));
	if (object == NULL) {
		json_decref(status_message);
		return NULL;
	}
	json_object_set(object, modern ? "ttlMs" : "ttl",
	    json_object_get(task, "keep_ms"));
	json_object_set_new(object, modern ? "pollIntervalMs" : "pollInterval",
	    json_integer(MCP_TASK_POLL_MS));
	if (status_message != NULL)
		json_object_set_new(object, "statusMessage", status_message);
	return object;
}

/*
 * The input request a waiting task carries in 2026-07-28's tasks/get: the
 * agents' question as an elicitation/create, keyed by the question's id
 * (what tasks/update answers). NULL when no question waits.
 */
static json_t *
mcp_tasks_input_requests(const json_t *task)
{
	const char	*key;
	const json_t	*question;

	key = json_string_value(json_object_get(task, "question_id"));
	question = json_object_get(task, "question");
	if (key == NULL || !json_is_string(question))
		return NULL;
	return json_pack("{s:{s:s, s:o}}", key, "method", "elicitation/create",
	    "params", mcp_call_question(question));
}

/*
 * Reads tasks/update's inputResponses into answer_task's arguments: each
 * response is keyed by a question's id (a task asks one at a time), and an
 * accepted one carries content.answer. Declined or cancelled ones, and an
 * empty map, add nothing: answer_task then only reports the task, and the
 * person can still answer in the browser. Returns -1 when a response is
 * malformed.
 */
static int
mcp_tasks_update_args(json_t *args, const json_t *params)
{
	json_t		*responses = json_object_get(params, "inputResponses");
	json_t		*response;
	const char	*key, *answer;
	bool		 malformed;

	if (!json_is_object(responses))
		return -1;
	json_object_foreach(responses, key, response) {
		answer = mcp_call_elicited(response, &malformed);
		if (malformed)
			return -1;
		if (answer == NULL)
			continue;
		json_object_set_new(args, "answer", json_string(answer));
		json_object_set_new(args, "question_id", json_string(key));
	}
	return 0;
}

/* Whether get_task's result describes a finished task. */
static bool
mcp_tasks_finished(const json_t *result)
{
	const char	*status;

	status = json_string_value(json_object_get(json_object_get(result,
	    "structuredContent"), "status"));
	return status != NULL && strcmp(status, "finished") == 0;
}

/* The JSON-RPC error for an extension error on a task method. */
static json_t *
mcp_tasks_error(const json_t *id, const char *code, const char *message)
{
	char	*text;
	json_t	*error;

	if (strcmp(code, ERR_TASK_NOT_FOUND) == 0 ||
	    strcmp(code, ERR_INVALID_ARGUMENT) == 0) {
		text = xasprintf("Failed to retrieve task: %s", message);
		error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS, text,
		    json_pack("{s:s}", "code", code));
	} else {
		text = xasprintf("%s: %s", code, message);
		error = jsonrpc_error(id, JSONRPC_INTERNAL_ERROR, text,
		    json_pack("{s:s}", "code", code));
	}
	free(text);
	return error;
}

/* The answer to a task-augmented tools/call: the new task. */
static json_t *
mcp_tasks_created(const json_t *result, bool modern)
{
	const json_t	*structured = json_object_get(result,
			    "structuredContent");
	json_t		*task, *reply;

	task = mcp_tasks_object(structured, mcp_tasks_first_line(result),
	    modern);
	if (task == NULL || modern) {
		if (task != NULL)
			json_object_set_new(task, "resultType",
			    json_string("task"));
		return task;
	}
	reply = json_pack("{s:o}", "task", task);
	json_object_set_new(reply, "_meta", json_pack("{s:O?}",
	    MCP_META_IMMEDIATE, json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text")));
	return reply;
}

/* The answer to tasks/get: the task, and in 2026-07-28 its result. */
static json_t *
mcp_tasks_got(const json_t *result, bool modern)
{
	const json_t	*described = json_object_get(result, "structuredContent");
	json_t		*task, *requests;

	task = mcp_tasks_object(described, mcp_tasks_first_line(result),
	    modern);
	if (task == NULL || !modern)
		return task;
	if (strcmp(json_string_value(json_object_get(task, "status")),
	    "completed") == 0)
		json_object_set_new(task, "result", json_deep_copy(result));
	else if ((requests = mcp_tasks_input_requests(described)) != NULL)
		json_object_set_new(task, "inputRequests", requests);
	return task;
}

/* The answer to tasks/result: the tool result, tied to its task. */
static json_t *
mcp_tasks_result(const json_t *result)
{
	json_t	*copy = json_deep_copy(result);
	json_t	*meta;

	if (!json_is_object(meta = json_object_get(copy, "_meta"))) {
		meta = json_object();
		json_object_set_new(copy, "_meta", meta);
	}
	json_object_set_new(meta, MCP_META_RELATED_TASK, json_pack("{s:O}",
	    "taskId", json_object_get(json_object_get(result,
	    "structuredContent"), "task_id")));
	return copy;
}

/*
 * The answer to a legacy tasks/cancel: the cancelled task, or -32602 when
 * it had finished before (a terminal task cannot be cancelled).
 */
static json_t *
mcp_tasks_cancelled(const json_t *id, const json_t *result, json_t **error)
{
	const json_t	*structured = json_object_get(result,
			    "structuredContent");
	char		*text;

	if (json_is_true(json_object_get(structured, "stopped")))
		return mcp_tasks_object(structured,
		    json_string("The task was cancelled by request."), false);
	text = xasprintf("Task %s has already finished (%s); a finished "
	    "task cannot be cancelled",
	    json_string_value(json_object_get(structured, "task_id")),
	    mcp_tasks_status(structured));
	*error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS, text, NULL);
	free(text);
	return NULL;
}

/* The answer to tasks/list: every task the caller may see, one page. */
static json_t *
mcp_tasks_listed(const json_t *result)
{
	const json_t	*tasks, *task;
	json_t		*list = json_array();
	size_t		 i;

	tasks = json_object_get(json_object_get(result, "structuredContent"),
	    "tasks");
	json_array_foreach(tasks, i, task) {
		json_t *object = mcp_tasks_object(task, NULL, false);

		if (object != NULL)
			json_array_append_new(list, object);
	}
	return json_pack("{s:o}", "tasks", list);
}

/*
 * Turns the extension's answer to a forwarded task call into the JSON-RPC
 * response (the result before mcp_modern_finish, or an error). A create
 * that failed answers as the tool call would have: a tool error.
 */
static json_t *
mcp_tasks_reply(enum mcp_task_op op, bool modern, const json_t *id,
    const json_t *result, const char *error_code, const char *error_message)
{
	json_t	*body = NULL, *error = NULL;

	if (error_code != NULL && op == MCP_TASK_CREATE)
		body = mcp_reply_tool_error(error_code, error_message);
	else if (error_code != NULL)
		return mcp_tasks_error(id, error_code, error_message);
	else {
		switch (op) {
		case MCP_TASK_CREATE:
			body = mcp_tasks_created(result, modern);
			break;
		case MCP_TASK_GET:
			body = mcp_tasks_got(result, modern);
			break;
		case MCP_TASK_RESULT:
			body = mcp_tasks_result(result);
			break;
		case MCP_TASK_CANCEL:
			body = modern ? json_object() :
			    mcp_tasks_cancelled(id, result, &error);
			break;
		case MCP_TASK_LIST:
			body = mcp_tasks_listed(result);
			break;
		case MCP_TASK_UPDATE:
			body = json_object();
			break;
		}
	}
	if (error != NULL)
		return error;
	if (body == NULL) {
		return jsonrpc_error(id, JSONRPC_INTERNAL_ERROR, "The "
		    "extension described the task without its id or times; "
		    "update the host and the extension to the same release",
		    NULL);
	}
	if (modern)
		mcp_modern_finish(body, "tasks");	/* keeps "task" */
	return jsonrpc_result(id, body);
}

/*
 * A forwarded task call's finish (see mcp-call.h): tasks/result asks
 * get_task again while the task runs on past get_task's wait.
 */
static json_t *
mcp_tasks_finish(struct mcp_call *call, const json_t *result,
    const char *error_code, const char *error_message)
{
	const struct tool	*tool;
	const char		*again_code = NULL;
	char			*again_message = NULL;
	json_t			*reply;

	if (call->op != MCP_TASK_RESULT || error_code != NULL ||
	    mcp_tasks_finished(result))
		return mcp_tasks_reply(call->op,
		    mcp_version_modern(call->session), call->request_id,
		    result, error_code, error_message);
	tool = tool_registry_find(call->mcp->tools, "get_task");
	if (mcp_call_dispatch(call, tool->method,
	    json_incref(call->again_args),
	    tool_timeout_ms(tool, call->again_args), &again_code,
	    &again_message))
		return NULL;
	reply = mcp_tasks_reply(call->op, false, call->request_id, NULL,
	    again_code, again_message);
	free(again_message);
	return reply;
}

/*
 * Forwards a task method (or a tools/call made a task) to one of the
 * extension's task tools. Returns NULL; *call is set while it is pending.
 */
json_t *
mcp_tasks_forward(struct mcp *mcp, struct session *session,
    const json_t *request, enum mcp_task_op op, const char *tool_name,
    json_t *args, mcp_emit_cb emit, void *arg, struct mcp_call **call)
{
	const struct tool	*tool = tool_registry_find(mcp->tools,
				    tool_name);
	struct mcp_call		*pending;

	pending = mcp_call_new(mcp, session, request, mcp_tasks_finish, emit,
	    arg);
	pending->op = op;
	if (op == MCP_TASK_RESULT)
		pending->again_args = json_incref(args);
	*call = mcp_call_start(pending, tool->method, args,
	    tool_timeout_ms(tool, args));
	return NULL;
}

/*
 * The task a task method names, or NULL after *error: a modern client must
 * have declared the tasks extension, and params.taskId must be a string.
 */
static const char *
mcp_tasks_id(struct session *session, const json_t *request,
    const json_t *params, json_t **error)
{
	const char	*id;

	if (!mcp_tasks_negotiated(session, request)) {
		*error = mcp_tasks_missing_capability(json_object_get(request,
		    "id"));
		return NULL;
	}
	if ((id = jsonrpc_string(json_object_get(params, "taskId"))) == NULL)
		*error = mcp_reply_invalid_params(request,
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
} mcp_tasks_methods[] = {
	{ "tasks/get", MCP_TASK_GET, "get_task" },
	{ "tasks/result", MCP_TASK_RESULT, "get_task" },
	{ "tasks/cancel", MCP_TASK_CANCEL, "stop_task" },
	{ "tasks/update", MCP_TASK_UPDATE, "answer_task" },
};
#define MCP_TASKS_METHODS \
    (sizeof mcp_tasks_methods / sizeof *mcp_tasks_methods)

/* tasks/get, tasks/result, tasks/cancel, tasks/update: see above. */
json_t *
mcp_tasks_by_id(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	const char	*method = jsonrpc_string(json_object_get(request,
			    "method"));
	const char	*id = mcp_tasks_id(session, request, params, error);
	json_t		*args;
	size_t		 i;

	if (id == NULL)
		return NULL;
	for (i = 0; i < MCP_TASKS_METHODS; i++) {
		if (strcmp(method, mcp_tasks_methods[i].method) == 0)
			break;
	}
	if (i == MCP_TASKS_METHODS)
		return NULL;	/* not reached: mcp_methods routes only these */
	args = json_pack("{s:s}", "task_id", id);
	if (mcp_tasks_methods[i].op == MCP_TASK_RESULT)
		json_object_set_new(args, "wait_ms",
		    json_integer(MCP_TASK_RESULT_WAIT_MS));
	if (mcp_tasks_methods[i].op == MCP_TASK_UPDATE &&
	    mcp_tasks_update_args(args, params) != 0) {
		json_decref(args);
		*error = mcp_reply_invalid_params(request,
		    "params.inputResponses must answer the task's input "
		    "request: {\"<key from inputRequests>\": {\"action\": "
		    "\"accept\", \"content\": {\"answer\": \"...\"}}}");
		return NULL;
	}
	return mcp_tasks_forward(mcp, session, request, mcp_tasks_methods[i].op,
	    mcp_tasks_methods[i].tool, args, emit, arg, call);
}

/* tasks/list (2025-11-25): the caller's tasks, all in one page. */
json_t *
mcp_tasks_list(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	if (json_object_get(params, "cursor") != NULL) {
		*error = mcp_reply_invalid_params(request, "invalid cursor: "
		    "tasks/list returns every task in one page and gives no "
		    "cursor");
		return NULL;
	}
	return mcp_tasks_forward(mcp, session, request, MCP_TASK_LIST,
	    "list_tasks", json_object(), emit, arg, call);
}
