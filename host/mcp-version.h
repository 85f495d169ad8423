/*
 * The legacy MCP protocol versions this host speaks, and which era a
 * session (or a stateless request's state) belongs to. A leaf: the other
 * mcp-* files ask it, it asks none of them.
 */
#ifndef MCP_VERSION_H
#define MCP_VERSION_H

#include <stdbool.h>

#include <jansson.h>

struct session;

bool		 mcp_version_supported(const char *version);
json_t		*mcp_version_legacy_list(void);
bool		 mcp_version_modern(const struct session *session);

#endif
