/* Tests for host/tools*.c: the catalogue data, tools/list and timeouts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "oauth-scope.h"
#include "schema.h"
#include "tools.h"

/* What the whole tools/list may weigh: ~3,000 tokens for 22 tools. */
/*
 * What tools/list may cost, on average per tool (600 bytes, about 150
 * tokens), so the list a client sends the model with every turn stays cheap.
 */
#define TOOLS_LIST_PER_TOOL	600

static const char *tool_names[] = {
	"navigate_to", "navigate_history", "get_browser_state",
	"get_dom_extra_elements", "click_element", "type_value", "fill_form",
	"upload_file",
	"select_option", "hover_element", "drag_and_drop", "press_keys",
	"scroll_page",
	"manage_tabs", "take_screenshot", "set_viewport", "save_pdf",
	"get_page_content",
	"evaluate_script",
	"get_console_logs", "list_network_requests", "get_network_request",
	"wait_for", "handle_dialog", "run_task", "get_task",
	"stop_task", "answer_task", "list_tasks", "start_recording",
	"stop_recording", "run_recipe", "list_recipes", "get_recipe",
	"delete_recipe", "host_status", NULL
};

static const char *read_only_names[] = {
	"get_browser_state", "get_dom_extra_elements", "take_screenshot",
	"save_pdf", "get_page_content", "get_console_logs", "list_network_requests",
	"get_network_request", "wait_for", "get_task",
	"list_tasks", "list_recipes", "get_recipe", "host_status", NULL
};

static struct tool_registry *registry;

/* The catalogue data built into the program (host/catalogue-data.c). */
extern const unsigned char	catalogue_json[];
extern const size_t		catalogue_json_length;

/* Loads the registry before each test. */
static void
registry_setup(void)
{
	char	*cause = NULL;

	registry = tool_registry_new(&cause);
	ck_assert_msg(registry != NULL, "registry failed to load: %s",
	    cause != NULL ? cause : "(no cause)");
}

/* Frees the registry after each test. */
static void
registry_teardown(void)
{
	tool_registry_free(registry);
	registry = NULL;
}

/* Returns a tool that must exist. */
static const struct tool *
must_find(const char *name)
{
	const struct tool	*tool = tool_registry_find(registry, name);

	ck_assert_msg(tool != NULL, "tool %s is missing", name);
	return tool;
}

/* Returns whether name is in a NULL-terminated list. */
static int
in_list(const char **list, const char *name)
{
	size_t	i;

	for (i = 0; list[i] != NULL; i++) {
		if (strcmp(list[i], name) == 0)
			return 1;
	}
	return 0;
}

START_TEST(test_registry_loads_every_tool)
{
	size_t	i;

	for (i = 0; tool_names[i] != NULL; i++)
		must_find(tool_names[i]);
	ck_assert_uint_eq(tool_registry_count(registry), i);
	ck_assert_ptr_null(tool_registry_find(registry, "no_such_tool"));
	ck_assert_ptr_null(tool_registry_find(registry, NULL));
	ck_assert_ptr_null(tool_registry_at(registry, i));
}
END_TEST

START_TEST(test_registry_at_matches_find)
{
	const struct tool	*tool;
	size_t			 i;

	for (i = 0; i < tool_registry_count(registry); i++) {
		tool = tool_registry_at(registry, i);
		ck_assert_ptr_nonnull(tool);
		ck_assert_ptr_eq(tool_registry_find(registry,
		    tool->name), tool);
	}
}
END_TEST

START_TEST(test_every_tool_is_described)
{
	const struct tool	*tool;
	const json_t		*schema;
	size_t			 i;

	for (i = 0; i < tool_registry_count(registry); i++) {
		tool = tool_registry_at(registry, i);
		ck_assert_msg(tool->title != NULL &&
		    tool->title[0] != '\0', "%s has no title",
		    tool->name);
		ck_assert_msg(tool->description != NULL &&
		    strlen(tool->description) > 10,
		    "%s has no description", tool->name);
		schema = tool->input_schema;
		ck_assert_msg(json_is_object(schema), "%s: no input schema",
		    tool->name);
		ck_assert_msg(strcmp(json_string_value(json_object_get(schema,
		    "type")), "object") == 0, "%s: input schema is not an "
		    "object", tool->name);
		ck_assert_msg(json_is_object(json_object_get(schema,
		    "properties")), "%s: input schema has no properties",
		    tool->name);
		ck_assert_msg(json_is_false(json_object_get(schema,
		    "additionalProperties")), "%s: additionalProperties is "
		    "not false", tool->name);
	}
}
END_TEST

