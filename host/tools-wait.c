/* The wait tool: block until the page meets a condition. */
#include "tools.h"

const struct tool_entry tools_wait[] = {
	{
		.name = "wait_for",
		.title = "Wait for condition",
		.description = "Wait for one condition: text appears or goes, "
		    "selector or ref reaches state, the URL matches, the "
		    "network is idle, or delay_ms passes.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"text\":{\"type\":\"string\"},"
		    "\"text_gone\":{\"type\":\"string\"},"
		    "\"selector\":{\"type\":\"string\"},"
		    TOOL_ARG_REF ","
		    "\"state\":{\"enum\":[\"visible\",\"hidden\",\"attached\","
		    "\"detached\"],\"default\":\"visible\"},"
		    "\"url\":{\"type\":\"string\","
		    "\"description\":\"URL substring, or /regex/.\"},"
		    "\"network_idle\":{\"type\":\"boolean\"},"
		    "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0,"
		    "\"maximum\":300000},"
		    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":0,"
		    "\"maximum\":300000,\"default\":30000},"
		    TOOL_ARG_TAB_ID
		    "},\"additionalProperties\":false}",
		.timeout_ms = 5000,
		.timeout_argument = "timeout_ms",
		.read_only = true,
		.method = "wait_for",
		.example_call =
		    "{\"text\":\"Order confirmed\",\"timeout_ms\":10000}",
		.example_reply =
		    "\"Order confirmed\" appeared after 1240 ms.",
	},
	{ .name = NULL }
};
