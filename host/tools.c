/*
 * The tool registry: parses the catalogue once (checking every field and
 * schema, so a mistake in catalogue/TOOL.json fails at start-up and in
 * check-tools), joins it with the host handlers, answers tools/list pages,
 * checks arguments and works out each call's timeout.
 */
#include "tools.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauth-scope.h"
#include "schema.h"
#include "xmalloc.h"

/* The catalogue as one JSON array, generated from catalogue/TOOL.json. */
extern const unsigned char	catalogue_json[];
extern const size_t		catalogue_json_length;

struct tool_registry {
	json_t		*catalogue;	/* the parsed data the tools point into */
	struct tool	*tools;
	size_t		 count;
};

/* The annotations every tool sets, and their values when absent in MCP. */
static const struct {
	const char	*name;
	bool		 absent;
	bool		 writers_only;	/* meaningless when read-only */
} tools_annotations[] = {
	{ "readOnlyHint", false, false },
	{ "destructiveHint", true, true },
	{ "idempotentHint", false, true },
	{ "openWorldHint", true, false },
};

/*
 * The traits an extension tool may set ("traits": {"name": true, ...}):
 * how the extension's dispatcher treats the call (dispatcher.js reads
 * them from the welcome's catalogue). Absent means false.
 */
static const char *const tools_traits[] = {
	"watches_dialogs",	/* may open a dialog: dialogs watched first */
	"leaves_page",		/* takes the tab off its page: any page */
	"runs_under_dialog",	/* works while a dialog blocks the page */
};

/* Returns a string field of a tool, or NULL after *cause if required. */
static const char *
tools_string(const json_t *data, const char *key, bool required,
    const char *name, char **cause)
{
	const json_t	*value = json_object_get(data, key);

	if (value == NULL && !required)
		return NULL;
	if (!json_is_string(value) || json_string_length(value) == 0) {
		*cause = xasprintf("tool \"%s\": \"%s\" must be a non-empty "
		    "string", name, key);
		return NULL;
	}
	return json_string_value(value);
}

/* Checks one schema of a tool: valid, of our subset, an object at root. */
static int
tools_check_schema(const json_t *schema, const char *name, const char *what,
    char **cause)
{
	const char	*type;
	char		*why;

	if (!json_is_object(schema)) {
		*cause = xasprintf("tool \"%s\": %s must be an object", name,
		    what);
		return -1;
	}
	if (schema_check(schema, &why) != 0) {
		*cause = xasprintf("tool \"%s\": %s: %s", name, what, why);
		free(why);
		return -1;
	}
	type = json_string_value(json_object_get(schema, "type"));
	if (type == NULL || strcmp(type, "object") != 0) {
		*cause = xasprintf("tool \"%s\": %s must have type object",
		    name, what);
		return -1;
	}
	return 0;
}

/*
 * Builds a tool's tools/list object. Annotations that equal the value MCP
 * assumes when they are absent are left out, to keep the list small, and
 * so are the two that MCP reads only for tools that are not read-only.
 */
static json_t *
tools_listing(const struct tool *tool, const json_t *annotations)
{
	json_t	*listing, *hints;
	size_t	 i;
	bool	 value;

	listing = json_object();
	json_object_set_new(listing, "name", json_string(tool->name));
	json_object_set_new(listing, "title", json_string(tool->title));
	json_object_set_new(listing, "description",
	    json_string(tool->description));
	json_object_set(listing, "inputSchema", (json_t *)tool->input_schema);
	if (tool->output_schema != NULL) {
		json_object_set(listing, "outputSchema",
		    (json_t *)tool->output_schema);
	}
	hints = json_object();
	for (i = 0; i < sizeof tools_annotations / sizeof *tools_annotations;
	    i++) {
		value = json_is_true(json_object_get(annotations,
		    tools_annotations[i].name));
		if (tool->read_only && tools_annotations[i].writers_only)
			continue;
		if (value != tools_annotations[i].absent) {
			json_object_set_new(hints, tools_annotations[i].name,
			    json_boolean(value));
		}
	}
	if (json_object_size(hints) != 0)
		json_object_set_new(listing, "annotations", hints);
	else
		json_decref(hints);
	if (tool->task_optional) {
		json_object_set_new(listing, "execution",
		    json_pack("{s:s}", "taskSupport", "optional"));
	}
	return listing;
}