START_TEST(test_host_status_has_handler_others_methods)
{
	const struct tool	*tool;
	size_t			 i;

	for (i = 0; i < tool_registry_count(registry); i++) {
		tool = tool_registry_at(registry, i);
		if (strcmp(tool->name, "host_status") == 0) {
			ck_assert_ptr_nonnull(tool->handler);
			ck_assert_ptr_null(tool->method);
			ck_assert_ptr_nonnull(tool->output_schema);
			continue;
		}
		ck_assert_msg(tool->handler == NULL,
		    "%s has a host handler", tool->name);
		ck_assert_msg(tool->method != NULL &&
		    strcmp(tool->method, tool->name) == 0,
		    "%s: method is not the tool name", tool->name);
	}
}
END_TEST

START_TEST(test_listing_objects)
{
	const struct tool	*tool;
	const json_t		*listing, *annotations;
	size_t			 i;

	for (i = 0; i < tool_registry_count(registry); i++) {
		tool = tool_registry_at(registry, i);
		listing = tool->listing;
		ck_assert_str_eq(json_string_value(json_object_get(listing,
		    "name")), tool->name);
		ck_assert_str_eq(json_string_value(json_object_get(listing,
		    "title")), tool->title);
		ck_assert_str_eq(json_string_value(json_object_get(listing,
		    "description")), tool->description);
		ck_assert_json_eq(json_object_get(listing, "inputSchema"),
		    tool->input_schema);
		if (tool->output_schema != NULL)
			ck_assert_json_eq(json_object_get(listing,
			    "outputSchema"), tool->output_schema);
		else
			ck_assert_ptr_null(json_object_get(listing,
			    "outputSchema"));
		annotations = json_object_get(listing, "annotations");
		if (in_list(read_only_names, tool->name)) {
			ck_assert_msg(tool->read_only, "%s should be "
			    "read-only", tool->name);
			ck_assert_msg(json_is_true(json_object_get(annotations,
			    "readOnlyHint")), "%s lacks readOnlyHint",
			    tool->name);
		} else {
			ck_assert_msg(!tool->read_only &&
			    json_object_get(annotations, "readOnlyHint") ==
			    NULL, "%s should not be read-only", tool->name);
		}
	}
}
END_TEST

START_TEST(test_shared_arguments_agree)
{
	const struct tool	*tool;
	const json_t		*properties;
	json_t			*property;
	const char		*key, *type;
	size_t			 i;

	for (i = 0; i < tool_registry_count(registry); i++) {
		tool = tool_registry_at(registry, i);
		properties = json_object_get(tool->input_schema, "properties");
		json_object_foreach((json_t *)properties, key, property) {
			type = json_string_value(json_object_get(property,
			    "type"));
			/* Units are milliseconds, in integers, everywhere. */
			if (strlen(key) > 3 &&
			    strcmp(key + strlen(key) - 3, "_ms") == 0) {
				ck_assert_msg(type != NULL &&
				    strcmp(type, "integer") == 0 &&
				    json_integer_value(json_object_get(property,
				    "minimum")) == 0, "%s.%s is not an integer "
				    ">= 0", tool->name, key);
			}
			if (strcmp(key, "tab_id") == 0 ||
			    strcmp(key, "ref") == 0 ||
			    strcmp(key, "include_state") == 0) {
				ck_assert_msg(type != NULL && strcmp(type,
				    strcmp(key, "tab_id") == 0 ? "integer" :
				    strcmp(key, "ref") == 0 ? "string" :
				    "boolean") == 0, "%s.%s has type %s",
				    tool->name, key,
				    type != NULL ? type : "(none)");
			}
		}
	}
}
END_TEST

/* A running host's status, shaped as the host reports it. */
static json_t *
running_host_status(void *arg, char **cause)
{
	return check_json("{\"version\":\"0.1.0\",\"extension_connected\":"
	    "false,\"port\":9333,\"mcp_url\":\"http://127.0.0.1:9333/mcp\","
	    "\"sessions\":0,\"pending_calls\":0,\"uptime_ms\":5,"
	    "\"pid\":42,\"auth\":true}");
}

/* No host runs: the status says why. */
static json_t *
no_host_status(void *arg, char **cause)
{
	*cause = strdup("HOST_NOT_RUNNING: open the browser");
	return NULL;
}

START_TEST(test_host_status_result_matches_output_schema)
{
	struct tool_host_context running = { running_host_status, NULL };
	struct tool_host_context none = { no_host_status, NULL };
	const struct tool	*tool = must_find("host_status");
	const json_t		*content, *structured;
	json_t			*result, *parsed, *want;
	char			*cause = NULL;

	result = tool->handler(&running, NULL, true);
	ck_assert_ptr_nonnull(result);
	ck_assert_ptr_null(json_object_get(result, "isError"));
	structured = json_object_get(result, "structuredContent");
	ck_assert_msg(schema_validate(tool->output_schema, structured,
	    &cause) == 0, "structuredContent does not match the output "
	    "schema: %s", cause);
	want = running_host_status(NULL, NULL);
	ck_assert_json_eq(structured, want);
	json_decref(want);

	/* The text item carries the same object, for clients without it. */
	ck_assert_uint_eq(json_array_size(json_object_get(result, "content")),
	    1);
	content = json_array_get(json_object_get(result, "content"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(content, "type")),
	    "text");
	parsed = check_json(json_string_value(json_object_get(content,
	    "text")));
	ck_assert_json_eq(parsed, structured);
	json_decref(parsed);
	json_decref(result);

	/* Without a host, an error result that says why. */
	result = tool->handler(&none, NULL, true);
	want = check_json("{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"HOST_NOT_RUNNING: open the browser\"}],\"isError\":true}");
	ck_assert_json_eq(result, want);
	json_decref(want);
	json_decref(result);
}
END_TEST

