/*
 * The checks every HTTP request passes before its body is read: the Host
 * header names loopback (DNS-rebinding defence), a present Origin is
 * loopback or the extension's own origin, and the bearer token matches.
 * Pure functions over header values, so tests call them directly.
 */
#ifndef HTTP_GUARD_H
#define HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Host: localhost, 127.0.0.1 or [::1], with or without a port. */
bool	http_guard_host_allowed(const char *host);
/*
 * Origin: NULL (absent) passes; otherwise http(s)://localhost, 127.0.0.1 or
 * [::1] with any port, or exactly extension_origin
 * ("chrome-extension://ID", with or without the trailing slash Chrome passes
 * in argv[1]; NULL when unknown).
 */
bool	http_guard_origin_allowed(const char *origin,
	    const char *extension_origin);
/*
 * Authorization: "Bearer <token>" (scheme case-insensitive), compared in
 * constant time. A NULL header fails.
 */
bool	http_guard_bearer_valid(const char *authorization, const char *token);
/* The credential after "Bearer", and its length; NULL when none. */
const char *http_guard_bearer(const char *authorization, size_t *len);

#endif
