/*
 * MCP 2026-07-28, the stateless revision: each request names its protocol
 * version and the client's capabilities in params._meta instead of an
 * initialize handshake, server/discover describes the server, and every
 * result says its resultType. mcp.c serves both eras; this file holds what
 * is particular to the modern one.
 */
#ifndef MCP_MODERN_H
#define MCP_MODERN_H

#include <stdbool.h>

#include <jansson.h>

#define MCP_MODERN_VERSION	"2026-07-28"
#define MCP_META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPABILITIES	"io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT_INFO	"io.modelcontextprotocol/clientInfo"
#define MCP_META_SERVER_INFO	"io.modelcontextprotocol/serverInfo"

/* Errors the revision defines (-32020 and on). */
#define MCP_HEADER_MISMATCH		-32020
#define MCP_UNSUPPORTED_VERSION		-32022

const char	*mcp_modern_version(const json_t *message);
bool		 mcp_modern_version_supported(const char *version);
json_t		*mcp_modern_unsupported(const json_t *id, const char *requested);
json_t		*mcp_modern_refusal(const json_t *request);
const char	*mcp_modern_name_field(const char *method);
json_t		*mcp_modern_discover(const char *instructions);
void		 mcp_modern_finish(json_t *result, const char *method);

#endif