/* Reads the annotations: every hint present and boolean. */
static int
tools_load_annotations(struct tool *tool, const json_t *annotations,
    char **cause)
{
	size_t	i;

	if (!json_is_object(annotations) || json_object_size(annotations) !=
	    sizeof tools_annotations / sizeof *tools_annotations)
		goto fail;
	for (i = 0; i < sizeof tools_annotations / sizeof *tools_annotations;
	    i++) {
		if (!json_is_boolean(json_object_get(annotations,
		    tools_annotations[i].name)))
			goto fail;
	}
	tool->read_only = json_is_true(json_object_get(annotations,
	    "readOnlyHint"));
	return 0;

fail:
	*cause = xasprintf("tool \"%s\": \"annotations\" must set exactly "
	    "readOnlyHint, destructiveHint, idempotentHint and openWorldHint "
	    "to true or false", tool->name);
	return -1;
}

/* Reads who answers a tool: an extension method or a host handler. */
static int
tools_load_answerer(struct tool *tool, const json_t *data,
    const struct tool_handler_entry *handlers, char **cause)
{
	const char	*answered_by;
	size_t		 i;

	answered_by = json_string_value(json_object_get(data, "answered_by"));
	if (answered_by != NULL && strcmp(answered_by, "extension") == 0) {
		tool->method = tools_string(data, "method", true, tool->name,
		    cause);
		return tool->method != NULL ? 0 : -1;
	}
	if (answered_by == NULL || strcmp(answered_by, "host") != 0) {
		*cause = xasprintf("tool \"%s\": \"answered_by\" must be "
		    "\"host\" or \"extension\"", tool->name);
		return -1;
	}
	if (json_object_get(data, "method") != NULL) {
		*cause = xasprintf("tool \"%s\": a host tool has no \"method\"",
		    tool->name);
		return -1;
	}
	for (i = 0; handlers[i].name != NULL; i++) {
		if (strcmp(handlers[i].name, tool->name) == 0) {
			tool->handler = handlers[i].handler;
			return 0;
		}
	}
	*cause = xasprintf("tool \"%s\": answered by the host, but the host "
	    "has no handler for it", tool->name);
	return -1;
}

/* Reads the timeout and the argument that extends it. */
static int
tools_load_timeout(struct tool *tool, const json_t *data, char **cause)
{
	const json_t	*value, *property;
	const char	*type;

	value = json_object_get(data, "timeout_ms");
	if (value != NULL && (!json_is_integer(value) ||
	    json_integer_value(value) <= 0 ||
	    json_integer_value(value) > INT_MAX / 2)) {
		*cause = xasprintf("tool \"%s\": \"timeout_ms\" must be a "
		    "positive integer", tool->name);
		return -1;
	}
	tool->timeout_ms = value != NULL ? (int)json_integer_value(value) : 0;
	if (json_object_get(data, "timeout_argument") == NULL)
		return 0;
	tool->timeout_argument = tools_string(data, "timeout_argument", true,
	    tool->name, cause);
	if (tool->timeout_argument == NULL)
		return -1;
	property = json_object_get(json_object_get(tool->input_schema,
	    "properties"), tool->timeout_argument);
	type = json_string_value(json_object_get(property, "type"));
	if (type == NULL || strcmp(type, "integer") != 0) {
		*cause = xasprintf("tool \"%s\": timeout argument \"%s\" is not "
		    "an integer argument", tool->name, tool->timeout_argument);
		return -1;
	}
	return 0;
}

/* Reads the OAuth scope a client's key needs to see and call the tool. */
static int
tools_load_scope(struct tool *tool, const json_t *data, char **cause)
{
	const char	*name = json_string_value(json_object_get(data, "scope"));

	if (name == NULL || (tool->scope = oauth_scope_bit(name)) == 0) {
		*cause = xasprintf("tool \"%s\": \"scope\" must be one of "
		    "pages:read, pages:act, tasks, network and scripts",
		    tool->name);
		return -1;
	}
	return 0;
}

/* Reads whether a tool may run as an MCP task ("optional", or "forbidden"). */
static int
tools_load_task_support(struct tool *tool, const json_t *data, char **cause)
{
	const json_t	*value = json_object_get(data, "task_support");

	if (value == NULL || (json_is_string(value) &&
	    strcmp(json_string_value(value), "forbidden") == 0))
		return 0;
	if (json_is_string(value) &&
	    strcmp(json_string_value(value), "optional") == 0) {
		tool->task_optional = true;
		return 0;
	}
	*cause = xasprintf("tool \"%s\": \"task_support\" must be "
	    "\"optional\" or \"forbidden\"", tool->name);
	return -1;
}

/* Sets *cause for an unknown trait, naming the known ones. */
static void
tools_unknown_trait(const struct tool *tool, const char *key, char **cause)
{
	char	*known = NULL, *more;
	size_t	 i;

	for (i = 0; i < sizeof tools_traits / sizeof *tools_traits; i++) {
		more = xasprintf("%s%s%s", known != NULL ? known : "",
		    known != NULL ? ", " : "", tools_traits[i]);
		free(known);
		known = more;
	}
	*cause = xasprintf("tool \"%s\": unknown trait \"%s\" (the known "
	    "traits are %s)", tool->name, key, known);
	free(known);
}

