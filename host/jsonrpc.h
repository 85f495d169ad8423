/*
 * JSON-RPC 2.0 messages: classify what a client sent and build replies.
 * Pure functions over jansson values; no I/O.
 */
#ifndef JSONRPC_H
#define JSONRPC_H

#include <stddef.h>

#include <jansson.h>

enum jsonrpc_kind {
	JSONRPC_REQUEST,	/* method and id */
	JSONRPC_NOTIFICATION,	/* method, no id */
	JSONRPC_RESPONSE,	/* result or error, and id */
	JSONRPC_INVALID,
};

json_t			*jsonrpc_parse(const char *text, size_t len,
			    json_t **error_reply);
const char		*jsonrpc_string(const json_t *value);
enum jsonrpc_kind	 jsonrpc_classify(const json_t *message,
			    const char **method, const json_t **id,
			    const char **cause);
json_t			*jsonrpc_result(const json_t *id, json_t *result);
json_t			*jsonrpc_error(const json_t *id, int code,
			    const char *message, json_t *data);
json_t			*jsonrpc_notification(const char *method,
			    json_t *params);

#endif
