/*
 * The tool registry: loads the catalogue once (parsing and checking every
 * schema, so a typo fails at start-up), answers tools/list pages, checks
 * arguments, works out each call's timeout and renders docs/tools.md.
 */
#include "tools.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "schema.h"
#include "xmalloc.h"

struct tool_registry {
	struct tool	*tools;
	size_t		 count;
};

/* Every group, in the order tools/list shows them. */
static const struct tool_entry *tools_groups[] = {
	tools_navigation,
	tools_state,
	tools_input,
	tools_tabs,
	tools_content,
	tools_wait,
	tools_task,
	tools_host,
	NULL
};

/* Parses and checks one schema of a tool. */
static json_t *
tools_load_schema(const struct tool_entry *entry, const char *text,
    const char *what, char **cause)
{
	json_error_t	 error;
	json_t		*schema;
	char		*why;

	schema = json_loads(text, 0, &error);
	if (schema == NULL) {
		*cause = xasprintf("tool \"%s\": %s is not valid JSON: %s "
		    "(column %d)", entry->name, what, error.text,
		    error.column);
		return NULL;
	}
	if (schema_check(schema, &why) != 0) {
		*cause = xasprintf("tool \"%s\": %s: %s", entry->name, what,
		    why);
		free(why);
		json_decref(schema);
		return NULL;
	}
	return schema;
}

/* Returns whether a schema describes a JSON object at its root. */
static int
tools_schema_is_object(const json_t *schema)
{
	const char	*type;

	type = json_string_value(json_object_get(schema, "type"));
	return type != NULL && strcmp(type, "object") == 0;
}

/* Checks the fields of an entry that need no parsing. */
static int
tools_check_entry(const struct tool_entry *entry, char **cause)
{
	if (entry->name[0] == '\0') {
		*cause = xstrdup("a tool has an empty name");
		return -1;
	}
	if (entry->title == NULL || entry->title[0] == '\0' ||
	    entry->description == NULL || entry->description[0] == '\0') {
		*cause = xasprintf("tool \"%s\": needs a title and a "
		    "description", entry->name);
		return -1;
	}
	if ((entry->method == NULL) == (entry->handler == NULL)) {
		*cause = xasprintf("tool \"%s\": needs exactly one of a method "
		    "and a handler", entry->name);
		return -1;
	}
	if (entry->input_schema == NULL) {
		*cause = xasprintf("tool \"%s\": has no input schema",
		    entry->name);
		return -1;
	}
	if (entry->timeout_ms < 0) {
		*cause = xasprintf("tool \"%s\": negative timeout",
		    entry->name);
		return -1;
	}
	return 0;
}

/* Builds a tool's tools/list object. */
static json_t *
tools_listing(const struct tool *tool)
{
	const struct tool_entry	*entry = tool->entry;
	json_t			*listing;

	listing = json_object();
	json_object_set_new(listing, "name", json_string(entry->name));
	json_object_set_new(listing, "title", json_string(entry->title));
	json_object_set_new(listing, "description",
	    json_string(entry->description));
	json_object_set(listing, "inputSchema", tool->input_schema);
	if (tool->output_schema != NULL)
		json_object_set(listing, "outputSchema", tool->output_schema);
	if (entry->read_only) {
		json_object_set_new(listing, "annotations",
		    json_pack("{s:b}", "readOnlyHint", 1));
	}
	return listing;
}

