/* Page state tools: what the page shows and the refs to act on it. */
#include "tools.h"

const struct tool_entry tools_state[] = {
	{
		.name = "get_browser_state",
		.title = "Get browser state",
		.description = "Describe the tab: URL, title, open tabs and the "
		    "interactive elements near the viewport, each with a ref "
		    "for the action tools. Refs go stale when the page changes. "
		    "Action tools return this too with include_state.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_TAB_ID ","
		    "\"full_page\":{\"type\":\"boolean\","
		    "\"description\":\"List elements of the whole page.\"}"
		    "},\"additionalProperties\":false}",
		.read_only = true,
		.method = "get_browser_state",
	},
	{
		.name = "get_dom_extra_elements",
		.title = "List more elements",
		.description = "Page through the interactive elements that "
		    "get_browser_state left out, with their refs.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_TAB_ID ","
		    "\"page\":{\"type\":\"integer\",\"minimum\":1},"
		    "\"page_size\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":500,\"default\":100},"
		    "\"type\":{\"enum\":[\"all\",\"links\",\"buttons\","
		    "\"inputs\",\"selects\",\"other\"]}"
		    "},\"additionalProperties\":false}",
		.read_only = true,
		.method = "get_dom_extra_elements",
	},
	{ .name = NULL }
};
