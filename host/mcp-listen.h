/*
 * subscriptions/listen (MCP 2026-07-28): a modern client opens a stream
 * for the change notifications it wants (tools and resource lists changed,
 * resources updated), since the revision has no sessions and no GET stream
 * to carry them. Each listener holds its filter; the transport owns the
 * stream and delivers what notify hands it.
 */
#ifndef MCP_LISTEN_H
#define MCP_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* At most this many listen streams are open at once. */
#define MCP_LISTENERS_MAX	64

#define MCP_META_SUBSCRIPTION	"io.modelcontextprotocol/subscriptionId"

#include "mcp.h"	/* mcp_listener_cb */

struct mcp_listeners;

struct mcp_listeners	*mcp_listeners_new(void);
void			 mcp_listeners_free(struct mcp_listeners *listeners);
struct mcp_listener	*mcp_listeners_open(struct mcp_listeners *listeners,
			    const json_t *request, bool tasks_declared,
			    mcp_listener_cb deliver, void *arg,
			    json_t **reply);
void			 mcp_listeners_close(struct mcp_listeners *listeners,
			    struct mcp_listener *listener);
size_t			 mcp_listeners_notify(struct mcp_listeners *listeners,
			    const char *method, const json_t *params);

#endif
