/*
 * tools/list and tools/call: a page of the catalogue; a call's arguments
 * checked, then answered by a host tool, started as a task (mcp-tasks.c)
 * or forwarded to the extension as a pending call (mcp-call.c).
 */
#include "mcp-tools.h"

#include <stdlib.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-call.h"
#include "mcp-method.h"
#include "mcp-modern.h"
#include "mcp-reply.h"
#include "mcp-tasks.h"
#include "mcp-version.h"
#include "session.h"
#include "tools.h"
#include "xmalloc.h"

/*
 * Returns whether a tools/call asked for structuredContent from a tool
 * without an output schema (params._meta["browser-bridge/structured"]):
 * programs ask; models read the text, and get only the text.
 */
static bool
mcp_tools_wants_structured(const json_t *request)
{
	const json_t	*meta;

	meta = json_object_get(json_object_get(request, "params"), "_meta");
	return json_is_true(json_object_get(meta, MCP_META_STRUCTURED));
}

/* tools/list: one page of the catalogue. */
json_t *
mcp_tools_list(struct mcp *mcp, struct session *session, const json_t *request,
    const json_t *params, mcp_emit_cb emit, void *arg, struct mcp_call **call,
    json_t **error)
{
	const json_t	*cursor = json_object_get(params, "cursor");
	json_t		*result;
	char		*cause = NULL;

	if (cursor != NULL && jsonrpc_string(cursor) == NULL) {
		*error = mcp_reply_invalid_params(request,
		    "cursor must be a string");
		return NULL;
	}
	result = tool_registry_list(mcp->tools, jsonrpc_string(cursor),
	    mcp->tools_page_size, session->grant.scopes, &cause);
	if (result == NULL) {
		*error = mcp_reply_invalid_params(request, cause);
		free(cause);
	}
	return result;
}

/* A tools/call's finish (see mcp-call.h): the tool result or error. */
static json_t *
mcp_tools_finish(struct mcp_call *call, const json_t *result,
    const char *error_code, const char *error_message)
{
	json_t	*body;

	body = error_code != NULL ?
	    mcp_reply_tool_error(error_code, error_message) :
	    mcp_reply_tool_result(result);
	if (!call->op)	/* structuredContent not kept */
		json_object_del(body, "structuredContent");
	if (mcp_version_modern(call->session))
		mcp_modern_finish(body, "tools/call");
	return jsonrpc_result(call->request_id, body);
}

/* tools/call: checks the arguments, then runs the tool. */
json_t *
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
		*error = mcp_reply_invalid_params(request,
		    "tools/call needs params.name (a string without NUL "
		    "characters)");
		return NULL;
	}
	if ((tool = tool_registry_find(mcp->tools, name)) == NULL) {
		message = xasprintf("Unknown tool: %s. Call tools/list for the "
		    "tools this server has.", name);
		*error = mcp_reply_invalid_params(request, message);
		free(message);
		return NULL;
	}
	args = json_object_get(params, "arguments");
	if (args != NULL && !json_is_object(args)) {
		*error = mcp_reply_invalid_params(request,
		    "params.arguments must be an object");
		return NULL;
	}
	if ((mode = mcp_tasks_mode(session, request, tool, error)) ==
	    MCP_TASK_REFUSED)
		return NULL;
	if (args == NULL)
		args = empty = json_object();
	if (tool_check_arguments(tool, args, &cause) != 0) {
		result = mcp_reply_tool_error(ERR_INVALID_ARGUMENT, cause);
		free(cause);
	} else if (mode == MCP_TASK_START) {
		json_t *detached = json_copy((json_t *)args);

		json_object_set_new(detached, "wait", json_false());
		result = mcp_tasks_forward(mcp, session, request,
		    MCP_TASK_CREATE, tool->name, detached, emit, arg, call);
	} else if (tool->handler != NULL)
		result = tool->handler(mcp->host, args);
	else {
		struct mcp_call *pending = mcp_call_new(mcp, session, request,
		    mcp_tools_finish, emit, arg);

		pending->op = tool->output_schema != NULL ||
		    mcp_tools_wants_structured(request);
		*call = mcp_call_start(pending, tool->method,
		    json_incref((json_t *)args), tool_timeout_ms(tool, args));
		result = NULL;
	}
	json_decref(empty);
	return result;
}
