/*
 * The stdio bridge's answers while no host runs: the real MCP dispatch
 * (mcp.c) over the same catalogue, with a dispatcher that fails every
 * forwarded call with HOST_NOT_RUNNING and says how to start the host;
 * for legacy sessions and modern (2026-07-28) requests alike. It also
 * checks and acknowledges subscriptions/listen filters, which the relay
 * holds until a host carries their notifications.
 */
#ifndef STDIO_OFFLINE_H
#define STDIO_OFFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp.h"

struct log;
struct stdio_offline;
struct tool_registry;

struct stdio_offline	*stdio_offline_new(const struct tool_registry *tools,
			    size_t tools_page_size, struct log *log);
void			 stdio_offline_free(struct stdio_offline *offline);
const char		*stdio_offline_answer(struct stdio_offline *offline,
			    const json_t *message, bool lost, const char *why,
			    mcp_emit_cb emit, void *arg);
struct mcp_listener	*stdio_offline_listen(struct stdio_offline *offline,
			    const json_t *request, json_t **reply);
void			 stdio_offline_unlisten(struct stdio_offline *offline,
			    struct mcp_listener *listener);

#endif
