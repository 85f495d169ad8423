/* The legacy protocol versions, newest first, and the era of a session. */
#include "mcp-version.h"

#include <string.h>

#include "mcp-modern.h"
#include "session.h"

static const char *const mcp_version_legacy[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

/* Returns whether this host speaks a legacy MCP protocol version. */
bool
mcp_version_supported(const char *version)
{
	size_t	i;

	for (i = 0; i < sizeof mcp_version_legacy / sizeof *mcp_version_legacy;
	    i++) {
		if (strcmp(version, mcp_version_legacy[i]) == 0)
			return true;
	}
	return false;
}

/* The legacy versions this host speaks, newest first (a new array). */
json_t *
mcp_version_legacy_list(void)
{
	json_t	*versions = json_array();
	size_t	 i;

	for (i = 0; i < sizeof mcp_version_legacy / sizeof *mcp_version_legacy;
	    i++)
		json_array_append_new(versions,
		    json_string(mcp_version_legacy[i]));
	return versions;
}

/* Returns whether a session (or stateless request) is of the modern era. */
bool
mcp_version_modern(const struct session *session)
{
	return strcmp(session->protocol_version, MCP_MODERN_VERSION) == 0;
}