/* Loads one entry into tool; on failure nothing is left allocated. */
static int
tools_load(struct tool *tool, const struct tool_entry *entry, char **cause)
{
	const json_t	*property;
	const char	*type;

	memset(tool, 0, sizeof *tool);
	tool->entry = entry;
	if (tools_check_entry(entry, cause) != 0)
		return -1;

	tool->input_schema = tools_load_schema(entry, entry->input_schema,
	    "input schema", cause);
	if (tool->input_schema == NULL)
		return -1;
	if (!tools_schema_is_object(tool->input_schema)) {
		*cause = xasprintf("tool \"%s\": input schema must have type "
		    "object", entry->name);
		goto fail;
	}
	if (!json_is_false(json_object_get(tool->input_schema,
	    "additionalProperties"))) {
		*cause = xasprintf("tool \"%s\": input schema must set "
		    "additionalProperties to false", entry->name);
		goto fail;
	}
	if (entry->timeout_argument != NULL) {
		property = json_object_get(json_object_get(tool->input_schema,
		    "properties"), entry->timeout_argument);
		type = json_string_value(json_object_get(property, "type"));
		if (type == NULL || strcmp(type, "integer") != 0) {
			*cause = xasprintf("tool \"%s\": timeout argument "
			    "\"%s\" is not an integer argument", entry->name,
			    entry->timeout_argument);
			goto fail;
		}
	}

	if (entry->output_schema != NULL) {
		tool->output_schema = tools_load_schema(entry,
		    entry->output_schema, "output schema", cause);
		if (tool->output_schema == NULL)
			goto fail;
		if (!tools_schema_is_object(tool->output_schema)) {
			*cause = xasprintf("tool \"%s\": output schema must "
			    "have type object", entry->name);
			goto fail;
		}
	}

	tool->listing = tools_listing(tool);
	return 0;

fail:
	json_decref(tool->input_schema);
	json_decref(tool->output_schema);
	tool->input_schema = tool->output_schema = NULL;
	return -1;
}

/* Loads the whole catalogue. */
struct tool_registry *
tool_registry_new(char **cause)
{
	struct tool_registry		*registry;
	const struct tool_entry		*entry;
	size_t				 i, j, total = 0;

	for (i = 0; tools_groups[i] != NULL; i++) {
		for (entry = tools_groups[i]; entry->name != NULL; entry++)
			total++;
	}

	registry = xcalloc(1, sizeof *registry);
	registry->tools = xcalloc(total, sizeof *registry->tools);
	for (i = 0; tools_groups[i] != NULL; i++) {
		for (entry = tools_groups[i]; entry->name != NULL; entry++) {
			for (j = 0; j < registry->count; j++) {
				if (strcmp(registry->tools[j].entry->name,
				    entry->name) == 0) {
					*cause = xasprintf("tool \"%s\" is "
					    "listed twice", entry->name);
					goto fail;
				}
			}
			if (tools_load(&registry->tools[registry->count],
			    entry, cause) != 0)
				goto fail;
			registry->count++;
		}
	}
	return registry;

fail:
	tool_registry_free(registry);
	return NULL;
}

/* Frees the registry. */
void
tool_registry_free(struct tool_registry *registry)
{
	size_t	i;

	if (registry == NULL)
		return;
	for (i = 0; i < registry->count; i++) {
		json_decref(registry->tools[i].input_schema);
		json_decref(registry->tools[i].output_schema);
		json_decref(registry->tools[i].listing);
	}
	free(registry->tools);
	free(registry);
}

/* Returns the tool with this name, or NULL. */
const struct tool *
tool_registry_find(const struct tool_registry *registry, const char *name)
{
	size_t	i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < registry->count; i++) {
		if (strcmp(registry->tools[i].entry->name, name) == 0)
			return &registry->tools[i];
	}
	return NULL;
}

/* Returns how many tools there are. */
size_t
tool_registry_count(const struct tool_registry *registry)
{
	return registry->count;
}

/* Returns the tool at index, or NULL past the end. */
const struct tool *
tool_registry_at(const struct tool_registry *registry, size_t index)
{
	if (index >= registry->count)
		return NULL;
	return &registry->tools[index];
}

/* Reads a cursor: the decimal index of the first tool of the page. */
static int
tools_parse_cursor(const struct tool_registry *registry, const char *cursor,
    size_t *index, char **cause)
{
	const char	*p;
	size_t		 value = 0;

	*index = 0;
	if (cursor == NULL)
		return 0;
	for (p = cursor; *p >= '0' && *p <= '9'; p++) {
		value = value * 10 + (size_t)(*p - '0');
		if (value >= registry->count)
			break;
	}
	if (*cursor == '\0' || *p != '\0' || value >= registry->count ||
	    (cursor[0] == '0' && cursor[1] != '\0')) {
		*cause = xasprintf("invalid cursor \"%.32s\": pass the "
		    "nextCursor of the previous tools/list result, or no "
		    "cursor to start over", cursor);
		return -1;
	}
	*index = value;
	return 0;
}