START_TEST(test_list_fits_budget)
{
	json_t	*result;
	char	*cause = NULL, *text;
	size_t	 size;

	result = tool_registry_list(registry, NULL, 0, OAUTH_SCOPE_ALL, &cause);
	ck_assert_msg(result != NULL, "list failed: %s", cause);
	ck_assert_uint_eq(json_array_size(json_object_get(result, "tools")),
	    tool_registry_count(registry));
	ck_assert_ptr_null(json_object_get(result, "nextCursor"));
	text = json_dumps(result, JSON_COMPACT);
	size = strlen(text);
	ck_assert_msg(size < TOOLS_LIST_PER_TOOL * tool_registry_count(registry),
	    "tools/list is %zu bytes, over the budget of %d bytes a tool on "
	    "average: shorten descriptions", size, TOOLS_LIST_PER_TOOL);
	free(text);
	json_decref(result);
}
END_TEST

START_TEST(test_list_pages_walk_every_tool_once)
{
	json_t		*result;
	const json_t	*tools, *item, *next;
	char		*cursor = NULL, *cause = NULL;
	size_t		 i, seen = 0, pages = 0, count;
	int		*hits;

	count = tool_registry_count(registry);
	hits = calloc(count, sizeof *hits);
	ck_assert_ptr_nonnull(hits);
	for (;;) {
		result = tool_registry_list(registry, cursor, 5, OAUTH_SCOPE_ALL, &cause);
		ck_assert_msg(result != NULL, "cursor %s failed: %s",
		    cursor != NULL ? cursor : "(none)", cause);
		tools = json_object_get(result, "tools");
		ck_assert_uint_le(json_array_size(tools), 5);
		ck_assert_uint_ge(json_array_size(tools), 1);
		json_array_foreach(tools, i, item) {
			const struct tool *tool = tool_registry_find(registry,
			    json_string_value(json_object_get(item, "name")));

			ck_assert_ptr_nonnull(tool);
			hits[tool - tool_registry_at(registry, 0)]++;
			seen++;
		}
		pages++;
		free(cursor);
		cursor = NULL;
		next = json_object_get(result, "nextCursor");
		if (next != NULL) {
			ck_assert_msg(json_is_string(next), "nextCursor is not "
			    "a string");
			cursor = strdup(json_string_value(next));
		}
		json_decref(result);
		if (cursor == NULL)
			break;
		ck_assert_uint_lt(pages, count);
	}
	ck_assert_uint_eq(seen, count);
	ck_assert_uint_eq(pages, (count + 4) / 5);
	for (i = 0; i < count; i++)
		ck_assert_msg(hits[i] == 1, "tool %zu listed %d times", i,
		    hits[i]);
	free(hits);
}
END_TEST

START_TEST(test_list_large_page_has_no_cursor)
{
	json_t	*result;
	char	*cause = NULL;

	result = tool_registry_list(registry, NULL, 1000, OAUTH_SCOPE_ALL, &cause);
	ck_assert_ptr_nonnull(result);
	ck_assert_uint_eq(json_array_size(json_object_get(result, "tools")),
	    tool_registry_count(registry));
	ck_assert_ptr_null(json_object_get(result, "nextCursor"));
	json_decref(result);
}
END_TEST

START_TEST(test_list_bad_cursor_fails)
{
	static const char	*bad[] = {
		"", "abc", "-1", "5x", "01", " 5", "999", "18446744073709551617",
		NULL
	};
	json_t			*result;
	char			*cause, *count;
	size_t			 i;

	for (i = 0; bad[i] != NULL; i++) {
		cause = NULL;
		result = tool_registry_list(registry, bad[i], 5, OAUTH_SCOPE_ALL, &cause);
		ck_assert_msg(result == NULL, "cursor \"%s\" accepted", bad[i]);
		ck_assert_msg(cause != NULL &&
		    strstr(cause, "invalid cursor") != NULL,
		    "cursor \"%s\": cause %s", bad[i],
		    cause != NULL ? cause : "(null)");
		free(cause);
	}

	/* The count itself is one past the last tool. */
	if (asprintf(&count, "%zu", tool_registry_count(registry)) < 0)
		ck_abort_msg("asprintf failed");
	cause = NULL;
	ck_assert_ptr_null(tool_registry_list(registry, count, 5, OAUTH_SCOPE_ALL, &cause));
	free(cause);
	free(count);
}
END_TEST

