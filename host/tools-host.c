/* Host tools: answered by the host itself, without the extension. */
#include <stdlib.h>

#include "tools.h"

/*
 * Returns the host's status as text and as structured content; the MCP
 * sessions of every client only to the owner key, as /health does.
 */
static json_t *
tool_host_status(const struct tool_host_context *host, const json_t *args,
    bool owner)
{
	json_t	*status, *result;
	char	*text, *cause = NULL;

	if ((status = host->status(host->arg, &cause)) == NULL) {
		result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type",
		    "text", "text", cause, "isError", 1);
		free(cause);
		return result;
	}
	if (!owner)
		json_object_del(status, "clients");
	text = json_dumps(status, JSON_COMPACT);
	result = json_pack("{s:[{s:s,s:s}],s:o}", "content", "type", "text",
	    "text", text != NULL ? text : "{}", "structuredContent", status);
	free(text);
	return result;
}

const struct tool_handler_entry tool_host_handlers[] = {
	{ "host_status", tool_host_status },
	{ NULL, NULL }
};