/* Reads the traits: an extension tool's, each a known name set to a boolean. */
static int
tools_load_traits(struct tool *tool, const json_t *data, char **cause)
{
	const json_t	*traits = json_object_get(data, "traits"), *value;
	const char	*key;
	size_t		 i;

	if (traits == NULL)
		return 0;
	if (tool->method == NULL) {
		*cause = xasprintf("tool \"%s\": a host tool has no \"traits\"",
		    tool->name);
		return -1;
	}
	if (!json_is_object(traits)) {
		*cause = xasprintf("tool \"%s\": \"traits\" must be an object",
		    tool->name);
		return -1;
	}
	json_object_foreach((json_t *)traits, key, value) {
		for (i = 0; i < sizeof tools_traits / sizeof *tools_traits; i++) {
			if (strcmp(key, tools_traits[i]) == 0)
				break;
		}
		if (i == sizeof tools_traits / sizeof *tools_traits) {
			tools_unknown_trait(tool, key, cause);
			return -1;
		}
		if (!json_is_boolean(value)) {
			*cause = xasprintf("tool \"%s\": trait \"%s\" must be "
			    "true or false", tool->name, key);
			return -1;
		}
	}
	tool->traits = traits;
	return 0;
}

/* Reads the example: arguments that pass the schema, and a reply. */
static int
tools_load_example(struct tool *tool, const json_t *data, char **cause)
{
	const json_t	*example = json_object_get(data, "example");
	char		*why;

	tool->example_call = json_object_get(example, "call");
	if (!json_is_object(tool->example_call) ||
	    !json_is_string(json_object_get(example, "reply"))) {
		*cause = xasprintf("tool \"%s\": \"example\" needs a \"call\" "
		    "object and a \"reply\" string", tool->name);
		return -1;
	}
	if (schema_validate(tool->input_schema, tool->example_call, &why) != 0) {
		*cause = xasprintf("tool \"%s\": the example call fails the "
		    "input schema: %s", tool->name, why);
		free(why);
		return -1;
	}
	return 0;
}

/* Loads one tool from its data; the listing is built last. */
static int
tools_load(struct tool *tool, const json_t *data,
    const struct tool_handler_entry *handlers, char **cause)
{
	memset(tool, 0, sizeof *tool);
	if (!json_is_object(data)) {
		*cause = xstrdup("the catalogue holds something other than a "
		    "tool object");
		return -1;
	}
	if ((tool->name = tools_string(data, "name", true, "?", cause)) == NULL)
		return -1;
	if ((tool->title = tools_string(data, "title", true, tool->name,
	    cause)) == NULL ||
	    (tool->description = tools_string(data, "description", true,
	    tool->name, cause)) == NULL ||
	    tools_load_answerer(tool, data, handlers, cause) != 0 ||
	    tools_load_scope(tool, data, cause) != 0)
		return -1;

	tool->input_schema = json_object_get(data, "input_schema");
	if (tools_check_schema(tool->input_schema, tool->name, "input schema",
	    cause) != 0)
		return -1;
	if (!json_is_false(json_object_get(tool->input_schema,
	    "additionalProperties"))) {
		*cause = xasprintf("tool \"%s\": input schema must set "
		    "additionalProperties to false", tool->name);
		return -1;
	}
	tool->output_schema = json_object_get(data, "output_schema");
	if (tool->output_schema != NULL && tools_check_schema(
	    tool->output_schema, tool->name, "output schema", cause) != 0)
		return -1;

	if (tools_load_annotations(tool, json_object_get(data, "annotations"),
	    cause) != 0 ||
	    tools_load_timeout(tool, data, cause) != 0 ||
	    tools_load_task_support(tool, data, cause) != 0 ||
	    tools_load_traits(tool, data, cause) != 0 ||
	    tools_load_example(tool, data, cause) != 0)
		return -1;
	tool->listing = tools_listing(tool, json_object_get(data,
	    "annotations"));
	return 0;
}

/* Fails when a host handler has no tool in the catalogue. */
static int
tools_check_handlers_used(const struct tool_registry *registry,
    const struct tool_handler_entry *handlers, char **cause)
{
	size_t	i;

	for (i = 0; handlers[i].name != NULL; i++) {
		if (tool_registry_find(registry, handlers[i].name) == NULL) {
			*cause = xasprintf("host handler \"%s\" has no tool in "
			    "the catalogue", handlers[i].name);
			return -1;
		}
	}
	return 0;
}