START_TEST(test_timeout_default)
{
	ck_assert_int_eq(tool_timeout_ms(must_find("navigate_history"), NULL),
	    TOOL_DEFAULT_TIMEOUT_MS);
	ck_assert_int_eq(tool_timeout_ms(must_find("click_element"), NULL),
	    30000);
}
END_TEST

START_TEST(test_timeout_explicit)
{
	json_t	*args = check_json("{\"task\":\"x\"}");

	ck_assert_int_eq(tool_timeout_ms(must_find("run_task"), args), 600000);
	ck_assert_int_eq(tool_timeout_ms(must_find("run_task"), NULL), 600000);
	json_decref(args);
}
END_TEST

START_TEST(test_timeout_argument_adds_margin)
{
	json_t	*args;

	args = check_json("{\"url\":\"about:blank\",\"timeout_ms\":1000}");
	ck_assert_int_eq(tool_timeout_ms(must_find("navigate_to"), args), 6000);
	json_decref(args);

	args = check_json("{\"text\":\"x\",\"timeout_ms\":0}");
	ck_assert_int_eq(tool_timeout_ms(must_find("wait_for"), args), 5000);
	json_decref(args);

	args = check_json("{\"timeout_ms\":300000}");
	ck_assert_int_eq(tool_timeout_ms(must_find("wait_for"), args), 305000);
	json_decref(args);
}
END_TEST

START_TEST(test_timeout_argument_absent_uses_default_plus_margin)
{
	json_t	*args;

	ck_assert_int_eq(tool_timeout_ms(must_find("navigate_to"), NULL),
	    TOOL_DEFAULT_TIMEOUT_MS + 5000);
	args = check_json("{\"url\":\"about:blank\"}");
	ck_assert_int_eq(tool_timeout_ms(must_find("navigate_to"), args),
	    TOOL_DEFAULT_TIMEOUT_MS + 5000);
	json_decref(args);
	/* Not an integer: ignored rather than trusted. */
	args = check_json("{\"timeout_ms\":\"9\"}");
	ck_assert_int_eq(tool_timeout_ms(must_find("wait_for"), args),
	    TOOL_DEFAULT_TIMEOUT_MS + 5000);
	json_decref(args);
}
END_TEST

/* Asserts a tool's arguments fail with exactly this cause. */
static void
expect_argument_cause(const char *name, const char *args_text,
    const char *expected)
{
	json_t	*args = args_text != NULL ? check_json(args_text) : NULL;
	char	*cause = NULL;

	ck_assert_int_eq(tool_check_arguments(must_find(name), args, &cause),
	    -1);
	ck_assert_msg(cause != NULL && strcmp(cause, expected) == 0,
	    "%s: cause differs:\n  actual:   %s\n  expected: %s", name,
	    cause != NULL ? cause : "(null)", expected);
	free(cause);
	json_decref(args);
}

/* Asserts a tool accepts these arguments. */
static void
expect_arguments_ok(const char *name, const char *args_text)
{
	json_t	*args = args_text != NULL ? check_json(args_text) : NULL;
	char	*cause = NULL;

	ck_assert_msg(tool_check_arguments(must_find(name), args, &cause) == 0,
	    "%s rejected %s: %s", name, args_text != NULL ? args_text : "NULL",
	    cause != NULL ? cause : "(no cause)");
	free(cause);
	json_decref(args);
}

START_TEST(test_arguments_bad_field_named)
{
	expect_argument_cause("navigate_to", "{\"url\":5}",
	    "argument \"url\" must be a string");
	expect_argument_cause("scroll_page", "{\"direction\":\"left\"}",
	    "argument \"direction\" must be one of \"up\", \"down\", "
	    "\"to_top\", \"to_bottom\", \"to_element\"");
	expect_argument_cause("scroll_page",
	    "{\"direction\":\"down\",\"pixels\":0}",
	    "argument \"pixels\" must be an integer >= 1");
	expect_argument_cause("navigate_to", "{\"url\":\"x\",\"foo\":1}",
	    "unknown argument \"foo\"; allowed: \"url\", \"wait_until\", "
	    "\"timeout_ms\", \"new_tab\", \"tab_id\"");
	expect_argument_cause("click_element",
	    "{\"modifiers\":[\"Shift\",\"Ctrl\"]}",
	    "argument \"modifiers[1]\" must be one of \"Alt\", \"Control\", "
	    "\"Meta\", \"Shift\"");
	expect_argument_cause("click_element",
	    "{\"coordinates\":{\"x\":\"1\",\"y\":2}}",
	    "argument \"coordinates.x\" must be a number");
	expect_argument_cause("select_option", "{\"ref\":\"e1\",\"values\":[]}",
	    "argument \"values\" must be an array of at least 1 item");
	expect_argument_cause("navigate_to",
	    "{\"url\":\"x\",\"timeout_ms\":300001}",
	    "argument \"timeout_ms\" must be an integer from 0 to 300000");
}
END_TEST

