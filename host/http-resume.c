/*
 * Which session a request names, and the resume policy: a Streamable HTTP
 * session id this host signed before it restarted is taken back.
 */
#include "http-resume.h"

#include <stdio.h>
#include <stdlib.h>

#include <event2/http.h>

#include "clock.h"
#include "errors.h"
#include "log.h"
#include "mcp.h"
#include "mcp-version.h"
#include "oauth-metadata.h"
#include "oauth-scope.h"
#include "xmalloc.h"

/*
 * Takes back a Streamable HTTP session this host made before it restarted
 * (its id carries the MAC of the host's token): the client goes on as if
 * nothing happened. The protocol version comes from the request's header,
 * as the client sends it after initialize (absent: 2025-03-26). NULL when
 * the id is not one of ours.
 */
static struct session *
http_resume_signed(struct http_transport *transport,
    struct evhttp_request *req, const char *id)
{
	struct session	*session;
	const char	*version = http_header(req, "MCP-Protocol-Version");

	session = session_store_resume(transport->sessions, id,
	    SESSION_STREAMABLE, clock_now_ms(transport->clock));
	if (session == NULL)
		return NULL;
	snprintf(session->protocol_version, sizeof session->protocol_version,
	    "%s", version != NULL && mcp_version_supported(version) ?
	    version : MCP_DEFAULT_VERSION);
	session->initialized = true;
	log_info(transport->log, "MCP session %.8s resumed (the host restarted "
	    "since it began)", session->id);
	return session;
}

/*
 * Finds the session of a transport that id names and marks it used. On
 * failure replies 400 (no id: missing says what to send) or 404 (unknown,
 * ended or another transport's: not_found says what to do), answering
 * request's id when it has one, and returns NULL.
 */
struct session *
http_resume_find(struct http_transport *transport,
    struct evhttp_request *req, const json_t *request, const char *id,
    enum session_transport kind, const char *missing, const char *not_found)
{
	struct session	*session;

	if (id == NULL) {
		http_reply_error_to(req, 400, "Bad Request", request,
		    JSONRPC_INVALID_REQUEST, missing);
		return NULL;
	}
	session = session_store_find(transport->sessions, id,
	    clock_now_ms(transport->clock));
	if (session == NULL && kind == SESSION_STREAMABLE &&
	    (session = http_resume_signed(transport, req, id)) != NULL)
		session->grant = *transport->grant;	/* taken back: its key's */
	/* Another key's session is no session of this one. */
	if (session == NULL || session->transport != kind ||
	    !session_grant_matches(session, transport->grant)) {
		http_reply_error_to(req, 404, "Not Found", request,
		    JSONRPC_INVALID_REQUEST, not_found);
		return NULL;
	}
	session->grant.scopes = transport->grant->scopes;	/* refreshed */
	return session;
}

/*
 * Refuses a request whose key lacks a scope one of its messages needs:
 * 403 with the challenge that names the scopes to ask for (MCP
 * authorization, "Scope challenge handling"). Returns -1 when it replied.
 */
int
http_resume_scope_check(struct http_transport *transport,
    struct evhttp_request *req, const json_t *messages)
{
	const json_t	*m;
	unsigned	 needed = 0;
	size_t		 i;
	char		*challenge, *names, *message;

	json_array_foreach(messages, i, m)
		needed |= mcp_scope_needed(transport->mcp, m);
	if ((needed & ~transport->grant->scopes) == 0)
		return 0;
	challenge = oauth_metadata_challenge(transport->port,
	    "insufficient_scope", needed | transport->grant->scopes);
	names = oauth_scope_format(needed & ~transport->grant->scopes);
	message = xasprintf("insufficient_scope: this client's key lacks "
	    "the scope %s. Authorize again asking for it; the person "
	    "approves it in the Browser Bridge popup", names);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "WWW-Authenticate", challenge);
	http_reply_error_to(req, 403, "Forbidden", json_is_array(messages) &&
	    json_array_size(messages) == 1 ? json_array_get(messages, 0) :
	    NULL, JSONRPC_INVALID_REQUEST, message);
	free(challenge);
	free(names);
	free(message);
	return -1;
}
