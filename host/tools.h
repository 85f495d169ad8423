/*
 * The tool registry: the catalogue of tools, loaded once at start from the
 * data in catalogue/TOOL.json (embedded at build time), joined with the host
 * handlers that are code. The single source for tools/list, argument
 * checking, timeouts and forwarding.
 */
#ifndef TOOLS_H
#define TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define TOOL_DEFAULT_TIMEOUT_MS	30000

/* What a host-side tool may ask of the host. */
struct tool_host_context {
	/*
	 * Returns the host's status (a new object, as /health and doctor
	 * show it), or NULL with *cause (heap, "CODE: what to do") when no
	 * host runs.
	 */
	json_t	*(*status)(void *arg, char **cause);
	void	*arg;
};

/*
 * A host-side tool: returns a new MCP CallToolResult object. args has
 * already passed the input schema.
 */
typedef json_t *(*tool_host_handler)(const struct tool_host_context *host,
		    const json_t *args);

/* The code of a tool that the host answers itself (answered_by "host"). */
struct tool_handler_entry {
	const char		*name;
	tool_host_handler	 handler;
};

/* The host handlers, NULL-terminated; defined in tools-host.c. */
extern const struct tool_handler_entry tool_host_handlers[];

/*
 * A loaded tool. The strings and JSON values belong to the registry's
 * parsed catalogue.
 */
struct tool {
	const char		*name;
	const char		*title;
	const char		*description;
	const char		*method;	/* extension method, or NULL */
	tool_host_handler	 handler;	/* host handler, or NULL */
	int			 timeout_ms;	/* a margin with timeout_argument */
	/*
	 * When set and the call's arguments hold this integer (milliseconds),
	 * the timeout is that value plus timeout_ms (the margin) instead.
	 */
	const char		*timeout_argument;
	bool			 read_only;
	bool			 task_optional;	/* may run as an MCP task */
	unsigned		 scope;		/* OAUTH_SCOPE_*: who may call it */
	const json_t		*traits;	/* the extension's, or NULL */
	const json_t		*input_schema;
	const json_t		*output_schema;	/* NULL if none */
	const json_t		*example_call;	/* arguments, for tests */
	json_t			*listing;	/* its tools/list object */
};

struct tool_registry;

struct tool_registry	*tool_registry_new(char **cause);
struct tool_registry	*tool_registry_parse(const char *text, size_t length,
			    const struct tool_handler_entry *handlers,
			    char **cause);
void			 tool_registry_free(struct tool_registry *registry);
const struct tool	*tool_registry_find(const struct tool_registry *registry,
			    const char *name);
size_t			 tool_registry_count(const struct tool_registry *registry);
const struct tool	*tool_registry_at(const struct tool_registry *registry,
			    size_t index);
json_t			*tool_registry_list(const struct tool_registry *registry,
			    const char *cursor, size_t page_size,
			    unsigned scopes, char **cause);
json_t			*tool_registry_catalogue(const struct tool_registry *registry);
int			 tool_timeout_ms(const struct tool *tool,
			    const json_t *args);
int			 tool_check_arguments(const struct tool *tool,
			    const json_t *args, char **cause);

#endif
