/* Tab tools: list, open, close and switch tabs. */
#include "tools.h"

const struct tool_entry tools_tabs[] = {
	{
		.name = "manage_tabs",
		.title = "Manage tabs",
		.description = "List, open, close or switch to a tab. Returns "
		    "the tabs.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"action\":{\"enum\":[\"list\",\"open\",\"close\","
		    "\"switch\"]},"
		    "\"tab_id\":{\"type\":\"integer\","
		    "\"description\":\"Tab to close or switch to.\"},"
		    "\"url\":{\"type\":\"string\","
		    "\"description\":\"URL for open.\"}"
		    "},\"required\":[\"action\"],\"additionalProperties\":false}",
		.method = "manage_tabs",
		.example_call =
		    "{\"action\":\"list\"}",
		.example_reply =
		    "2 tabs.\n"
		    "Tabs (* = active):\n"
		    "* 1798930758 \"Checkout\" https://shop.example/checkout\n"
		    "  1798930759 \"Docs\" https://shop.example/docs",
	},
	{ .name = NULL }
};
