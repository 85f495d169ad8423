/*
 * MCP tasks over the extension's task store: a task-augmented tools/call
 * of run_task (2025-11-25's params.task, or 2026-07-28's tasks extension)
 * starts the task with wait false and answers with the task; tasks/get,
 * tasks/result, tasks/cancel, tasks/list and tasks/update read and stop it
 * through get_task, stop_task and list_tasks, so a client may use either
 * the protocol's methods or the tools. This file holds the task methods'
 * handlers and shapes the protocol's side; mcp-call.c carries the calls.
 */
#ifndef MCP_TASKS_H
#define MCP_TASKS_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp.h"

struct session;
struct tool;

#define MCP_TASKS_EXTENSION	"io.modelcontextprotocol/tasks"
#define MCP_TASKS_VERSION	"2025-11-25"	/* the legacy one with tasks */
#define MCP_MISSING_CAPABILITY	-32021
#define MCP_TASK_POLL_MS	1000
#define MCP_TASK_RESULT_WAIT_MS	600000	/* get_task's longest wait */

/* What a forwarded task call asks the extension for. */
enum mcp_task_op {
	MCP_TASK_CREATE,	/* run_task with wait false */
	MCP_TASK_GET,		/* get_task: the status */
	MCP_TASK_RESULT,	/* get_task until finished: the tool result */
	MCP_TASK_CANCEL,	/* stop_task */
	MCP_TASK_LIST,		/* list_tasks */
	MCP_TASK_UPDATE,	/* answer_task: the client's answer to a question */
};

/* How a tools/call relates to tasks. */
enum mcp_task_mode {
	MCP_TASK_NONE,		/* an ordinary call */
	MCP_TASK_START,		/* start a task and answer with it */
	MCP_TASK_REFUSED,	/* an error was made */
};

enum mcp_task_mode mcp_tasks_mode(const struct session *session,
		    const json_t *request, const struct tool *tool,
		    json_t **error);
json_t		*mcp_tasks_capabilities(void);
bool		 mcp_tasks_negotiated(const struct session *session,
		    const json_t *request);
bool		 mcp_tasks_declared(const json_t *request);
json_t		*mcp_tasks_missing_capability(const json_t *id);
json_t		*mcp_tasks_forward(struct mcp *mcp, struct session *session,
		    const json_t *request, enum mcp_task_op op,
		    const char *tool_name, json_t *args, mcp_emit_cb emit,
		    void *arg, struct mcp_call **call);
json_t		*mcp_tasks_by_id(struct mcp *mcp, struct session *session,
		    const json_t *request, const json_t *params,
		    mcp_emit_cb emit, void *arg, struct mcp_call **call,
		    json_t **error);
json_t		*mcp_tasks_list(struct mcp *mcp, struct session *session,
		    const json_t *request, const json_t *params,
		    mcp_emit_cb emit, void *arg, struct mcp_call **call,
		    json_t **error);

#endif
