/* POST /register: checks a client's metadata and registers it. */
#include "oauth-register.h"

#include <stdlib.h>
#include <string.h>

#include "oauth-scope.h"
#include "oauth-store.h"
#include "oauth-uri.h"
#include "xmalloc.h"

/* Returns an OAuth error body (RFC 6749 5.2, RFC 7591 3.2.2). */
json_t *
oauth_error(const char *error, const char *description)
{
	return json_pack("{s:s,s:s}", "error", error, "error_description",
	    description);
}

/*
 * Returns the name of a parameter sent more than once (null among the
 * request's fields, as http-oauth.c parses them), or NULL.
 */
const char *
oauth_repeated(const json_t *fields)
{
	const char	*name;
	json_t		*value;

	json_object_foreach((json_t *)fields, name, value) {
		if (json_is_null(value))
			return name;
	}
	return NULL;
}

/* What one registration costs of the credit: a second's share. */
#define OAUTH_REGISTER_COST_MS	(1000 / OAUTH_REGISTER_PER_SECOND)
/* The most credit kept: OAUTH_REGISTER_BURST registrations. */
#define OAUTH_REGISTER_BURST_MS	(OAUTH_REGISTER_BURST * OAUTH_REGISTER_COST_MS)

/*
 * Takes one registration from the rate's credit (a token bucket of
 * OAUTH_REGISTER_BURST, refilled OAUTH_REGISTER_PER_SECOND a second);
 * false with *retry_after_s, when the next one is allowed, once it is
 * spent.
 */
bool
oauth_register_allowed(struct oauth_register_rate *rate, uint64_t now_ms,
    unsigned *retry_after_s)
{
	if (!rate->started || now_ms < rate->at_ms) {	/* clock set back */
		rate->started = true;
		rate->credit_ms = OAUTH_REGISTER_BURST_MS;
	} else
		rate->credit_ms += now_ms - rate->at_ms;
	rate->at_ms = now_ms;
	if (rate->credit_ms > OAUTH_REGISTER_BURST_MS)
		rate->credit_ms = OAUTH_REGISTER_BURST_MS;
	if (rate->credit_ms >= OAUTH_REGISTER_COST_MS) {
		rate->credit_ms -= OAUTH_REGISTER_COST_MS;
		return true;
	}
	*retry_after_s = (unsigned)((OAUTH_REGISTER_COST_MS - rate->credit_ms +
	    999) / 1000);
	return false;
}

/* Gives back a registration taken that registered nobody (a bad request). */
void
oauth_register_refund(struct oauth_register_rate *rate)
{
	rate->credit_ms += OAUTH_REGISTER_COST_MS;
	if (rate->credit_ms > OAUTH_REGISTER_BURST_MS)
		rate->credit_ms = OAUTH_REGISTER_BURST_MS;
}

/* Says whether a metadata field is absent or an array of allowed strings. */
static bool
oauth_register_subset(const json_t *value, const char *const *allowed)
{
	const json_t	*item;
	size_t		 i, j;

	if (value == NULL)
		return true;
	if (!json_is_array(value))
		return false;
	json_array_foreach(value, i, item) {
		for (j = 0; allowed[j] != NULL; j++) {
			if (json_is_string(item) && strcmp(json_string_value(
			    item), allowed[j]) == 0)
				break;
		}
		if (allowed[j] == NULL)
			return false;
	}
	return true;
}

/* Checks the redirect URIs; NULL when fine, else the error body. */
static json_t *
oauth_register_check_uris(const json_t *uris)
{
	struct oauth_uri	 parsed;
	const json_t		*item;
	size_t			 i;

	if (!json_is_array(uris) || json_array_size(uris) == 0 ||
	    json_array_size(uris) > OAUTH_REDIRECT_URIS_MAX)
		return oauth_error("invalid_redirect_uri", "redirect_uris must "
		    "be an array of 1 to 8 loopback URIs, such as "
		    "http://127.0.0.1:PORT/callback");
	json_array_foreach(uris, i, item) {
		if (!json_is_string(item) || strlen(json_string_value(item)) >
		    OAUTH_REDIRECT_URI_MAX ||
		    oauth_uri_loopback(json_string_value(item), &parsed) != 0)
			return oauth_error("invalid_redirect_uri", "every "
			    "redirect URI must be http on loopback "
			    "(127.0.0.1, [::1] or localhost), at most 512 "
			    "bytes, without a fragment: Browser Bridge "
			    "serves programs on this machine only");
	}
	return NULL;
}

/* Checks the rest of the metadata; NULL when fine, else the error body. */
static json_t *
oauth_register_check_metadata(const json_t *request)
{
	static const char *const grants[] = { "authorization_code",
	    "refresh_token", NULL };
	static const char *const responses[] = { "code", NULL };
	const json_t	*method, *name, *scope;
	unsigned	 scopes;
	char		*cause = NULL;
	json_t		*error;

	method = json_object_get(request, "token_endpoint_auth_method");
	if (method != NULL && (!json_is_string(method) ||
	    strcmp(json_string_value(method), "none") != 0))
		return oauth_error("invalid_client_metadata",
		    "token_endpoint_auth_method must be \"none\": this server "
		    "registers public clients and issues no secrets");
	if (!oauth_register_subset(json_object_get(request, "grant_types"),
	    grants) || !oauth_register_subset(json_object_get(request,
	    "response_types"), responses))
		return oauth_error("invalid_client_metadata", "grant_types may "
		    "hold authorization_code and refresh_token, response_types "
		    "only code");
	name = json_object_get(request, "client_name");
	if (name != NULL && !json_is_string(name))
		return oauth_error("invalid_client_metadata",
		    "client_name must be a string");
	scope = json_object_get(request, "scope");
	if (scope != NULL && (!json_is_string(scope) || oauth_scope_parse(
	    json_string_value(scope), &scopes, &cause) != 0)) {
		error = oauth_error("invalid_client_metadata", cause != NULL ?
		    cause : "scope must be a string");
		free(cause);
		return error;
	}
	return NULL;
}

/*
 * Registers the client a registration request describes; returns the
 * response body, *status 201, or an error body and *status 400.
 */
json_t *
oauth_register(struct oauth_store *store, const json_t *request,
    uint64_t now_ms, int *status)
{
	struct oauth_client	*client;
	const json_t		*uris = json_object_get(request,
				    "redirect_uris");
	json_t			*reply;
	char			*cause = NULL;

	*status = 400;
	if (!json_is_object(request))
		return oauth_error("invalid_client_metadata", "the body must "
		    "be a JSON object of client metadata (RFC 7591)");
	if ((reply = oauth_register_check_uris(uris)) != NULL ||
	    (reply = oauth_register_check_metadata(request)) != NULL)
		return reply;
	client = oauth_store_register(store, json_string_value(json_object_get(
	    request, "client_name")), uris, now_ms, &cause);
	if (client == NULL) {
		reply = oauth_error("invalid_client_metadata", cause);
		free(cause);
		return reply;
	}
	*status = 201;
	reply = json_pack("{s:s,s:I,s:s,s:O,s:[ss],s:[s],s:s}", "client_id",
	    client->client_id, "client_id_issued_at",
	    (json_int_t)(now_ms / 1000), "client_name", client->name,
	    "redirect_uris", client->redirect_uris, "grant_types",
	    "authorization_code", "refresh_token", "response_types", "code",
	    "token_endpoint_auth_method", "none");
	if (json_is_string(json_object_get(request, "scope")))
		json_object_set(reply, "scope", json_object_get(request,
		    "scope"));
	return reply;
}
