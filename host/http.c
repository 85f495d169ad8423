/* What every HTTP route uses: headers, JSON bodies, JSON replies. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "errors.h"
#include "jsonrpc.h"

/* Returns a request header's value, or NULL. */
const char *
http_header(struct evhttp_request *req, const char *name)
{
	return evhttp_find_header(evhttp_request_get_input_headers(req), name);
}

/* Sends a JSON body (stolen; NULL for none) with a status. */
void
http_reply_json(struct evhttp_request *req, int status, const char *reason,
    json_t *body)
{
	struct evbuffer	*buf = evbuffer_new();
	char		*text;

	if (body != NULL) {
		text = json_dumps(body, JSON_COMPACT);
		evbuffer_add(buf, text, strlen(text));
		free(text);
		json_decref(body);
	}
	evhttp_send_reply(req, status, reason, buf);
	evbuffer_free(buf);
}

/* Sends an HTTP error whose body is a JSON-RPC error with a null id. */
void
http_reply_error(struct evhttp_request *req, int status, const char *reason,
    int code, const char *message)
{
	http_reply_error_to(req, status, reason, NULL, code, message);
}

/*
 * Sends an HTTP error whose body is a JSON-RPC error answering request: it
 * carries the request's id when request is one message with a string or
 * integer id (NULL, a batch or no id: a null id).
 */
void
http_reply_error_to(struct evhttp_request *req, int status,
    const char *reason, const json_t *request, int code, const char *message)
{
	json_t	*id = json_is_object(request) ?
		    json_object_get(request, "id") : NULL;

	if (!json_is_string(id) && !json_is_integer(id))
		id = NULL;
	http_reply_json(req, status, reason,
	    jsonrpc_error(id, code, message, NULL));
}

/*
 * Reads a request's JSON body. On failure replies (415 or 400) and returns
 * -1.
 */
int
http_body_json(struct evhttp_request *req, json_t **body)
{
	struct evbuffer	*in = evhttp_request_get_input_buffer(req);
	const char	*type = http_header(req, "Content-Type");
	json_t		*error = NULL;
	size_t		 len = evbuffer_get_length(in);

	if (type == NULL || strncasecmp(type, "application/json", 16) != 0) {
		http_reply_error(req, 415, "Unsupported Media Type",
		    JSONRPC_INVALID_REQUEST, "Send the message as "
		    "Content-Type: application/json");
		return -1;
	}
	*body = jsonrpc_parse((const char *)evbuffer_pullup(in, len), len,
	    &error);
	if (*body == NULL) {
		http_reply_json(req, 400, "Bad Request", error);
		return -1;
	}
	return 0;
}