START_TEST(test_arguments_null_is_empty_object)
{
	expect_arguments_ok("host_status", NULL);
	expect_arguments_ok("get_browser_state", NULL);
	expect_argument_cause("navigate_to", NULL,
	    "missing required argument \"url\" (string)");
	expect_argument_cause("host_status", "{\"verbose\":true}",
	    "unknown argument \"verbose\"; this tool takes no arguments");
}
END_TEST

START_TEST(test_arguments_must_be_object)
{
	expect_argument_cause("host_status", "[]",
	    "arguments must be an object");
	expect_argument_cause("navigate_to", "\"https://example.com\"",
	    "arguments must be an object");
}
END_TEST

START_TEST(test_arguments_valid_calls_pass)
{
	expect_arguments_ok("navigate_to", "{\"url\":\"https://example.com\","
	    "\"wait_until\":\"networkidle\",\"timeout_ms\":0,\"new_tab\":true,"
	    "\"tab_id\":3}");
	expect_arguments_ok("click_element", "{\"coordinates\":{\"x\":10.5,"
	    "\"y\":4},\"button\":\"right\",\"click_count\":2,"
	    "\"modifiers\":[\"Control\"],\"include_state\":true}");
	expect_arguments_ok("type_value", "{\"ref\":\"e12\",\"text\":"
	    "\"hi{Enter}\",\"append\":true}");
	expect_arguments_ok("fill_form", "{\"fields\":[{\"ref\":\"e1\","
	    "\"value\":\"Ada\"},{\"ref\":\"e2\",\"value\":true}]}");
	expect_arguments_ok("wait_for", "{\"selector\":\"#x\",\"state\":"
	    "\"detached\",\"timeout_ms\":100}");
	expect_arguments_ok("evaluate_script", "{\"expression\":\"(a) => a\","
	    "\"args\":[1,{\"b\":null}]}");
	expect_arguments_ok("get_console_logs", "{\"level\":[\"warn\","
	    "\"error\"],\"max\":1000,\"since_last_call\":true}");
	expect_arguments_ok("run_task", "{\"task\":\"find the cheapest "
	    "flight\",\"max_steps\":100}");
}
END_TEST

START_TEST(test_arguments_any_of_names_each_type)
{
	expect_argument_cause("fill_form", "{\"fields\":[{\"ref\":\"e1\","
	    "\"value\":3}]}",
	    "argument \"fields[0].value\" must be a string or a boolean");
}
END_TEST

/* A valid extension tool; extra is text a test adds to its fields. */
#define DATA_TOOL(name, extra) \
	"{\"name\":\"" name "\",\"title\":\"T\",\"description\":\"D\",\"scope\":\"pages:read\"," \
	"\"answered_by\":\"extension\",\"method\":\"" name "\"," \
	"\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false," \
	"\"idempotentHint\":true,\"openWorldHint\":false}," \
	"\"input_schema\":{\"type\":\"object\",\"properties\":" \
	"{\"n\":{\"type\":\"integer\"}},\"additionalProperties\":false}," \
	"\"example\":{\"call\":{\"n\":1},\"reply\":\"R\"}" extra "}"

/* A host handler for the catalogue tests; never called. */
static json_t *
handler_unused(const struct tool_host_context *host, const json_t *args,
    bool owner)
{
	(void)host;
	(void)args;
	(void)owner;
	return NULL;
}

static const struct tool_handler_entry no_handlers[] = { { NULL, NULL } };
static const struct tool_handler_entry one_handler[] = {
	{ "status", handler_unused }, { NULL, NULL }
};

/* Asserts catalogue text fails to load with a cause containing expected. */
static void
expect_catalogue_cause(const char *text,
    const struct tool_handler_entry *handlers, const char *expected)
{
	struct tool_registry	*loaded;
	char			*cause = NULL;

	loaded = tool_registry_parse(text, strlen(text), handlers, &cause);
	ck_assert_msg(loaded == NULL, "catalogue accepted: %s", text);
	ck_assert_msg(cause != NULL && strstr(cause, expected) != NULL,
	    "cause differs:\n  actual:   %s\n  expected: ...%s...",
	    cause != NULL ? cause : "(null)", expected);
	free(cause);
}

START_TEST(test_catalogue_minimal_tool_loads)
{
	struct tool_registry	*loaded;
	const struct tool	*tool;
	const char		*text = "[" DATA_TOOL("a", "") "]";
	char			*cause = NULL;
	json_t			*hints;

	loaded = tool_registry_parse(text, strlen(text), no_handlers, &cause);
	ck_assert_msg(loaded != NULL, "rejected: %s", cause);
	tool = tool_registry_find(loaded, "a");
	ck_assert_ptr_nonnull(tool);
	ck_assert_str_eq(tool->method, "a");
	ck_assert_ptr_null(tool->handler);
	ck_assert(tool->read_only);
	ck_assert_int_eq(tool_timeout_ms(tool, NULL), TOOL_DEFAULT_TIMEOUT_MS);
	/* Only the hints that differ from MCP's defaults are listed. */
	hints = check_json("{\"readOnlyHint\":true,\"openWorldHint\":false}");
	ck_assert_json_eq(json_object_get(tool->listing, "annotations"),
	    hints);
	json_decref(hints);
	tool_registry_free(loaded);
}
END_TEST

