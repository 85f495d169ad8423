/*
 * What the MCP method handlers share (mcp.c's table, mcp-tasks.c's task
 * methods, mcp-call.c's pending calls): the server's parts and the
 * handlers' shape. Only the mcp-* files include it.
 */
#ifndef MCP_METHOD_H
#define MCP_METHOD_H

#include <stddef.h>

#include <jansson.h>

#include "mcp.h"

/* The MCP server: what its methods read and whom they forward to. */
struct mcp {
	const struct tool_registry	*tools;
	size_t				 tools_page_size;
	struct mcp_dispatcher		 dispatcher;
	const struct tool_host_context	*host;
	struct session_store		*sessions;
	struct mcp_listeners		*listeners;	/* modern streams */
	struct log			*log;
};

/*
 * A request method's handler: returns the result, or NULL after setting
 * *error or *call, or after a forwarded call was answered through emit.
 */
typedef json_t *(*mcp_method_fn)(struct mcp *, struct session *,
		    const json_t *request, const json_t *params,
		    mcp_emit_cb, void *, struct mcp_call **, json_t **error);

#endif
