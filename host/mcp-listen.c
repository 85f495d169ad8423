/*
 * The listeners of subscriptions/listen and their filters. What a listener
 * asked for and the host honours: toolsListChanged, resourcesListChanged,
 * and resourceSubscriptions for the host's own resources. Not honoured (left
 * out of the acknowledgement, as the revision prescribes): prompt list
 * changes (there are no prompts), and task ids (task status is read with
 * tasks/get).
 */
#include "mcp-listen.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "mcp-tasks.h"
#include "queue.h"
#include "resources.h"
#include "xmalloc.h"

struct mcp_listener {
	json_t			*id;		/* the listen request's */
	bool			 tools;		/* tools/list_changed */
	bool			 resources;	/* resources/list_changed */
	unsigned int		 updates;	/* bit i: resources_index() i */
	mcp_listener_cb		 deliver;
	void			*arg;
	TAILQ_ENTRY(mcp_listener) entry;
};

struct mcp_listeners {
	TAILQ_HEAD(, mcp_listener)	 list;
	size_t				 count;
};

/* Makes an empty set of listeners. */
struct mcp_listeners *
mcp_listeners_new(void)
{
	struct mcp_listeners	*listeners = xcalloc(1, sizeof *listeners);

	TAILQ_INIT(&listeners->list);
	return listeners;
}

/* Frees the set; every listener must have been closed. */
void
mcp_listeners_free(struct mcp_listeners *listeners)
{
	free(listeners);
}

/*
 * Reads the resources a listener wants updates of: the known uris among
 * those asked for, as bits, and as the array to acknowledge. Returns -1
 * when resourceSubscriptions is not an array of strings.
 */
static int
mcp_listen_resources(const json_t *asked, unsigned int *bits, json_t *honoured)
{
	const json_t	*uri;
	json_t		*list;
	size_t		 i;
	int		 index;

	if (asked == NULL)
		return 0;
	if (!json_is_array(asked))
		return -1;
	list = json_array();
	json_array_foreach(asked, i, uri) {
		if (jsonrpc_string(uri) == NULL) {
			json_decref(list);
			return -1;
		}
		if ((index = resources_index(json_string_value(uri))) == -1 ||
		    (*bits & (1u << index)) != 0)
			continue;
		*bits |= 1u << index;
		json_array_append(list, (json_t *)uri);
	}
	json_object_set_new(honoured, "resourceSubscriptions", list);
	return 0;
}

/*
 * Builds a notification for a listener from params (borrowed, may be
 * NULL), with params._meta naming its stream.
 */
static json_t *
mcp_listen_note(const struct mcp_listener *listener, const char *method,
    const json_t *params)
{
	json_t	*copy = params != NULL ? json_deep_copy(params) : json_object();

	json_object_set_new(copy, "_meta", json_pack("{s:O}",
	    MCP_META_SUBSCRIPTION, listener->id));
	return jsonrpc_notification(method, copy);
}

/*
 * Opens a listener for a subscriptions/listen request. Returns it with
 * *reply the acknowledgement to send first (the honoured filter), or NULL
 * with *reply the error: -32602 for a malformed filter, -32021 for task ids
 * without the tasks extension, -32603 when too many streams are open.
 */
struct mcp_listener *
mcp_listeners_open(struct mcp_listeners *listeners, const json_t *request,
    bool tasks_declared, mcp_listener_cb deliver, void *arg, json_t **reply)
{
	const json_t		*id = json_object_get(request, "id");
	const json_t		*filter;
	struct mcp_listener	*listener;
	json_t			*honoured, *params;

	filter = json_object_get(json_object_get(request, "params"),
	    "notifications");
	if (!json_is_object(filter)) {
		*reply = jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
		    "subscriptions/listen needs params.notifications, the "
		    "notifications wanted (e.g. {\"toolsListChanged\": true})",
		    NULL);
		return NULL;
	}
	if (json_object_get(filter, "taskIds") != NULL && !tasks_declared) {
		*reply = mcp_tasks_missing_capability(id);
		return NULL;
	}
	if (listeners->count >= MCP_LISTENERS_MAX) {
		*reply = jsonrpc_error(id, JSONRPC_INTERNAL_ERROR, "Too many "
		    "subscriptions/listen streams are open; close some and "
		    "retry", NULL);
		return NULL;
	}
	listener = xcalloc(1, sizeof *listener);
	honoured = json_object();
	if (mcp_listen_resources(json_object_get(filter,
	    "resourceSubscriptions"), &listener->updates, honoured) != 0) {
		json_decref(honoured);
		free(listener);
		*reply = jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
		    "notifications.resourceSubscriptions must be an array of "
		    "resource uris (see resources/list)", NULL);
		return NULL;
	}
	listener->tools = json_is_true(json_object_get(filter,
	    "toolsListChanged"));
	listener->resources = json_is_true(json_object_get(filter,
	    "resourcesListChanged"));
	if (listener->tools)
		json_object_set_new(honoured, "toolsListChanged", json_true());
	if (listener->resources)
		json_object_set_new(honoured, "resourcesListChanged",
		    json_true());
	listener->id = json_incref((json_t *)id);
	listener->deliver = deliver;
	listener->arg = arg;
	TAILQ_INSERT_TAIL(&listeners->list, listener, entry);
	listeners->count++;
	params = json_pack("{s:o}", "notifications", honoured);
	*reply = mcp_listen_note(listener,
	    "notifications/subscriptions/acknowledged", params);
	json_decref(params);
	return listener;
}

/* Closes a listener (its stream ended); nothing is delivered to it after. */
void
mcp_listeners_close(struct mcp_listeners *listeners,
    struct mcp_listener *listener)
{
	TAILQ_REMOVE(&listeners->list, listener, entry);
	listeners->count--;
	json_decref(listener->id);
	free(listener);
}

/* Whether a listener asked for a notification. */
static bool
mcp_listen_wants(const struct mcp_listener *listener, const char *method,
    int resource)
{
	if (strcmp(method, "notifications/tools/list_changed") == 0)
		return listener->tools;
	if (strcmp(method, "notifications/resources/list_changed") == 0)
		return listener->resources;
	return resource != -1 && (listener->updates & (1u << resource)) != 0;
}

/*
 * Hands a change notification (params borrowed, may be NULL) to every
 * listener that asked for it; returns how many.
 */
size_t
mcp_listeners_notify(struct mcp_listeners *listeners, const char *method,
    const json_t *params)
{
	struct mcp_listener	*listener, *next;
	const char		*uri;
	json_t			*note;
	size_t			 sent = 0;
	int			 resource = -1;

	uri = json_string_value(json_object_get(params, "uri"));
	if (uri != NULL)
		resource = resources_index(uri);
	for (listener = TAILQ_FIRST(&listeners->list); listener != NULL;
	    listener = next) {
		next = TAILQ_NEXT(listener, entry);
		if (!mcp_listen_wants(listener, method, resource))
			continue;
		note = mcp_listen_note(listener, method, params);
		listener->deliver(note, listener->arg);
		json_decref(note);
		sent++;
	}
	return sent;
}
