/* JSON-RPC 2.0 framing: parse, classify, and build results and errors. */
#include "jsonrpc.h"

#include <string.h>

#include "errors.h"

/*
 * Parses a message body. On malformed JSON returns NULL and sets
 * *error_reply to a -32700 response.
 */
json_t *
jsonrpc_parse(const char *text, size_t len, json_t **error_reply)
{
	json_error_t	 error;
	json_t		*value;

	value = json_loadb(text, len, JSON_DECODE_ANY|JSON_ALLOW_NUL, &error);
	if (value == NULL) {
		*error_reply = jsonrpc_error(NULL, JSONRPC_PARSE_ERROR,
		    "Parse error: the body is not valid JSON", json_pack(
		    "{s:s,s:i}", "detail", error.text, "position",
		    error.position));
	}
	return value;
}

/* Returns whether an id is one JSON-RPC allows here: string or integer. */
static int
jsonrpc_id_valid(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

/*
 * The C string of a JSON string, or NULL when value is not a string or
 * holds a NUL: a name or key with a NUL would compare as its prefix
 * ("host_status\u0000evil" as "host_status"), so none is ever used.
 */
const char *
jsonrpc_string(const json_t *value)
{
	const char	*text = json_string_value(value);

	if (text == NULL || strlen(text) != json_string_length(value))
		return NULL;
	return text;
}

/*
 * Sorts a message into request, notification or response. For an invalid
 * one, *cause says why and *id is set when a usable id was present.
 */
enum jsonrpc_kind
jsonrpc_classify(const json_t *message, const char **method,
    const json_t **id, const char **cause)
{
	const json_t	*version, *m, *i;

	*method = NULL;
	*id = NULL;
	if (!json_is_object(message)) {
		*cause = "a JSON-RPC message must be an object";
		return JSONRPC_INVALID;
	}
	i = json_object_get(message, "id");
	if (i != NULL && jsonrpc_id_valid(i))
		*id = i;
	version = json_object_get(message, "jsonrpc");
	if (!json_is_string(version) ||
	    strcmp(json_string_value(version), "2.0") != 0) {
		*cause = "\"jsonrpc\" must be \"2.0\"";
		return JSONRPC_INVALID;
	}
	if (i != NULL && !jsonrpc_id_valid(i)) {
		*cause = "\"id\" must be a string or an integer";
		return JSONRPC_INVALID;
	}
	m = json_object_get(message, "method");
	if (m == NULL) {
		if (i != NULL && (json_object_get(message, "result") != NULL ||
		    json_object_get(message, "error") != NULL))
			return JSONRPC_RESPONSE;
		*cause = "\"method\" is missing";
		return JSONRPC_INVALID;
	}
	if (jsonrpc_string(m) == NULL) {
		*cause = "\"method\" must be a string without NUL characters";
		return JSONRPC_INVALID;
	}
	if (json_object_get(message, "params") != NULL &&
	    !json_is_object(json_object_get(message, "params")) &&
	    !json_is_array(json_object_get(message, "params"))) {
		*cause = "\"params\" must be an object";
		return JSONRPC_INVALID;
	}
	*method = json_string_value(m);
	return i == NULL ? JSONRPC_NOTIFICATION : JSONRPC_REQUEST;
}

/* Builds a success response; steals result. */
json_t *
jsonrpc_result(const json_t *id, json_t *result)
{
	return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
	    "result", result);
}

/* Builds an error response; id may be NULL (sent as null); steals data. */
json_t *
jsonrpc_error(const json_t *id, int code, const char *message, json_t *data)
{
	json_t	*error, *reply;

	error = json_pack("{s:i,s:s}", "code", code, "message", message);
	if (data != NULL)
		json_object_set_new(error, "data", data);
	reply = json_pack("{s:s,s:o}", "jsonrpc", "2.0", "error", error);
	json_object_set_new(reply, "id", id != NULL ? json_deep_copy(id) :
	    json_null());
	return reply;
}

/* Builds a notification; steals params (may be NULL). */
json_t *
jsonrpc_notification(const char *method, json_t *params)
{
	json_t	*n = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", method);

	if (params != NULL)
		json_object_set_new(n, "params", params);
	return n;
}
