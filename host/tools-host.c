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

const struct tool_entry tools_host[] = {
	{
		.name = "host_status",
		.title = "Host status",
		.description = "Report the host's version, MCP URL and whether "
		    "the extension is connected.",
		.input_schema = "{\"type\":\"object\",\"properties\":{},"
		    "\"additionalProperties\":false}",
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"version\":{\"type\":\"string\"},"
		    "\"extension_connected\":{\"type\":\"boolean\"},"
		    "\"port\":{\"type\":\"integer\"},"
		    "\"mcp_url\":{\"type\":\"string\"},"
		    "\"sessions\":{\"type\":\"integer\"},"
		    "\"pending_calls\":{\"type\":\"integer\"},"
		    "\"uptime_ms\":{\"type\":\"integer\"}"
		    "},\"required\":[\"version\",\"extension_connected\"]}",
		.read_only = true,
		.handler = tool_host_status,
		.example_call =
		    "{}",
		.example_reply =
		    "{\"version\":\"0.1.0\",\"extension_connected\":true,\"port\""
		    ":9333,\"mcp_url\":\"http://127.0.0.1:9333/mcp\",\"sessions\""
		    ":1,\"pending_calls\":0,\"uptime_ms\":73210}",
	},
	{ .name = NULL }
};
