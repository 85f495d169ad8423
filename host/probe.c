/* Finding a running host: its process, GET /health. */
#include "probe.h"

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include "proof.h"
#include "xmalloc.h"

/* Largest response read (the health answer is about a hundred bytes). */
#define PROBE_RESPONSE_MAX	(64 * 1024)

/* What one GET gathered: the answer, or why there is none. */
struct probe_get {
	struct event_base *base;
	int		 port;
	const char	*path;
	int		 timeout_ms;
	int		 status;
	char		*body;
	char		*cause;
};

/*
 * Keeps the answer of a finished GET, and ends the loop: the idle
 * connection would otherwise keep it running until the timeout.
 */
static void
probe_get_done(struct evhttp_request *req, void *arg)
{
	struct probe_get	*get = arg;
	struct evbuffer		*input;
	size_t			 len;

	event_base_loopbreak(get->base);
	if (req == NULL || evhttp_request_get_response_code(req) == 0) {
		if (get->cause == NULL)
			get->cause = xasprintf("cannot connect to 127.0.0.1:%d",
			    get->port);
		return;
	}
	get->status = evhttp_request_get_response_code(req);
	input = evhttp_request_get_input_buffer(req);
	len = evbuffer_get_length(input);
	get->body = xmalloc(len + 1);
	evbuffer_remove(input, get->body, len);
	get->body[len] = '\0';
}

/* Words for why a GET failed before it had an answer. */
static void
probe_get_failed(enum evhttp_request_error error, void *arg)
{
	struct probe_get	*get = arg;

	free(get->cause);
	switch (error) {
	case EVREQ_HTTP_TIMEOUT:
		get->cause = xasprintf("127.0.0.1:%d did not answer %s within "
		    "%d ms", get->port, get->path, get->timeout_ms);
		break;
	case EVREQ_HTTP_DATA_TOO_LONG:
		get->cause = xasprintf("127.0.0.1:%d answered %s with more "
		    "than %d bytes", get->port, get->path, PROBE_RESPONSE_MAX);
		break;
	case EVREQ_HTTP_INVALID_HEADER:
		get->cause = xasprintf("127.0.0.1:%d did not answer %s with "
		    "HTTP", get->port, get->path);
		break;
	default:
		get->cause = xasprintf("cannot connect to 127.0.0.1:%d, or it "
		    "closed the connection", get->port);
		break;
	}
}

/*
 * GETs path from 127.0.0.1:port with libevent's HTTP client on a private
 * event base, within timeout_ms, with an Authorization header when
 * authorization is not NULL; blocking, for commands.
 */
static int
probe_http_request(int port, const char *path, const char *authorization,
    int timeout_ms, int *status, char **body, char **cause)
{
	struct probe_get		 get = { .port = port, .path = path,
					     .timeout_ms = timeout_ms };
	struct timeval			 tv = { timeout_ms / 1000,
					     (timeout_ms % 1000) * 1000 };
	struct event_base		*base;
	struct evhttp_connection	*conn;
	struct evhttp_request		*req;
	char				 host[32];

	if ((base = event_base_new()) == NULL) {
		*cause = xstrdup("cannot create an event base");
		return -1;
	}
	get.base = base;
	conn = evhttp_connection_base_new(base, NULL, "127.0.0.1",
	    (ev_uint16_t)port);
	evhttp_connection_set_timeout_tv(conn, &tv);
	evhttp_connection_set_max_body_size(conn, PROBE_RESPONSE_MAX);
	req = evhttp_request_new(probe_get_done, &get);
	evhttp_request_set_error_cb(req, probe_get_failed);
	(void)snprintf(host, sizeof host, "127.0.0.1:%d", port);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
	    host);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Accept",
	    "application/json");
	if (authorization != NULL)
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Authorization", authorization);
	if (evhttp_make_request(conn, req, EVHTTP_REQ_GET, path) == 0)
		event_base_dispatch(base);
	else if (get.cause == NULL)
		get.cause = xasprintf("cannot send a request to 127.0.0.1:%d",
		    port);
	evhttp_connection_free(conn);
	event_base_free(base);
	if (get.body == NULL) {
		*cause = get.cause != NULL ? get.cause :
		    xasprintf("127.0.0.1:%d gave no answer", port);
		return -1;
	}
	free(get.cause);
	*status = get.status;
	*body = get.body;
	return 0;
}

/* GETs path from 127.0.0.1:port, without credentials; see above. */
int
probe_http_get(int port, const char *path, int timeout_ms, int *status,
    char **body, char **cause)
{
	return probe_http_request(port, path, NULL, timeout_ms, status, body,
	    cause);
}

/*
 * The clients connected to a host that has proved it holds the token
 * (call probe_health first): its authenticated /health's "clients", or
 * NULL when it cannot be had.
 */
json_t *
probe_clients(int port, const char *token, int timeout_ms)
{
	json_t	*health, *clients;
	char	*authorization, *body = NULL, *cause = NULL;
	int	 status, rc;

	authorization = xasprintf("Bearer %s", token);
	rc = probe_http_request(port, "/health", authorization, timeout_ms,
	    &status, &body, &cause);
	free(authorization);
	free(cause);
	if (rc != 0 || status != 200) {
		free(body);
		return NULL;
	}
	health = json_loads(body, 0, NULL);
	free(body);
	clients = json_incref(json_object_get(health, "clients"));
	json_decref(health);
	if (!json_is_array(clients)) {
		json_decref(clients);
		return NULL;
	}
	return clients;
}

/*
 * GETs /health and returns its JSON object. With a token, first checks
 * that the listener proves it holds that token (proof.h), so the caller
 * never hands the token to a process that merely holds the port.
 */
json_t *
probe_health(int port, const char *token, int timeout_ms, char **cause)
{
	json_error_t	 error;
	json_t		*health;
	char		 nonce[PROOF_NONCE_HEX + 1], *body = NULL, *path;
	int		 status, rc;

	if (token != NULL && proof_nonce(nonce) != 0) {
		*cause = xstrdup("cannot make a random nonce");
		return NULL;
	}
	path = token != NULL ? xasprintf("/health?nonce=%s", nonce) :
	    xstrdup("/health");
	rc = probe_http_get(port, path, timeout_ms, &status, &body, cause);
	free(path);
	if (rc != 0)
		return NULL;
	if (status != 200) {
		*cause = xasprintf("GET /health on port %d answered HTTP %d",
		    port, status);
		free(body);
		return NULL;
	}
	health = json_loads(body, 0, &error);
	free(body);
	if (!json_is_object(health)) {
		*cause = xasprintf("GET /health on port %d did not answer a "
		    "JSON object", port);
		json_decref(health);
		return NULL;
	}
	if (token != NULL && !proof_check(token, PROOF_HEALTH, nonce,
	    json_string_value(json_object_get(health, "proof")))) {
		*cause = xasprintf("the process listening on 127.0.0.1:%d "
		    "could not prove it is the Browser Bridge host (it does "
		    "not know the token), so the token was not sent to it; "
		    "another program holds the host's port", port);
		json_decref(health);
		return NULL;
	}
	return health;
}
