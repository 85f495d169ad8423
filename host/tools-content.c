/* Content tools: screenshots, page text, scripts and console output. */
#include "tools.h"

const struct tool_entry tools_content[] = {
	{
		.name = "take_screenshot",
		.title = "Take screenshot",
		.description = "Capture the viewport, the whole page or one "
		    "element as an image.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_TAB_ID ","
		    "\"full_page\":{\"type\":\"boolean\"},"
		    TOOL_ARG_REF_ABOUT("Capture only this element.") ","
		    "\"format\":{\"enum\":[\"png\",\"jpeg\",\"webp\"]},"
		    "\"quality\":{\"type\":\"integer\",\"minimum\":0,"
		    "\"maximum\":100,\"description\":\"For jpeg and webp.\"},"
		    "\"max_width\":{\"type\":\"integer\",\"minimum\":16,"
		    "\"description\":\"Downscale to this width.\"}"
		    "},\"additionalProperties\":false}",
		.read_only = true,
		.method = "take_screenshot",
		.example_call =
		    "{\"full_page\":true,\"format\":\"jpeg\",\"quality\":70,\"max"
		    "_width\":1024}",
		.example_reply =
		    "Screenshot of the full page of tab 1798930758 "
		    "(https://shop.example/): 1024x3310 jpeg, scaled from "
		    "1280x4138.\n"
		    "(then an image item: image/jpeg, base64)",
	},
	{
		.name = "get_page_content",
		.title = "Get page content",
		.description = "Read the page, or one element, as Markdown, "
		    "text or HTML.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_TAB_ID ","
		    "\"format\":{\"enum\":[\"markdown\",\"text\",\"html\"],"
		    "\"default\":\"markdown\"},"
		    TOOL_ARG_REF_ABOUT("Read only this element.") ","
		    "\"selector\":{\"type\":\"string\","
		    "\"description\":\"CSS selector to read instead.\"},"
		    "\"main_content\":{\"type\":\"boolean\","
		    "\"description\":\"Main article only.\"},"
		    "\"max_chars\":{\"type\":\"integer\",\"minimum\":1}"
		    "},\"additionalProperties\":false}",
		.read_only = true,
		.method = "get_page_content",
		.example_call =
		    "{\"format\":\"markdown\",\"main_content\":true,\"max_chars\""
		    ":300}",
		.example_reply =
		    "# Release notes\n"
		    "\n"
		    "Version 2.4 adds offline mode: pages you opened stay "
		    "readable without a connection.\n"
		    "\n"
		    "## Fixes\n"
		    "\n"
		    "- Search keeps its filters after going back.\n"
		    "\n"
		    "[Cut at 300 of 5312 characters: call again with a larger "
		    "max_chars, or read one part with ref or selector.]",
	},
	{
		.name = "evaluate_script",
		.title = "Run JavaScript",
		.description = "Run JavaScript in the page and return the JSON "
		    "result. Off unless the user enables it in the host's "
		    "config or the extension's options.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"expression\":{\"type\":\"string\","
		    "\"description\":\"An expression, or a function's source, "
		    "called with args.\"},"
		    "\"args\":{\"type\":\"array\"},"
		    TOOL_ARG_TAB_ID
		    "},\"required\":[\"expression\"],"
		    "\"additionalProperties\":false}",
		.method = "evaluate_script",
		.example_call =
		    "{\"expression\":\"(selector) => "
		    "document.querySelectorAll(selector).length\",\"args\":[\"a[h"
		    "ref]\"]}",
		.example_reply =
		    "Result: 42",
	},
	{
		.name = "get_console_logs",
		.title = "Get console logs",
		.description = "Read the tab's console messages and uncaught "
		    "errors, oldest first.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    TOOL_ARG_TAB_ID ","
		    "\"level\":{\"type\":\"array\",\"items\":{\"enum\":"
		    "[\"debug\",\"log\",\"info\",\"warn\",\"error\"]}},"
		    "\"max\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":1000,\"default\":100,"
		    "\"description\":\"Newest N messages.\"},"
		    "\"since_last_call\":{\"type\":\"boolean\"}"
		    "},\"additionalProperties\":false}",
		.read_only = true,
		.method = "get_console_logs",
		.example_call =
		    "{\"level\":[\"warn\",\"error\"],\"max\":2}",
		.example_reply =
		    "2 messages:\n"
		    "12:04:31.118 warn Deprecated API used "
		    "(https://shop.example/app.js:14:9)\n"
		    "12:04:33.502 error Uncaught TypeError: Cannot read "
		    "properties of null (reading 'value') "
		    "(https://shop.example/checkout.js:88:17)",
	},
	{ .name = NULL }
};
