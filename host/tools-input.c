/* Input tools: act on the page like a user, by element ref. */
#include "tools.h"

const struct tool_entry tools_input[] = {
	{
		.name = "click_element",
		.title = "Click element",
		.description = "Click an element by ref, or a viewport point "
		    "by coordinates.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_REF ","
		    "\"coordinates\":{\"type\":\"object\",\"properties\":{"
		    "\"x\":{\"type\":\"number\"},\"y\":{\"type\":\"number\"}},"
		    "\"required\":[\"x\",\"y\"],\"additionalProperties\":false,"
		    "\"description\":\"Viewport CSS pixels.\"},"
		    "\"button\":{\"enum\":[\"left\",\"right\",\"middle\"]},"
		    "\"click_count\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":3},"
		    "\"modifiers\":{\"type\":\"array\",\"items\":{\"enum\":"
		    "[\"Alt\",\"Control\",\"Meta\",\"Shift\"]},"
		    "\"description\":\"Keys held down.\"},"
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"additionalProperties\":false}",
		.method = "click_element",
		.example_call =
		    "{\"ref\":\"e9\"}",
		.example_reply =
		    "Clicked e9 button \"Place order\". The tab navigated to "
		    "https://shop.example/thanks.",
	},
	{
		.name = "type_value",
		.title = "Type text",
		.description = "Type text into an element like a user. Keys go "
		    "in braces: {Enter}, {Tab}, {Control+A}; {{ and }} type a "
		    "brace.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_REF ","
		    "\"text\":{\"type\":\"string\"},"
		    "\"clear\":{\"type\":\"boolean\","
		    "\"description\":\"Clear the field first.\"},"
		    "\"submit\":{\"type\":\"boolean\","
		    "\"description\":\"Press Enter after typing.\"},"
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"required\":[\"ref\",\"text\"],"
		    "\"additionalProperties\":false}",
		.method = "type_value",
		.example_call =
		    "{\"ref\":\"e3\",\"text\":\"ada@example.com\",\"clear\":true}",
		.example_reply =
		    "Typed 15 characters into e3 textbox \"Email\".",
	},
	{
		.name = "select_option",
		.title = "Select option",
		.description = "Choose options of a select element.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_REF ","
		    "\"values\":{\"type\":\"array\",\"minItems\":1,"
		    "\"items\":{\"type\":\"string\"},"
		    "\"description\":\"Option values or labels.\"},"
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"required\":[\"ref\",\"values\"],"
		    "\"additionalProperties\":false}",
		.method = "select_option",
		.example_call =
		    "{\"ref\":\"e6\",\"values\":[\"Canada\"]}",
		.example_reply =
		    "Selected \"Canada\" in e6 select \"Country\".",
	},
	{
		.name = "hover_element",
		.title = "Hover element",
		.description = "Move the mouse over an element, e.g. to open a "
		    "menu.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_REF ","
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"required\":[\"ref\"],\"additionalProperties\":false}",
		.method = "hover_element",
		.example_call =
		    "{\"ref\":\"e14\"}",
		.example_reply =
		    "Hovered over e14 button \"Products\". The page changed: "
		    "call get_browser_state for the menu's refs.",
	},
	{
		.name = "press_keys",
		.title = "Press keys",
		.description = "Press keys in the focused element, as in "
		    "type_value: {Escape}, {Control+Shift+T}.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"keys\":{\"type\":\"string\"},"
		    TOOL_ARG_REF_ABOUT("Element to focus first.") ","
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"required\":[\"keys\"],\"additionalProperties\":false}",
		.method = "press_keys",
		.example_call =
		    "{\"keys\":\"{Escape}\"}",
		.example_reply =
		    "Pressed Escape in the focused element.",
	},
	{
		.name = "scroll_page",
		.title = "Scroll",
		.description = "Scroll the page, or the container ref, up, down, "
		    "to the top or bottom; or scroll ref into view "
		    "(to_element).",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"direction\":{\"enum\":[\"up\",\"down\",\"to_top\","
		    "\"to_bottom\",\"to_element\"]},"
		    "\"pixels\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"description\":\"Default: one viewport.\"},"
		    TOOL_ARG_REF_ABOUT("Container, or target of "
		    "to_element.") ","
		    TOOL_ARG_TAB_ID "," TOOL_ARG_INCLUDE_STATE
		    "},\"required\":[\"direction\"],"
		    "\"additionalProperties\":false}",
		.method = "scroll_page",
		.example_call =
		    "{\"direction\":\"down\"}",
		.example_reply =
		    "Scrolled the page down 657px: now 657px from the top, "
		    "1843px more below.",
	},
	{
		.name = "handle_dialog",
		.title = "Answer dialog",
		.description = "Accept or dismiss the open alert, confirm, "
		    "prompt or leave-page (beforeunload) dialog.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"action\":{\"enum\":[\"accept\",\"dismiss\"]},"
		    "\"prompt_text\":{\"type\":\"string\","
		    "\"description\":\"For a prompt.\"},"
		    TOOL_ARG_TAB_ID
		    "},\"required\":[\"action\"],\"additionalProperties\":false}",
		.method = "handle_dialog",
		.example_call =
		    "{\"action\":\"accept\",\"prompt_text\":\"Ada\"}",
		.example_reply =
		    "Accepted the prompt \"Your name?\" with \"Ada\".",
	},
	{ .name = NULL }
};