START_TEST(test_catalogue_rejects_broken_data)
{
	expect_catalogue_cause("{\"name\":\"a\"}", no_handlers,
	    "not a JSON array");
	expect_catalogue_cause("[" DATA_TOOL("a", ",") "]", no_handlers,
	    "not a JSON array");
	expect_catalogue_cause("[" DATA_TOOL("a", "") "," DATA_TOOL("a", "")
	    "]", no_handlers, "tool \"a\" is listed twice");
	expect_catalogue_cause("[" DATA_TOOL("", "") "]", no_handlers,
	    "\"name\" must be a non-empty string");
	expect_catalogue_cause("[" DATA_TOOL("a", ",\"timeout_ms\":-5") "]",
	    no_handlers, "\"timeout_ms\" must be a positive integer");
	expect_catalogue_cause("[" DATA_TOOL("a",
	    ",\"timeout_argument\":\"x\"") "]", no_handlers,
	    "timeout argument \"x\" is not an integer argument");
	expect_catalogue_cause("[" DATA_TOOL("a",
	    ",\"output_schema\":{\"type\":\"string\"}") "]", no_handlers,
	    "output schema must have type object");
}
END_TEST

START_TEST(test_catalogue_scope_required_and_lists_filter)
{
	struct tool_registry	*loaded;
	json_t			*list;
	char			*cause = NULL;
	const char		*text = "[" DATA_TOOL("a", "") "]";

	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"answered_by\":\"extension\","
	    "\"method\":\"a\"}]", no_handlers,
	    "tool \"a\": \"scope\" must be one of");
	loaded = tool_registry_parse(text, strlen(text), no_handlers, &cause);
	ck_assert_msg(loaded != NULL, "rejected: %s", cause);
	ck_assert_uint_eq(tool_registry_find(loaded, "a")->scope,
	    OAUTH_SCOPE_PAGES_READ);
	list = tool_registry_list(loaded, NULL, 0, OAUTH_SCOPE_TASKS, &cause);
	ck_assert_uint_eq(json_array_size(json_object_get(list, "tools")), 0);
	json_decref(list);
	list = tool_registry_list(loaded, NULL, 0, OAUTH_SCOPE_PAGES_READ,
	    &cause);
	ck_assert_uint_eq(json_array_size(json_object_get(list, "tools")), 1);
	json_decref(list);
	tool_registry_free(loaded);
}
END_TEST

/* Every tool of the real catalogue names a scope; pages pages by scope. */
START_TEST(test_catalogue_scopes_page_through)
{
	json_t		*page, *all = json_array();
	const json_t	*next;
	char		*cursor = NULL, *cause = NULL;
	size_t		 i;

	do {
		page = tool_registry_list(registry, cursor, 2,
		    OAUTH_SCOPE_NETWORK|OAUTH_SCOPE_SCRIPTS, &cause);
		ck_assert_msg(page != NULL, "%s", cause);
		json_array_extend(all, json_object_get(page, "tools"));
		free(cursor);
		next = json_object_get(page, "nextCursor");
		cursor = next != NULL ? strdup(json_string_value(next)) : NULL;
		json_decref(page);
	} while (cursor != NULL);
	ck_assert_uint_eq(json_array_size(all), 3);
	for (i = 0; i < tool_registry_count(registry); i++)
		ck_assert_uint_ne(tool_registry_at(registry, i)->scope, 0);
	json_decref(all);
}
END_TEST

START_TEST(test_catalogue_rejects_bad_fields)
{
	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"extension\","
	    "\"method\":\"a\",\"annotations\":{\"readOnlyHint\":true},"
	    "\"input_schema\":{\"type\":\"object\",\"properties\":{},"
	    "\"additionalProperties\":false},\"example\":{\"call\":{},"
	    "\"reply\":\"R\"}}]", no_handlers,
	    "must set exactly readOnlyHint, destructiveHint");
	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"extension\","
	    "\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,"
	    "\"idempotentHint\":true,\"openWorldHint\":false},"
	    "\"input_schema\":{\"type\":\"object\",\"properties\":{},"
	    "\"additionalProperties\":false},\"example\":{\"call\":{},"
	    "\"reply\":\"R\"}}]", no_handlers,
	    "\"method\" must be a non-empty string");
	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"extension\","
	    "\"method\":\"a\",\"annotations\":{\"readOnlyHint\":true,"
	    "\"destructiveHint\":false,\"idempotentHint\":true,"
	    "\"openWorldHint\":false},\"input_schema\":{\"type\":\"object\","
	    "\"properties\":{\"n\":{\"type\":\"integer\"}},"
	    "\"additionalProperties\":false},\"example\":{\"call\":{\"n\":\"1\"},"
	    "\"reply\":\"R\"}}]", no_handlers,
	    "the example call fails the input schema: argument \"n\" must be "
	    "an integer");
	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"extension\","
	    "\"method\":\"a\",\"annotations\":{\"readOnlyHint\":true,"
	    "\"destructiveHint\":false,\"idempotentHint\":true,"
	    "\"openWorldHint\":false},\"input_schema\":{\"type\":\"object\","
	    "\"properties\":{\"n\":{\"type\":\"integr\"}},"
	    "\"additionalProperties\":false},\"example\":{\"call\":{},"
	    "\"reply\":\"R\"}}]", no_handlers, "input schema: ");
}
END_TEST