/* Returns a tools/list result: one page from cursor, or all if page_size 0. */
json_t *
tool_registry_list(const struct tool_registry *registry, const char *cursor,
    size_t page_size, char **cause)
{
	json_t	*result, *tools;
	size_t	 i, start, end;
	char	*next;

	if (tools_parse_cursor(registry, cursor, &start, cause) != 0)
		return NULL;
	end = registry->count;
	if (page_size != 0 && page_size < end - start)
		end = start + page_size;

	tools = json_array();
	for (i = start; i < end; i++)
		json_array_append(tools, registry->tools[i].listing);
	result = json_object();
	json_object_set_new(result, "tools", tools);
	if (end < registry->count) {
		next = xasprintf("%zu", end);
		json_object_set_new(result, "nextCursor", json_string(next));
		free(next);
	}
	return result;
}

/*
 * Returns how long the host waits for the extension to answer a call.
 * With a timeout argument, the entry's timeout_ms is a margin on top of
 * the caller's value, or of the default when the caller gives none, so
 * the extension times out first and says why.
 */
int
tool_timeout_ms(const struct tool *tool, const json_t *args)
{
	const struct tool_entry	*entry = tool->entry;
	const json_t		*value;
	json_int_t		 wanted;

	if (entry->timeout_argument == NULL) {
		if (entry->timeout_ms > 0)
			return entry->timeout_ms;
		return TOOL_DEFAULT_TIMEOUT_MS;
	}
	value = json_object_get(args, entry->timeout_argument);
	if (!json_is_integer(value) || json_integer_value(value) < 0)
		return TOOL_DEFAULT_TIMEOUT_MS + entry->timeout_ms;
	wanted = json_integer_value(value);
	if (wanted > INT_MAX - entry->timeout_ms)
		return INT_MAX;
	return (int)wanted + entry->timeout_ms;
}

/* Checks a call's arguments (NULL means none) against the input schema. */
int
tool_check_arguments(const struct tool *tool, const json_t *args,
    char **cause)
{
	json_t	*empty;
	int	 error;

	if (args == NULL) {
		empty = json_object();
		error = schema_validate(tool->input_schema, empty, cause);
		json_decref(empty);
		return error;
	}
	if (!json_is_object(args)) {
		*cause = xstrdup("arguments must be an object");
		return -1;
	}
	return schema_validate(tool->input_schema, args, cause);
}

/* Writes text for a Markdown table cell: no pipes, no line breaks. */
static void
tools_md_cell(FILE *f, const char *text)
{
	for (; *text != '\0'; text++) {
		if (*text == '|')
			fputs("\\|", f);
		else if (*text == '\n')
			fputc(' ', f);
		else
			fputc(*text, f);
	}
}

/* Writes a JSON value as compact JSON text. */
static void
tools_md_json(FILE *f, const json_t *value)
{
	char	*text;

	text = json_dumps(value, JSON_COMPACT|JSON_ENCODE_ANY);
	fputs(text != NULL ? text : "?", f);
	free(text);
}

/* Writes a JSON value as inline code: strings bare, others as JSON. */
static void
tools_md_value(FILE *f, const json_t *value)
{
	fputc('`', f);
	if (json_is_string(value))
		tools_md_cell(f, json_string_value(value));
	else
		tools_md_json(f, value);
	fputc('`', f);
}

