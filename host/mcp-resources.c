/*
 * The resource methods (list, templates, read, subscribe, unsubscribe) and
 * notifications/resources/updated to the sessions and listen streams
 * subscribed to a resource; resources.c holds the table.
 */
#include "mcp-resources.h"

#include <stdlib.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-call.h"
#include "mcp-listen.h"
#include "mcp-method.h"
#include "mcp-modern.h"
#include "mcp-reply.h"
#include "mcp-version.h"
#include "resources.h"
#include "session.h"
#include "sse-stream.h"
#include "xmalloc.h"

/* resources/list: the fixed resource table. */
json_t *
mcp_resources_list(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	return resources_list();
}

/* resources/templates/list: there are none. */
json_t *
mcp_resources_templates(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	return json_pack("{s:[]}", "resourceTemplates");
}

/*
 * Returns the index of the known resource params.uri names, or -1 after
 * setting *error (-32602 without a uri, -32002 for an unknown one).
 */
static int
mcp_resources_param(const json_t *request, const json_t *params,
    const char *method, bool modern, json_t **error)
{
	const char	*uri = jsonrpc_string(json_object_get(params, "uri"));
	char		*message;
	int		 index;

	if (uri == NULL) {
		message = xasprintf("%s needs params.uri (a string)", method);
		*error = mcp_reply_invalid_params(request, message);
		free(message);
		return -1;
	}
	if ((index = resources_index(uri)) == -1) {
		message = xasprintf("Resource not found: %s. Call "
		    "resources/list for the resources this server has.", uri);
		*error = jsonrpc_error(json_object_get(request, "id"),
		    modern ? JSONRPC_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND,
		    message,
		    json_pack("{s:s}", "uri", uri));
		free(message);
	}
	return index;
}

/* A resources/read's finish (see mcp-call.h): the contents or an error. */
static json_t *
mcp_resources_finish(struct mcp_call *call, const json_t *result,
    const char *error_code, const char *error_message)
{
	json_t	*reply, *body;
	char	*text;

	if (error_code != NULL) {
		text = xasprintf("%s: %s", error_code, error_message);
		reply = jsonrpc_error(call->request_id, JSONRPC_INTERNAL_ERROR,
		    text, json_pack("{s:s}", "code", error_code));
		free(text);
		return reply;
	}
	if (!json_is_array(json_object_get(result, "contents")))
		return jsonrpc_error(call->request_id, JSONRPC_INTERNAL_ERROR,
		    "The extension returned a resource without contents",
		    NULL);
	body = json_copy((json_t *)result);
	if (mcp_version_modern(call->session))
		mcp_modern_finish(body, "resources/read");
	return jsonrpc_result(call->request_id, body);
}

/* resources/read: asks the extension for fresh data. */
json_t *
mcp_resources_read(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	if (mcp_resources_param(request, params, "resources/read",
	    mcp_version_modern(session), error) == -1)
		return NULL;
	*call = mcp_call_start(mcp_call_new(mcp, session, request,
	    mcp_resources_finish, emit, arg), "read_resource",
	    json_pack("{s:O}", "uri", json_object_get(params, "uri")), 0);
	return NULL;
}

/* resources/subscribe: notify this session when the resource changes. */
json_t *
mcp_resources_subscribe(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	int	index;

	index = mcp_resources_param(request, params, "resources/subscribe",
	    false, error);
	if (index == -1)
		return NULL;
	session->subscriptions |= 1u << index;
	return json_object();
}

/* resources/unsubscribe: stop notifying; unsubscribed already is fine. */
json_t *
mcp_resources_unsubscribe(struct mcp *mcp, struct session *session,
    const json_t *request, const json_t *params, mcp_emit_cb emit, void *arg,
    struct mcp_call **call, json_t **error)
{
	int	index;

	index = mcp_resources_param(request, params, "resources/unsubscribe",
	    false, error);
	if (index == -1)
		return NULL;
	session->subscriptions &= ~(1u << index);
	return json_object();
}

/*
 * A resource changed: sends notifications/resources/updated to each session
 * subscribed to uri, through deliver, or when deliver is NULL on the
 * session's stream if it has one, and to each listen stream subscribed to
 * it. Returns how many were sent it; an unknown uri reaches none.
 */
size_t
mcp_resources_updated(struct mcp *mcp, const char *uri,
    mcp_deliver_cb deliver, void *arg)
{
	struct session	*s, *tmp;
	json_t		*note;
	size_t		 sent = 0;
	int		 index;

	if ((index = resources_index(uri)) == -1)
		return 0;
	note = jsonrpc_notification("notifications/resources/updated",
	    json_pack("{s:s}", "uri", uri));
	SESSION_STORE_FOREACH(s, mcp->sessions, tmp) {
		if ((s->subscriptions & (1u << index)) == 0)
			continue;
		if (deliver != NULL)
			deliver(s, note, arg);
		else if (s->stream != NULL)
			sse_stream_message(s->stream, "message", note);
		else
			continue;
		sent++;
	}
	sent += mcp_listeners_notify(mcp->listeners,
	    "notifications/resources/updated",
	    json_object_get(note, "params"));
	json_decref(note);
	return sent;
}