START_TEST(test_catalogue_host_tools_need_handlers_both_ways)
{
	struct tool_registry	*loaded;
	const char		*host_tool;
	char			*cause = NULL, *text;

	host_tool = "{\"name\":\"status\",\"title\":\"T\",\"description\":"
	    "\"D\",\"scope\":\"pages:read\",\"answered_by\":\"host\",\"annotations\":{\"readOnlyHint\":"
	    "true,\"destructiveHint\":false,\"idempotentHint\":true,"
	    "\"openWorldHint\":false},\"input_schema\":{\"type\":\"object\","
	    "\"properties\":{},\"additionalProperties\":false},\"example\":"
	    "{\"call\":{},\"reply\":\"R\"}}";
	/* A host tool without its handler. */
	if (asprintf(&text, "[%s]", host_tool) < 0)
		ck_abort_msg("asprintf failed");
	expect_catalogue_cause(text, no_handlers,
	    "tool \"status\": answered by the host, but the host has no "
	    "handler for it");
	/* With it, it loads and the handler is joined to the tool. */
	loaded = tool_registry_parse(text, strlen(text), one_handler, &cause);
	ck_assert_msg(loaded != NULL, "rejected: %s", cause);
	ck_assert_ptr_eq(tool_registry_find(loaded, "status")->handler,
	    handler_unused);
	ck_assert_ptr_null(tool_registry_find(loaded, "status")->method);
	tool_registry_free(loaded);
	free(text);
	/* A handler without its tool. */
	expect_catalogue_cause("[" DATA_TOOL("a", "") "]", one_handler,
	    "host handler \"status\" has no tool in the catalogue");
	expect_catalogue_cause("[{\"name\":\"a\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"browser\"}]",
	    no_handlers, "\"answered_by\" must be \"host\" or \"extension\"");
}
END_TEST

/*
 * The welcome's catalogue: each tool's tools/list object, plus the scope
 * its catalogue data names (the agents filter on it), its method and traits.
 */
START_TEST(test_catalogue_for_the_extension)
{
	const struct tool	*tool;
	const json_t		*item;
	json_t			*catalogue, *expected, *data;
	size_t			 i;

	data = json_loadb((const char *)catalogue_json, catalogue_json_length,
	    0, NULL);
	ck_assert_ptr_nonnull(data);
	catalogue = tool_registry_catalogue(registry);
	ck_assert_uint_eq(json_array_size(catalogue),
	    tool_registry_count(registry));
	json_array_foreach(catalogue, i, item) {
		tool = tool_registry_at(registry, i);
		expected = json_copy(tool->listing);
		json_object_set(expected, "scope", json_object_get(
		    json_array_get(data, i), "scope"));
		ck_assert(json_is_string(json_object_get(expected, "scope")));
		if (tool->method != NULL) {
			json_object_set_new(expected, "method",
			    json_string(tool->method));
		}
		if (tool->traits != NULL) {
			json_object_set_new(expected, "traits",
			    json_deep_copy(tool->traits));
		}
		ck_assert_json_eq(item, expected);
		json_decref(expected);
	}
	json_decref(catalogue);
	json_decref(data);
}
END_TEST

START_TEST(test_catalogue_traits_reach_the_extension_only)
{
	struct tool_registry	*loaded;
	const struct tool	*tool;
	const char		*text = "[" DATA_TOOL("a",
	    ",\"traits\":{\"watches_dialogs\":true,\"leaves_page\":false}") "]";
	char			*cause = NULL;
	json_t			*catalogue, *expected;

	loaded = tool_registry_parse(text, strlen(text), no_handlers, &cause);
	ck_assert_msg(loaded != NULL, "rejected: %s", cause);
	tool = tool_registry_find(loaded, "a");
	ck_assert_ptr_null(json_object_get(tool->listing, "traits"));
	catalogue = tool_registry_catalogue(loaded);
	expected = check_json("{\"watches_dialogs\":true,"
	    "\"leaves_page\":false}");
	ck_assert_json_eq(json_object_get(json_array_get(catalogue, 0),
	    "traits"), expected);
	json_decref(expected);
	json_decref(catalogue);
	tool_registry_free(loaded);
}
END_TEST