/* Writes a schema's type for the Type column. */
static void
tools_md_type(FILE *f, const json_t *schema)
{
	const json_t	*type, *value, *low, *high, *item;
	size_t		 i;

	if ((value = json_object_get(schema, "const")) != NULL) {
		tools_md_value(f, value);
		return;
	}
	if ((value = json_object_get(schema, "enum")) != NULL) {
		json_array_foreach(value, i, item) {
			if (i != 0)
				fputs(", ", f);
			tools_md_value(f, item);
		}
		return;
	}

	type = json_object_get(schema, "type");
	if (json_is_string(type))
		fputs(json_string_value(type), f);
	else if (json_is_array(type)) {
		json_array_foreach(type, i, item) {
			fprintf(f, "%s%s", i == 0 ? "" : " or ",
			    json_string_value(item));
		}
	} else
		fputs("any", f);

	if ((value = json_object_get(schema, "items")) != NULL) {
		fputs(" of ", f);
		tools_md_type(f, value);
	}
	low = json_object_get(schema, "minimum");
	high = json_object_get(schema, "maximum");
	if (low != NULL && high != NULL) {
		fputs(", ", f);
		tools_md_json(f, low);
		fputs(" to ", f);
		tools_md_json(f, high);
	} else if (low != NULL) {
		fputs(", >= ", f);
		tools_md_json(f, low);
	} else if (high != NULL) {
		fputs(", <= ", f);
		tools_md_json(f, high);
	}
	if ((value = json_object_get(schema, "minItems")) != NULL) {
		fputs(", at least ", f);
		tools_md_json(f, value);
	}
}

/*
 * Descriptions the docs give arguments that tools/list leaves bare to stay
 * small: their meaning is the same in every tool.
 */
static const struct {
	const char	*name;
	const char	*description;
} tools_md_common[] = {
	{ "tab_id", "Tab to act on. Default: the active tab." },
	{ "ref", "Element ref from `get_browser_state`." },
	{ "include_state", "Also return the page state after the action." },
};

/* Returns the docs' description of an argument without its own. */
static const char *
tools_md_common_description(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof tools_md_common / sizeof tools_md_common[0];
	    i++) {
		if (strcmp(tools_md_common[i].name, name) == 0)
			return tools_md_common[i].description;
	}
	return NULL;
}

/* Writes one table row per property, nested objects as dotted names. */
static void
tools_md_rows(FILE *f, const json_t *schema, const char *prefix)
{
	const json_t	*properties, *required, *item, *value;
	const char	*key, *description;
	json_t		*property;
	char		*name;
	size_t		 i;
	int		 needed;

	properties = json_object_get(schema, "properties");
	required = json_object_get(schema, "required");
	json_object_foreach((json_t *)properties, key, property) {
		needed = 0;
		json_array_foreach(required, i, item) {
			if (strcmp(json_string_value(item), key) == 0)
				needed = 1;
		}
		if (prefix != NULL)
			name = xasprintf("%s.%s", prefix, key);
		else
			name = xstrdup(key);

		fprintf(f, "| `%s` | ", name);
		tools_md_type(f, property);
		fprintf(f, " | %s | ", needed ? "yes" : "no");
		description = json_string_value(json_object_get(property,
		    "description"));
		if (description == NULL && prefix == NULL)
			description = tools_md_common_description(key);
		if (description != NULL)
			tools_md_cell(f, description);
		if ((value = json_object_get(property, "default")) != NULL) {
			fputs(description != NULL ? " Default: " : "Default: ",
			    f);
			tools_md_value(f, value);
			fputc('.', f);
		}
		fputs(" |\n", f);

		if (json_object_get(property, "properties") != NULL)
			tools_md_rows(f, property, name);
		free(name);
	}
}

/* Writes a tool's example call and reply, if it has them. */
static void
tools_md_example(FILE *f, const struct tool_entry *entry)
{
	json_t	*args, *call;
	char	*text;

	if (entry->example_call == NULL || entry->example_reply == NULL)
		return;
	args = json_loads(entry->example_call, 0, NULL);
	if (args == NULL)
		return;	/* check-tools rejects this */
	call = json_pack("{s:s,s:o}", "name", entry->name, "arguments", args);
	text = json_dumps(call, JSON_PRESERVE_ORDER);
	fprintf(f, "\nExample call (`tools/call` params):\n\n```json\n%s\n"
	    "```\n\nReply text:\n\n```text\n%s\n```\n",
	    text != NULL ? text : "", entry->example_reply);
	free(text);
	json_decref(call);
}

