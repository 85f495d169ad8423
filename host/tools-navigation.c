/* Navigation tools: load a URL, move through a tab's history. */
#include "tools.h"

const struct tool_entry tools_navigation[] = {
	{
		.name = "navigate_to",
		.title = "Navigate to URL",
		.description = "Open a URL and wait for it to load.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"url\":{\"type\":\"string\","
		    "\"description\":\"Absolute URL to load.\"},"
		    "\"wait_until\":{\"enum\":[\"load\",\"domcontentloaded\","
		    "\"networkidle\",\"none\"],\"default\":\"load\","
		    "\"description\":\"When to return.\"},"
		    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":0,"
		    "\"maximum\":300000,\"default\":30000},"
		    "\"new_tab\":{\"type\":\"boolean\"},"
		    TOOL_ARG_TAB_ID
		    "},\"required\":[\"url\"],\"additionalProperties\":false}",
		.timeout_ms = 5000,
		.timeout_argument = "timeout_ms",
		.method = "navigate_to",
		.example_call =
		    "{\"url\":\"https://example.com/login\",\"wait_until\":\"load"
		    "\"}",
		.example_reply =
		    "Loaded tab 1798930758: https://example.com/login \"Sign "
		    "in\".",
	},
	{
		.name = "navigate_history",
		.title = "Back, forward or reload",
		.description = "Go back, go forward or reload, then wait for "
		    "the load.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"action\":{\"enum\":[\"back\",\"forward\",\"reload\"]},"
		    TOOL_ARG_TAB_ID
		    "},\"required\":[\"action\"],\"additionalProperties\":false}",
		.method = "navigate_history",
		.example_call =
		    "{\"action\":\"back\"}",
		.example_reply =
		    "Went back in tab 1798930758: https://example.com/ \"Example "
		    "Domain\".",
	},
	{ .name = NULL }
};
