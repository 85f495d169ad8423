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
		.example_call =
		    "{}",
		.example_reply =
		    "Tab 1798930758 \"Checkout\" https://shop.example/checkout\n"
		    "Viewport 1280x657, scrolled 0px, 0px more below\n"
		    "Other tabs: 1798930759 \"Docs\"\n"
		    "e1 textbox \"First name\"\n"
		    "e3 textbox \"Email\" type=email\n"
		    "e6 select \"Country\" value=\"Choose…\" "
		    "options=\"Choose…|United States|Canada\"\n"
		    "e8 checkbox \"Save this information for next time\" "
		    "unchecked\n"
		    "e9 button \"Place order\"\n"
		    "Not listed: 3 below the viewport (scroll_page, full_page: "
		    "true or get_dom_extra_elements).",
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
		.example_call =
		    "{\"type\":\"links\",\"page\":1,\"page_size\":3}",
		.example_reply =
		    "Links 1-3 of 7 not listed by get_browser_state (page 1 of "
		    "3):\n"
		    "e40 link \"Pricing\" href=/pricing\n"
		    "e41 link \"Blog\" href=/blog\n"
		    "e42 link \"Careers\" href=/careers",
	},
	{ .name = NULL }
};
