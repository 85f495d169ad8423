/*
 * The resource methods, as mcp.c's method table calls them, and the
 * notification that a resource changed.
 */
#ifndef MCP_RESOURCES_H
#define MCP_RESOURCES_H

#include <stddef.h>

#include <jansson.h>

#include "mcp.h"

json_t		*mcp_resources_list(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
json_t		*mcp_resources_templates(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
json_t		*mcp_resources_read(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
json_t		*mcp_resources_subscribe(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
json_t		*mcp_resources_unsubscribe(struct mcp *mcp,
		    struct session *session, const json_t *request,
		    const json_t *params, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call, json_t **error);
size_t		 mcp_resources_updated(struct mcp *mcp, const char *uri,
		    mcp_deliver_cb deliver, void *arg);

#endif
