/* The task tool: hand a multi-step goal to the extension's agents. */
#include "tools.h"

const struct tool_entry tools_task[] = {
	{
		.name = "run_task",
		.title = "Run browser task",
		.description = "Have the extension's agents carry out a "
		    "multi-step goal in the browser, reporting progress. Needs "
		    "an LLM set up in the extension.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"task\":{\"type\":\"string\","
		    "\"description\":\"The goal, in plain language.\"},"
		    TOOL_ARG_TAB_ID ","
		    "\"max_steps\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":100}"
		    "},\"required\":[\"task\"],\"additionalProperties\":false}",
		.timeout_ms = 600000,
		.method = "run_task",
		.example_call =
		    "{\"task\":\"Find the cheapest direct flight from Oslo to "
		    "Rome on 3 May; stop before paying.\",\"max_steps\":30}",
		.example_reply =
		    "Done in 14 steps: the cheapest direct flight is SK 4711 at "
		    "08:05 for 1,290 NOK. Stopped at the payment page in tab "
		    "1798930760.",
	},
	{ .name = NULL }
};
