/*
 * The tool catalogue: one table of entries, the single source for
 * tools/list, argument checking and forwarding. Each tools-*.c file defines
 * the entries of one small group; tools.c lists them all in one table.
 */
#ifndef TOOLS_H
#define TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct bridge;

#define TOOL_DEFAULT_TIMEOUT_MS	30000

/*
 * A host-side tool: returns a new MCP CallToolResult object. args has
 * already passed the input schema.
 */
typedef json_t *(*tool_host_handler)(struct bridge *bridge,
		    const json_t *args);

struct tool_entry {
	const char		*name;
	const char		*title;
	const char		*description;
	const char		*input_schema;	/* JSON text */
	const char		*output_schema;	/* JSON text or NULL */
	int			 timeout_ms;	/* 0: TOOL_DEFAULT_TIMEOUT_MS */
	/*
	 * When set and the call's arguments hold this integer (milliseconds),
	 * the timeout is that value plus timeout_ms (the margin) instead.
	 */
	const char		*timeout_argument;
	bool			 read_only;	/* annotations.readOnlyHint */
	const char		*method;	/* extension method, or NULL */
	tool_host_handler	 handler;	/* host handler, or NULL */
	/* For docs/tools.md only, never in tools/list: */
	const char		*example_call;	/* JSON text of the arguments */
	const char		*example_reply;	/* the text a model sees */
};

/* A loaded tool: the entry plus its parsed schemas. */
struct tool {
	const struct tool_entry	*entry;
	json_t			*input_schema;
	json_t			*output_schema;	/* NULL if none */
	json_t			*listing;	/* its tools/list object */
};

struct tool_registry;

struct tool_registry	*tool_registry_new(char **cause);
void			 tool_registry_free(struct tool_registry *registry);
const struct tool	*tool_registry_find(const struct tool_registry *registry,
			    const char *name);
size_t			 tool_registry_count(const struct tool_registry *registry);
const struct tool	*tool_registry_at(const struct tool_registry *registry,
			    size_t index);
json_t			*tool_registry_list(const struct tool_registry *registry,
			    const char *cursor, size_t page_size, char **cause);
int			 tool_timeout_ms(const struct tool *tool,
			    const json_t *args);
int			 tool_check_arguments(const struct tool *tool,
			    const json_t *args, char **cause);
char			*tool_registry_markdown(const struct tool_registry *registry);

/*
 * Input schema fragments shared by the groups (JSON text, one property
 * each), so an argument reads the same in every tool that takes it.
 */
#define TOOL_ARG_TAB_ID \
	"\"tab_id\":{\"type\":\"integer\"}"
#define TOOL_ARG_REF \
	"\"ref\":{\"type\":\"string\"}"
#define TOOL_ARG_REF_ABOUT(description) \
	"\"ref\":{\"type\":\"string\",\"description\":\"" description "\"}"
#define TOOL_ARG_INCLUDE_STATE \
	"\"include_state\":{\"type\":\"boolean\"}"

/* The groups, each defined in its own tools-*.c file. */
extern const struct tool_entry tools_navigation[];
extern const struct tool_entry tools_state[];
extern const struct tool_entry tools_input[];
extern const struct tool_entry tools_tabs[];
extern const struct tool_entry tools_content[];
extern const struct tool_entry tools_wait[];
extern const struct tool_entry tools_task[];
extern const struct tool_entry tools_host[];

#endif
