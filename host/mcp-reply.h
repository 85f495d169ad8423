/*
 * Shapes every MCP method shares: a tool result made from what the
 * extension returned, a tool error with its stable code, a -32602 error.
 * A leaf: the other mcp-* files ask it, it asks none of them.
 */
#ifndef MCP_REPLY_H
#define MCP_REPLY_H

#include <jansson.h>

json_t		*mcp_reply_tool_error(const char *code, const char *message);
json_t		*mcp_reply_tool_result(const json_t *result);
json_t		*mcp_reply_invalid_params(const json_t *request,
		    const char *message);

#endif