/* Loads a catalogue from JSON text (an array of tools) and handlers. */
struct tool_registry *
tool_registry_parse(const char *text, size_t length,
    const struct tool_handler_entry *handlers, char **cause)
{
	struct tool_registry	*registry;
	json_error_t		 error;
	json_t			*data;
	size_t			 i;

	registry = xcalloc(1, sizeof *registry);
	registry->catalogue = json_loadb(text, length, JSON_REJECT_DUPLICATES,
	    &error);
	if (!json_is_array(registry->catalogue)) {
		*cause = xasprintf("the tool catalogue is not a JSON array: %s "
		    "(line %d)", error.text, error.line);
		goto fail;
	}
	registry->tools = xcalloc(json_array_size(registry->catalogue) + 1,
	    sizeof *registry->tools);
	json_array_foreach(registry->catalogue, i, data) {
		if (tools_load(&registry->tools[i], data, handlers, cause) != 0)
			goto fail;
		if (tool_registry_find(registry, registry->tools[i].name) !=
		    NULL) {
			*cause = xasprintf("tool \"%s\" is listed twice",
			    registry->tools[i].name);
			json_decref(registry->tools[i].listing);
			goto fail;
		}
		registry->count++;
	}
	if (tools_check_handlers_used(registry, handlers, cause) != 0)
		goto fail;
	return registry;

fail:
	tool_registry_free(registry);
	return NULL;
}

/* Loads the catalogue built into the program. */
struct tool_registry *
tool_registry_new(char **cause)
{
	return tool_registry_parse((const char *)catalogue_json,
	    catalogue_json_length,
	    tool_host_handlers, cause);
}

/* Frees the registry. */
void
tool_registry_free(struct tool_registry *registry)
{
	size_t	i;

	if (registry == NULL)
		return;
	for (i = 0; i < registry->count; i++)
		json_decref(registry->tools[i].listing);
	free(registry->tools);
	json_decref(registry->catalogue);
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
		if (strcmp(registry->tools[i].name, name) == 0)
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

/*
 * Returns a tools/list result of the tools the scopes allow: one page from
 * cursor, or all if page_size is 0.
 */
json_t *
tool_registry_list(const struct tool_registry *registry, const char *cursor,
    size_t page_size, unsigned scopes, char **cause)
{
	json_t	*result, *tools;
	size_t	 i, start, listed = 0;
	char	*next;

	if (tools_parse_cursor(registry, cursor, &start, cause) != 0)
		return NULL;
	tools = json_array();
	for (i = start; i < registry->count &&
	    (page_size == 0 || listed < page_size); i++) {
		if ((registry->tools[i].scope & scopes) == 0)
			continue;
		json_array_append(tools, registry->tools[i].listing);
		listed++;
	}
	while (i < registry->count && (registry->tools[i].scope & scopes) == 0)
		i++;
	result = json_object();
	json_object_set_new(result, "tools", tools);
	if (i < registry->count) {
		next = xasprintf("%zu", i);
		json_object_set_new(result, "nextCursor", json_string(next));
		free(next);
	}
	return result;
}

/*
 * Returns how long the host waits for the extension to answer a call.
 * With a timeout argument, the tool's timeout_ms is a margin on top of
 * the caller's value, or of the default when the caller gives none, so
 * the extension times out first and says why.
 */
int
tool_timeout_ms(const struct tool *tool, const json_t *args)
{
	const json_t	*value;
	json_int_t	 wanted;

	if (tool->timeout_argument == NULL) {
		if (tool->timeout_ms > 0)
			return tool->timeout_ms;
		return TOOL_DEFAULT_TIMEOUT_MS;
	}
	value = json_object_get(args, tool->timeout_argument);
	if (!json_is_integer(value) || json_integer_value(value) < 0)
		return TOOL_DEFAULT_TIMEOUT_MS + tool->timeout_ms;
	wanted = json_integer_value(value);
	if (wanted > INT_MAX - tool->timeout_ms)
		return INT_MAX;
	return (int)wanted + tool->timeout_ms;
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

/*
 * Returns the catalogue for the extension's welcome: each tool's tools/list
 * object, plus the OAuth scope a key needs for it (the agents of an OAuth
 * client's task keep to its key's scopes), the extension method that
 * answers it and its traits, if any.
 */
json_t *
tool_registry_catalogue(const struct tool_registry *registry)
{
	json_t	*catalogue, *item;
	size_t	 i;

	catalogue = json_array();
	for (i = 0; i < registry->count; i++) {
		item = json_copy(registry->tools[i].listing);
		json_object_set_new(item, "scope",
		    json_string(oauth_scope_name(registry->tools[i].scope)));
		if (registry->tools[i].method != NULL) {
			json_object_set_new(item, "method",
			    json_string(registry->tools[i].method));
		}
		if (registry->tools[i].traits != NULL) {
			json_object_set_new(item, "traits",
			    json_deep_copy(registry->tools[i].traits));
		}
		json_array_append_new(catalogue, item);
	}
	return catalogue;
}
