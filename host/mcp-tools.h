/* tools/list and tools/call, as mcp.c's method table calls them. */
#ifndef MCP_TOOLS_H
#define MCP_TOOLS_H

#include <jansson.h>

#include "mcp.h"

json_t		*mcp_tools_list(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
json_t		*mcp_tools_call(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);

#endif
