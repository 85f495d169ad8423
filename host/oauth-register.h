/*
 * Dynamic client registration (RFC 7591) for public native clients: a
 * client names its loopback redirect URIs and gets a client id, no secret.
 * Registration needs no key, so new clients are rate-limited: a burst of
 * OAUTH_REGISTER_BURST (enough to fill every place of the approval
 * queue), then OAUTH_REGISTER_PER_SECOND a second.
 */
#ifndef OAUTH_REGISTER_H
#define OAUTH_REGISTER_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "oauth-authorize.h"

#define OAUTH_REGISTER_PER_SECOND	4
#define OAUTH_REGISTER_BURST	(OAUTH_PENDING_MAX * OAUTH_PENDING_PER_CLIENT)

struct oauth_store;

/* The registrations allowed: credit, in milliseconds of refill. */
struct oauth_register_rate {
	uint64_t	 at_ms;		/* when credit was last counted */
	uint64_t	 credit_ms;
	bool		 started;
};

json_t	*oauth_register(struct oauth_store *store, const json_t *request,
	    uint64_t now_ms, int *status);
bool	 oauth_register_allowed(struct oauth_register_rate *rate,
	    uint64_t now_ms, unsigned *retry_after_s);
void	 oauth_register_refund(struct oauth_register_rate *rate);
json_t	*oauth_error(const char *error, const char *description);
const char *oauth_repeated(const json_t *fields);

#endif
