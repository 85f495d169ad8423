/*
 * Dynamic client registration (RFC 7591) for public native clients: a
 * client names its loopback redirect URIs and gets a client id, no secret.
 */
#ifndef OAUTH_REGISTER_H
#define OAUTH_REGISTER_H

#include <stdint.h>

#include <jansson.h>

struct oauth_store;

json_t	*oauth_register(struct oauth_store *store, const json_t *request,
	    uint64_t now_ms, int *status);
json_t	*oauth_error(const char *error, const char *description);

#endif
