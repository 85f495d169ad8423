/*
 * The MCP server logic, independent of the HTTP transports: handles one
 * JSON-RPC message for a session and reports what answers it through a
 * callback, now or later (tool calls wait for the extension).
 */
#ifndef MCP_H
#define MCP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct bridge;
struct mcp;
struct mcp_call;
struct session;

#define MCP_LATEST_VERSION	"2025-11-25"
#define MCP_DEFAULT_VERSION	"2025-03-26"	/* header missing */

/*
 * Delivers a message that answers a request (stolen). final is true for the
 * response, after which the callback is not called again; a final call with
 * a NULL message means the request was cancelled and gets no response.
 * Before it, progress notifications may come with final false.
 */
typedef void (*mcp_emit_cb)(json_t *message, bool final, void *arg);

/* Hands a notification (borrowed) to one session; see mcp_resource_updated. */
typedef void (*mcp_deliver_cb)(struct session *session, const json_t *message,
		    void *arg);

enum mcp_outcome {
	MCP_NO_REPLY,	/* a notification or a response: nothing to send */
	MCP_REPLIED,	/* emit was called with the final response already */
	MCP_PENDING,	/* emit will be called later; *call set */
};

struct mcp	*mcp_new(struct bridge *bridge);
void		 mcp_free(struct mcp *mcp);
enum mcp_outcome mcp_handle(struct mcp *mcp, struct session *session,
		    const json_t *message, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call);
void		 mcp_call_abandon(struct mcp *mcp, struct mcp_call *call);
void		 mcp_session_ended(struct mcp *mcp, struct session *session);
void		 mcp_broadcast(struct mcp *mcp, const char *method);
size_t		 mcp_resource_updated(struct mcp *mcp, const char *uri,
		    mcp_deliver_cb deliver, void *arg);
bool		 mcp_version_supported(const char *version);
const char	*mcp_negotiate_version(const char *asked);
json_t		*mcp_initialize_result(const char *version);
bool		 mcp_wants_progress(const json_t *message);
bool		 mcp_is_initialize(const json_t *message);

#endif
