/* The resource table: browser tabs, the current page state, its DOM state. */
#include "resources.h"

#include <stddef.h>
#include <string.h>

struct resource_entry {
	const char	*uri;
	const char	*name;
	const char	*description;
	const char	*mime_type;
};

static const struct resource_entry resources[] = {
	{ "browser://tabs", "tabs",
	  "Open tabs: id, title, URL, which is active.", "application/json" },
	{ "browser://current/state", "current-state",
	  "The active tab's page state: URL, title, scroll, interactive "
	  "elements with refs.", "text/plain" },
	{ "browser://dom/state", "dom-state",
	  "The active tab's full element list as structured JSON.",
	  "application/json" },
};
_Static_assert(sizeof resources / sizeof *resources == RESOURCES_COUNT,
    "RESOURCES_COUNT must match the table");

/* Returns the resources/list result. */
json_t *
resources_list(void)
{
	json_t	*list = json_array();
	size_t	 i;

	for (i = 0; i < sizeof resources / sizeof *resources; i++) {
		json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s}",
		    "uri", resources[i].uri, "name", resources[i].name,
		    "description", resources[i].description,
		    "mimeType", resources[i].mime_type));
	}
	return json_pack("{s:o}", "resources", list);
}

/* Returns uri's index in the table (below RESOURCES_COUNT), or -1. */
int
resources_index(const char *uri)
{
	size_t	i;

	for (i = 0; i < sizeof resources / sizeof *resources; i++) {
		if (strcmp(uri, resources[i].uri) == 0)
			return (int)i;
	}
	return -1;
}