START_TEST(test_catalogue_rejects_bad_traits)
{
	expect_catalogue_cause("[" DATA_TOOL("a",
	    ",\"traits\":{\"watches_dialog\":true}") "]", no_handlers,
	    "tool \"a\": unknown trait \"watches_dialog\" (the known traits "
	    "are watches_dialogs, leaves_page, runs_under_dialog)");
	expect_catalogue_cause("[" DATA_TOOL("a",
	    ",\"traits\":{\"leaves_page\":1}") "]", no_handlers,
	    "trait \"leaves_page\" must be true or false");
	expect_catalogue_cause("[" DATA_TOOL("a",
	    ",\"traits\":[\"leaves_page\"]") "]", no_handlers,
	    "\"traits\" must be an object");
	expect_catalogue_cause("[{\"name\":\"status\",\"title\":\"T\","
	    "\"description\":\"D\",\"scope\":\"pages:read\",\"answered_by\":\"host\","
	    "\"traits\":{\"leaves_page\":true},\"annotations\":"
	    "{\"readOnlyHint\":true,\"destructiveHint\":false,"
	    "\"idempotentHint\":true,\"openWorldHint\":false},"
	    "\"input_schema\":{\"type\":\"object\",\"properties\":{},"
	    "\"additionalProperties\":false},\"example\":{\"call\":{},"
	    "\"reply\":\"R\"}}]", one_handler,
	    "tool \"status\": a host tool has no \"traits\"");
}
END_TEST

START_TEST(test_examples_stay_out_of_tools_list)
{
	char	*cause = NULL, *text;
	json_t	*list;

	list = tool_registry_list(registry, NULL, 0, OAUTH_SCOPE_ALL, &cause);
	ck_assert_msg(list != NULL, "list: %s", cause);
	text = json_dumps(list, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, "example"));
	ck_assert_ptr_null(strstr(text, "Place order"));
	free(text);
	json_decref(list);
}
END_TEST

/* Builds the tools suite. */
static Suite *
tools_suite(void)
{
	Suite	*s = suite_create("tools");
	TCase	*tc;

	tc = tcase_create("registry");
	tcase_add_checked_fixture(tc, registry_setup, registry_teardown);
	tcase_add_test(tc, test_registry_loads_every_tool);
	tcase_add_test(tc, test_registry_at_matches_find);
	tcase_add_test(tc, test_every_tool_is_described);
	tcase_add_test(tc, test_host_status_has_handler_others_methods);
	tcase_add_test(tc, test_host_status_result_matches_output_schema);
	tcase_add_test(tc, test_listing_objects);
	tcase_add_test(tc, test_shared_arguments_agree);
	suite_add_tcase(s, tc);

	tc = tcase_create("list");
	tcase_add_checked_fixture(tc, registry_setup, registry_teardown);
	tcase_add_test(tc, test_list_fits_budget);
	tcase_add_test(tc, test_list_pages_walk_every_tool_once);
	tcase_add_test(tc, test_list_large_page_has_no_cursor);
	tcase_add_test(tc, test_list_bad_cursor_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("timeout");
	tcase_add_checked_fixture(tc, registry_setup, registry_teardown);
	tcase_add_test(tc, test_timeout_default);
	tcase_add_test(tc, test_timeout_explicit);
	tcase_add_test(tc, test_timeout_argument_adds_margin);
	tcase_add_test(tc, test_timeout_argument_absent_uses_default_plus_margin);
	suite_add_tcase(s, tc);

	tc = tcase_create("arguments");
	tcase_add_checked_fixture(tc, registry_setup, registry_teardown);
	tcase_add_test(tc, test_arguments_bad_field_named);
	tcase_add_test(tc, test_arguments_null_is_empty_object);
	tcase_add_test(tc, test_arguments_must_be_object);
	tcase_add_test(tc, test_arguments_valid_calls_pass);
	tcase_add_test(tc, test_arguments_any_of_names_each_type);
	suite_add_tcase(s, tc);

	tc = tcase_create("listing");
	tcase_add_checked_fixture(tc, registry_setup, registry_teardown);
	tcase_add_test(tc, test_examples_stay_out_of_tools_list);
	tcase_add_test(tc, test_catalogue_for_the_extension);
	tcase_add_test(tc, test_catalogue_traits_reach_the_extension_only);
	tcase_add_test(tc, test_catalogue_rejects_bad_traits);
	tcase_add_test(tc, test_catalogue_scopes_page_through);
	suite_add_tcase(s, tc);

	tc = tcase_create("catalogue data");
	tcase_add_test(tc, test_catalogue_minimal_tool_loads);
	tcase_add_test(tc, test_catalogue_rejects_broken_data);
	tcase_add_test(tc, test_catalogue_rejects_bad_fields);
	tcase_add_test(tc, test_catalogue_scope_required_and_lists_filter);
	tcase_add_test(tc, test_catalogue_host_tools_need_handlers_both_ways);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return check_run_suite(tools_suite());
}