/* Writes one tool's section. */
static void
tools_md_tool(FILE *f, const struct tool *tool)
{
	const struct tool_entry	*entry = tool->entry;
	const json_t		*properties;
	const char		*key;
	json_t			*property;
	int			 first;

	fprintf(f, "\n## `%s`: %s\n\n%s\n\n", entry->name, entry->title,
	    entry->description);

	properties = json_object_get(tool->input_schema, "properties");
	if (json_object_size(properties) == 0)
		fputs("No arguments.\n", f);
	else {
		fputs("| Argument | Type | Required | Description |\n", f);
		fputs("| --- | --- | --- | --- |\n", f);
		tools_md_rows(f, tool->input_schema, NULL);
	}

	if (tool->output_schema != NULL) {
		fputs("\nStructured result (`structuredContent`): ", f);
		properties = json_object_get(tool->output_schema, "properties");
		first = 1;
		json_object_foreach((json_t *)properties, key, property) {
			fprintf(f, "%s`%s` (", first ? "" : ", ", key);
			tools_md_type(f, property);
			fputc(')', f);
			first = 0;
		}
		fputs(".\n", f);
	}

	fputc('\n', f);
	if (entry->timeout_argument != NULL) {
		fprintf(f, "Timeout: the `%s` argument + %d ms (%d ms without "
		    "it).", entry->timeout_argument, entry->timeout_ms,
		    tool_timeout_ms(tool, NULL));
	} else
		fprintf(f, "Timeout: %d ms.", tool_timeout_ms(tool, NULL));
	if (entry->handler != NULL)
		fputs(" Answered by the host.", f);
	else
		fprintf(f, " Extension method `%s`.", entry->method);
	if (entry->read_only)
		fputs(" Read-only.", f);
	fputc('\n', f);
	tools_md_example(f, entry);
}

/* Renders the catalogue as the text of docs/tools.md. */
char *
tool_registry_markdown(const struct tool_registry *registry)
{
	FILE	*f;
	char	*text = NULL;
	size_t	 size = 0, i;

	if ((f = open_memstream(&text, &size)) == NULL)
		return xstrdup("");

	fputs("<!--\n"
	    "Generated by tool_registry_markdown() in host/tools.c from the "
	    "catalogue\nin host/tools-*.c. Do not edit by hand: change the "
	    "catalogue, then run\n`REGENERATE_DOCS=1 tests/check-tools` in the "
	    "build directory to rewrite\nthis file (tests/check-tools fails "
	    "while it is out of date).\n"
	    "-->\n"
	    "# Tools\n\n"
	    "Browser Bridge serves these tools over MCP (`tools/list`, "
	    "`tools/call`).\n\n"
	    "- Times are in milliseconds.\n"
	    "- Tabs are named by integer `tab_id`s. Without one, a tool acts "
	    "on the\n  active tab.\n"
	    "- Elements are named by `ref`, a short string such as `e12` "
	    "handed out\n  by `get_browser_state` (and "
	    "`get_dom_extra_elements`). Refs go stale\n  when the page "
	    "changes: get the state again.\n"
	    "- Action tools take `include_state: true` to return the new page "
	    "state\n  with their result, saving a `get_browser_state` call.\n"
	    "- The host checks arguments against each input schema before "
	    "the call\n  reaches the browser; unknown arguments are "
	    "rejected.\n"
	    "- A tool that fails returns a normal result with `isError: true` "
	    "and one\n  text item `CODE: message`. The code is stable (see "
	    "[protocol.md](protocol.md)),\n  for example `"
	    ERR_ELEMENT_NOT_FOUND "`, `" ERR_STALE_REF "`, `" ERR_TAB_NOT_FOUND
	    "`,\n  `" ERR_NAVIGATION_FAILED "`, `" ERR_TIMEOUT "`, `"
	    ERR_INVALID_ARGUMENT "`,\n  `" ERR_EXTENSION_NOT_CONNECTED "` or `"
	    ERR_EXTENSION_DISCONNECTED "`; the message\n  says what to do "
	    "next.\n"
	    "- Timeout is how long the host waits for the extension before "
	    "it answers\n  `" ERR_TIMEOUT "`.\n", f);

	for (i = 0; i < registry->count; i++)
		tools_md_tool(f, &registry->tools[i]);

	if (fclose(f) != 0 || text == NULL) {
		free(text);
		return xstrdup("");
	}
	return text;
}
