/* Tool results, tool errors and -32602 errors, as the MCP methods send them. */
#include "mcp-reply.h"

#include <stdlib.h>

#include "errors.h"
#include "jsonrpc.h"
#include "xmalloc.h"

/* Builds a tool result that reports an error with its stable code. */
json_t *
mcp_reply_tool_error(const char *code, const char *message)
{
	char	*text = xasprintf("%s: %s", code, message);
	json_t	*result;

	result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
	    "text", text, "isError", 1);
	free(text);
	return result;
}

/* Turns what the extension returned into a CallToolResult. */
json_t *
mcp_reply_tool_result(const json_t *result)
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

/* Builds a -32602 error. */
json_t *
mcp_reply_invalid_params(const json_t *request, const char *message)
{
	return jsonrpc_error(json_object_get(request, "id"),
	    JSONRPC_INVALID_PARAMS, message, NULL);
}
