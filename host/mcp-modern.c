/* MCP 2026-07-28: request metadata, server/discover, result fields. */
#include "mcp-modern.h"

#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-version.h"
#include "mcp-tasks.h"

/* Methods whose results a client may cache (CacheableResult). */
static const char *const mcp_modern_cacheable[] = {
	"server/discover", "tools/list", "resources/list",
	"resources/templates/list", "resources/read",
};

/*
 * The protocol version a request's params._meta names, which makes it a
 * modern request; NULL when it names none (a legacy message).
 */
const char *
mcp_modern_version(const json_t *message)
{
	const json_t	*meta;

	meta = json_object_get(json_object_get(message, "params"), "_meta");
	return jsonrpc_string(json_object_get(meta, MCP_META_VERSION));
}

/* Whether the host serves a modern version (NULL names none). */
bool
mcp_modern_version_supported(const char *version)
{
	return version != NULL && strcmp(version, MCP_MODERN_VERSION) == 0;
}

/* The versions this host speaks, newest first: the modern one, then the legacy ones. */
static json_t *
mcp_modern_supported(void)
{
	json_t	*versions = mcp_version_legacy_list();

	json_array_insert_new(versions, 0, json_string(MCP_MODERN_VERSION));
	return versions;
}

/*
 * The field of params that a method's Mcp-Name header carries (the tool,
 * resource or task it names), or NULL when the method has none.
 */
const char *
mcp_modern_name_field(const char *method)
{
	if (method == NULL)
		return NULL;
	if (strcmp(method, "tools/call") == 0 ||
	    strcmp(method, "prompts/get") == 0)
		return "name";
	if (strcmp(method, "resources/read") == 0)
		return "uri";
	if (strcmp(method, "tasks/get") == 0 ||
	    strcmp(method, "tasks/update") == 0 ||
	    strcmp(method, "tasks/cancel") == 0)
		return "taskId";
	return NULL;
}

/*
 * The error a modern request gets before it is served, on any transport,
 * or NULL when it may be: the version it names must be one this host
 * speaks (UnsupportedProtocolVersionError), and its _meta must carry the
 * client's capabilities.
 */
json_t *
mcp_modern_refusal(const json_t *request)
{
	const json_t	*id = json_object_get(request, "id");
	const json_t	*meta;

	if (!mcp_modern_version_supported(mcp_modern_version(request)))
		return mcp_modern_unsupported(id, mcp_modern_version(request));
	meta = json_object_get(json_object_get(request, "params"), "_meta");
	if (!json_is_object(json_object_get(meta, MCP_META_CAPABILITIES))) {
		return jsonrpc_error(id, JSONRPC_INVALID_PARAMS, "Invalid "
		    "params: params._meta must carry " MCP_META_CAPABILITIES
		    " (an object; {} when the client has none)", NULL);
	}
	return NULL;
}

/* The UnsupportedProtocolVersionError for a request. */
json_t *
mcp_modern_unsupported(const json_t *id, const char *requested)
{
	return jsonrpc_error(id, MCP_UNSUPPORTED_VERSION,
	    "Unsupported protocol version", json_pack("{s:o,s:s}",
	    "supported", mcp_modern_supported(), "requested", requested));
}

/* The server/discover result (before mcp_modern_finish). */
json_t *
mcp_modern_discover(const char *instructions)
{
	return json_pack("{s:o,s:{s:{s:b},s:{s:b,s:b},s:{s:{}}},s:s}",
	    "supportedVersions", mcp_modern_supported(),
	    "capabilities", "tools", "listChanged", 1,
	    "resources", "listChanged", 1, "subscribe", 1,
	    "extensions", MCP_TASKS_EXTENSION,
	    "instructions", instructions);
}

/*
 * Adds what the revision requires of a result: resultType, the server's
 * identity in _meta, and for cacheable results the cache hints (never
 * fresh, since the extension may change what the host offers; private,
 * since a token guards it).
 */
void
mcp_modern_finish(json_t *result, const char *method)
{
	json_t	*meta;
	size_t	 i;

	if (!json_is_object(result))
		return;
	if (json_object_get(result, "resultType") == NULL)
		json_object_set_new(result, "resultType", json_string("complete"));
	if (!json_is_object(meta = json_object_get(result, "_meta"))) {
		meta = json_object();
		json_object_set_new(result, "_meta", meta);
	}
	json_object_set_new(meta, MCP_META_SERVER_INFO, json_pack(
	    "{s:s,s:s,s:s}", "name", "browser-bridge", "title",
	    "Browser Bridge", "version", PACKAGE_VERSION));
	for (i = 0; i < sizeof mcp_modern_cacheable /
	    sizeof *mcp_modern_cacheable; i++) {
		if (strcmp(method, mcp_modern_cacheable[i]) == 0) {
			json_object_set_new(result, "ttlMs", json_integer(0));
			json_object_set_new(result, "cacheScope",
			    json_string("private"));
		}
	}
}
