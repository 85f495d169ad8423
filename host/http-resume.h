/*
 * Finds the session a request names; takes back one signed before a
 * restart. Checks that the request's key may ask what it asks.
 */
#ifndef HTTP_RESUME_H
#define HTTP_RESUME_H

#include <jansson.h>

#include "http.h"
#include "session.h"

struct evhttp_request;

struct session	*http_resume_find(struct http_transport *transport,
		    struct evhttp_request *req, const json_t *request,
		    const char *id,
		    enum session_transport kind, const char *missing,
		    const char *not_found);
int		 http_resume_scope_check(struct http_transport *transport,
		    struct evhttp_request *req, const json_t *messages);

#endif
