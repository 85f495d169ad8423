/* Offline answers: mcp.c with a dispatcher that says to open the browser. */
#include "stdio-offline.h"

#include <stdlib.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-modern.h"
#include "session.h"
#include "tools.h"
#include "xmalloc.h"

struct stdio_offline {
	struct session_store		*sessions;	/* empty: none */
	struct session			 session;	/* the client's */
	struct tool_host_context	 host;
	struct mcp			*mcp;
	bool				 lost;	/* the host left mid-request */
	const char			*why;	/* the last attempt's failure */
};

/* Says why there is no browser to drive and what to do about it. */
static char *
stdio_offline_advice(struct stdio_offline *offline)
{
	return xasprintf("%s Open the browser with the Browser Bridge "
	    "extension (the extension starts the host); this bridge connects "
	    "to it within a second, then call again. `browser-bridge doctor` "
	    "shows what is missing.%s%s", offline->lost ?
	    "The Browser Bridge host went away while this request was on its "
	    "way (was the browser closed?)." : "No Browser Bridge host is "
	    "running, so there is no browser to drive.",
	    offline->why != NULL ? " Last attempt: " : "",
	    offline->why != NULL ? offline->why : "");
}

/* Fails a forwarded call at once: no host, no extension. */
static uint64_t
stdio_offline_call(void *arg, const char *method, const char *client,
    const char *caller, bool owner, json_t *params, int timeout_ms,
    mcp_done_cb done, mcp_progress_cb progress, void *call_arg,
    const char **error_code, char **error_message)
{
	json_decref(params);
	*error_code = ERR_HOST_NOT_RUNNING;
	*error_message = stdio_offline_advice(arg);
	return 0;
}

/* Nothing was started, so nothing is cancelled. */
static void
stdio_offline_cancel(void *arg, uint64_t id, const char *reason)
{
}

/* The host's status for host_status: there is none. */
static json_t *
stdio_offline_status(void *arg, char **cause)
{
	char	*advice = stdio_offline_advice(arg);

	*cause = xasprintf("%s: %s", ERR_HOST_NOT_RUNNING, advice);
	free(advice);
	return NULL;
}

/* Makes the offline MCP server over the catalogue. */
struct stdio_offline *
stdio_offline_new(const struct tool_registry *tools, size_t tools_page_size,
    struct log *log)
{
	struct stdio_offline	*offline = xcalloc(1, sizeof *offline);
	struct mcp_dispatcher	 dispatcher = {
		.call = stdio_offline_call,
		.cancel = stdio_offline_cancel,
		.arg = offline,
	};

	offline->sessions = session_store_new(0, 0, NULL, NULL);
	TAILQ_INIT(&offline->session.calls);
	session_grant_owner(&offline->session.grant);	/* the token's holder */
	offline->host.status = stdio_offline_status;
	offline->host.arg = offline;
	offline->mcp = mcp_new(tools, tools_page_size, &dispatcher,
	    &offline->host, offline->sessions, log);
	return offline;
}

/* Frees the offline server. */
void
stdio_offline_free(struct stdio_offline *offline)
{
	if (offline == NULL)
		return;
	session_store_free(offline->sessions);
	mcp_free(offline->mcp);
	free(offline);
}

/*
 * Answers a modern (2026-07-28) request here in a state of its own, as
 * the host answers one over HTTP: refused when its version or _meta is
 * not served, else handled for the client its _meta names.
 */
static void
stdio_offline_answer_modern(struct stdio_offline *offline,
    const json_t *message, mcp_emit_cb emit, void *arg)
{
	struct session	*session;
	struct mcp_call	*call;
	json_t		*refusal;

	if ((refusal = mcp_modern_refusal(message)) != NULL) {
		emit(refusal, true, arg);
		return;
	}
	session = session_stateless_new(mcp_modern_version(message));
	session_set_client(session, json_object_get(json_object_get(
	    json_object_get(message, "params"), "_meta"), MCP_META_CLIENT_INFO));
	mcp_handle(offline->mcp, session, message, emit, arg, &call);
	session_stateless_free(session);
}

/*
 * Answers one client message here through emit. lost says the host went
 * away during the request; why (or NULL) is what the last attempt to reach
 * one found. Returns the protocol version an initialize agreed, or NULL.
 */
const char *
stdio_offline_answer(struct stdio_offline *offline, const json_t *message,
    bool lost, const char *why, mcp_emit_cb emit, void *arg)
{
	struct mcp_call	*call;

	offline->lost = lost;
	offline->why = why;
	if (mcp_modern_version(message) != NULL) {
		stdio_offline_answer_modern(offline, message, emit, arg);
		offline->why = NULL;
		return NULL;
	}
	offline->session.protocol_version[0] = '\0';
	mcp_handle(offline->mcp, &offline->session, message, emit, arg, &call);
	offline->why = NULL;
	if (offline->session.protocol_version[0] == '\0')
		return NULL;
	return offline->session.protocol_version;
}

/* Delivers nothing: a held listen hears its notifications from the host. */
static void
stdio_offline_deliver(const json_t *message, void *arg)
{
}

/*
 * Opens a subscriptions/listen request's filter here, with or without a
 * host: returns its listener, with the acknowledgement in *reply, or NULL
 * with the error in *reply (a malformed filter, too many streams).
 */
struct mcp_listener *
stdio_offline_listen(struct stdio_offline *offline, const json_t *request,
    json_t **reply)
{
	if ((*reply = mcp_modern_refusal(request)) != NULL)
		return NULL;
	return mcp_listen(offline->mcp, request, stdio_offline_deliver, NULL,
	    reply);
}

/* Closes a listener stdio_offline_listen opened. */
void
stdio_offline_unlisten(struct stdio_offline *offline,
    struct mcp_listener *listener)
{
	mcp_unlisten(offline->mcp, listener);
}
