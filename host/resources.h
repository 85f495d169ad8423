/*
 * The MCP resources the host offers. Each is read through the extension's
 * "read_resource" method, so the data is always fresh.
 */
#ifndef RESOURCES_H
#define RESOURCES_H

#include <jansson.h>

#define RESOURCES_COUNT	3

json_t	*resources_list(void);
int	 resources_index(const char *uri);

#endif
