/* Host tools: answered by the host itself, without the extension. */
#include <stdlib.h>

#include "bridge.h"
#include "tools.h"

/* Returns the host's status as text and as structured content. */
static json_t *
tool_host_status(struct bridge *bridge, const json_t *args)
{
	json_t	*status, *result;
	char	*text;

	if ((status = bridge_status(bridge)) == NULL)
		status = json_object();
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
