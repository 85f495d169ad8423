/*
 * The MCP server logic, independent of the HTTP transports: handles one
 * JSON-RPC message for a session and reports what answers it through a
 * callback, now or later (tool calls wait for the extension).
 */
#ifndef MCP_H
#define MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct log;
struct mcp;
struct mcp_call;
struct mcp_listener;
struct session;
struct session_store;
struct tool_host_context;
struct tool_registry;

#define MCP_LATEST_VERSION	"2025-11-25"
#define MCP_DEFAULT_VERSION	"2025-03-26"	/* header missing */
/* A tools/call _meta key: true keeps structuredContent (see docs/tools.md). */
#define MCP_META_STRUCTURED	"browser-bridge/structured"

/*
 * Delivers a message that answers a request (stolen). final is true for the
 * response, after which the callback is not called again; a final call with
 * a NULL message means the request was cancelled and gets no response.
 * Before it, progress notifications may come with final false.
 */
typedef void (*mcp_emit_cb)(json_t *message, bool final, void *arg);

/* Hands a notification (borrowed) to one session; see mcp_resources_updated. */
typedef void (*mcp_deliver_cb)(struct session *session, const json_t *message,
		    void *arg);

/*
 * A forwarded call's outcome, reported once unless it is cancelled: result
 * (borrowed) or error_code and error_message. The same shape as rpc.h's.
 */
typedef void (*mcp_done_cb)(const json_t *result, const char *error_code,
		    const char *error_message, void *arg);
/* A progress message from whoever answers the call (borrowed). */
typedef void (*mcp_progress_cb)(const json_t *progress, void *arg);

/* Who answers the calls MCP forwards (tools/call, resources/read). */
struct mcp_dispatcher {
	/*
	 * Starts a call for a client ("name version", or "" when it gave
	 * none) whose identity is caller (session_caller), owner when it
	 * came with the owner key; steals params. Returns its id (for cancel), or 0 when it
	 * cannot start, with *error_code (static) and *error_message (heap)
	 * set. done is never called from inside call.
	 */
	uint64_t	 (*call)(void *arg, const char *method,
			     const char *client, const char *caller,
			     bool owner, json_t *params,
			     int timeout_ms, mcp_done_cb done,
			     mcp_progress_cb progress, void *call_arg,
			     const char **error_code, char **error_message);
	/* Stops a started call; its done is never called. */
	void		 (*cancel)(void *arg, uint64_t id, const char *reason);
	void		*arg;
};

enum mcp_outcome {
	MCP_NO_REPLY,	/* a notification or a response: nothing to send */
	MCP_REPLIED,	/* emit was called with the final response already */
	MCP_PENDING,	/* emit will be called later; *call set */
};

struct mcp	*mcp_new(const struct tool_registry *tools,
		    size_t tools_page_size,
		    const struct mcp_dispatcher *dispatcher,
		    const struct tool_host_context *host,
		    struct session_store *sessions, struct log *log);
void		 mcp_free(struct mcp *mcp);
enum mcp_outcome mcp_handle(struct mcp *mcp, struct session *session,
		    const json_t *message, mcp_emit_cb emit, void *arg,
		    struct mcp_call **call);
void		 mcp_broadcast(struct mcp *mcp, const char *method);
/* Hands one listen-stream notification (borrowed) to its stream. */
typedef void (*mcp_listener_cb)(const json_t *message, void *arg);
struct mcp_listener *mcp_listen(struct mcp *mcp, const json_t *request,
		    mcp_listener_cb deliver, void *arg, json_t **reply);
void		 mcp_unlisten(struct mcp *mcp, struct mcp_listener *listener);
json_t		*mcp_initialize_refusal(const json_t *request);
bool		 mcp_wants_stream(const struct mcp *mcp,
		    const struct session *session, const json_t *message);
bool		 mcp_is_initialize(const json_t *message);
unsigned	 mcp_scope_needed(const struct mcp *mcp, const json_t *message);

#endif
